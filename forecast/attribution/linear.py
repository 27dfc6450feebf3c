"""The exact decomposition of a linear-lag forecast into its regression terms.

A :class:`~forecast.models.baselines.LinearLagForecaster` forecasts lead ``j`` of channel
``c`` as ``mean + scale * (b + sum_k w_k x_k)``, with ``x`` the regressors of the origin and
lead (scaled lags and seasonal lags, scaled future covariates, day-level calendar
regressors; :mod:`forecast.models.baselines._direct`). The contribution of regressor ``k``
is ``scale * w_k * x_k`` and the baseline is every regressor at zero: each lag and covariate
at its training mean, no weekday, day of year and holiday term, i.e. ``mean + scale * b``.
The terms add up to the forecast minus the baseline exactly; two terms that read the same
value (the lag of one day and the seasonal lag ``"1D"``) are one input.

Only leads the model forecasts directly (``<= horizon_``) are decomposed here; beyond them
its forecast feeds on itself and :func:`forecast.attribution.explain` samples Shapley values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.attribution import inputs as X
from forecast.frames.series import SeriesArrays
from forecast.models.baselines import LinearLagForecaster, _wallclock
from forecast.models.baselines import _direct as D

_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: Names of the day-level regressors (:func:`forecast.models.baselines._direct.day_table`).
DAY_COLUMNS = (*(f"weekday_{d}" for d in _WEEKDAYS), "doy_sin", "doy_cos")
HOLIDAY_DAY_COLUMNS = ("holiday_workday", "holiday_saturday", "bridge_day", "christmas")


def exact_applies(model: object, horizon: int) -> bool:
    """Whether ``model`` is a plain linear-lag model and ``horizon`` within its direct leads."""
    return type(model) is LinearLagForecaster and horizon <= model.horizon_


def _stamps(model: LinearLagForecaster, times: np.ndarray) -> pd.DatetimeIndex:
    """Timestamps of local wall-clock grid times (NaT in a skipped or repeated hour)."""
    wall = pd.DatetimeIndex(np.asarray(times, dtype="datetime64[ns]"))
    if model.tz_ is None:
        return wall
    zone = model.timezone or model.tz_
    local = wall.tz_localize(zone, ambiguous="NaT", nonexistent="NaT")
    return local.tz_convert(model.tz_)


def _regressor_positions(
    model: LinearLagForecaster, origin: int, j: int, target: int
) -> list[tuple[str, str | None, int]]:
    """``(kind, name, grid position)`` of each regressor of lead ``j`` (name None: the target)."""
    lags, seasonal = model.lags_, model.seasonal_lags_
    out: list[tuple[str, str | None, int]] = [(X.LAG, None, origin - lag + 1) for lag in lags]
    sources = [target - -(-j // s) * s for s in seasonal]
    out += [(X.LAG, None, p) for p in sources]
    out += [(X.FUTURE, name, target) for name in model.future_covariates_]
    if model.calendar:
        day = DAY_COLUMNS + (HOLIDAY_DAY_COLUMNS if model.country else ())
        out += [(X.CALENDAR, name, target) for name in day]
        if model.country:
            for p in [*sources, origin, origin - int(lags.max()) + 1]:
                out += [(X.CALENDAR, name, p) for name in HOLIDAY_DAY_COLUMNS]
    return out


def explain_linear(
    model: LinearLagForecaster, s: SeriesArrays, times: pd.DatetimeIndex
) -> tuple[X.Inputs, np.ndarray, np.ndarray, np.ndarray]:
    """Exact terms of one forecast of at most ``horizon_`` steps.

    Returns
    -------
    inputs : Inputs
        The inputs read (each distinct value once).
    attributions : ndarray of shape (H, C, G)
    forecast, baseline : ndarray of shape (H, C)
    """
    horizon, columns = len(times), list(model.columns_)
    n = len(s.y)
    start = max(n - model._keep_history(), 0)  # the rows predict reads (its own rule)
    fut = None if s.future is None else s.future[start : n + horizon]
    tail = SeriesArrays(s.key, s.y[start:], s.index[start:], None, fut)
    g: dict[str, Any] = model._grids([tail], horizon)[0]
    known, source = model._known([g])
    grid, pos = g["grid"], g["pos"]
    origin = grid.origin
    step = _wallclock.fixed_step(model.freq_)
    phase = int(_wallclock.phase_of(g["times"][origin : origin + 1], step, model.n_phases_)[0])
    mean = np.zeros(len(columns)) if model.scaler_ is None else model.scaler_.mean_
    scale = np.ones(len(columns)) if model.scaler_ is None else model.scaler_.scale_
    keys: dict[tuple[str, str, int], int] = {}
    terms: list[tuple[int, int, int, float]] = []  # (step, channel, input, value)
    forecast, baseline = np.empty((horizon, len(columns))), np.empty((horizon, len(columns)))
    for k, target in enumerate(pos):
        j = int(target - origin)
        for c, column in enumerate(columns):
            if j < 1:  # inside a repeated autumn hour: the observed value itself
                key = keys.setdefault((X.LAG, column, int(target)), len(keys))
                terms.append((k, c, key, float(grid.values[target, c]) * scale[c]))
                forecast[k, c] = mean[c] + scale[c] * grid.values[target, c]
                baseline[k, c] = mean[c]
                continue
            x = D.regressors(
                grid.values[:, c],
                np.array([origin]),
                np.array([j]),
                model.lags_,
                model.seasonal_lags_,
                known[0],
                source[0],
            )[0]
            w = model.coef_[c, phase, j - 1]
            b = model.intercept_[c, phase, j - 1]
            where = _regressor_positions(model, origin, j, int(target))
            assert len(where) == len(x)  # the layout of _direct.regressors
            for (kind, name, p), value in zip(where, w * x, strict=True):
                key = keys.setdefault((kind, name or column, int(p)), len(keys))
                terms.append((k, c, key, float(value) * scale[c]))
            forecast[k, c] = mean[c] + scale[c] * (b + float(w @ x))
            baseline[k, c] = mean[c] + scale[c] * b
    attributions = np.zeros((horizon, len(columns), len(keys)))
    at = np.asarray(terms)
    np.add.at(
        attributions, (at[:, 0].astype(int), at[:, 1].astype(int), at[:, 2].astype(int)), at[:, 3]
    )
    listed = sorted(keys, key=keys.__getitem__)
    positions = np.array([p for _, _, p in listed])
    all_times = np.asarray(g["times"])
    inputs = X.Inputs(
        kind=np.array([kind for kind, _, _ in listed], dtype=object),
        name=np.array([name for _, name, _ in listed], dtype=object),
        time=_stamps(model, all_times[positions]),
        step=positions - origin,
    )
    return inputs, attributions, forecast, baseline
