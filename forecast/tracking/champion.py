"""The champion of a comparison: its best model that can be served, logged and registered.

After :func:`forecast.evaluation.compare.compare` ran with an :class:`MLflowTracker`, the models are
ranked by one metric (lower is better), and the first one that can be logged as a pyfunc
model (see :func:`~forecast.tracking.pyfunc.unloggable_reason`; a model with future
covariates, such as the ``external`` model of a forecast column, reads them from the rows of
its input after the history) is logged in its child run, registered under a name and given
an alias::

    result = compare(models, data, tracker=tracker, protocol="day-ahead", start="2023-01-01")
    champion = register_champion(tracker, result, "power-load-de", select="mape")
    mlflow.pyfunc.load_model("models:/power-load-de@champion")

The fitted estimator of each backtest (``BacktestResult.estimator``, the last fold's) is
what gets logged.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from forecast.evaluation.compare import NOT_METRICS
from forecast.tracking import _runs
from forecast.tracking.pyfunc import log_model, register, unloggable_reason

if TYPE_CHECKING:
    from mlflow import MlflowClient

__all__ = ["Champion", "register_champion", "selectable_metrics"]

_log = logging.getLogger("forecast.tracking")


@dataclass
class Champion:
    """The model :func:`register_champion` registered.

    Attributes
    ----------
    model : str
        Its name in the comparison.
    metric : str
        The metric it was selected by, and ``value`` its score.
    value : float
        Its score.
    run_id : str
        Its backtest run (a child of the comparison run), where the model is logged.
    model_uri : str
        The logged model (``models:/<model_id>``).
    registered_name, version, alias : str
        The registered model, the new version, and the alias pointing at it.
    skipped : dict of str to str
        Better-scored models that could not be logged, with the reason.
    """

    model: str
    metric: str
    value: float
    run_id: str
    model_uri: str
    registered_name: str
    version: str
    alias: str
    skipped: dict[str, str] = field(default_factory=dict)


def selectable_metrics(columns: Iterable[object]) -> list[str]:
    """Columns of a comparison table a champion can be selected by (lower is better)."""
    return [str(c) for c in columns if c not in (*NOT_METRICS, "bias")]


def check_select(select: str, columns: Iterable[object]) -> None:
    """Raise a ValueError naming the choices if ``select`` is not a selectable column."""
    choices = selectable_metrics(columns)
    if select not in choices:
        why = " (signed: lower is not better)" if select == "bias" else ""
        raise ValueError(f"cannot select the champion by {select!r}{why}; choose one of {choices}")


def register_champion(
    tracker: Any,
    comparison: Any,
    registered_name: str,
    *,
    alias: str = "champion",
    select: str = "mape",
    history: pd.DataFrame | None = None,
) -> Champion:
    """Log and register the best model of a tracked comparison that can be logged.

    Parameters
    ----------
    tracker : MLflowTracker
        The tracker the comparison ran with (its ``runs`` name each model's run).
    comparison : ComparisonResult
        From :func:`forecast.evaluation.compare.compare`.
    registered_name : str
        Registered model name, e.g. ``"power-load-de"``.
    alias : str
        Alias set on the new version (``models:/<name>@<alias>``).
    select : str
        Column of ``comparison.table`` to rank by, lower is better (e.g. ``"mape"``).
    history : DataFrame, optional
        Data the input example is cut from (usually the comparison's data).

    Returns
    -------
    Champion

    Raises
    ------
    ValueError
        If ``select`` is not a metric column, or no scored model can be logged.
    """
    table = comparison.table
    check_select(select, table.columns)
    ranking = table[select].dropna().sort_values(kind="stable")
    skipped: dict[str, str] = {}
    for model_name, value in ranking.items():
        fitted = comparison.results[model_name].estimator
        reason = unloggable_reason(fitted)
        if reason is not None:
            skipped[str(model_name)] = reason
            _log.info("champion: %s is skipped: %s", model_name, reason)
            continue
        if model_name not in tracker.runs:
            raise ValueError(f"model {model_name!r} has no run in this tracker: was it tracked?")
        run_id = tracker.runs[model_name]
        model_uri = tracker.models.get(model_name)
        if model_uri is None:
            info = log_model(fitted, run_id, tracking_uri=tracker.tracking_uri, history=history)
            model_uri = info.model_uri
        version = register(model_uri, registered_name, alias, tracker.tracking_uri)
        champion = Champion(
            str(model_name),
            select,
            float(value),
            run_id,
            model_uri,
            registered_name,
            version,
            alias,
            skipped,
        )
        _tag(tracker.client, champion)
        _log.info(
            "champion: %s (%s=%.4g) registered as %s version %s, alias @%s",
            model_name,
            select,
            value,
            registered_name,
            version,
            alias,
        )
        return champion
    scored = ", ".join(f"{k}: {v}" for k, v in skipped.items()) or "none has a finite score"
    raise ValueError(f"no model of the comparison can be registered by {select!r} ({scored})")


def _tag(client: MlflowClient, champion: Champion) -> None:
    """Name the champion on the comparison run, and the comparison on the model version."""
    parent = client.get_run(champion.run_id).data.tags.get("mlflow.parentRunId")
    score = f"{champion.metric}={champion.value:.6g}" if math.isfinite(champion.value) else ""
    if parent:
        _runs.log_tags(
            client,
            parent,
            {
                "champion": champion.model,
                "champion_by": champion.metric,
                "champion_version": f"{champion.registered_name}/{champion.version}",
            },
        )
    tags = {"comparison_run_id": parent, "selected_by": score, "model": champion.model}
    for key, value in tags.items():
        if value:
            client.set_model_version_tag(champion.registered_name, champion.version, key, value)
