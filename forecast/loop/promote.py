"""Champion and challenger: the promotion rule over live scores, and the alias move.

The challenger forecasts in shadow: ``forecast batch --model models:/name@challenger`` writes
its forecasts to a file pattern of its own (nothing serves them) and ``forecast score`` scores
them as it scores the champion's. :func:`promotion_decision` is the rule; the question it
answers is "would serving the challenger have beaten what we served?". Over the issue dates
both records have scored (status ``scored``), at least ``min_days`` of them, the challenger's
mean ``metric`` must be below the champion's by more than ``margin`` (a fraction: 0.02 asks
for 2 % less error). The two records are not alike (:func:`promote`):

- the challenger's record is that of its exact version, the one that would be promoted: days
  an earlier challenger, or the same challenger before an update, forecast never count;
- the champion's record is the served one: every forecast made under the champion alias, by
  whichever version was champion that day (the weekly ``forecast update`` makes a new version
  every week), and those of a version named by number (a missed day recovered by hand).

Which version made a forecast, and under which alias, is what its batch run recorded
(:func:`forecast.loop.versions.forecast_records`). A challenger version that is the
champion, or has served as champion, is not promoted again: after a promotion the challenger
alias needs a new candidate. When the rule is met the champion alias moves to the challenger's
version; either way the reason is logged and set as the tags ``promotion_decision`` and
``promotion_reason`` of the registered model.

Promotion is on evidence only: a scored forecast whose ``metric`` cannot be (not finite, or
negative for an error such as MAPE; edited or corrupted scores) refuses the decision
(``Decision.refused``): the reason is recorded in the same tags, nothing moves, and
:func:`promote` raises.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from forecast.batch.files import BatchError
from forecast.batch.logs import logger_name
from forecast.frames.messages import first_line
from forecast.loop.score import read_scores
from forecast.loop.versions import ALIAS_COLUMN, VERSION_COLUMN, forecast_records

__all__ = ["Decision", "promote", "promotion_decision"]

_log = logging.getLogger(logger_name("promote"))


@dataclass
class Decision:
    """Outcome of the promotion rule.

    Attributes
    ----------
    promote : bool
        Whether the challenger takes the champion's place.
    days : int
        Issue dates both records have scored (the shared days).
    champion, challenger : float
        Mean ``metric`` of each over those dates (NaN without any).
    reason : str
        One line: the figures, the versions and the rule.
    own_days : tuple of int
        Scored days of the champion's and of the challenger's records (each counted alone).
    served : tuple of str
        The versions that served the shared days (of the whole served record without any);
        empty without versions.
    refused : bool
        The scores hold a value that cannot be (not finite, or a negative error): no
        decision was taken on them (``promote`` is False).
    """

    promote: bool
    days: int
    champion: float
    challenger: float
    reason: str
    own_days: tuple[int, int] = (0, 0)
    served: tuple[str, ...] = ()
    refused: bool = False


def promotion_decision(
    champion: pd.DataFrame,
    challenger: pd.DataFrame,
    *,
    min_days: int = 28,
    margin: float = 0.0,
    metric: str = "mape",
    versions: tuple[str | None, str] | None = None,
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
    versions : tuple, optional
        ``(the version the champion alias points at now, the challenger's version)``; both
        tables then need ``model_version`` (the version that made each forecast). The
        challenger's record is the rows of its version only; the champion's is every row with
        a version (the served record, whichever version served; leave out beforehand the rows
        that were not served). A challenger version that is the champion's, or that served a
        day of the champion's table, is not promoted.

    Returns
    -------
    Decision
    """
    if isinstance(min_days, bool) or not isinstance(min_days, int) or min_days < 1:
        raise ValueError(f"min_days must be a positive int, got {min_days!r}")
    if not 0 <= margin < 1:
        raise ValueError(f"margin must be in [0, 1), got {margin!r}")
    wanted = ("issue_date", "status", metric) + (("model_version",) if versions else ())
    records = []
    for name, table in (("champion", champion), ("challenger", challenger)):
        missing = [c for c in wanted if c not in table.columns]
        if missing:
            raise ValueError(f"{name} scores lack the column(s) {missing}")
        if versions is not None:
            version = table["model_version"].astype(object).map(_text)
            keep = version.notna() if name == "champion" else version == str(versions[1])
            table = table.assign(model_version=version)[keep]
        records.append(table)
    served_ever = set(records[0]["model_version"].dropna()) if versions else set()
    scored = []
    for name, table in zip(("champion", "challenger"), records, strict=True):
        done = table[table["status"] == "scored"]
        if done["issue_date"].duplicated().any():
            raise ValueError(f"{name} scores hold an issue date twice (several series?)")
        scored.append(done.set_index(done["issue_date"].astype(str)))
    impossible = _impossible(scored, metric)
    if impossible:
        reason = f"{impossible}: refused, no decision on scores that cannot be; not promoted"
        return Decision(False, 0, math.nan, math.nan, reason, refused=True)
    both = pd.concat(
        [scored[0][metric].astype(float), scored[1][metric].astype(float)],
        axis=1, keys=["champion", "challenger"], join="inner",
    ).dropna()  # fmt: skip
    days = len(both)
    means = (
        (float(both["champion"].mean()), float(both["challenger"].mean()))
        if days
        else (math.nan, math.nan)
    )
    own = (len(scored[0]), len(scored[1]))
    served: tuple[str, ...] = ()
    if versions is None:
        figures = f"champion {metric} {means[0]:.4g} vs challenger {metric} {means[1]:.4g}"
    else:
        on_shared = scored[0].loc[both.index, "model_version"] if days else served_ever
        served = tuple(sorted(set(on_shared), key=_order))
        named = f"version{'s' if len(served) > 1 else ''} {', '.join(served)} served"
        figures = (
            f"champion ({named if served else 'nothing served'}) {metric} {means[0]:.4g} vs "
            f"challenger version {versions[1]} {metric} {means[1]:.4g}"
        )
    figures += f" over {days} shared day(s)"
    if versions is not None:
        counts = f"{own[0]} day(s) of the served record, {own[1]} of the challenger's version"
        figures += f" (scored: {counts})"
        new = str(versions[1])
        if new == _text(versions[0]) or new in served_ever:
            reason = (
                f"{figures}: challenger version {new} is the champion or has served as "
                "champion; point the challenger alias at a new candidate; not promoted"
            )
            return Decision(False, days, *means, reason, own, served)
    if days < min_days:
        reason = f"{figures}: the rule asks {min_days}; not promoted"
        return Decision(False, days, *means, reason, own, served)
    better = means[1] < means[0] * (1 - margin)
    rule = f"the rule asks the challenger below the champion by more than {margin:.0%}"
    verdict = "promoted" if better else "not promoted"
    return Decision(better, days, *means, f"{figures}; {rule}: {verdict}", own, served)


def _impossible(scored: list[pd.DataFrame], metric: str) -> str | None:
    """Name the first scored value of ``metric`` that cannot be (None: all can be).

    Every error of a scored forecast is finite, and every error but the bias is >= 0.
    """
    for name, table in zip(("champion", "challenger"), scored, strict=True):
        values = pd.to_numeric(table[metric], errors="coerce").astype(float)
        bad = ~np.isfinite(values.to_numpy())
        if metric != "bias":
            bad |= values.to_numpy() < 0
        if bad.any():
            date, value = values.index[bad][0], float(values.to_numpy()[bad][0])
            return (
                f"{name} scores hold {metric} {value!r} for issue date {date} "
                f"({int(bad.sum())} such value(s))"
            )
    return None


def _text(value: object) -> str | None:
    """Return a version as text (``2``, ``2.0`` and ``"2"`` alike); None for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _order(version: str) -> tuple[int, str]:
    """Sort key of a version: numerically where it is a number."""
    return (int(version), "") if version.isdigit() else (1 << 62, version)


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
        The ``forecast score --output`` tables of the champion's (served) and the
        challenger's (shadow) forecasts. The version that made each forecast and the alias it
        was run under are those its batch run recorded for its file (``file_sha256``). Of the
        champion's table the served record counts: the forecasts run under the ``champion``
        alias, by whichever version, and those of a version named by number
        (``models:/name/N``, a recovered day); a forecast run under another alias is left out
        with a warning. Of the challenger's table only the forecasts of the version the
        ``challenger`` alias points at now count. A forecast no batch run of the store records
        counts for neither.
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
        ``file_sha256`` (one line); nothing was changed. Also scores that cannot be
        (``Decision.refused``), after the reason was recorded in the tags.
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
                records = forecast_records(client, name, table)
            except BatchError as err:
                raise BatchError(f"{role} scores {paths[role]}: {err}") from None
            table[VERSION_COLUMN] = records[VERSION_COLUMN]
            if role == "champion":
                aliases = records[ALIAS_COLUMN]
                other = aliases.notna() & (aliases != champion) & table[VERSION_COLUMN].notna()
                if other.any():
                    dates = ", ".join(map(str, table.loc[other, "issue_date"]))
                    _log.warning(
                        "%d forecast(s) of %s were run under another alias than %s, not "
                        "counted as served (issued %s)",
                        int(other.sum()), champion_scores, champion, dates,
                    )  # fmt: skip
                    tables[role] = table[~other]
    except MlflowException as err:
        raise BatchError(f"model {name}: {first_line(err)}; nothing was changed") from None
    decision = promotion_decision(
        tables["champion"], tables["challenger"], min_days=min_days, margin=margin,
        versions=(old, new),
    )  # fmt: skip
    reason = decision.reason
    if decision.promote:
        client.set_registered_model_alias(name, champion, str(new))
        reason += f" ({champion} alias moved from version {old} to {new})"
    decision.reason = reason
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    client.set_registered_model_tag(name, "promotion_decision", f"{stamp} {reason}")
    client.set_model_version_tag(name, str(new), "promotion_reason", reason)
    if decision.refused:
        raise BatchError(reason)
    _log.info("%s", reason)
    return decision
