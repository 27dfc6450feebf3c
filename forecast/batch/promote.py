"""Champion and challenger: the promotion rule over live scores, and the alias move.

The challenger forecasts in shadow: ``forecast batch --model models:/name@challenger`` writes
its forecasts to a file pattern of its own (nothing serves them) and ``forecast score`` scores
them as it scores the champion's. :func:`promotion_decision` is the rule: over the issue dates
both have scored (status ``scored``), at least ``min_days`` of them, the challenger's mean
``metric`` must be below the champion's by more than ``margin`` (a fraction: 0.02 asks for 2 %
less error). A live record is that of one exact version: :func:`promote` counts only the
forecasts the champion's version made and those the challenger's version made (the versions
the aliases point at now; which version made a forecast is what its batch run recorded,
:func:`forecast.batch.versions.forecast_versions`), so days of an earlier challenger or an
earlier champion never fill the rule's days. When the rule is met the champion alias moves to
the challenger's version; either way the reason is logged and set as the tags
``promotion_decision`` and ``promotion_reason`` of the registered model.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd

from forecast.batch.files import BatchError
from forecast.batch.logs import LOGGER
from forecast.batch.score import read_scores
from forecast.batch.versions import forecast_versions

__all__ = ["Decision", "promote", "promotion_decision"]

_log = logging.getLogger(LOGGER)


@dataclass
class Decision:
    """Outcome of the promotion rule.

    Attributes
    ----------
    promote : bool
        Whether the challenger takes the champion's place.
    days : int
        Issue dates both have scored.
    champion, challenger : float
        Mean ``metric`` of each over those dates (NaN without any).
    reason : str
        One line: the figures and the rule.
    own_days : tuple of int
        Scored days of the champion's and of the challenger's records (each counted alone).
    """

    promote: bool
    days: int
    champion: float
    challenger: float
    reason: str
    own_days: tuple[int, int] = (0, 0)


def promotion_decision(
    champion: pd.DataFrame,
    challenger: pd.DataFrame,
    *,
    min_days: int = 28,
    margin: float = 0.0,
    metric: str = "mape",
    versions: tuple[str, str] | None = None,
) -> Decision:
    """Apply the promotion rule to the live scores of champion and challenger.

    Parameters
    ----------
    champion, challenger : DataFrame
        Tables of ``forecast score`` (``issue_date``, ``status`` and ``metric`` columns).
    min_days : int
        Issue dates both must have scored; fewer never promote.
    margin : float
        Fraction of the champion's error the challenger must be below it by.
    metric : str
        Column compared (lower is better).
    versions : tuple of str, optional
        ``(champion version, challenger version)``: count only the rows of each table whose
        ``model_version`` is that version (the forecasts that exact version made).

    Returns
    -------
    Decision
    """
    if isinstance(min_days, bool) or not isinstance(min_days, int) or min_days < 1:
        raise ValueError(f"min_days must be a positive int, got {min_days!r}")
    if not 0 <= margin < 1:
        raise ValueError(f"margin must be in [0, 1), got {margin!r}")
    scored = []
    wanted = ("issue_date", "status", metric) + (("model_version",) if versions else ())
    for k, (name, table) in enumerate((("champion", champion), ("challenger", challenger))):
        missing = [c for c in wanted if c not in table.columns]
        if missing:
            raise ValueError(f"{name} scores lack the column(s) {missing}")
        done = table[table["status"] == "scored"]
        if versions is not None:
            done = done[done["model_version"].astype(object).map(_text) == str(versions[k])]
        if done["issue_date"].duplicated().any():
            raise ValueError(f"{name} scores hold an issue date twice (several series?)")
        scored.append(done.set_index(done["issue_date"].astype(str))[metric].astype(float))
    both = pd.concat(scored, axis=1, keys=["champion", "challenger"], join="inner").dropna()
    days = len(both)
    means = (
        (float(both["champion"].mean()), float(both["challenger"].mean()))
        if days
        else (math.nan, math.nan)
    )
    own = (len(scored[0]), len(scored[1]))
    figures = f"{metric} {means[1]:.4g} (challenger) vs {means[0]:.4g} (champion)"
    figures += f" over {days} day(s)"
    if versions is not None:
        figures += (
            f" both versions forecast and scored (of {own[1]} scored day(s) of the challenger's "
            f"version and {own[0]} of the champion's)"
        )
    if days < min_days:
        reason = f"{figures}: the rule asks {min_days}; not promoted"
        return Decision(False, days, *means, reason, own)
    better = means[1] < means[0] * (1 - margin)
    rule = f"the rule asks the challenger below the champion by more than {margin:.0%}"
    verdict = "promoted" if better else "not promoted"
    return Decision(better, days, *means, f"{figures}; {rule}: {verdict}", own)


def _text(value: object) -> str | None:
    """Return a version as text (``2``, ``2.0`` and ``"2"`` alike); None for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def promote(
    name: str,
    champion_scores: str | os.PathLike[str],
    challenger_scores: str | os.PathLike[str],
    *,
    champion: str = "champion",
    challenger: str = "challenger",
    min_days: int = 28,
    margin: float = 0.0,
    tracking_uri: str | None = None,
) -> Decision:
    """Move the ``champion`` alias of ``name`` to the challenger when the rule says so.

    Parameters
    ----------
    name : str
        Registered model.
    champion_scores, challenger_scores : str or path-like
        The ``forecast score --output`` tables of the champion's and the challenger's
        forecasts. Of each only the forecasts of the version its alias points at count: the
        version a forecast's batch run recorded for its file (``file_sha256``); a forecast no
        batch run of the store records counts for neither.
    champion, challenger : str
        The aliases.
    min_days, margin : int, float
        The rule (:func:`promotion_decision`).
    tracking_uri : str, optional
        The store of the registry.

    Returns
    -------
    Decision

    Raises
    ------
    BatchError
        A missing registered model or alias, or unreadable scores, or scores without
        ``file_sha256`` (one line); nothing was changed.
    """
    # optional: the registry needs mlflow, seconds to import
    from mlflow.exceptions import MlflowException

    from forecast.tracking._store import client as make_client  # imports mlflow too

    tables = {
        "champion": read_scores(champion_scores),
        "challenger": read_scores(challenger_scores),
    }
    paths = {"champion": champion_scores, "challenger": challenger_scores}
    client = make_client(tracking_uri)
    try:
        old = str(client.get_model_version_by_alias(name, champion).version)
        new = str(client.get_model_version_by_alias(name, challenger).version)
        for role, table in tables.items():
            try:
                table["model_version"] = forecast_versions(client, name, table)
            except BatchError as err:
                raise BatchError(f"{role} scores {paths[role]}: {err}") from None
    except MlflowException as err:
        raise BatchError(f"model {name}: {str(err).splitlines()[0]}; nothing was changed") from None
    decision = promotion_decision(
        tables["champion"], tables["challenger"], min_days=min_days, margin=margin,
        versions=(old, new),
    )  # fmt: skip
    reason = f"{challenger} version {new} vs {champion} version {old}: {decision.reason}"
    decision.reason = reason
    if decision.promote:
        client.set_registered_model_alias(name, champion, str(new))
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    client.set_registered_model_tag(name, "promotion_decision", f"{stamp} {reason}")
    client.set_model_version_tag(name, str(new), "promotion_reason", reason)
    _log.info("%s", reason)
    return decision
