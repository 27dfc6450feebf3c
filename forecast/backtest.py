"""Rolling-origin backtests, including the day-ahead market protocol.

A backtest issues forecasts from many origins of one data set and scores them against the
actual values. An *origin* is the last observed timestamp of a forecast (as in
:meth:`~forecast.base.BaseForecaster.predict_origins`); timestamps label the start of their
interval, so a forecast issued at 12:00 from hourly data has the origin 11:00. Each fold
fits a fresh :func:`sklearn.base.clone` of the estimator on the training window before its
first origin and forecasts all of its origins in batched ``predict_origins`` calls.

Sections: the result, the public ``backtest``, the schedule (which origins, which scored
steps, which training windows), the scoring tables, and the data plumbing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast import _validation as V

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
        ``y_pred`` and ``y_true``.
    metrics : DataFrame
        One row per target plus ``"overall"`` (all targets and series pooled), one column
        per metric, and ``n`` (values scored).
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
    settings: dict = field(default_factory=dict)


def backtest(
    estimator: Any,
    data: pd.DataFrame | dict,
    *,
    horizon: int | None = None,
    origins: str | Sequence | pd.DatetimeIndex | None = None,
    start: str | pd.Timestamp | None = None,
    end: str | pd.Timestamp | None = None,
    lead: int = 0,
    window: str = "expanding",
    train_size: int | str | pd.Timedelta | None = None,
    refit_every: int | None = None,
    protocol: str | None = None,
    timezone: str = "Europe/Berlin",
    target: str | Sequence[str] | None = None,
    metrics: Sequence[str | Callable] | Mapping[str, Callable] = DEFAULT_METRICS,
    mase_season: int | str = 1,
    name: str | None = None,
    tracker: Any = None,
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
        Names of functions in :mod:`forecast.metrics` or callables
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

    Returns
    -------
    BacktestResult
    """
    t_total = time.perf_counter()
    _check_window(window, train_size)
    metric_fns = _resolve_metrics(metrics)
    frames, kind = V.split_series(data, "data")
    frames = _select_columns(estimator, frames, target)
    index = _union_index(frames)
    plan = _make_plan(
        index,
        protocol=protocol,
        horizon=horizon,
        origins=origins,
        start=start,
        end=end,
        lead=lead,
        timezone=timezone,
    )
    chunks = _chunks(len(plan.origin_pos), refit_every)
    parts, fold_rows, fitted = [], [], None
    for chunk in chunks:
        first = int(plan.origin_pos[chunk[0]])
        lo, hi = _train_bounds(index, first, window, train_size)
        train = _slice(frames, kind, lo, hi)
        fitted = clone(estimator)
        t0 = time.perf_counter()
        fitted.fit(train)
        fit_s = time.perf_counter() - t0
        last_needed = index[int(plan.last_pos[chunk].max())]
        history = _slice(frames, kind, lo, last_needed)
        t0 = time.perf_counter()
        for steps in np.unique(plan.last_pos[chunk] - plan.origin_pos[chunk]):
            group = chunk[(plan.last_pos[chunk] - plan.origin_pos[chunk]) == steps]
            parts.append(fitted.predict_origins(history, index[plan.origin_pos[group]], int(steps)))
        predict_s = time.perf_counter() - t0
        fold_rows.append(
            {
                "train_start": lo,
                "train_end": hi,
                "n_train": _n_rows(train, kind),
                "first_origin": index[first],
                "last_origin": index[int(plan.origin_pos[chunk[-1]])],
                "n_origins": len(chunk),
                "fit_seconds": fit_s,
                "predict_seconds": predict_s,
            }
        )
    targets = list(fitted.columns_)
    forecasts = _tidy(pd.concat(parts, ignore_index=True), plan, index, frames, kind, targets)
    if "mase" in metric_fns:
        scales = _mase_scales(frames, targets, index[plan.origin_pos[0]], mase_season, index)
        forecasts["scale"] = [
            scales[k]
            for k in zip(
                forecasts[V.ID_COLUMN] if kind != "frame" else [None] * len(forecasts),
                forecasts["target"],
                strict=True,
            )
        ]
    folds = pd.DataFrame(fold_rows)
    sub_daily = pd.Timedelta(index[1] - index[0]) < pd.Timedelta("1D")
    hours = _local_hours(forecasts["time"], timezone) if sub_daily else None
    result = BacktestResult(
        forecasts=forecasts.drop(columns="scale", errors="ignore"),
        metrics=_score(forecasts, metric_fns, by="target"),
        by_horizon=_score(forecasts, metric_fns, by="step"),
        by_hour=None if hours is None else _score(forecasts.assign(hour=hours), metric_fns, "hour"),
        folds=folds,
        origins=index[plan.origin_pos],
        fit_seconds=float(folds["fit_seconds"].sum()),
        predict_seconds=float(folds["predict_seconds"].sum()),
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
        },
    )
    result.total_seconds = time.perf_counter() - t_total
    if tracker is not None:
        tracker.log_backtest(name or type(estimator).__name__, estimator, result, data, {})
    return result


# --------------------------------------------------------------------------- schedule
@dataclass
class _Plan:
    """Positions in the data index: the origin and the first/last scored step per forecast."""

    origin_pos: np.ndarray
    first_pos: np.ndarray
    last_pos: np.ndarray
    horizon: int | None
    lead: int | None


def day_ahead_plan(
    index: pd.DatetimeIndex,
    start: str | pd.Timestamp,
    end: str | pd.Timestamp | None = None,
    timezone: str = "Europe/Berlin",
) -> pd.DataFrame:
    """Issue times, origins and scored steps of the day-ahead protocol on ``index``.

    For each local day D of ``[start, end]`` fully covered by ``index``, the forecast is
    issued at 12:00 local time on D-1; its origin is the last step whose interval has ended
    by then (11:00 for hourly data labelled by interval start), and it is scored on every
    step of D in local time (23 or 25 hours on DST days).

    Parameters
    ----------
    index : DatetimeIndex
        Regular timestamps (interval starts); a naive index is taken as local time.
    start, end : str or Timestamp
        First and last day of the test period (local time, pandas partial-string rules).
    timezone : str
        Local time zone of the market.

    Returns
    -------
    DataFrame
        One row per day: ``day`` (local midnight), ``issue``, ``origin``, ``first`` and
        ``last`` (first and last scored timestamp, in the index's time zone) and
        ``n_steps`` (steps scored).
    """
    plan = _day_ahead_positions(index, _fixed_step(V.infer_freq(index)), start, end, timezone)
    first = index[plan.first_pos]
    days = _local(first, timezone).normalize()
    issue = _localize(days.tz_localize(None) - pd.Timedelta("12h"), days.tz)
    return pd.DataFrame(
        {
            "day": days,
            "issue": issue,
            "origin": index[plan.origin_pos],
            "first": first,
            "last": index[plan.last_pos],
            "n_steps": plan.last_pos - plan.first_pos + 1,
        }
    )


def _make_plan(index, *, protocol, horizon, origins, start, end, lead, timezone) -> _Plan:
    freq = V.infer_freq(index)
    if protocol == "day-ahead":
        fixed = {"horizon": horizon, "origins": origins, "lead": lead or None}
        given = [k for k, v in fixed.items() if v is not None]
        if given:
            raise ValueError(f"protocol='day-ahead' sets {given} itself; do not pass them")
        return _day_ahead_positions(index, _fixed_step(freq), start, end, timezone)
    if protocol is not None:
        raise ValueError(f"protocol must be None or 'day-ahead', got {protocol!r}")
    if horizon is None:
        raise ValueError("horizon is required unless protocol='day-ahead' sets it")
    horizon = V.check_horizon(horizon)
    if isinstance(lead, bool) or not isinstance(lead, int | np.integer) or lead < 0:
        raise ValueError(f"lead must be a non-negative int, got {lead!r}")
    n = len(index)
    if origins is not None and not isinstance(origins, str | pd.DateOffset | pd.Timedelta):
        if start is not None or end is not None:
            raise ValueError("give either a list of origins or start/end, not both")
        stamps = pd.DatetimeIndex(origins)
        pos = index.get_indexer(stamps)
        if (pos < 0).any():
            raise ValueError(f"origin {stamps[np.argmax(pos < 0)]} is not a timestamp of the data")
        beyond = pos + lead + horizon >= n
        if beyond.any():
            raise ValueError(
                f"origin {stamps[np.argmax(beyond)]}: lead {lead} + horizon {horizon} steps run "
                f"past the end of the data at {index[-1]}"
            )
        pos = np.unique(pos)
    else:
        if start is None:
            raise ValueError("start (the beginning of the test period) is required")
        lo, hi = _period(index, start, end, timezone)
        pos = _scheduled(index, freq, origins, lo, hi, lead, timezone, horizon)
        pos = np.unique(pos[(pos >= 0) & (pos + lead + 1 >= lo) & (pos + lead + horizon <= hi)])
        if len(pos) == 0:
            raise ValueError(
                f"no forecast of lead {lead} + horizon {horizon} steps fits in the test period "
                f"{index[lo]} .. {index[hi]} with origins={origins!r}"
            )
    return _Plan(pos, pos + lead + 1, pos + lead + horizon, horizon, lead)


def _scheduled(index, freq, origins, lo, hi, lead, timezone, horizon) -> np.ndarray:
    """Candidate origin positions of a schedule (filtered to the test period by the caller)."""
    if origins is None:
        return np.arange(lo - lead - 1, hi + 1, horizon)
    step = _fixed_step(freq)
    if isinstance(origins, str) and re.fullmatch(r"\d{1,2}:\d{2}", origins):
        local = _local(index, timezone)
        days = pd.date_range(
            local[0].normalize().tz_localize(None),
            local[hi].normalize().tz_localize(None),
            freq="D",
        )
        issues = _localize(days + pd.Timedelta(f"{origins}:00"), local.tz).dropna()
        return _last_complete(index, step, issues)
    try:
        every = pd.tseries.frequencies.to_offset(origins)
    except ValueError as err:
        raise ValueError(
            f"origins must be None, 'HH:MM', an offset alias like '7D' or a list of timestamps; "
            f"got {origins!r}"
        ) from err
    stamps = pd.date_range(index[max(lo - lead - 1, 0)], index[hi], freq=every)
    return index.searchsorted(stamps, side="right") - 1


def _day_ahead_positions(index, step: pd.Timedelta, start, end, timezone) -> _Plan:
    if start is None:
        raise ValueError("start (the first day of the test period) is required for 'day-ahead'")
    lo, hi = _period(index, start, end, timezone)
    local = _local(index[lo : hi + 1], timezone)
    days = pd.DatetimeIndex(local.normalize().tz_localize(None).unique())
    starts = _localize(days, local.tz)
    ends = _localize(days + pd.Timedelta("1D"), local.tz)
    issues = _localize(days - pd.Timedelta("12h"), local.tz)
    first = index.searchsorted(starts)
    last = index.searchsorted(ends) - 1
    origin = _last_complete(index, step, issues)
    expected = np.asarray((ends - starts) / step).round().astype(int)
    complete = (last - first + 1 == expected) & (origin >= 0)
    complete &= index[np.minimum(first, len(index) - 1)] == starts
    if not complete.any():
        raise ValueError(
            f"no complete local day in the test period {index[lo]} .. {index[hi]} with 12:00 "
            f"of the day before inside the data (data start {index[0]})"
        )
    return _Plan(origin[complete], first[complete], last[complete], None, None)


def _last_complete(index: pd.DatetimeIndex, step: pd.Timedelta, issues) -> np.ndarray:
    """Position of the last step whose interval has ended at each issue time (-1 if none)."""
    return (index + step).searchsorted(issues, side="right") - 1


def _check_window(window: str, train_size) -> None:
    if window == "expanding":
        if train_size is not None:
            raise ValueError("train_size is only used with window='sliding'")
        return
    if window != "sliding":
        raise ValueError(f"window must be 'expanding' or 'sliding', got {window!r}")
    if train_size is None:
        raise ValueError("window='sliding' needs train_size (rows as int, or a duration, '365D')")
    is_int = isinstance(train_size, int | np.integer)
    if isinstance(train_size, bool) or (is_int and train_size < 1):
        raise ValueError(f"train_size must be a positive int or a duration, got {train_size!r}")
    if not isinstance(train_size, int | np.integer):
        pd.Timedelta(train_size)  # raises on a malformed duration


def _train_bounds(index, first_pos: int, window: str, train_size) -> tuple:
    """First and last timestamp of the training window of a fold whose first origin is given."""
    hi = index[first_pos]
    if window == "expanding":
        return index[0], hi
    if isinstance(train_size, int | np.integer):
        return index[max(0, first_pos - int(train_size) + 1)], hi
    return index[index.searchsorted(hi - pd.Timedelta(train_size), side="right")], hi


def _period(index, start, end, timezone) -> tuple[int, int]:
    """Positions of the first and last timestamp of the test period [start, end]."""
    local = _local(index, timezone)
    pos = pd.Series(np.arange(len(index)), index=local)
    sel = pos.loc[_bound(start, local.tz) : _bound(end, local.tz)]
    if sel.empty:
        raise ValueError(
            f"test period start={start!r} end={end!r} holds no timestamp of the data "
            f"({index[0]} .. {index[-1]})"
        )
    return int(sel.iloc[0]), int(sel.iloc[-1])


def _bound(value, tz):
    if value is None or isinstance(value, str):
        return value
    value = pd.Timestamp(value)
    if tz is not None and value.tz is None:
        return value.tz_localize(tz)
    return value


def _local(index: pd.DatetimeIndex, timezone: str) -> pd.DatetimeIndex:
    return index.tz_convert(timezone) if index.tz is not None else index


def _localize(naive: pd.DatetimeIndex, tz) -> pd.DatetimeIndex:
    if tz is None:
        return naive
    return naive.tz_localize(tz, ambiguous="NaT", nonexistent="NaT")


def _fixed_step(freq) -> pd.Timedelta:
    try:
        return pd.Timedelta(freq)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"this schedule needs a fixed frequency (hours, minutes, days); the data are {freq}"
        ) from err


# ---------------------------------------------------------------------------- scoring
def _resolve_metrics(metrics) -> dict[str, Callable]:
    if isinstance(metrics, Mapping):
        bad = [k for k, f in metrics.items() if not callable(f)]
        if bad:
            raise TypeError(f"metrics[{bad[0]!r}] is not callable")
        return {str(k): f for k, f in metrics.items()}
    out = {}
    for metric in metrics:
        if callable(metric):
            out[getattr(metric, "__name__", f"metric{len(out)}")] = metric
            continue
        from forecast import metrics as M

        fn = getattr(M, str(metric), None)
        if not callable(fn):
            raise ValueError(f"unknown metric {metric!r}: not a function of forecast.metrics")
        out[str(metric)] = fn
    return out


def _score(fc: pd.DataFrame, fns: dict, by: str) -> pd.DataFrame:
    """Metrics per value of column ``by`` (plus ``"overall"`` when ``by="target"``)."""
    fc = fc[np.isfinite(fc["y_true"].to_numpy())]
    groups = [(key, part) for key, part in fc.groupby(by, sort=True)]
    if by == "target":
        groups.append(("overall", fc))
    rows = {}
    for key, part in groups:
        y_true, y_pred = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
        row = {}
        for name, fn in fns.items():
            if name == "mase":  # MAE of values scaled by each series' in-sample naive MAE
                from forecast.metrics import mae

                scale = part["scale"].to_numpy()
                row[name] = float(mae(y_true / scale, y_pred / scale))
            else:
                row[name] = float(fn(y_true, y_pred))
        row["n"] = len(part)
        rows[key] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = by
    return table


def _mase_scales(frames: dict, targets: list, first_origin, season, index) -> dict:
    """In-sample seasonal naive MAE per (series, target) on the data up to the first origin."""
    from forecast.metrics import mae

    if isinstance(season, int | np.integer) and not isinstance(season, bool):
        m = int(season)
    else:
        m = int(round(pd.Timedelta(season) / _fixed_step(V.infer_freq(index))))
    if m < 1:
        raise ValueError(f"mase_season must be at least one step, got {season!r}")
    scales = {}
    for key, frame in frames.items():
        for column in targets:
            y = frame.loc[:first_origin, column].to_numpy(dtype=float)
            scale = mae(y[m:], y[:-m]) if len(y) > m else np.nan
            if not scale > 0:
                raise ValueError(
                    f"{V._where(key)}MASE is undefined for {column!r}: the in-sample naive error "
                    f"at lag {m} before {first_origin} is {scale}"
                )
            scales[(key, column)] = scale
    return scales


def _local_hours(times: pd.Series, timezone: str) -> np.ndarray:
    return _local(pd.DatetimeIndex(times), timezone).hour.to_numpy()


# ---------------------------------------------------------------------------- helpers
def _select_columns(estimator: Any, frames: dict, target) -> dict:
    """Keep the target columns and the covariates the estimator declares."""
    if target is None:
        return frames
    targets = [target] if isinstance(target, str) else list(target)
    declared = getattr(estimator, "_covariate_names", None)
    future, past = declared() if declared is not None else ([], [])
    keep = list(dict.fromkeys(targets + list(future) + list(past)))
    out = {}
    for key, frame in frames.items():
        V.check_columns(frame, keep, key, "data")
        out[key] = frame[keep]
    return out


def _union_index(frames: dict) -> pd.DatetimeIndex:
    indexes = list(frames.values())
    for key, frame in frames.items():
        V.check_index(frame, key)
    index = indexes[0].index
    for frame in indexes[1:]:
        index = index.union(frame.index)
    if len(index) < 2:
        raise ValueError(f"data has {len(index)} timestamp(s); a backtest needs a series")
    return index


def _chunks(n_origins: int, refit_every: int | None) -> list[np.ndarray]:
    if refit_every is None:
        return [np.arange(n_origins)]
    if isinstance(refit_every, bool) or not isinstance(refit_every, int) or refit_every < 1:
        raise ValueError(f"refit_every must be None or a positive int, got {refit_every!r}")
    return [np.arange(i, min(i + refit_every, n_origins)) for i in range(0, n_origins, refit_every)]


def _slice(frames: dict, kind: str, lo: pd.Timestamp, hi: pd.Timestamp):
    """Rows with ``lo <= time <= hi`` of every series, in the container the data came in."""
    parts = {key: frame.loc[lo:hi] for key, frame in frames.items()}
    if kind == "frame":
        return parts[None]
    if kind == "dict":
        return parts
    return V.join_series(parts, "long")


def _n_rows(train, kind: str) -> int:
    if kind == "dict":
        return len(next(iter(train.values())))
    return len(train)


def _tidy(
    pred: pd.DataFrame, plan: _Plan, index: pd.DatetimeIndex, frames: dict, kind: str, targets: list
) -> pd.DataFrame:
    """Keep the scored steps of each origin, add actuals, and melt to one row per value."""
    origin_pos = pd.Series(plan.origin_pos, index=index[plan.origin_pos])
    o_pos = origin_pos.reindex(pred["origin"]).to_numpy()
    t_pos = index.get_indexer(pd.DatetimeIndex(pred["time"]))
    first = dict(zip(plan.origin_pos, plan.first_pos, strict=True))
    first_pos = np.array([first[p] for p in o_pos])
    keep = (t_pos >= first_pos) & (t_pos >= 0)
    pred = pred.loc[keep].reset_index(drop=True)
    step = (t_pos - o_pos)[keep]
    ids = pred[V.ID_COLUMN].to_numpy() if kind != "frame" else np.full(len(pred), None)
    truth = np.full((len(pred), len(targets)), np.nan)
    for key, frame in frames.items():
        rows = np.flatnonzero(ids == key) if kind != "frame" else np.arange(len(pred))
        times = pd.DatetimeIndex(pred["time"].to_numpy()[rows])
        truth[rows] = frame[targets].reindex(times).to_numpy(dtype=float)
    head = pred[["origin"] + ([V.ID_COLUMN] if kind != "frame" else []) + ["time"]]
    head = head.assign(step=step)
    blocks = []
    for c, column in enumerate(targets):
        blocks.append(
            head.assign(
                target=column, y_pred=pred[column].to_numpy(dtype=float), y_true=truth[:, c]
            )
        )
    out = pd.concat(blocks, ignore_index=True)
    order = ["origin"] + ([V.ID_COLUMN] if kind != "frame" else []) + ["time"]
    out["target"] = pd.Categorical(out["target"], categories=targets)
    out = out.sort_values(order + ["target"], kind="stable", ignore_index=True)
    out["target"] = out["target"].astype(str)
    return out
