"""Static conformal calibration: one backtest at the end of the fit data, then ACI replays.

Functions of a :class:`forecast.ConformalForecaster` (``model``) in its default
mode (``window=None``): the calibration backtest run by ``fit`` and the adaptive levels
replayed from the fit end at prediction time.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast.frames import validation
from forecast.frames.slices import actuals, series_index, slice_series
from forecast.probabilistic.table import ScoreTable, aci_path, build_table, min_scores


def calibration_rows(value: object, index: pd.DatetimeIndex) -> int:
    """Count the rows of the calibration period ``value`` at the end of ``index``."""
    n = len(index)
    if isinstance(value, float) and 0 < value < 1:
        return int(round(n * value))
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 1:
        return int(value)
    if isinstance(value, str):
        try:
            span = pd.Timedelta(value)
        except ValueError:
            span = None
        if span is not None and span > pd.Timedelta(0):
            return int(np.sum(index > index[-1] - span))
    raise ValueError(
        f"calibration must be a fraction in (0, 1), a number of rows or a duration such as "
        f"'365D', got {value!r}"
    )


def static_forecasts(
    model: Any,
    X: Any,
    frames: dict[Any, pd.DataFrame],
    kind: str,
    index: pd.DatetimeIndex,
    horizon: int,
) -> tuple[pd.DataFrame, pd.Timestamp]:
    """Forecasts of a clone fitted before the calibration period, and its first origin."""
    rows = calibration_rows(model.calibration, index)
    stride = int(model.stride)
    # whole strides before the end, so a daily stride keeps the clock time of the fit end
    last = len(index) - 1 - stride * -(-horizon // stride)
    positions = np.arange(last, len(index) - rows - 1, -stride)[::-1]
    if len(positions) == 0 or positions[0] < 1:
        raise ValueError(
            f"calibration={model.calibration!r} ({rows} rows) leaves no origin with "
            f"{horizon} steps ahead before the end of X at {index[-1]}; lengthen the data "
            "or the calibration period"
        )
    first = index[positions[0]]
    cal_model = clone(model.estimator).fit(slice_series(frames, kind, index[0], first))
    pred = cal_model.predict_origins(X, index[positions], horizon, max_horizon=None)
    return pred, first


def static_table(
    model: Any,
    pred: pd.DataFrame,
    frames: dict[Any, pd.DataFrame],
    kind: str,
    index: pd.DatetimeIndex,
) -> tuple[ScoreTable, int]:
    """Tabulate the calibration forecasts ``pred``; also return the residuals used."""
    keys, columns = model.series_keys_, list(model.columns_)
    truth = actuals(pred, frames, kind, columns)
    fc = pred[columns].to_numpy(dtype=float)
    steps = index.get_indexer(pd.DatetimeIndex(pred[validation.TIME_COLUMN])) - index.get_indexer(
        pd.DatetimeIndex(pred["origin"])
    )
    series = series_index(pred, kind, keys)
    hours = model._hours(pred[validation.TIME_COLUMN])
    resid = truth - fc  # (n, C)
    ok = np.isfinite(resid)
    n_c = resid.shape[1]
    channel = np.broadcast_to(np.arange(n_c), resid.shape)
    step = np.broadcast_to((steps - 1)[:, None], resid.shape) if model.per_step else 0 * channel
    shape = (len(keys), n_c, model.steps_ if model.per_step else 1, 24 if model._hourly() else 1)
    table = build_table(
        resid[ok],
        np.broadcast_to(series[:, None], resid.shape)[ok],
        channel[ok],
        np.asarray(step)[ok],
        np.broadcast_to(hours[:, None], resid.shape)[ok],
        shape,
        model.method,
        min_scores(model._alphas(), model.method),
    )
    return table, int(ok.sum())


def static_levels(model: Any, frame: pd.DataFrame, key: Any, origins: Any) -> np.ndarray:
    """ACI levels ``(len(origins), n_coverages)`` of forecasts issued at ``origins``.

    Nominal levels unless ``adaptive``; else the levels after every replayed forecast
    (issued from the fit end every ``stride`` steps) whose horizon ends by the origin.
    """
    origins = pd.DatetimeIndex(origins)
    alphas = model._alphas()
    out = np.broadcast_to(alphas, (len(origins), len(alphas))).copy()
    if not model.adaptive:
        return out
    step = pd.Timedelta(model.freq_)
    horizon = model.steps_
    replay = pd.date_range(model.fit_end_, origins.max() - horizon * step, freq=model.stride * step)
    replay = replay[replay.isin(frame.index)]
    positions = frame.index.get_indexer(replay)
    replay = replay[positions + 1 >= model.estimator_._min_history()]
    if len(replay) == 0:
        return out
    data = frame.loc[: origins.max()]
    pred = model.estimator_.predict_origins(data, replay, horizon, max_horizon=None)
    columns = list(model.columns_)
    times = pd.DatetimeIndex(pred[validation.TIME_COLUMN])
    truth = data[columns].reindex(times).to_numpy(float)
    values = pred[columns].to_numpy(float)
    k = model._series(key)
    steps = np.tile(np.arange(horizon), len(replay)) if model.per_step else np.zeros(len(pred))
    hours = model._hours(times)
    table = ScoreTable(model.scores_, model.counts_, model.groups_)
    groups = model.groups_[k][:, steps.astype(np.int64), hours]  # (C, n)
    path = aci_path(table, groups, truth.T, values.T, horizon, alphas, model.gamma, model.method)
    known = replay + horizon * step  # the last value of forecast j is observed then
    # forecasts seen by each origin (one unit for both: pandas may store us or ns)
    done = np.searchsorted(known.as_unit("ns").asi8, origins.as_unit("ns").asi8, side="right")
    return path[done]
