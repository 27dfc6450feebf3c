"""The MLflow side of ``forecast score``: live scores in the model version's run history.

The scores of each forecast are logged to the run that produced the registered model version
that made the forecast (the version its batch run recorded, found by the file's bytes:
:func:`forecast.loop.versions.forecast_records`), never to whatever version the alias points
at when scoring runs. They are logged as metrics ``live_<metric>`` (``live_mape``,
``live_mae``, ``live_rmse``, ``live_bias``, ``live_coverage_<c>``) whose step is the issue date
in days since 1970-01-01 and whose timestamp is the forecast's origin: the run's charts then
show live accuracy over time next to the metrics the run logged when it was fitted and
backtested. Scores already logged for an issue date are not logged again, so scoring every
day is idempotent. Only forecasts whose every value is known (status ``scored``) are logged.
A forecast no batch run records is logged to the version ``--model models:/name/N`` names,
and with an alias not at all (a warning says which); one whose version was deleted is not
logged either.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from mlflow.entities import Metric
from mlflow.exceptions import MlflowException

from forecast.batch.files import BatchError
from forecast.batch.logs import logger_name
from forecast.batch.tracking import check_store, parse_models_uri
from forecast.evaluation.live import LiveAlert
from forecast.frames import validation
from forecast.frames.messages import first_line
from forecast.loop.versions import VERSION_COLUMN, forecast_records
from forecast.tracking._store import client as make_client
from forecast.tracking._store import resolve_tracking_uri
from forecast.tracking.views import runs_view_url

__all__ = ["LiveLog", "LiveTarget", "live_metric_names", "live_target", "log_live_scores"]

_log = logging.getLogger(logger_name("score"))

_EPOCH = pd.Timestamp("1970-01-01")
_SKIP = {"origin", "first", "last", "status", "n", "n_pending", "issue_date", "file", "special"}
VIEW_METRIC = "live_mape"  # the runs view printed by forecast score sorts by it


def live_metric_names(table: pd.DataFrame) -> list[str]:
    """Score columns of a live table that are logged (``live_`` + the column)."""
    return [
        c
        for c in table.columns
        if c not in _SKIP and c != validation.ID_COLUMN and c != "special_dates"
        if pd.api.types.is_numeric_dtype(table[c])
    ]


@dataclass
class LiveTarget:
    """Where the live scores of a table go: the registered model and each forecast's version.

    Attributes
    ----------
    client : MlflowClient
        Client of the store.
    name : str
        Registered model.
    named : str
        The version ``--model`` names (an alias resolved now).
    versions : Series
        Aligned with the scores table: the version that made each forecast (its batch run's
        record; for ``models:/name/N`` the forecasts no run records are N's), None where not
        known.
    """

    client: Any
    name: str
    named: str
    versions: pd.Series


@dataclass
class LiveLog:
    """What :func:`log_live_scores` logged.

    Attributes
    ----------
    logged : dict
        Forecasts newly logged, by version.
    unrecorded : list of str
        Issue dates of scored forecasts whose version is not known (not logged).
    deleted : dict
        Versions recorded by a batch run that no longer exist, with their issue dates (not
        logged).
    runs_url : str or None
        The link to the runs of the experiment of the newest scored forecast's version, sorted
        by ``live_mape`` (:func:`forecast.tracking.views.runs_view_url`).
    """

    logged: dict[str, int] = field(default_factory=dict)
    unrecorded: list[str] = field(default_factory=list)
    deleted: dict[str, list[str]] = field(default_factory=dict)
    runs_url: str | None = None

    @property
    def total(self) -> int:
        """Forecasts newly logged, all versions."""
        return sum(self.logged.values())


def _resolve(model: str, tracking_uri: str | None) -> tuple[Any, str, str, bool]:
    """``(client, name, version, explicit)`` of a ``models:/`` URI whose version exists."""
    name, alias, version = parse_models_uri(model)
    if name is None:
        raise BatchError(
            f"--model {model}: live scores are logged to a registered model version; give "
            "models:/name@alias or models:/name/N"
        )
    check_store(model, tracking_uri)
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
            f"{first_line(err)}; nothing was logged"
        ) from None
    return client, name, version, alias is None


def live_target(table: pd.DataFrame, model: str, tracking_uri: str | None) -> LiveTarget:
    """Resolve ``model`` and the version that made each forecast of ``table``.

    Parameters
    ----------
    table : DataFrame
        Scores per forecast (:func:`forecast.loop.score.score_forecasts`).
    model : str
        ``models:/name@alias`` or ``models:/name/N``.
    tracking_uri : str, optional
        The store.

    Returns
    -------
    LiveTarget

    Raises
    ------
    BatchError
        The model is not a registered version of the store (the message lists the versions).
    """
    client, name, named, explicit = _resolve(model, tracking_uri)
    versions = forecast_records(client, name, table)[VERSION_COLUMN]
    if explicit:
        versions = versions.where(versions.notna(), named)
    return LiveTarget(client, name, named, versions)


def _log_version(client: Any, run_id: str, done: pd.DataFrame, metrics: list[str]) -> int:
    """Log the scored forecasts ``done`` of one version to its run; return how many were new."""
    series = validation.ID_COLUMN in done.columns
    seen: dict[str, set[int]] = {}
    items, logged = [], 0
    for values in done.sort_values("origin").to_dict("records"):
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
    return logged


def log_live_scores(
    table: pd.DataFrame,
    model: str | LiveTarget,
    tracking_uri: str | None = None,
    alert: LiveAlert | None = None,
) -> LiveLog:
    """Log the scored forecasts of ``table``, each to the run of the version that made it.

    Parameters
    ----------
    table : DataFrame
        Scores per forecast (:func:`forecast.loop.score.score_forecasts`).
    model : str or LiveTarget
        ``models:/name@alias`` or ``models:/name/N`` (resolved with :func:`live_target`), or
        what :func:`live_target` returned.
    tracking_uri : str, optional
        The store (with a ``model`` URI).
    alert : LiveAlert, optional
        The alert rule's outcome, set as the tags ``live_alert`` and ``live_rolling_mape`` of
        the version that made the newest scored forecast.

    Returns
    -------
    LiveLog
        Forecasts newly logged per version, those not logged and why, the runs view's link.
        Each version logged to gets the tag ``live_scored_through`` (its newest origin).

    Raises
    ------
    BatchError
        The model is not a registered version of the store (the message lists the versions).
    """
    target = live_target(table, model, tracking_uri) if isinstance(model, str) else model
    client, name = target.client, target.name
    versions = target.versions.reindex(table.index)
    scored = table.assign(**{VERSION_COLUMN: versions})[table["status"] == "scored"]
    result = LiveLog(
        unrecorded=sorted(set(scored.loc[scored[VERSION_COLUMN].isna(), "issue_date"]))
    )
    done = scored[scored[VERSION_COLUMN].notna()]
    metrics = live_metric_names(table)
    newest, runs = target.named, {}
    for version, part in done.groupby(VERSION_COLUMN, sort=True):
        version = str(version)
        try:
            run_id = client.get_model_version(name, version).run_id
        except MlflowException as err:
            if err.error_code != "RESOURCE_DOES_NOT_EXIST":
                raise BatchError(f"model {name} version {version}: {first_line(err)}") from None
            result.deleted[version] = sorted(set(part["issue_date"]))
            continue
        if not run_id:
            raise BatchError(f"model {name}: version {version} has no run to log live scores to")
        runs[version] = run_id
        result.logged[version] = _log_version(client, run_id, part, metrics)
        client.set_model_version_tag(
            name, version, "live_scored_through", str(part["origin"].max())
        )
    logged = done[done[VERSION_COLUMN].isin(list(runs))]
    if len(logged):
        newest = str(logged.sort_values("origin")[VERSION_COLUMN].iloc[-1])
    if alert is not None and not math.isnan(alert.live):
        client.set_model_version_tag(name, newest, "live_alert", str(alert.alert).lower())
        client.set_model_version_tag(name, newest, "live_rolling_mape", f"{alert.live:.6g}")
    _warn(name, result)
    run_id = runs.get(newest) or client.get_model_version(name, newest).run_id
    result.runs_url = _runs_url(client, name, run_id, metrics)
    return result


def _warn(name: str, result: LiveLog) -> None:
    if result.unrecorded:
        dates = result.unrecorded
        _log.warning(
            "%d scored forecast(s) of %s not logged: no batch run records the version that made "
            "them (issued %s%s); log them with --model models:/%s/N",
            len(dates), name, ", ".join(dates[:3]), ", ..." if len(dates) > 3 else "", name,
        )  # fmt: skip
    for version, dates in result.deleted.items():
        _log.warning(
            "%d scored forecast(s) of %s not logged: their version %s no longer exists (issued "
            "%s%s)",
            len(dates), name, version, ", ".join(dates[:3]), ", ..." if len(dates) > 3 else "",
        )  # fmt: skip


def _runs_url(client: Any, name: str, run_id: str | None, metrics: list[str]) -> str | None:
    """Return the runs view by live MAPE of the experiment of ``run_id``; None if refused."""
    if not run_id or "mape" not in metrics:
        return None
    try:
        experiment = client.get_run(run_id).info.experiment_id
        others = ["mape", *(f"live_{m}" for m in ("mae", "bias") if m in metrics)]
        return runs_view_url(client, experiment, VIEW_METRIC, others)
    except MlflowException as err:  # a convenience: the scores are logged all the same
        _log.warning("no MLflow UI view of the runs of %s by %s: %s", name, VIEW_METRIC, err)
        return None
