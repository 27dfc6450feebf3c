"""The MLflow side of ``forecast score``: live scores in the model version's run history.

The scores of each forecast are logged to the run that produced the registered model
version, as metrics ``live_<metric>`` (``live_mape``, ``live_mae``, ``live_rmse``,
``live_bias``, ``live_coverage_<c>``) whose step is the issue date in days since 1970-01-01
and whose timestamp is the forecast's origin: the run's charts then show live accuracy over
time next to the metrics the run logged when it was fitted and backtested. Scores already
logged for an issue date are not logged again, so scoring every day is idempotent. Only
forecasts whose every value is known (status ``scored``) are logged.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from mlflow.entities import Metric
from mlflow.exceptions import MlflowException

from forecast.batch.files import BatchError, _first_line
from forecast.batch.tracking import _check_store, _parse_models_uri
from forecast.evaluation.live import LiveAlert
from forecast.frames import validation
from forecast.tracking._store import client as make_client
from forecast.tracking._store import resolve_tracking_uri

__all__ = ["live_metric_names", "log_live_scores"]

_EPOCH = pd.Timestamp("1970-01-01")
_SKIP = {"origin", "first", "last", "status", "n", "n_pending", "issue_date", "file", "special"}


def live_metric_names(table: pd.DataFrame) -> list[str]:
    """Score columns of a live table that are logged (``live_`` + the column)."""
    return [
        c
        for c in table.columns
        if c not in _SKIP and c != validation.ID_COLUMN and c != "special_dates"
        if pd.api.types.is_numeric_dtype(table[c])
    ]


def _version(model: str, tracking_uri: str | None) -> tuple[Any, str, str]:
    """``(client, name, version)`` of a ``models:/`` URI whose version exists."""
    name, alias, version = _parse_models_uri(model)
    if name is None:
        raise BatchError(
            f"--model {model}: live scores are logged to a registered model version; give "
            "models:/name@alias or models:/name/N"
        )
    _check_store(model, tracking_uri)
    client = make_client(tracking_uri)
    where = resolve_tracking_uri(tracking_uri)
    try:
        if alias is not None:
            version = str(client.get_model_version_by_alias(name, alias).version)
        assert version is not None  # a models:/ URI names an alias or a version
        client.get_model_version(name, version)
    except MlflowException as err:
        try:
            known = sorted(int(v.version) for v in client.search_model_versions(f"name='{name}'"))
        except MlflowException:
            known = []
        listed = ", ".join(map(str, known)) or "none"
        raise BatchError(
            f"model {model} not found in {where} (versions of {name}: {listed}): "
            f"{_first_line(err)}; nothing was logged"
        ) from None
    return client, name, version


def log_live_scores(
    table: pd.DataFrame, model: str, tracking_uri: str | None, alert: LiveAlert | None = None
) -> int:
    """Log the scored forecasts of ``table`` to the run of the model version ``model``.

    Parameters
    ----------
    table : DataFrame
        Scores per forecast (:func:`forecast.batch.score.score_forecasts`).
    model : str
        ``models:/name@alias`` (resolved to its version now) or ``models:/name/N``.
    tracking_uri : str, optional
        The store.
    alert : LiveAlert, optional
        The alert rule's outcome, set as the version's tags ``live_alert`` and
        ``live_rolling_<metric>``.

    Returns
    -------
    int
        Forecasts newly logged.

    Raises
    ------
    BatchError
        The model is not a registered version of the store (the message lists the versions).
    """
    client, name, version = _version(model, tracking_uri)
    run_id = client.get_model_version(name, version).run_id
    if not run_id:
        raise BatchError(f"model {model}: version {version} has no run to log live scores to")
    done = table[table["status"] == "scored"].sort_values("origin")
    metrics = live_metric_names(done)
    series = validation.ID_COLUMN in done.columns
    seen: dict[str, set[int]] = {}
    items, logged = [], 0
    for values in done.to_dict("records"):
        step = (pd.Timestamp(values["issue_date"]) - _EPOCH).days
        stamp = int(pd.Timestamp(values["origin"]).timestamp() * 1000)
        suffix = f"/{values[validation.ID_COLUMN]}" if series else ""
        first = f"live_{metrics[0]}{suffix}"
        if first not in seen:
            seen[first] = {m.step for m in client.get_metric_history(run_id, first)}
        if step in seen[first]:
            continue
        logged += 1
        for metric in metrics:
            value = float(values[metric])
            if math.isfinite(value):
                items.append(Metric(f"live_{metric}{suffix}", value, stamp, step))
    for i in range(0, len(items), 1000):
        client.log_batch(run_id, metrics=items[i : i + 1000], synchronous=True)
    if len(done):
        through = str(done["origin"].max())
        client.set_model_version_tag(name, version, "live_scored_through", through)
    if alert is not None and not math.isnan(alert.live):
        client.set_model_version_tag(name, version, "live_alert", str(alert.alert).lower())
        client.set_model_version_tag(name, version, "live_rolling_mape", f"{alert.live:.6g}")
    return logged
