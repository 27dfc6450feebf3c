"""The estimator base: public ``fit``/``predict``/``predict_origins`` validate and convert once.

The public methods exist here only, as a template over private hooks:

- ``fit``: ``prepared = _prepare_fit(X)``, the callbacks' ``on_fit_start``,
  ``_fit_frames(X, prepared, callbacks)``, the callbacks' ``on_fit_end``.
- ``predict`` / ``predict_origins``: check the fit and the horizon, resolve ``quantiles``
  (``_select_levels``), then ``_predict_frames(horizon, history, future, levels,
  max_horizon)`` / ``_predict_origins_frames(data, origins, horizon, levels, max_horizon)``.

These frame hooks default to the array path: validate and convert through
:mod:`forecast.frames` (cleaning, scaling, series, origins, output), then call on clean
arrays ``_fit(series, callbacks)`` (``series``: a list of :class:`SeriesArrays`, one per
series, targets scaled when ``_scale_targets``) and ``_predict(series, horizon)`` (an array
``(n_series, horizon, n_channels)`` in the same units), or ``_predict_quantiles`` (one more
axis, the ``_quantile_levels()``). Lengths are hooks too (``_min_history``,
``_min_train_length``, ``_length_reason``, ``_check_train_lengths``, ``_keep_history``), and
so is how frames are read (``_covariate_names``, ``_fill``, ``_scale_covariates``,
``_calendar``, defaults from the declared :class:`~forecast.frames.options.FrameOptions`).

Meta-estimators that fit inner estimators on the caller's frames
(:class:`forecast.ConformalForecaster`, :class:`forecast.EnsembleForecaster`) override the frame
hooks instead: ``_prepare_fit`` checks the parameters and ``X`` (and does what must precede the
callbacks: the conformal calibration backtest) and returns what ``_fit_frames`` needs;
``_fit_frames`` fits the inner estimators and copies ``columns_``, ``freq_``, ``tz_`` and the other
metadata from them; the two predict hooks forecast through them. They scale and convert nothing.
``save`` and ``load`` come from :class:`forecast.persistence.methods.SavedFolderMethods`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from forecast.frames import validation as V
from forecast.frames.causal_fill import CausalFill
from forecast.frames.cleaning import (
    apply_nan_policy,
    check_local_clock,
    conform,
    in_zone,
    target_columns,
)
from forecast.frames.covariates import calendar_block
from forecast.frames.options import FrameOptions
from forecast.frames.origins import origin_arrays, origin_position, origins_per_series
from forecast.frames.output import forecast_frames, origin_frame, output_columns, points_and_levels
from forecast.frames.quantiles import select_levels
from forecast.frames.scaling import Scaling
from forecast.frames.series import SeriesArrays, SeriesEncoder
from forecast.frames.vintages import (
    TRAINED_ON_OBSERVED,
    future_by_series,
    series_vintages,
    with_vintage_steps,
)
from forecast.persistence.methods import SavedFolderMethods

if TYPE_CHECKING:
    # scikit-learn ships no type hints: seen through its untyped base, every estimator would
    # derive from Any and type checkers would accept any constructor argument. This typed view
    # keeps the declared parameters exact; other attributes stay Any, as with sklearn's base.
    class BaseEstimator:  # noqa: D101
        def get_params(self, deep: bool = True) -> dict[str, Any]: ...  # noqa: D102
        def set_params(self, **params: Any) -> Self: ...  # noqa: D102
        @classmethod
        def _get_param_names(cls) -> list[str]: ...
        def __getstate__(self) -> dict[str, Any]: ...
        def __setstate__(self, state: dict[str, Any]) -> None: ...
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

else:
    from sklearn.base import BaseEstimator

__all__ = ["BaseForecaster", "FrameLike", "SeriesArrays"]

FrameLike = pd.DataFrame | dict[Any, pd.DataFrame]


class BaseForecaster(SavedFolderMethods, BaseEstimator):
    """Base class of every forecaster: validation, scaling, covariates and containers.

    Parameters read here when a subclass declares them (covariates, calendar, NaN policy)
    are those of :class:`~forecast.frames.options.FrameOptions`.

    Time zones: the series of one call are all naive or all in one time zone. Data given
    later (``predict(history=...)``, ``predict_origins``, ``future=``) must be naive when
    the fit was naive and aware when it was aware; aware timestamps in another zone are
    converted to the fitted zone (the same instants), and forecasts are returned in it.
    """

    _scale_targets: bool = True
    freq_: pd.DateOffset  # set by fit: the step of the fitted index

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        raise NotImplementedError

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        raise NotImplementedError

    def _quantile_levels(self) -> tuple[float, ...]:
        """Quantile levels ``_predict_quantiles`` forecasts (none by default)."""
        return ()

    def _predict_quantiles(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Forecasts ``(n_series, horizon, n_channels, n_levels)`` in scaled units."""
        raise NotImplementedError

    def _min_history(self) -> int:
        """Rows of history ``_predict`` needs; also the rows kept after ``fit``."""
        return 1

    def _min_train_length(self) -> int:
        """Rows each training series must have."""
        return self._min_history() + 1

    def _length_reason(self) -> str:
        """How ``_min_train_length`` is made up, for the too-short message (subclasses)."""
        if type(self)._min_train_length is BaseForecaster._min_train_length:
            return f"{self._min_history()} step(s) of history + 1 step to learn from"
        return ""

    def _check_train_lengths(self, lengths: dict[Any, int]) -> None:
        """Raise if a training series (key -> rows, cleaned) is too short (subclasses)."""
        for key, rows in lengths.items():
            V.check_length(rows, self._min_train_length(), key, self._length_reason())

    def _keep_history(self) -> int | None:
        """Rows of training data kept for ``predict`` without history (None: all)."""
        return None

    def _covariate_names(self) -> tuple[list[str], list[str]]:
        """Return the declared ``(future, past)`` covariate columns."""
        return FrameOptions.of(self).covariates()

    def _fill(
        self, frame: pd.DataFrame, key: object, targets: list[str], covariates: list[str]
    ) -> pd.DataFrame:
        """Apply the NaN policy (raise, or interpolate in time)."""
        return apply_nan_policy(frame, key, targets, covariates, FrameOptions.of(self).policy())

    def _scale_covariates(self, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
        """Scaled values of the covariate ``columns`` of ``frame``."""
        return self._scaling().scale_covariates(frame, columns)

    def _calendar(self, index: pd.DatetimeIndex) -> np.ndarray | None:
        """Calendar features of ``index`` when the estimator asks for them, else None."""
        options = FrameOptions.of(self)
        if not options.calendar:
            return None
        return calendar_block(index, options.timezone, options.country)

    def _prepare_fit(self, X: FrameLike) -> Any:
        """Validate ``X``, set the fitted metadata and scalers; return ``(frames, kind)``."""
        frames, kind = V.split_series(X, "X")
        future_cols, past_cols = self._covariate_names()
        first = next(iter(frames.values()))
        targets = target_columns(first, future_cols + past_cols)
        freq, clean = None, {}
        for key, frame in frames.items():
            clean[key], freq = self._clean(frame, key, targets, future_cols + past_cols, freq, "X")
        assert freq is not None and isinstance(first.index, pd.DatetimeIndex)  # checked by _clean
        self.freq_ = freq
        self._check_train_lengths({key: len(frame) for key, frame in clean.items()})
        self.columns_ = targets
        self.tz_ = str(first.index.tz) if first.index.tz is not None else None
        self.input_kind_ = kind
        self.index_name_ = first.index.name
        self.future_covariates_, self.past_covariates_ = future_cols, past_cols
        self.training_covariates_ = TRAINED_ON_OBSERVED if future_cols else None
        scaling = Scaling.fit(clean, targets, past_cols + future_cols, self._scale_targets)
        self.scaler_, self.covariate_scaler_ = scaling.target, scaling.covariate
        keep = self._keep_history()
        self.train_tail_ = {k: (f if keep is None else f.iloc[-keep:]) for k, f in clean.items()}
        return clean, kind

    def _fit_frames(self, X: FrameLike, prepared: Any, callbacks: list[Any]) -> None:
        """Fit on what ``_prepare_fit`` returned (default: the clean frames, by ``_fit``)."""
        frames, _ = prepared
        self._fit(self._to_arrays(frames, horizon=0, future=None), callbacks)

    def _select_levels(self, quantiles: bool | tuple[float, ...] | None) -> tuple[float, ...]:
        """Quantile levels ``quantiles`` asks for, checked against ``_quantile_levels``."""
        return select_levels(quantiles, self._quantile_levels(), type(self).__name__)

    def _predict_frames(
        self,
        horizon: int,
        history: FrameLike | None,
        future: FrameLike | None,
        levels: tuple[float, ...],
        max_horizon: int | None,
    ) -> FrameLike:
        """Forecasts of ``predict`` (arguments checked; default: through ``_predict``)."""
        if history is None:
            frames, kind = self.train_tail_, self.input_kind_
        else:
            raw, kind = V.split_series(history, "history")
            covs, frames = self.past_covariates_ + self.future_covariates_, {}
            for k, f in raw.items():
                f = in_zone(f, self.tz_, k, "history")
                frames[k] = self._clean(f, k, self.columns_, covs, self.freq_, "history")[0]
        for key, frame in frames.items():
            V.check_length(len(frame), self._min_history(), key, "history needed by predict")
        zone, covs = self.tz_, self.future_covariates_
        fut = future_by_series(future, frames, kind, horizon, self.freq_, covs, zone)
        pred = self._predict_values(self._to_arrays(frames, horizon, fut), horizon, levels)
        columns = output_columns(self.columns_, levels)
        zone = None if self.tz_ else FrameOptions.of(self).timezone  # a naive model's clock
        out = forecast_frames(frames, pred, horizon, self.freq_, columns, self.index_name_, zone)
        return V.join_series(out, kind)

    def _predict_origins_frames(
        self,
        data: FrameLike,
        origins: pd.DatetimeIndex | list[Any] | dict[Any, Any],
        horizon: int,
        levels: tuple[float, ...],
        max_horizon: int | None,
        future: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Forecasts of ``predict_origins`` (arguments checked; default: one ``_predict``)."""
        raw, kind = V.split_series(data, "data")
        vintages = series_vintages(future, list(raw), self.future_covariates_, self.tz_)
        covs = self.past_covariates_ + self.future_covariates_
        encoder = self._encoder()
        fill_gaps = bool(FrameOptions.of(self).fill_gaps)
        arrays, meta = [], []
        per_series = origins_per_series(origins, list(raw), self.tz_)
        for key, frame in raw.items():
            if key not in per_series:
                continue
            frame = in_zone(frame, self.tz_, key, "data")
            frame = conform(frame, key, self.columns_, covs, self.freq_, "data", fill_gaps)[0]
            filled = self._fill(frame, key, self.columns_, covs)
            whole = encoder.encode(key, filled)
            causal = None if filled is frame else CausalFill(encoder.encode(key, frame))
            for origin in per_series[key]:
                pos = origin_position(frame.index, origin, key)
                V.check_length(pos, self._min_history(), key, f"history before origin {origin}")
                arrays.append(origin_arrays(whole, pos, horizon, encoder, causal))
                if vintages:  # the forecast steps' covariates as known at the origin
                    arrays[-1] = with_vintage_steps(arrays[-1], vintages[key], horizon, encoder)
                meta.append((key, origin))
        pred = self._predict_values(arrays, horizon, levels)
        columns = output_columns(self.columns_, levels)
        return origin_frame(meta, pred, horizon, kind, columns, self.freq_)

    def fit(self, X: FrameLike, y: None = None, *, callbacks: list[Any] | None = None) -> Self:
        """Fit the forecaster on one or several series.

        Parameters
        ----------
        X : DataFrame, long DataFrame or dict of DataFrames
            Each frame has a regular ``DatetimeIndex`` and one column per target channel,
            plus the declared covariate columns. A long frame has an ``id`` column (and a
            ``time`` column or a DatetimeIndex). All series are naive or all in one time
            zone; column names are unique.
        y : None
            Ignored; present for scikit-learn compatibility.
        callbacks : list, optional
            Training callbacks (for example MLflow tracking); not a hyperparameter.

        Returns
        -------
        self
        """
        callbacks = list(callbacks or [])
        prepared = self._prepare_fit(X)
        for callback in callbacks:
            callback.on_fit_start(self)
        self._fit_frames(X, prepared, callbacks)
        for callback in callbacks:
            callback.on_fit_end(self)
        return self

    def predict(
        self,
        horizon: int = 1,
        history: FrameLike | None = None,
        future: FrameLike | None = None,
        *,
        quantiles: bool | tuple[float, ...] | None = None,
        max_horizon: int | None = V.MAX_HORIZON,
    ) -> FrameLike:
        """Forecast the ``horizon`` steps after the end of the data.

        Parameters
        ----------
        horizon : int
            Number of steps to forecast.
        history : DataFrame, long DataFrame or dict of DataFrames, optional
            New history to forecast from without refitting; defaults to the data seen in
            ``fit``. Its columns are the fitted targets and declared covariates (others
            raise). Its timestamps are naive when the fit was naive, aware when it was
            aware; aware timestamps in another zone are converted to the fitted zone.
        future : DataFrame or dict of DataFrames, optional
            Values of the declared ``future_covariates`` for the forecast timestamps. They
            must be finite: ``nan_policy`` applies to the history only. Or vintages (columns
            ``issue_time``, ``valid_time``): each step then reads the latest value issued at
            or before the origin (:mod:`forecast.frames.vintages`).
        quantiles : bool or tuple of float, optional
            Estimators that forecast quantiles (neural estimators fitted with
            ``quantiles=``, :class:`forecast.ConformalForecaster`): True adds a column
            ``<column>_q<level>`` per fitted level and target, e.g. ``load_q0.1``; a tuple
            adds only those levels. None or False: point forecasts only.
        max_horizon : int or None, default=10_000
            Largest ``horizon`` accepted, a guard against horizons that would run for
            minutes; None lifts it.

        Returns
        -------
        DataFrame or dict of DataFrames
            Indexed by the ``horizon`` timestamps after the history (in the fitted time
            zone), one column per target (then the quantile columns, target by target), in
            the container the data came in.
        """
        check_is_fitted(self, "columns_")
        horizon = V.check_horizon(horizon, max_horizon)
        levels = self._select_levels(quantiles)
        return self._predict_frames(horizon, history, future, levels, max_horizon)

    def predict_origins(
        self,
        data: FrameLike,
        origins: pd.DatetimeIndex | list[Any] | dict[Any, Any],
        horizon: int,
        *,
        quantiles: bool | tuple[float, ...] | None = None,
        max_horizon: int | None = V.MAX_HORIZON,
        future: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Forecast from many origins of one data set in one batched call.

        The forecast issued at origin ``t`` sees only the rows of ``data`` with timestamp
        ``<= t`` (plus declared future covariates for its horizon: from ``data``, or with
        ``future`` the latest vintage issued at or before ``t``).

        Parameters
        ----------
        data : DataFrame, long DataFrame or dict of DataFrames
            History (and actuals after it) with the fitted columns, in the fitted time
            zone or (aware) converted to it, as for ``predict(history=...)``.
        origins : list of timestamps, or dict of series key to list of timestamps
            Last observed timestamp of each forecast; aware origins are converted to the
            fitted zone. A list applies to every series; a dict gives each series its own
            origins (series it leaves out are not forecast), so the windows of many series
            are one batched call.
        horizon : int
            Steps forecast from each origin.
        quantiles : bool or tuple of float, optional
            Add quantile columns, as in :meth:`predict`.
        max_horizon : int or None, default=10_000
            Largest ``horizon`` accepted; None lifts the limit.
        future : DataFrame, optional
            Vintages of the future covariates (:mod:`forecast.frames.vintages`).

        Returns
        -------
        DataFrame
            Long frame with columns ``origin``, ``id`` (for several series), ``time`` and one
            column per target (then the quantile columns).
        """
        check_is_fitted(self, "columns_")
        horizon = V.check_horizon(horizon, max_horizon)
        levels = self._select_levels(quantiles)
        if future is None:  # the hook of subclasses written before vintages: five arguments
            return self._predict_origins_frames(data, origins, horizon, levels, max_horizon)
        return self._predict_origins_frames(data, origins, horizon, levels, max_horizon, future)

    def _clean(
        self,
        frame: pd.DataFrame,
        key: object,
        targets: list[str],
        covariates: list[str],
        freq: pd.offsets.BaseOffset | None,
        what: str,
    ) -> tuple[pd.DataFrame, pd.DateOffset]:
        """``(frame, freq)``: ``frame`` conformed to a regular grid, NaN policy applied."""
        fill_gaps = bool(FrameOptions.of(self).fill_gaps)
        frame, freq = conform(frame, key, targets, covariates, freq, what, fill_gaps)
        check_local_clock(frame.index, FrameOptions.of(self).timezone, key, what)
        return self._fill(frame, key, targets, covariates), freq

    def _scaling(self) -> Scaling:
        covariates = self.past_covariates_ + self.future_covariates_
        return Scaling(self.scaler_, self.covariate_scaler_, covariates)

    def _encoder(self) -> SeriesEncoder:
        scale, covs, cal = self._scaling().scale, self._scale_covariates, self._calendar
        past, future = self.past_covariates_, self.future_covariates_
        return SeriesEncoder(self.columns_, past, future, self.freq_, self.tz_, scale, covs, cal)

    def _to_arrays(
        self, frames: dict[Any, pd.DataFrame], horizon: int, future: dict[Any, pd.DataFrame] | None
    ) -> list[SeriesArrays]:
        return self._encoder().encode_all(frames, horizon, future)

    def _predict_values(
        self, arrays: list[SeriesArrays], horizon: int, levels: tuple[float, ...]
    ) -> np.ndarray:
        """Unscaled forecasts ``(n, horizon, C * (1 + len(levels)))``: points, then quantiles."""
        scaling = self._scaling()
        if not levels:
            return scaling.unscale(self._predict(arrays, horizon))
        full = scaling.unscale_levels(self._predict_quantiles(arrays, horizon))  # (n, h, C, Q)
        return points_and_levels(full, self._quantile_levels(), levels)
