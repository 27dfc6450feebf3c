"""Conformal prediction intervals around any estimator's point forecasts.

:class:`ConformalForecaster` wraps an estimator (neural, baseline or the external forecast
column). ``fit`` runs a rolling-origin backtest over a calibration period at the end of the
data: a clone of the estimator is fitted on the data before the period, forecasts it from
origins every ``stride`` steps (each forecast sees only data up to its origin), and the
residuals are kept per forecast step and per hour of day (split conformal; the table is in
:mod:`forecast._conformal_table`). Then the estimator is refitted on all the data for the
point forecasts. Intervals are the point forecast plus calibrated residual quantiles.

With ``adaptive=True`` the miscoverage level follows adaptive conformal inference (ACI,
Gibbs & Candes 2021): for each forecast issued after the fit whose whole horizon has been
observed, ``alpha_t <- alpha_t + gamma * (alpha - miss_t)``, ``miss_t`` the fraction of its
values outside the interval. It is replayed from the end of the fit over the data passed to
``predict(history=...)``/``predict_origins`` (forecasts from origins ``stride`` steps apart),
so forecasts stay a pure function of the fitted state and the data, and never use a value
after their origin.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from forecast import _validation as V
from forecast._conformal_data import EpochsOnly, actuals, series_index, slice_series, union_index
from forecast._conformal_table import ScoreTable, aci_path, bounds, build_table, min_scores
from forecast._quantiles import (
    central_levels,
    check_coverage,
    quantile_column,
    select_levels,
)
from forecast.base import BaseForecaster

METHODS = ("signed", "symmetric")


class ConformalForecaster(BaseForecaster):
    """Calibrated prediction intervals for any estimator (split conformal, optionally ACI).

    Parameters
    ----------
    estimator : BaseForecaster
        The point forecaster; cloned for calibration and for the final fit, never changed.
    coverage : float or tuple of float
        Nominal coverage of the central intervals, e.g. 0.8 or ``(0.8, 0.95)``. Coverage
        ``c`` gives the quantile levels ``(1 - c) / 2`` and ``(1 + c) / 2``, so ``0.8``
        gives the columns ``<column>_q0.1`` and ``<column>_q0.9``.
    calibration : float, int or str
        Length of the calibration period at the end of the fit data: a fraction of its
        rows (float in (0, 1)), a number of rows (int) or a duration such as ``"365D"``.
    horizon : int, optional
        Steps ahead the intervals are calibrated for (forecasts may not go further).
        Default: the estimator's ``horizon`` parameter, else 24.
    stride : int
        Steps between calibration origins (and between the forecasts replayed by
        ``adaptive``). Origins lie whole strides before the end of the fit data, so with a
        one-day stride they share its clock time: in a day-ahead backtest, that of the
        forecasts scored.
    method : {"signed", "symmetric"}
        ``"signed"``: bounds are quantiles of the signed residuals (asymmetric intervals
        that absorb a bias); ``"symmetric"``: the point forecast plus/minus a quantile of
        the absolute residuals (needs half as many residuals).
    per_step : bool
        Calibrate each step ahead separately (else one pool over steps).
    by_hour : bool
        For sub-daily data, calibrate each (step, local hour of the forecast timestamp)
        separately; groups with too few residuals fall back to the step's pool.
    adaptive : bool
        Adapt the miscoverage level to the coverage achieved since the fit (ACI).
    gamma : float
        ACI step size.
    timezone : str, optional
        Time zone of the hour groups (default: the data's own zone, or naive clock time).

    Attributes
    ----------
    estimator_ : BaseForecaster
        The estimator fitted on all the data; it makes the point forecasts.
    scores_ : ndarray of shape (G, N)
        Sorted calibration scores per group, NaN-padded; ``counts_`` (G,) scores per group
        and ``groups_`` (K, C, S, D) the group of each (series, channel, step, hour).
    levels_ : tuple of float
        The quantile levels of the intervals.
    series_keys_ : list
        Series the calibration knows (``None`` for a single series).
    calibration_start_, fit_end_ : Timestamp
        First calibration origin and the last timestamp of the fit data.
    n_calibration_ : int
        Calibration residuals (values) used.

    Examples
    --------
    >>> from forecast import ConformalForecaster, SeasonalNaive
    >>> model = ConformalForecaster(SeasonalNaive(season="7D"), coverage=(0.8, 0.95))
    >>> fc = model.fit(df).predict(24, quantiles=True)  # doctest: +SKIP
    >>> list(fc.columns)  # doctest: +SKIP
    ['load', 'load_q0.025', 'load_q0.1', 'load_q0.9', 'load_q0.975']
    """

    def __init__(
        self,
        estimator=None,
        *,
        coverage=0.8,
        calibration=0.2,
        horizon=None,
        stride=1,
        method="signed",
        per_step=True,
        by_hour=True,
        adaptive=False,
        gamma=0.005,
        timezone=None,
    ) -> None:
        self.estimator = estimator
        self.coverage = coverage
        self.calibration = calibration
        self.horizon = horizon
        self.stride = stride
        self.method = method
        self.per_step = per_step
        self.by_hour = by_hour
        self.adaptive = adaptive
        self.gamma = gamma
        self.timezone = timezone

    # ------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        if not isinstance(self.estimator, BaseForecaster):
            raise TypeError(
                f"estimator must be a forecast estimator (a BaseForecaster), got {self.estimator!r}"
            )
        check_coverage(self.coverage)
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        for name in ("stride",) + (("horizon",) if self.horizon is not None else ()):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if not (isinstance(self.gamma, numbers.Real) and 0 < self.gamma < 1):
            raise ValueError(f"gamma must be in (0, 1), got {self.gamma!r}")

    def _steps_ahead(self) -> int:
        if self.horizon is not None:
            return int(self.horizon)
        inner = getattr(self.estimator, "horizon", None)
        return int(inner) if isinstance(inner, numbers.Integral) and inner >= 1 else 24

    def _alphas(self) -> np.ndarray:
        return 1.0 - np.asarray(check_coverage(self.coverage))

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(getattr(self, "levels_", ()))

    def _covariate_names(self) -> tuple[list, list]:
        return self.estimator._covariate_names()

    def _min_history(self) -> int:
        inner = getattr(self, "estimator_", None) or self.estimator
        return inner._min_history()

    @property
    def train_tail_(self) -> dict:
        """The history the fitted estimator keeps for ``predict`` without history."""
        return self.estimator_.train_tail_

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None, *, callbacks=None) -> ConformalForecaster:
        """Calibrate on the end of ``X``, then fit the estimator on all of ``X``.

        Parameters
        ----------
        X : DataFrame, long DataFrame or dict of DataFrames
            As for the wrapped estimator's ``fit``.
        y : None
            Ignored.
        callbacks : list, optional
            Told of the start and end of this fit (with this wrapper as the estimator, so
            MLflow tracking logs the wrapper) and of the epochs of the estimator's final fit.

        Returns
        -------
        self
        """
        self._check_params()
        callbacks = list(callbacks or [])
        frames, kind = V.split_series(X, "X")
        index = union_index(frames)
        horizon = self._steps_ahead()
        rows = self._calibration_rows(index)
        stride = int(self.stride)
        # whole strides before the end, so a daily stride keeps the clock time of the fit end
        last = len(index) - 1 - stride * -(-horizon // stride)
        positions = np.arange(last, len(index) - rows - 1, -stride)[::-1]
        if len(positions) == 0 or positions[0] < 1:
            raise ValueError(
                f"calibration={self.calibration!r} ({rows} rows) leaves no origin with "
                f"{horizon} steps ahead before the end of X at {index[-1]}; lengthen the data "
                "or the calibration period"
            )
        first = index[positions[0]]
        cal_model = clone(self.estimator).fit(slice_series(frames, kind, index[0], first))
        origins = index[positions]
        pred = cal_model.predict_origins(X, origins, horizon, max_horizon=None)
        for callback in callbacks:
            callback.on_fit_start(self)
        epochs = [EpochsOnly(c) for c in callbacks]
        self.estimator_ = clone(self.estimator).fit(X, callbacks=epochs)
        est = self.estimator_
        self.columns_, self.freq_, self.tz_ = est.columns_, est.freq_, est.tz_
        self.input_kind_, self.index_name_ = est.input_kind_, getattr(est, "index_name_", None)
        self.past_covariates_ = list(est.past_covariates_)
        self.future_covariates_ = list(est.future_covariates_)
        self.series_keys_ = list(frames)
        self.levels_ = central_levels(check_coverage(self.coverage))
        self.fit_end_ = index[-1]
        self.calibration_start_ = first
        self.steps_ = horizon
        self.sub_daily_ = pd.Timedelta(index[1] - index[0]) < pd.Timedelta("1D")
        table, n = self._calibrate(pred, frames, kind, index)
        self.scores_, self.counts_, self.groups_ = table.table, table.counts, table.group
        self.n_calibration_ = n
        for callback in callbacks:
            callback.on_fit_end(self)
        return self

    def _calibration_rows(self, index: pd.DatetimeIndex) -> int:
        value, n = self.calibration, len(index)
        if isinstance(value, float) and 0 < value < 1:
            return int(round(n * value))
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
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

    def _calibrate(self, pred: pd.DataFrame, frames: dict, kind: str, index) -> tuple:
        keys, columns = self.series_keys_, list(self.columns_)
        truth = actuals(pred, frames, kind, columns)
        fc = pred[columns].to_numpy(dtype=float)
        steps = index.get_indexer(pd.DatetimeIndex(pred[V.TIME_COLUMN])) - index.get_indexer(
            pd.DatetimeIndex(pred["origin"])
        )
        series = series_index(pred, kind, keys)
        hours = self._hours(pred[V.TIME_COLUMN])
        resid = truth - fc  # (n, C)
        ok = np.isfinite(resid)
        n_rows, n_c = resid.shape
        channel = np.broadcast_to(np.arange(n_c), resid.shape)
        step = np.broadcast_to((steps - 1)[:, None], resid.shape) if self.per_step else 0 * channel
        shape = (len(keys), n_c, self.steps_ if self.per_step else 1, 24 if self._hourly() else 1)
        table = build_table(
            resid[ok],
            np.broadcast_to(series[:, None], resid.shape)[ok],
            channel[ok],
            np.asarray(step)[ok],
            np.broadcast_to(hours[:, None], resid.shape)[ok],
            shape,
            self.method,
            min_scores(self._alphas(), self.method),
        )
        return table, int(ok.sum())

    def _hourly(self) -> bool:
        return bool(self.by_hour and self.sub_daily_)

    def _hours(self, times) -> np.ndarray:
        if not self._hourly():
            return np.zeros(len(times), dtype=np.int64)
        index = pd.DatetimeIndex(times)
        if self.timezone is not None and index.tz is not None:
            index = index.tz_convert(self.timezone)
        return np.asarray(index.hour, dtype=np.int64)

    # -------------------------------------------------------------- predict
    def predict(
        self, horizon=1, history=None, future=None, *, quantiles=None, max_horizon=V.MAX_HORIZON
    ):
        """Point forecasts of the estimator, with interval bounds as quantile columns.

        Parameters are those of :meth:`forecast.base.BaseForecaster.predict`; ``quantiles``
        True adds ``<column>_q<level>`` for every level of ``coverage`` (a tuple: those
        levels). The point column is the estimator's forecast, not a median.
        """
        check_is_fitted(self, "estimator_")
        levels = select_levels(quantiles, self.levels_, type(self).__name__)
        point = self.estimator_.predict(
            horizon, history=history, future=future, max_horizon=max_horizon
        )
        if not levels:
            return point
        self._check_horizon(horizon)
        parts, kind = V.split_series(point, "forecast")
        hist = None if history is None else V.split_series(history, "history")[0]
        out = {}
        for key, frame in parts.items():
            k = self._series(key)
            alpha = self._alpha_at(hist, key, [frame.index[0] - self.freq_])
            steps = np.arange(len(frame))
            bands = self._bands(frame.to_numpy(float), k, steps, frame.index, alpha, levels)
            out[key] = pd.concat([frame, pd.DataFrame(bands, index=frame.index)], axis=1)
        return V.join_series(out, kind)

    def predict_origins(self, data, origins, horizon, *, quantiles=None, max_horizon=V.MAX_HORIZON):
        """Forecast from many origins (see the base class), with interval columns.

        The adaptive level at each origin is replayed from the forecasts issued after the
        fit whose horizon has been observed by that origin.
        """
        check_is_fitted(self, "estimator_")
        levels = select_levels(quantiles, self.levels_, type(self).__name__)
        pred = self.estimator_.predict_origins(data, origins, horizon, max_horizon=max_horizon)
        if not levels:
            return pred
        self._check_horizon(horizon)
        frames, kind = V.split_series(data, "data")
        series = series_index(pred, kind, self.series_keys_)
        origin = pd.DatetimeIndex(pred["origin"])
        step = np.tile(np.arange(horizon), len(pred) // horizon)
        alpha = np.broadcast_to(self._alphas(), (len(pred), len(self._alphas()))).copy()
        if self.adaptive:
            for key in frames:
                rows = np.flatnonzero(series == self._series(key))
                alpha[rows] = self._alpha_at(frames, key, origin[rows])
        values = pred[list(self.columns_)].to_numpy(float)
        bands = self._bands(values, series, step, pred[V.TIME_COLUMN], alpha, levels)
        return pd.concat([pred, pd.DataFrame(bands, index=pred.index)], axis=1)

    def _check_horizon(self, horizon: int) -> None:
        if horizon > self.steps_:
            raise ValueError(
                f"{type(self).__name__} is calibrated for horizon={self.steps_} steps; asked for "
                f"{horizon}: refit with horizon >= {horizon}"
            )

    def _series(self, key) -> int:
        if key not in self.series_keys_:
            raise ValueError(
                f"series {key!r} was not calibrated; calibrated series: {self.series_keys_}"
            )
        return self.series_keys_.index(key)

    def _bands(self, values, series, steps, times, alpha, levels) -> dict:
        """Interval columns for rows of point forecasts ``values`` (n, C)."""
        n, n_c = values.shape
        alpha = np.broadcast_to(alpha, (n, len(self._alphas())))
        hours = self._hours(times)
        step = np.asarray(steps) if self.per_step else np.zeros(n, dtype=np.int64)
        table = ScoreTable(self.scores_, self.counts_, self.groups_)
        wanted = set(levels)
        out = {}
        for c, column in enumerate(self.columns_):
            g = self.groups_[series, c, step, hours]  # (n,)
            for i, cov in enumerate(check_coverage(self.coverage)):
                lo_level, hi_level = central_levels((cov,))
                low, high = bounds(table, g, alpha[:, i], self.method)
                if lo_level in wanted:
                    out[quantile_column(column, lo_level)] = values[:, c] + low
                if hi_level in wanted:
                    out[quantile_column(column, hi_level)] = values[:, c] + high
        ordered = [quantile_column(c, q) for c in self.columns_ for q in levels]
        return {name: out[name] for name in ordered}

    # ------------------------------------------------------------- adaptive
    def _alpha_at(self, frames, key, origins) -> np.ndarray:
        """ACI levels ``(len(origins), n_coverages)`` for forecasts issued at ``origins``.

        Nominal levels unless ``adaptive``; else the levels after every replayed forecast
        (issued from the fit end every ``stride`` steps) whose horizon ends by the origin.
        """
        origins = pd.DatetimeIndex(origins)
        alphas = self._alphas()
        out = np.broadcast_to(alphas, (len(origins), len(alphas))).copy()
        if not self.adaptive or frames is None or key not in frames:
            return out
        frame = frames[key]
        step = pd.Timedelta(self.freq_)
        horizon = self.steps_
        replay = pd.date_range(
            self.fit_end_, origins.max() - horizon * step, freq=self.stride * step
        )
        replay = replay[replay.isin(frame.index)]
        positions = frame.index.get_indexer(replay)
        replay = replay[positions + 1 >= self.estimator_._min_history()]
        if len(replay) == 0:
            return out
        data = frame.loc[: origins.max()]
        pred = self.estimator_.predict_origins(data, replay, horizon, max_horizon=None)
        columns = list(self.columns_)
        times = pd.DatetimeIndex(pred[V.TIME_COLUMN])
        truth = data[columns].reindex(times).to_numpy(float)
        values = pred[columns].to_numpy(float)
        k = self._series(key)
        steps = np.tile(np.arange(horizon), len(replay)) if self.per_step else np.zeros(len(pred))
        hours = self._hours(times)
        table = ScoreTable(self.scores_, self.counts_, self.groups_)
        groups = self.groups_[k][:, steps.astype(np.int64), hours]  # (C, n)
        path = aci_path(table, groups, truth.T, values.T, horizon, alphas, self.gamma, self.method)
        known = replay + horizon * step  # the last value of forecast j is observed then
        done = np.searchsorted(known.asi8, origins.asi8, side="right")  # forecasts seen
        return path[done]
