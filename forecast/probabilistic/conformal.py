"""Conformal prediction intervals around any estimator's point forecasts.

:class:`ConformalForecaster` wraps an estimator (neural, baseline or the external forecast
column). Intervals are the point forecast plus conformal quantiles of past residuals, kept
per forecast step and per hour of day (the table is in :mod:`forecast.probabilistic.table`,
the interval columns are made in :mod:`forecast.probabilistic.bands`).
Where the residuals come from is the calibration mode:

- static (``window=None``, the default): ``fit`` runs a rolling-origin backtest over a
  calibration period at the end of the data: a clone of the estimator is fitted on the data
  before the period and forecasts it from origins every ``stride`` steps (each forecast sees
  only data up to its origin). Then the estimator is refitted on all the data for the point
  forecasts, and every later forecast uses that one calibration.
- rolling (``window="56D"``, say): the estimator is fitted once, on all the data; the
  interval of a forecast issued at origin ``t`` uses the residuals of that fitted model's
  forecasts from the origins ``t - k * stride`` in the ``window`` before ``t`` whose whole
  horizon is observed by ``t`` (see :mod:`forecast.probabilistic.rolling`), forecast from the
  history passed to ``predict(history=...)``/``predict_origins``. The calibration follows
  the seasons and level shifts of the errors with a lag of about the window; the residuals
  of origins before the fit end are in-sample for the point model.

With ``adaptive=True`` the miscoverage level follows adaptive conformal inference (ACI,
Gibbs & Candes 2021) on top of either mode: for each forecast issued after the fit whose
whole horizon has been observed, ``alpha_t <- alpha_t + gamma * (alpha - miss_t)``, ``miss_t``
the fraction of its values outside its interval. It is replayed from the end of the fit over
the data passed to ``predict(history=...)``/``predict_origins`` (forecasts from origins
``stride`` steps apart), so forecasts stay a pure function of the fitted state and the data,
and never use a value after their origin.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast.base import BaseForecaster, FrameLike
from forecast.frames import validation
from forecast.frames.quantiles import (
    DIGITS,
    central_levels,
    check_coverage,
    quantile_column,
)
from forecast.frames.slices import series_index, union_index
from forecast.models.declare import declare_params, param
from forecast.models.fit_cache import fit as fit_once
from forecast.probabilistic.bands import interval_columns
from forecast.probabilistic.rolling import fit_end_tables, parse_window, rolling_levels
from forecast.probabilistic.static import static_forecasts, static_levels, static_table
from forecast.probabilistic.table import ScoreTable
from forecast.training.callbacks import EpochsOnly

METHODS = ("signed", "symmetric")


@declare_params()
class ConformalForecaster(BaseForecaster):
    """Calibrated prediction intervals for any estimator (split conformal, optionally ACI).

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
        Calibration residuals (values) used. In rolling mode ``scores_``, ``counts_``,
        ``groups_``, ``calibration_start_`` and ``n_calibration_`` describe the window before
        the end of the fit data (what ``predict`` without history uses).

    Notes
    -----
    ``fit`` runs the static calibration backtest, then fits the estimator on all the data;
    callbacks hear of the start and end of the wrapper's fit (after the calibration) and
    of the epochs of the estimator's final fit. The point column of a forecast is the
    estimator's forecast, not a median. In rolling mode ``predict`` calibrates on the window
    before the last timestamp of ``history`` (without history: before the end of the fit
    data) and ``predict_origins`` calibrates each origin on the window before it; adaptive
    levels are replayed from the forecasts issued after the fit whose horizon has been
    observed by the origin.

    Examples
    --------
    >>> from forecast import ConformalForecaster, SeasonalNaive
    >>> model = ConformalForecaster(SeasonalNaive(season="7D"), coverage=(0.8, 0.95))
    >>> fc = model.fit(df).predict(24, quantiles=True)  # doctest: +SKIP
    >>> list(fc.columns)  # doctest: +SKIP
    ['load', 'load_q0.025', 'load_q0.1', 'load_q0.9', 'load_q0.975']
    >>> rolling = ConformalForecaster(SeasonalNaive(season="7D"), window="56D", stride=24)
    """

    estimator: BaseForecaster | None = param(
        default=None,
        type="BaseForecaster",
        doc="The point forecaster; cloned for calibration and for the final fit, never changed.",
        kw_only=False,
    )
    coverage: float | Sequence[float] = param(
        default=0.8,
        type="float or tuple of float",
        doc="""Nominal coverage of the central intervals, e.g. 0.8 or ``(0.8, 0.95)``. Coverage
        ``c`` gives the quantile levels ``(1 - c) / 2`` and ``(1 + c) / 2``, so ``0.8``
        gives the columns ``<column>_q0.1`` and ``<column>_q0.9``.""",
    )
    calibration: float | str = param(
        default=0.2,
        type="float, int or str",
        doc="""Static mode: length of the calibration period at the end of the fit data: a
        fraction of its rows (float in (0, 1)), a number of rows (int) or a duration such as
        ``"365D"``. Not used with ``window``.""",
    )
    window: str | pd.Timedelta | None = param(
        default=None,
        type="str or Timedelta or None",
        doc="""Rolling mode: calibrate the forecast issued at origin ``t`` on the forecasts from
        the origins ``t - k * stride`` within this duration before ``t`` (e.g. ``"56D"``)
        whose whole ``horizon`` is observed by ``t``. ``predict(history=...)`` and
        ``predict_origins`` then need history from ``window`` plus the estimator's context
        before each origin (with ``adaptive``, before the end of the fit data); ``predict``
        without history uses the window before the end of the fit data. None: static
        calibration.""",
    )
    horizon: int | None = param(
        default=None,
        type="int or None",
        doc="""Steps ahead the intervals are calibrated for (forecasts may not go further).
        None: the estimator's ``horizon`` parameter, else 24.""",
    )
    stride: int = param(
        default=1,
        type="int",
        doc="""Steps between calibration origins (and between the forecasts replayed by
        ``adaptive``). Static origins lie whole strides before the end of the fit data, so
        with a one-day stride they share its clock time: in a day-ahead backtest, that of the
        forecasts scored. Rolling origins lie whole strides before each forecast's origin,
        on the local clock of ``timezone`` (or the data's zone) when a stride is whole days.""",
    )
    method: Literal["signed", "symmetric"] = param(
        default="signed",
        type='{"signed", "symmetric"}',
        doc="""``"signed"``: bounds are quantiles of the signed residuals (asymmetric intervals
        that absorb a bias); ``"symmetric"``: the point forecast plus/minus a quantile of
        the absolute residuals (needs half as many residuals).""",
    )
    per_step: bool = param(
        default=True,
        type="bool",
        doc="Calibrate each step ahead separately (else one pool over steps).",
    )
    by_hour: bool = param(
        default=True,
        type="bool",
        doc="""For sub-daily data, calibrate each (step, local hour of the forecast timestamp)
        separately; groups with too few residuals fall back to the step's pool.""",
    )
    adaptive: bool = param(
        default=False,
        type="bool",
        doc="Adapt the miscoverage level to the coverage achieved since the fit (ACI).",
    )
    gamma: float = param(default=0.005, type="float", doc="ACI step size.")
    timezone: str | None = param(
        default=None,
        type="str or None",
        doc="""Time zone of the hour groups and of the rolling origins' clock (None: the
        data's own zone, or naive clock time).""",
    )

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
        parse_window(self.window)

    def _steps_ahead(self) -> int:
        if self.horizon is not None:
            return int(self.horizon)
        inner = getattr(self.estimator, "horizon", None)
        return int(inner) if isinstance(inner, numbers.Integral) and int(inner) >= 1 else 24

    def _alphas(self) -> np.ndarray:
        # rounded so that 1 - 0.8 is 0.2: order-statistic ranks such as (n + 1) * alpha / 2
        # land on integers where the arithmetic says they do
        return np.round(1.0 - np.asarray(check_coverage(self.coverage)), DIGITS)

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(getattr(self, "levels_", ()))

    def _covariate_names(self) -> tuple[list[str], list[str]]:
        return cast(BaseForecaster, self.estimator)._covariate_names()  # checked in fit

    def _min_history(self) -> int:
        inner = cast(BaseForecaster, getattr(self, "estimator_", None) or self.estimator)
        return inner._min_history()

    @property
    def train_tail_(self) -> dict[Any, pd.DataFrame]:  # type: ignore[override]  # see below
        # BaseForecaster assigns train_tail_ in _prepare_fit; here it is the estimator's
        """The history the fitted estimator keeps for ``predict`` without history."""
        return self.estimator_.train_tail_

    # ------------------------------------------------------------------ fit
    def _prepare_fit(self, X: FrameLike) -> tuple[Any, ...]:
        """Check the parameters and ``X``; static mode: run the calibration backtest."""
        self._check_params()
        frames, kind = validation.split_series(X, "X")
        index = union_index(frames)
        horizon = self._steps_ahead()
        static = None
        if self.window is None:
            static = static_forecasts(self, X, frames, kind, index, horizon)
        return frames, kind, index, horizon, static

    def _fit_frames(self, X: FrameLike, prepared: tuple[Any, ...], callbacks: list[Any]) -> None:
        """Fit the estimator on all of ``X`` (callbacks see its epochs) and tabulate."""
        frames, kind, index, horizon, static = prepared
        epochs = [EpochsOnly(c) for c in callbacks]
        self.estimator_: BaseForecaster = fit_once(clone(self.estimator), X, epochs)
        est = self.estimator_
        self.columns_ = est.columns_
        self.freq_ = est.freq_
        self.tz_ = est.tz_
        self.input_kind_ = est.input_kind_
        self.index_name_ = getattr(est, "index_name_", None)
        self.past_covariates_ = list(est.past_covariates_)
        self.future_covariates_ = list(est.future_covariates_)
        self.series_keys_ = list(frames)
        self.levels_ = central_levels(check_coverage(self.coverage))
        self.fit_end_: pd.Timestamp = index[-1]
        self.steps_ = horizon
        self.sub_daily_ = pd.Timedelta(index[1] - index[0]) < pd.Timedelta("1D")
        if static is not None:
            pred, first = static
            table, n = static_table(self, pred, frames, kind, index)
        else:
            table, n, first = fit_end_tables(self, frames)
        self.calibration_start_: pd.Timestamp | None = first
        self.scores_ = table.table
        self.counts_ = table.counts
        self.groups_ = table.group
        self.n_calibration_ = n

    def _hourly(self) -> bool:
        return bool(self.by_hour and self.sub_daily_)

    def _hours(self, times: Any) -> np.ndarray:
        if not self._hourly():
            return np.zeros(len(times), dtype=np.int64)
        index = pd.DatetimeIndex(times)
        if self.timezone is not None and index.tz is not None:
            index = index.tz_convert(self.timezone)
        return np.asarray(index.hour, dtype=np.int64)

    # -------------------------------------------------------------- predict
    def _predict_frames(
        self,
        horizon: int,
        history: Any,
        future: Any,
        levels: tuple[float, ...],
        max_horizon: int | None,
    ) -> FrameLike:
        """Point forecasts of the estimator, then the interval columns of ``levels``."""
        point = self.estimator_.predict(
            horizon, history=history, future=future, max_horizon=max_horizon
        )
        if not levels:
            return point
        self._check_horizon(horizon)
        parts, kind = validation.split_series(point, "forecast")
        hist = {} if history is None else validation.split_series(history, "history")[0]
        out = {}
        for key, frame in parts.items():
            origin = pd.DatetimeIndex([frame.index[0] - self.freq_])
            table, gk, alpha = self._calibration_at(hist.get(key), key, origin)
            steps = np.arange(len(frame))
            values = frame.to_numpy(float)
            bands = interval_columns(self, values, table, gk[0], steps, frame.index, alpha, levels)
            out[key] = pd.concat([frame, pd.DataFrame(bands, index=frame.index)], axis=1)
        return validation.join_series(out, kind)

    def _predict_origins_frames(
        self,
        data: Any,
        origins: Any,
        horizon: int,
        levels: tuple[float, ...],
        max_horizon: int | None,
        future: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Forecasts of the estimator from every origin, then the interval columns."""
        pred = self.estimator_.predict_origins(
            data, origins, horizon, max_horizon=max_horizon, future=future
        )
        if not levels:
            return pred
        self._check_horizon(horizon)
        frames, kind = validation.split_series(data, "data")
        series = series_index(pred, kind, self.series_keys_)
        origin = pd.DatetimeIndex(pred["origin"])
        step = np.tile(np.arange(horizon), len(pred) // horizon)
        times = pd.DatetimeIndex(pred[validation.TIME_COLUMN])
        values = pred[list(self.columns_)].to_numpy(float)
        names = [quantile_column(c, q) for c in self.columns_ for q in levels]
        out = pd.DataFrame(np.nan, index=pred.index, columns=names)
        for key, frame in frames.items():
            rows = np.flatnonzero(series == self._series(key))
            if len(rows) == 0:
                continue
            queries = origin[rows].unique().sort_values()
            table, gk, alpha = self._calibration_at(frame, key, queries)
            q = queries.get_indexer(origin[rows])
            bands = interval_columns(
                self, values[rows], table, gk[q], step[rows], times[rows], alpha[q], levels
            )
            for name, column in bands.items():
                # pandas-stubs types iloc[...] = only for (slice, label) pairs
                out.iloc[rows, out.columns.get_loc(name)] = column  # type: ignore[index]
        return pd.concat([pred, out], axis=1)

    def _check_horizon(self, horizon: int) -> None:
        if horizon > self.steps_:
            raise ValueError(
                f"{type(self).__name__} is calibrated for horizon={self.steps_} steps; asked for "
                f"{horizon}: refit with horizon >= {horizon}"
            )

    def _series(self, key: Any) -> int:
        if key not in self.series_keys_:
            raise ValueError(
                f"series {key!r} was not calibrated; calibrated series: {self.series_keys_}"
            )
        return self.series_keys_.index(key)

    # ----------------------------------------------------------- calibration
    def _calibration_at(
        self, frame: pd.DataFrame | None, key: Any, queries: pd.DatetimeIndex
    ) -> tuple[ScoreTable, np.ndarray, np.ndarray]:
        """``(table, gk, alpha)`` for forecasts issued at ``queries`` from series ``key``.

        ``table.group[gk[j]]`` holds the groups of query ``j`` and ``alpha[j]`` its levels.
        ``frame`` None: the fitted table (rolling: the window before the fit end) and the
        nominal levels.
        """
        k = self._series(key)
        fitted = ScoreTable(self.scores_, self.counts_, self.groups_)
        nominal = np.broadcast_to(self._alphas(), (len(queries), len(self._alphas()))).copy()
        if frame is None:
            return fitted, np.full(len(queries), k), nominal
        if self.window is None:
            return fitted, np.full(len(queries), k), static_levels(self, frame, key, queries)
        table, alpha, _ = rolling_levels(self, frame, key, queries)
        return table, np.arange(len(queries)), alpha

    def _clock(self) -> str | None:
        return self.timezone or self.tz_
