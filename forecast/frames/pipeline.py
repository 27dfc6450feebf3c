"""The frame work of a forecast, once: every runtime supplies only the network call.

:class:`ForecastPipeline` is what turns caller frames into forecast frames: series split
(frame, long frame or dict), the fitted time zone and the naive local-time rule (a stamp
the model's ``timezone`` skips or repeats is refused, in the history and in the forecast
steps), the regular grid and its gaps, the NaN policy, scaling, calendar features and
declared covariates, ``future=`` as values or as vintages, the history length, context
windows of many origins, levels of a quantile forecast and the output frames in the
caller's container. Nothing here imports torch.

Two classes build on it and differ only in the network call (``_predict`` and
``_predict_quantiles``, on clean arrays): the estimator base
(:class:`forecast.base.BaseForecaster`, its torch modules) and the ONNX runtime
(:class:`forecast.onnx.runtime.OnnxForecaster`, onnxruntime). What the pipeline reads of a
fitted model are the attributes annotated on the class and the hooks below, each with the
default the estimator base has always had.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from forecast.frames import validation
from forecast.frames.causal_fill import CausalFill
from forecast.frames.cleaning import apply_nan_policy, check_local_clock, conform, in_zone
from forecast.frames.covariates import calendar_block
from forecast.frames.options import FrameOptions
from forecast.frames.origins import origin_arrays, origin_position, origins_per_series
from forecast.frames.output import forecast_frames, origin_frame, output_columns, points_and_levels
from forecast.frames.quantiles import select_levels
from forecast.frames.scaling import Scaling
from forecast.frames.series import SeriesArrays, SeriesEncoder
from forecast.frames.vintages import future_by_series, series_vintages, with_vintage_steps

__all__ = ["FrameLike", "ForecastPipeline", "check_roll_out"]

FrameLike = pd.DataFrame | dict[Any, pd.DataFrame]


def check_roll_out(horizon: int, head_horizon: int, past_covariates: list[str]) -> None:
    """Refuse a roll-out that would need the past covariates after the last timestamp.

    A network forecasts ``head_horizon`` steps at once; a longer ``horizon`` feeds its
    forecasts back as inputs (:func:`forecast.frames.context.roll_out`), which a network
    reading past covariates cannot do. The one check of the estimators' forecasts, the ONNX
    runtime's and the explanations'.

    Raises
    ------
    ValueError
        If ``horizon > head_horizon`` and ``past_covariates`` is not empty.
    """
    if horizon > head_horizon and past_covariates:
        raise ValueError(
            f"horizon={horizon} exceeds the {head_horizon} step(s) the network forecasts at "
            f"once, so forecasts would be fed back as inputs, but the past covariates "
            f"{past_covariates} are unknown after the last timestamp: forecast at most "
            f"{head_horizon} steps or refit with horizon >= {horizon}"
        )


class ForecastPipeline:
    """Public ``predict`` and ``predict_origins`` over private hooks, for any runtime.

    A subclass supplies the network call, ``_predict(series, horizon)`` (scaled forecasts
    ``(n_series, horizon, n_channels)``) and, for quantile models, ``_quantile_levels`` and
    ``_predict_quantiles`` (one more axis); ``_min_history`` says how many rows a forecast
    reads. Everything else is the same code for every runtime.

    Two entry points are the pipeline's two halves, for every feature that reads a forecast's
    inputs or outputs (explanations, attention maps, a model forecasting for another):
    :meth:`_frames_to_arrays` (frames to the :class:`~forecast.frames.series.SeriesArrays` a
    network reads: the steps ``predict`` runs) and :meth:`_predict_values` (arrays to
    forecasts in the data's units; :meth:`_to_data_units` and :meth:`_from_data_units` map
    targets between the units, :meth:`_to_frames` frames forecasts).

    Time zones: the series of one call are all naive or all in one time zone. Data given
    after the fit (``history=``, ``predict_origins``, ``future=``) must be naive when the fit
    was naive and aware when it was aware; aware timestamps in another zone are converted to
    the fitted zone (the same instants), and forecasts are returned in it.
    """

    # what a fitted model holds (set by ``fit``, or read from a saved folder)
    columns_: list[Any]
    past_covariates_: list[str]
    future_covariates_: list[str]
    freq_: pd.DateOffset
    tz_: str | None
    index_name_: Any
    scaler_: Any
    covariate_scaler_: Any
    train_tail_: dict[Any, pd.DataFrame]
    input_kind_: str

    # ------------------------------------------------------------ the network call
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

    # ------------------------------------------------------------ how frames are read
    def _fill(
        self, frame: pd.DataFrame, key: object, targets: list[str], covariates: list[str]
    ) -> pd.DataFrame:
        """Apply the NaN policy (raise, or interpolate in time)."""
        return apply_nan_policy(frame, key, targets, covariates, FrameOptions.of(self).policy())

    def _scale_covariates(self, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
        """Scaled values of the covariate ``columns`` of ``frame``."""
        return self._scaling().scale_covariates(frame, columns)

    def _calendar(self, index: pd.DatetimeIndex) -> np.ndarray | None:
        """Calendar features of ``index`` when the model asks for them, else None."""
        options = FrameOptions.of(self)
        if not options.calendar:
            return None
        return calendar_block(index, options.timezone, options.country)

    def _select_levels(self, quantiles: bool | tuple[float, ...] | None) -> tuple[float, ...]:
        """Quantile levels ``quantiles`` asks for, checked against ``_quantile_levels``."""
        return select_levels(quantiles, self._quantile_levels(), type(self).__name__)

    def _kept_history(self) -> tuple[dict[Any, pd.DataFrame], str]:
        """``(frames, kind)`` a forecast without ``history=`` starts from: the fit's tail."""
        return self.train_tail_, self.input_kind_

    def _check_fitted(self) -> None:
        check_is_fitted(self, "columns_")

    # ------------------------------------------------------------ the pipeline
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

    def _history_frames(
        self, history: FrameLike | None, needed_by: str = "predict"
    ) -> tuple[dict[Any, pd.DataFrame], str]:
        """Clean frames of ``history`` (or the kept history) and their container kind.

        Each must hold the ``_min_history`` rows a forecast reads (the message says they are
        the history needed by ``needed_by``).
        """
        if history is None:
            frames, kind = self._kept_history()
        else:
            raw, kind = validation.split_series(history, "history")
            covs, frames = self.past_covariates_ + self.future_covariates_, {}
            for k, f in raw.items():
                f = in_zone(f, self.tz_, k, "history")
                frames[k] = self._clean(f, k, self.columns_, covs, self.freq_, "history")[0]
        for key, frame in frames.items():
            validation.check_length(
                len(frame), self._min_history(), key, f"history needed by {needed_by}"
            )
        return frames, kind

    def _frames_to_arrays(
        self,
        history: FrameLike | None,
        horizon: int,
        future: FrameLike | None,
        needed_by: str = "predict",
    ) -> tuple[list[SeriesArrays], dict[Any, pd.DataFrame], str]:
        """Frames to arrays, the steps ``predict`` runs: ``(arrays, clean frames, kind)``.

        The entry point of every feature that reads a forecast's inputs (explanations,
        attention maps): series split, the fitted zone, grid, NaN policy and history length
        (:meth:`_history_frames`), ``future=`` as values or vintages, then scaling, calendar
        and covariates (:meth:`_to_arrays`) for ``horizon`` steps.
        """
        frames, kind = self._history_frames(history, needed_by)
        zone, covs = self.tz_, self.future_covariates_
        fut = future_by_series(future, frames, kind, horizon, self.freq_, covs, zone)
        return self._to_arrays(frames, horizon, fut), frames, kind

    def _predict_frames(
        self,
        horizon: int,
        history: FrameLike | None,
        future: FrameLike | None,
        levels: tuple[float, ...],
        max_horizon: int | None,
    ) -> FrameLike:
        """Forecasts of ``predict`` (arguments checked; default: through ``_predict``)."""
        arrays, frames, kind = self._frames_to_arrays(history, horizon, future)
        values = self._predict_values(arrays, horizon, levels)
        return self._to_frames(values, frames, kind, horizon, levels)

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
        raw, kind = validation.split_series(data, "data")
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
                validation.check_length(
                    pos, self._min_history(), key, f"history before origin {origin}"
                )
                arrays.append(origin_arrays(whole, pos, horizon, encoder, causal))
                if vintages:  # the forecast steps' covariates as known at the origin
                    arrays[-1] = with_vintage_steps(arrays[-1], vintages[key], horizon, encoder)
                meta.append((key, origin))
        pred = self._predict_values(arrays, horizon, levels)
        columns = output_columns(self.columns_, levels)
        return origin_frame(meta, pred, horizon, kind, columns, self.freq_)

    def predict(
        self,
        horizon: int = 1,
        history: FrameLike | None = None,
        future: FrameLike | None = None,
        *,
        quantiles: bool | tuple[float, ...] | None = None,
        max_horizon: int | None = validation.MAX_HORIZON,
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
        self._check_fitted()
        horizon = validation.check_horizon(horizon, max_horizon)
        levels = self._select_levels(quantiles)
        return self._predict_frames(horizon, history, future, levels, max_horizon)

    def predict_origins(
        self,
        data: FrameLike,
        origins: pd.DatetimeIndex | list[Any] | dict[Any, Any],
        horizon: int,
        *,
        quantiles: bool | tuple[float, ...] | None = None,
        max_horizon: int | None = validation.MAX_HORIZON,
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
        self._check_fitted()
        horizon = validation.check_horizon(horizon, max_horizon)
        levels = self._select_levels(quantiles)
        if future is None:  # the hook of subclasses written before vintages: five arguments
            return self._predict_origins_frames(data, origins, horizon, levels, max_horizon)
        return self._predict_origins_frames(data, origins, horizon, levels, max_horizon, future)

    # ------------------------------------------------------------ arrays
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
        """Arrays of clean frames (``fit``, ``update`` and :meth:`_frames_to_arrays` call it)."""
        return self._encoder().encode_all(frames, horizon, future)

    # ------------------------------------------------------------ back to the data
    def _to_data_units(self, values: np.ndarray) -> np.ndarray:
        """Targets or forecasts ``(..., C)`` in the network's units, in the data's units."""
        return self._scaling().unscale(values)

    def _from_data_units(self, values: np.ndarray) -> np.ndarray:
        """Targets or forecasts ``(..., C)`` in the data's units, in the network's units.

        The inverse of :meth:`_to_data_units`: the arithmetic of the target scaler's
        ``transform``, on arrays of any rank.
        """
        target = self.scaler_
        return values if target is None else (values - target.mean_) / target.scale_

    def _predict_values(
        self, arrays: list[SeriesArrays], horizon: int, levels: tuple[float, ...]
    ) -> np.ndarray:
        """Arrays to data units: forecasts ``(n, horizon, C * (1 + len(levels)))``.

        The network's output (``_predict``, or ``_predict_quantiles`` for ``levels``), scaling
        undone: points, then the quantiles of ``levels``.
        """
        if not levels:
            return self._to_data_units(self._predict(arrays, horizon))
        full = self._scaling().unscale_levels(self._predict_quantiles(arrays, horizon))
        return points_and_levels(full, self._quantile_levels(), levels)  # full: (n, h, C, Q)

    def _predict_data_units(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Point forecasts ``(n, horizon, C)`` in the data's units from targets in the data's.

        How a model forecasts for another one (a reference, a memory): the targets of
        ``series`` are scaled into this model's units, forecast, and the scaling undone.
        """
        own = [replace(s, y=self._from_data_units(s.y)) for s in series]
        return self._to_data_units(self._predict(own, horizon))

    def _to_frames(
        self,
        values: np.ndarray,
        frames: dict[Any, pd.DataFrame],
        kind: str,
        horizon: int,
        levels: tuple[float, ...],
    ) -> FrameLike:
        """Frame the forecasts ``values`` (of :meth:`_predict_values`) after each history.

        Indexed by the ``horizon`` steps after each frame of ``frames`` in the fitted zone
        (a naive model's in its ``timezone`` clock), in the container ``kind``.
        """
        columns = output_columns(self.columns_, levels)
        zone = None if self.tz_ else FrameOptions.of(self).timezone  # a naive model's clock
        out = forecast_frames(frames, values, horizon, self.freq_, columns, self.index_name_, zone)
        return validation.join_series(out, kind)
