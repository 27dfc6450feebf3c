"""One batch forecast: load the model, read the data, forecast, write, log the run."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.batch.constants import BATCH_EXPERIMENT
from forecast.batch.files import (
    STALE_WARNING,
    BatchError,
    BatchResult,
    _about_input,
    check_staleness,
    forecast_table,
    issue_date,
    mixed_offsets_message,
    output_path,
    read_latest,
    select_history,
    write_atomic,
)
from forecast.batch.localtime import DAY_AHEAD, day_ahead_steps, model_timezone, to_zone
from forecast.batch.overlap import check_output_not_input
from forecast.batch.vintages import read_vintages, with_vintage_rows
from forecast.frames.fingerprint import fingerprint
from forecast.frames.io import MixedOffsetsError
from forecast.frames.messages import first_line
from forecast.frames.quantiles import parse_levels
from forecast.frames.requests import default_horizon, split_future
from forecast.frames.timezones import check_timezone
from forecast.frames.validation import NAN_POLICIES
from forecast.onnx.metadata import is_export_folder

_log = logging.getLogger("forecast.batch")


def _is_uri(model: str) -> bool:
    return "://" in model or model.startswith(("models:/", "runs:/"))


def load_forecaster(
    model: str | os.PathLike[str],
    tracking_uri: str | None = None,
    device: str | None = None,
    quantiles: str | None = None,
) -> tuple[Any, Callable[[pd.DataFrame, int], pd.DataFrame]]:
    """Load a model for batch forecasting.

    Parameters
    ----------
    model : str or path-like
        MLflow model URI or local folder (see the module docstring).
    tracking_uri : str, optional
        Store resolving ``models:/`` and ``runs:/`` URIs.
    device : str, optional
        Device for a locally saved torch model.
    quantiles : str, optional
        ``"all"`` or levels such as ``"0.1,0.9"``: the forecasts get quantile columns.

    Returns
    -------
    estimator : BaseForecaster
        The fitted estimator (for its columns, time zone and default horizon).
    predict : callable
        ``predict(history, horizon) -> DataFrame``.
    """
    text = os.fspath(model)
    path = Path(text)
    if not _is_uri(text):
        if is_export_folder(path):  # an ONNX export forecasts without torch
            return _onnx_forecaster(path, quantiles)
        if (path / "meta.json").is_file():
            # torch: imported only for a saved torch model, so ONNX exports run without it
            from forecast.persistence.format import load

            estimator = load(path, device=device)
            return estimator, _folder_predict(estimator, parse_levels(quantiles))
        if not (path / "MLmodel").is_file():
            raise BatchError(
                f"model {text} not found: expected an MLflow model URI (models:/name@alias, "
                "runs:/id/model) or a folder with MLmodel or meta.json (a saved model or an "
                "ONNX export)"
            )
    # optional: only a model in an MLflow store needs mlflow, seconds to import
    from forecast.batch.tracking import load_from_store

    # downloaded and checked against our flavour; no code in the artifact runs
    return load_from_store(text, tracking_uri, quantiles, uri=_is_uri(text), device=device)


def _onnx_forecaster(
    path: Path, quantiles: str | None
) -> tuple[Any, Callable[[pd.DataFrame, int], pd.DataFrame]]:
    """Load an ONNX export folder (:class:`forecast.onnx.runtime.OnnxForecaster`)."""
    # the runtime needs the extra forecast-toolkit[onnx]; a torch model never imports it
    from forecast.onnx.runtime import OnnxForecaster

    estimator = OnnxForecaster.load(path)
    return estimator, _folder_predict(estimator, parse_levels(quantiles))


def _folder_predict(
    estimator: Any, levels: bool | tuple[float, ...] | None
) -> Callable[[pd.DataFrame, int], pd.DataFrame]:
    """Return ``predict(history, horizon)`` of a loaded estimator.

    Future covariates are read from the rows after the history, as the pyfunc model does.
    """

    def predict(frame: pd.DataFrame, steps: int) -> pd.DataFrame:
        history, future = split_future(frame, estimator)
        extra = {} if future is None else {"future": future}
        return estimator.predict(horizon=steps, history=history, quantiles=levels, **extra)

    return predict


def run_batch(
    model: str | os.PathLike[str],
    input: str | os.PathLike[str],
    output: str | os.PathLike[str],
    horizon: int | str | None = None,
    *,
    time_column: str | None = None,
    timezone: str | None = None,
    nan_policy: str | None = None,
    quantiles: str | None = None,
    tracking_uri: str | None = None,
    track: bool = True,
    experiment: str = BATCH_EXPERIMENT,
    device: str | None = None,
    max_staleness: pd.Timedelta | None = None,
    issue_time: pd.Timestamp | None = None,
    future: str | os.PathLike[str] | None = None,
    explain: bool = False,
) -> BatchResult:
    """Forecast from the latest data with a stored model and write the forecast file.

    Parameters
    ----------
    model : str or path-like
        ``models:/``, ``runs:/`` or other MLflow model URI, or a local model folder.
    input : str or path-like
        CSV or Parquet file with the latest history.
    output : str or path-like
        ``.csv`` or ``.parquet`` file; ``{date}`` becomes the issue date (``YYYY-MM-DD`` of
        the last input timestamp in local time, see ``timezone``).
    horizon : int or "day-ahead", optional
        Steps to forecast (default: the model's ``horizon`` parameter, else 24), or
        ``"day-ahead"``: every step up to the end of the next whole local day (24 hours, 23
        or 25 on DST days; see :func:`~forecast.batch.day_ahead_steps`).
    time_column : str, optional
        Time column of the input (default: detected).
    timezone : str, optional
        Local zone of the run (default: the model's ``timezone`` parameter when it has
        one). Input stamps with UTC offsets (one or several) are read in it, and the
        forecast is written in it. Without a zone the input's own stamps are kept, and input
        in several offsets (local time across a DST change) is refused.
    nan_policy : {"raise", "interpolate"}, optional
        Override the model's ``nan_policy`` for this run only (the saved model is
        unchanged).
    quantiles : str, optional
        ``"all"`` or comma-separated levels (``"0.1,0.5,0.9"``): write the columns
        ``<column>_q<level>`` too (quantile heads, conformal intervals).
    tracking_uri : str, optional
        Store for model URIs and for the batch run (default ``MLFLOW_TRACKING_URI`` or
        ``sqlite:///mlflow.db``).
    track : bool
        Log the batch as an MLflow run (input fingerprint, output checksum).
    experiment : str
        Experiment of the batch runs.
    device : str, optional
        Device for a locally saved torch model.
    max_staleness : Timedelta, optional
        Refuse input whose last observed row lies more than this before ``issue_time``
        (:class:`~forecast.batch.files.StaleInputError`); without it, input older than a
        week is forecast with a warning on the ``forecast.batch`` logger.
    issue_time : Timestamp, optional
        When the forecast is issued, for the staleness check (default: now; naive is UTC).
    future : str or path-like, optional
        Vintages of the future covariates (:mod:`forecast.batch.vintages`).
    explain : bool
        Attribute the forecast to its inputs (:func:`forecast.explain`) and log
        the table as an artifact of the batch run (``forecast.batch.attributions``);
        needs ``track``.

    Returns
    -------
    BatchResult
        A ``models:/name@alias`` is resolved to the version it points at before loading, and
        that version is loaded, recorded in ``model_version`` and logged with the run.

    Raises
    ------
    BatchError
        Bad input, missing model or failed forecast; nothing was written. An ``output``
        that is, or whose ``{date}`` can expand to, the input (same path, a link to it) is
        refused before the model loads (:mod:`forecast.batch.overlap`).
    """
    output_path(output, "")  # check the suffix and the options before any work
    _check_options(horizon, timezone, nan_policy)
    if explain and not track:
        raise BatchError("--explain logs the attributions with the MLflow run: drop --no-track")
    try:
        parse_levels(quantiles)  # a bad list fails before any work
    except (TypeError, ValueError) as err:
        raise BatchError(str(err)) from err
    if not Path(input).is_file():
        raise BatchError(f"input {input} does not exist")
    check_output_not_input(output, input)  # outputs never destroy inputs
    if future is not None:
        check_output_not_input(output, future, role="--future file")
    read = read_latest(input, time_column, timezone)  # fails before the model loads
    pinned = os.fspath(model)
    registered: dict[str, str] = {}  # a models:/ URI's name and version tags
    if pinned.startswith("models:/"):
        # optional: a registry URI needs mlflow anyway, seconds to import
        from forecast.batch.tracking import pin_registered

        pinned, registered = pin_registered(pinned, tracking_uri)
    estimator, predict = load_forecaster(pinned, tracking_uri, device, quantiles)
    result, history, options = forecast_file(
        estimator, predict, model, input, lambda date: output_path(output, date), horizon,
        time_column=time_column, timezone=timezone, nan_policy=nan_policy, read=read,
        quantiles=quantiles, max_staleness=max_staleness, issue_time=issue_time,
        vintages=None if future is None else read_vintages(future),
    )  # fmt: skip
    result.model_version = registered.get("model_version")
    explanation = None
    if explain:
        # optional: attributions import captum for neural models, only when asked
        from forecast.batch.attributions import explain_batch

        with _nan_policy(estimator, nan_policy, model):
            explanation = explain_batch(estimator, history, options["horizon"], input)
    age = pd.Timedelta(hours=options["input_age_hours"])
    if max_staleness is None and age > STALE_WARNING:  # after success: a failure is one line
        _log.warning(
            "input %s: last observation %s before the issue time (--max-staleness refuses "
            "stale input)",
            input,
            age.round("min"),
        )
    if track:
        # optional: only a tracked run needs mlflow, seconds to import
        from forecast.batch.tracking import log_batch_run

        result.run_id = log_batch_run(
            result,
            history,
            estimator,
            os.fspath(model),
            os.fspath(input),
            options,
            tracking_uri,
            experiment,
            registered,
            explanation,
        )
    return result


def forecast_file(
    estimator: Any,
    predict: Callable[[pd.DataFrame, int], pd.DataFrame],
    model: str | os.PathLike[str],
    input: str | os.PathLike[str],
    output: Callable[[str], Path],
    horizon: int | str | None,
    *,
    time_column: str | None = None,
    timezone: str | None = None,
    nan_policy: str | None = None,
    read: tuple[pd.DataFrame, MixedOffsetsError | None] | None = None,
    quantiles: str | None = None,
    max_staleness: pd.Timedelta | None = None,
    issue_time: pd.Timestamp | None = None,
    vintages: pd.DataFrame | None = None,
) -> tuple[BatchResult, pd.DataFrame, dict[str, Any]]:
    """Forecast from one input file with a loaded model and write the forecast atomically.

    The core of :func:`run_batch`, shared with the partitioned batch
    (:mod:`forecast.batch.partitions`) so both write the same bytes for the same input.

    Parameters
    ----------
    estimator, predict
        From :func:`load_forecaster`.
    model : str or path-like
        The model's name, for messages.
    input : str or path-like
        CSV or Parquet file.
    output : callable
        ``output(issue_date) -> Path`` of the forecast file.
    horizon, time_column, timezone, nan_policy, quantiles, max_staleness, issue_time
        As in :func:`run_batch` (``quantiles`` must match what ``predict`` was built with).
    read : tuple, optional
        ``(frame, mixed)`` of :func:`forecast.batch.files.read_latest`, if already read.
    vintages : DataFrame, optional
        Read by :func:`forecast.batch.vintages.read_vintages` from ``future``.

    Returns
    -------
    result : BatchResult
        Without ``run_id``.
    history : DataFrame
        The model's columns of the input, in the local zone.
    options : dict
        ``horizon`` (steps), ``timezone``, ``nan_policy`` and ``quantiles`` of the run, and
        ``input_age_hours`` (last observation to issue time), for tracking.
    """
    frame, mixed = read if read is not None else read_latest(input, time_column, timezone)
    zone = timezone or model_timezone(estimator)
    if mixed is not None and zone is None:
        raise BatchError(mixed_offsets_message(input, mixed, os.fspath(model), estimator))
    history = select_history(to_zone(frame, zone), estimator, input)
    try:  # the issue time is the last observed row, not the last covariate row
        observed, _ = split_future(history, estimator)
    except ValueError as err:
        raise BatchError(_about_input(input, err)) from err
    age = check_staleness(observed.index.max(), input, max_staleness, issue_time)
    steps = _steps(horizon, estimator, observed)
    if vintages is not None:  # the future covariates as known at the last observed row
        history = with_vintage_rows(observed, vintages, steps, estimator, os.fspath(input))
    with _nan_policy(estimator, nan_policy, model):
        try:
            forecast = predict(history, steps)
        except Exception as err:
            raise BatchError(f"forecast from {input} failed: {first_line(err)}") from err
    if parse_levels(quantiles) is not None and not any("_q" in str(c) for c in forecast.columns):
        raise BatchError(
            f"model {os.fspath(model)} wrote no quantile columns (logged before the quantiles "
            "parameter existed?); nothing written"
        )
    date = issue_date(observed)
    path = output(date)
    check_output_not_input(path, input)  # the expanded name, for callers of this function
    table = forecast_table(to_zone(forecast, zone))
    digest = write_atomic(table, path)
    result = BatchResult(path, digest, len(table), date, fingerprint(history))
    options: dict[str, Any] = {"horizon": steps, "timezone": zone, "nan_policy": nan_policy}
    options.update(quantiles=quantiles, input_age_hours=age / pd.Timedelta(hours=1))
    return result, history, options


def _check_options(horizon: int | str | None, timezone: str | None, nan_policy: str | None) -> None:
    if isinstance(horizon, str) and horizon != DAY_AHEAD:
        raise BatchError(f"horizon must be a positive int or {DAY_AHEAD!r}, got {horizon!r}")
    if timezone is not None:
        try:
            check_timezone(timezone)
        except ValueError as err:
            raise BatchError(str(err)) from err
    if nan_policy is not None and nan_policy not in NAN_POLICIES:
        raise BatchError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")


def _steps(horizon: int | str | None, estimator: Any, history: pd.DataFrame) -> int:
    if horizon == DAY_AHEAD:
        try:
            return day_ahead_steps(history.index.max(), estimator.freq_)
        except ValueError as err:
            raise BatchError(str(err)) from err
    steps = int(horizon) if horizon is not None else default_horizon(estimator)
    if steps < 1:
        raise BatchError(f"horizon must be a positive int, got {steps}")
    return steps


@contextmanager
def _nan_policy(
    estimator: Any, policy: str | None, model: str | os.PathLike[str]
) -> Iterator[None]:
    """Set the estimator's ``nan_policy`` for one forecast, then restore it."""
    if policy is None:
        yield
        return
    if "nan_policy" not in estimator.get_params(deep=False):
        raise BatchError(f"model {os.fspath(model)} has no nan_policy parameter to override")
    saved = estimator.get_params(deep=False)["nan_policy"]
    estimator.set_params(nan_policy=policy)
    try:
        yield
    finally:
        estimator.set_params(nan_policy=saved)
