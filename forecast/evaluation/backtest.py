"""Rolling-origin backtests, including the day-ahead market protocol.

A backtest issues forecasts from many origins of one data set and scores them against the
actual values. An *origin* is the last observed timestamp of a forecast (as in
:meth:`~forecast.base.BaseForecaster.predict_origins`); timestamps label the start of their
interval, so a forecast issued at 12:00 from hourly data has the origin 11:00. Each fold
fits a fresh :func:`sklearn.base.clone` of the estimator on the training window before its
first origin and forecasts all of its origins in batched ``predict_origins`` calls.

This module holds the result, the public ``backtest`` and the data plumbing; the schedule
(which origins, scored steps and training windows) is in :mod:`forecast.evaluation.schedule`,
the tidy forecast table in :mod:`forecast.evaluation.tidy` and the score tables in
:mod:`forecast.evaluation.scores`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast.evaluation.schedule import (
    check_window,
    day_ahead_plan,
    make_plan,
    refit_chunks,
    train_bounds,
)
from forecast.evaluation.scores import resolve_metrics, score_tables
from forecast.evaluation.tidy import tidy_forecasts
from forecast.frames import validation
from forecast.frames.slices import slice_series, union_index
from forecast.models.fit_cache import credited
from forecast.models.fit_cache import fit as fit_once
from forecast.parallel.engine import check_engine, check_resources, ray_map
from forecast.training import progress

__all__ = ["BacktestResult", "backtest", "day_ahead_plan"]

DEFAULT_METRICS = ("mape", "mae", "rmse", "bias")


@dataclass
class BacktestResult:
    """Forecasts, scores and timings of one backtest.

    Attributes
    ----------
    forecasts : DataFrame
        Tidy frame, one row per scored value: ``origin`` (last observed timestamp),
        ``id`` (only for several series), ``time`` (the forecast timestamp), ``step``
        (steps ahead of the origin, 1 = the step right after it), ``target`` (column name),
        ``y_pred`` and ``y_true``; for estimators that forecast quantiles (quantile heads,
        :class:`forecast.ConformalForecaster`) also ``y_pred_q<level>`` per level.
    metrics : DataFrame
        One row per target plus ``"overall"`` (all targets and series pooled), one column
        per metric, and ``n`` (values scored). With quantile columns also ``crps`` and
        ``pinball`` (over all levels) and, per central interval of nominal coverage ``c``
        percent, ``coverage_<c>``, ``width_<c>`` and ``winkler_<c>`` (e.g. ``coverage_80``);
        the same columns are in ``by_horizon`` and ``by_hour``.
    by_horizon : DataFrame
        The pooled metrics per ``step``.
    by_hour : DataFrame or None
        The pooled metrics per hour of day (local time of the forecast timestamp in
        ``timezone``); None when the data are not sub-daily.
    folds : DataFrame
        One row per fitted model: ``train_start``, ``train_end``, ``n_train`` (rows of
        the first series), ``first_origin``, ``last_origin``, ``n_origins``,
        ``fit_seconds`` and ``predict_seconds``.
    origins : DatetimeIndex
        Origins of the forecasts, sorted.
    fit_seconds, predict_seconds, total_seconds : float
        Time spent in ``fit``, in ``predict_origins`` and in the whole backtest.
    estimator : estimator
        The fitted clone of the last fold.
    settings : dict
        The backtest settings (protocol, window, refit_every, ...), for tracking.
    """

    forecasts: pd.DataFrame
    metrics: pd.DataFrame
    by_horizon: pd.DataFrame
    by_hour: pd.DataFrame | None
    folds: pd.DataFrame
    origins: pd.DatetimeIndex
    fit_seconds: float
    predict_seconds: float
    total_seconds: float
    estimator: Any = None
    settings: dict[str, Any] = field(default_factory=dict)


def backtest(
    estimator: Any,
    data: pd.DataFrame | dict[Any, pd.DataFrame],
    *,
    horizon: int | None = None,
    origins: str | Sequence[Any] | pd.DatetimeIndex | None = None,
    start: str | pd.Timestamp | None = None,
    end: str | pd.Timestamp | None = None,
    lead: int = 0,
    window: str = "expanding",
    train_size: int | str | pd.Timedelta | None = None,
    refit_every: int | None = None,
    protocol: str | None = None,
    timezone: str = "Europe/Berlin",
    target: str | Sequence[str] | None = None,
    metrics: Sequence[str | Callable[..., Any]]
    | Mapping[str, Callable[..., Any]] = DEFAULT_METRICS,
    mase_season: int | str = 1,
    name: str | None = None,
    tracker: Any = None,
    callbacks: Sequence[Any] | None = None,
    engine: str = "sequential",
    address: str | None = None,
    num_cpus: int | None = None,
    future: pd.DataFrame | None = None,
) -> BacktestResult:
    """Backtest an estimator from rolling origins.

    Parameters
    ----------
    estimator : BaseForecaster
        Unfitted (or fitted) estimator; it is cloned per fold and never changed.
    data : DataFrame, long DataFrame or dict of DataFrames
        The whole series (training history and test period), as accepted by ``fit``.
    horizon : int, optional
        Steps scored per forecast (required unless ``protocol`` sets it).
    origins : str, list of timestamps or None
        When the forecasts are issued. None: back-to-back forecasts whose scored windows
        tile the test period. ``"HH:MM"``: every day at that local time (the issue time;
        the origin is the last step that has ended by then). An offset alias such as
        ``"7D"`` or ``"6h"``: every such period from the first default origin. A list:
        these exact origins (timestamps of the data).
    start, end : str or Timestamp, optional
        The test period, inclusive; strings are read in local time (``timezone``) with
        pandas' partial-string rules, so ``end="2023"`` means to the end of 2023. Forecasts
        are only scored inside it. ``start`` is required unless ``origins`` is a list.
    lead : int
        Steps between the issue time and the first scored step (forecast, not scored).
    window : {"expanding", "sliding"}
        Training data of a fold: everything up to its first origin, or the last
        ``train_size`` of it.
    train_size : int, str or Timedelta, optional
        Length of the sliding window in rows (int) or as a duration (``"365D"``).
    refit_every : int, optional
        Fit a new clone every ``k`` origins; None fits once, on the data up to the first
        origin.
    protocol : {None, "day-ahead"}
        ``"day-ahead"``: for each local day D of the test period, the forecast is issued at
        12:00 local time on D-1 (origin: the step ending at 12:00) and scored on all steps
        of day D (23 or 25 hours on DST days). Sets ``horizon``, ``origins`` and ``lead``.
    timezone : str
        Local time zone of the protocol, of ``"HH:MM"`` schedules, of string ``start``/
        ``end`` and of the hour-of-day breakdown. Ignored for naive indexes (taken as local).
    target : str or list of str, optional
        Columns to forecast and score. Other columns of ``data`` are only passed on when
        the estimator declares them as covariates. Default: every column the estimator
        takes as a target.
    metrics : sequence of str or callable, or dict of str to callable
        Names of functions in :mod:`forecast.evaluation.metrics` or callables
        ``f(y_true, y_pred) -> float``; all pool every scored value of a group. ``"mase"``
        scales each series and target by its in-sample seasonal naive MAE on the data up to
        the first origin (the same scale for every fold and model).
    mase_season : int or str
        Seasonal lag of the MASE scale, in steps or as a duration such as ``"7D"``.
    name : str, optional
        Name of the run for the tracker (default: the estimator's class name).
    tracker : object, optional
        When given, ``tracker.log_backtest(name, estimator, result, data, {})`` is called
        once at the end.
    callbacks : list, optional
        Training callbacks (:class:`forecast.training.callbacks.Callback`) passed to every fold's
        ``fit``, e.g. to report per-epoch losses to a sweep.
    engine : {"sequential", "ray"}
        ``"ray"`` fits and forecasts the folds (``refit_every``) as Ray tasks (extra
        ``forecast-toolkit[ray]``, see :func:`forecast.parallel.ray_session`); the result equals the
        sequential one. Callbacks then run in the workers.
    address : str, optional
        Ray cluster address (default ``RAY_ADDRESS``, else a local Ray); ``"ray"`` only.
    num_cpus : int, optional
        CPUs of a local Ray; ``"ray"`` only.
    future : DataFrame, optional
        Vintages of the future covariates (:mod:`forecast.frames.vintages`): each forecast's
        steps read the latest values issued at or before its origin; ``data`` still holds
        what the folds train on and the history rows (``training_covariates_``).

    Returns
    -------
    BacktestResult
    """
    t_total = time.perf_counter()
    if engine != "sequential" or address is not None or num_cpus is not None:
        check_engine(engine)
        check_resources(address, num_cpus)
        if engine == "sequential":
            raise ValueError("address and num_cpus apply to engine='ray' only")
    check_window(window, train_size)
    metric_fns = resolve_metrics(metrics)
    frames, kind = validation.split_series(data, "data")
    frames = _select_columns(estimator, frames, target)
    index = union_index(frames)
    if len(index) < 2:
        raise ValueError(f"data has {len(index)} timestamp(s); a backtest needs a series")
    plan = make_plan(
        index,
        protocol=protocol,
        horizon=horizon,
        origins=origins,
        start=start,
        end=end,
        lead=lead,
        timezone=timezone,
    )
    chunks = refit_chunks(len(plan.origin_pos), refit_every)
    label = name or type(estimator).__name__
    jobs = [(k, chunk, len(chunks)) for k, chunk in enumerate(chunks, start=1)]
    shared = (estimator, frames, kind, index, plan, window, train_size, label, callbacks, future)
    if engine == "sequential":
        folds = [run_fold(shared, job) for job in jobs]
    else:
        folds = ray_map(run_fold, shared, jobs, address, num_cpus)
    parts = [part for fold_parts, _, _ in folds for part in fold_parts]
    fold_rows = [row for _, row, _ in folds]
    fitted = folds[-1][2]
    targets = list(fitted.columns_)
    levels = _quantile_levels(fitted)
    forecasts = tidy_forecasts(
        pd.concat(parts, ignore_index=True), plan, index, frames, kind, targets, levels
    )
    by_target, by_step, by_hour = score_tables(
        forecasts,
        metric_fns,
        frames=frames,
        kind=kind,
        targets=targets,
        first_origin=index[plan.origin_pos[0]],
        mase_season=mase_season,
        index=index,
        timezone=timezone,
    )
    fold_table = pd.DataFrame(fold_rows)
    result = BacktestResult(
        forecasts=forecasts,
        metrics=by_target,
        by_horizon=by_step,
        by_hour=by_hour,
        folds=fold_table,
        origins=index[plan.origin_pos],
        fit_seconds=float(fold_table["fit_seconds"].sum()),
        predict_seconds=float(fold_table["predict_seconds"].sum()),
        total_seconds=0.0,
        estimator=fitted,
        settings={
            "protocol": protocol,
            "horizon": plan.horizon,
            "lead": plan.lead,
            "window": window,
            "train_size": train_size,
            "refit_every": refit_every,
            "timezone": timezone,
            "start": str(start) if start is not None else None,
            "end": str(end) if end is not None else None,
            "n_origins": len(plan.origin_pos),
            "n_fits": len(chunks),
            "targets": targets,
            "future": None if future is None else future.attrs.get("vintages", "vintages"),
        },
    )
    result.total_seconds = time.perf_counter() - t_total
    if tracker is not None:
        tracker.log_backtest(name or type(estimator).__name__, estimator, result, data, {})
    return result


def run_fold(
    shared: tuple[Any, ...], job: tuple[Any, ...]
) -> tuple[list[pd.DataFrame], dict[str, Any], Any]:
    """Fit one fold's clone and forecast its origins; return (forecasts, fold row, fitted).

    The fitted clone is returned for the last fold only (None for the others).

    ``shared`` holds what every fold reads (estimator, series, plan, window settings, name,
    callbacks), ``job`` the fold's number, its origins (indexes into the plan) and the count
    of folds. A pure function of its arguments, so folds may run anywhere (see ``engine``).
    """
    estimator, frames, kind, index, plan, window, train_size, label, callbacks, future = shared
    k, chunk, n_folds = job
    first = int(plan.origin_pos[chunk[0]])
    lo, hi = train_bounds(index, first, window, train_size)
    train = slice_series(frames, kind, lo, hi)
    t0 = time.perf_counter()
    with progress.fold(label, k, n_folds, _n_rows(train, kind)), credited() as reused:
        fitted = fit_once(clone(estimator), train, callbacks)
    fit_s = time.perf_counter() - t0 + reused[0]
    last_needed = index[int(plan.last_pos[chunk].max())]
    history = slice_series(frames, kind, lo, last_needed)
    t0 = time.perf_counter()
    parts = []
    extra: dict[str, Any] = {"quantiles": True} if _quantile_levels(fitted) else {}
    if future is not None:
        extra["future"] = future
    for steps in np.unique(plan.last_pos[chunk] - plan.origin_pos[chunk]):
        group = chunk[(plan.last_pos[chunk] - plan.origin_pos[chunk]) == steps]
        parts.append(
            fitted.predict_origins(
                history, index[plan.origin_pos[group]], int(steps), max_horizon=None, **extra
            )
        )
    row = {
        "train_start": lo,
        "train_end": hi,
        "n_train": _n_rows(train, kind),
        "first_origin": index[first],
        "last_origin": index[int(plan.origin_pos[chunk[-1]])],
        "n_origins": len(chunk),
        "fit_seconds": fit_s,
        "predict_seconds": time.perf_counter() - t0,
    }
    return parts, row, fitted if k == n_folds else None  # only the last model is kept


# ---------------------------------------------------------------------- data plumbing
def _quantile_levels(fitted: Any) -> tuple[float, ...]:
    """Quantile levels a fitted estimator forecasts (none for point forecasters)."""
    levels = getattr(fitted, "_quantile_levels", None)
    return tuple(levels()) if callable(levels) else ()


def _select_columns(
    estimator: Any, frames: dict[Any, pd.DataFrame], target: str | Sequence[str] | None
) -> dict[Any, pd.DataFrame]:
    """Keep the target columns and the covariates the estimator declares."""
    if target is None:
        return frames
    targets = [target] if isinstance(target, str) else list(target)
    declared = getattr(estimator, "_covariate_names", None)
    future, past = declared() if declared is not None else ([], [])
    keep = list(dict.fromkeys(targets + list(future) + list(past)))
    out = {}
    for key, frame in frames.items():
        validation.check_columns(frame, keep, key, "data")
        out[key] = frame[keep]
    return out


def _n_rows(train: Any, kind: str) -> int:
    if kind == "dict":
        return len(next(iter(train.values())))
    return len(train)
