"""The estimator base: public ``fit``/``predict`` validate and convert once.

Subclasses implement two private methods that receive clean arrays:

``_fit(series, callbacks)``
    ``series`` is a list of :class:`SeriesArrays` (one per independent series), targets
    already scaled when the class sets ``_scale_targets = True``.
``_predict(series, horizon)``
    returns an array ``(n_series, horizon, n_channels)`` in the same (scaled) units.

Everything about pandas (time index, frequency, time zone, column names, multiple-series
containers, covariates, calendar features) is handled here, once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from forecast.frames import validation as V
from forecast.frames.causal_fill import CausalFill
from forecast.frames.quantiles import point_level, quantile_column, select_levels

FrameLike = pd.DataFrame | dict


@dataclass
class SeriesArrays:
    """One series as clean arrays, the input of ``_fit`` and ``_predict``.

    Attributes
    ----------
    key : object
        Series id (``None`` for a single series).
    y : ndarray of shape (T, C)
        Targets (scaled if the estimator scales), float64.
    index : DatetimeIndex of length T
        Timestamps of ``y``.
    past : ndarray of shape (T, P) or None
        Past-only covariates (scaled), observed up to the last row of ``y``.
    future : ndarray of shape (T + H, F) or None
        Future-known covariates (scaled user columns, then calendar features) for the
        history and, at prediction time, the ``H`` forecast steps (``H = 0`` in ``fit``).
    """

    key: object
    y: np.ndarray
    index: pd.DatetimeIndex
    past: np.ndarray | None = None
    future: np.ndarray | None = None

    def future_steps(self, horizon: int) -> np.ndarray | None:
        """Future-known covariates of the ``horizon`` steps after ``y`` (``(H, F)``), if any."""
        n = len(self.y)
        return None if self.future is None else self.future[n : n + horizon]


class BaseForecaster(BaseEstimator):
    """Base class of every forecaster: validation, scaling, covariates and containers.

    Parameters read here when a subclass defines them (all optional):
    ``future_covariates`` and ``past_covariates`` (lists of column names), ``calendar``
    (bool), ``country`` (holiday calendar such as ``"DE"`` or ``"DE-BY"``), ``timezone``
    (local time zone of the calendar features), ``fill_gaps`` (bool) and ``nan_policy``
    (``"raise"`` or ``"interpolate"``).

    Time zones: the series of one call are all naive or all in one time zone. Data given
    later (``predict(history=...)``, ``predict_origins``, ``future=``) must be naive when
    the fit was naive and aware when it was aware; aware timestamps in another zone are
    converted to the fitted zone (the same instants), and forecasts are returned in it.
    """

    _scale_targets: bool = True

    # ------------------------------------------------------------------ hooks
    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
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

    def _check_train_lengths(self, lengths: dict) -> None:
        """Raise if a training series (key -> rows, cleaned) is too short (subclasses)."""
        for key, rows in lengths.items():
            V.check_length(rows, self._min_train_length(), key, self._length_reason())

    def _keep_history(self) -> int | None:
        """Rows of training data kept for ``predict`` without history (None: all)."""
        return None

    # ----------------------------------------------------------- parameters
    def _param(self, name: str, default: Any = None) -> Any:
        return getattr(self, name, default)

    def _covariate_names(self) -> tuple[list, list]:
        future = list(self._param("future_covariates") or [])
        past = list(self._param("past_covariates") or [])
        both = set(future) & set(past)
        if both:
            raise ValueError(f"columns {sorted(both)} are declared both future and past covariates")
        return future, past

    # ------------------------------------------------------------------ fit
    def fit(self, X: FrameLike, y: None = None, *, callbacks: list | None = None) -> BaseForecaster:
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
        frames, kind = V.split_series(X, "X")
        future_cols, past_cols = self._covariate_names()
        first = next(iter(frames.values()))
        targets = [c for c in first.columns if c not in future_cols and c not in past_cols]
        if not targets:
            raise ValueError(
                f"X has no target column: every column of {list(first.columns)} is declared "
                "a covariate"
            )
        freq = None
        clean = {}
        for key, frame in frames.items():
            frame, freq = self._clean(frame, key, targets, future_cols + past_cols, freq, "X")
            self.freq_ = freq
            clean[key] = frame
        self._check_train_lengths({key: len(frame) for key, frame in clean.items()})
        self.columns_ = targets
        self.freq_ = freq
        self.tz_ = str(first.index.tz) if first.index.tz is not None else None
        self.input_kind_ = kind
        self.index_name_ = first.index.name
        self.future_covariates_, self.past_covariates_ = future_cols, past_cols
        self._fit_scalers(clean)
        keep = self._keep_history()
        self.train_tail_ = {k: (f if keep is None else f.iloc[-keep:]) for k, f in clean.items()}
        callbacks = list(callbacks or [])
        for callback in callbacks:
            callback.on_fit_start(self)
        self._fit(self._to_arrays(clean, horizon=0, future=None), callbacks)
        for callback in callbacks:
            callback.on_fit_end(self)
        return self

    def _clean(self, frame, key, targets, covariates, freq, what):
        frame, freq = self._conform(frame, key, targets, covariates, freq, what)
        return self._fill(frame, key, targets, covariates), freq

    def _conform(self, frame, key, targets, covariates, freq, what):
        """Check index, columns, dtypes and frequency; put the frame on a regular grid."""
        V.check_index(frame, key)
        V.check_columns(frame, targets + covariates, key, what)
        V.check_no_extra_columns(frame, targets, covariates, key, what)
        frame = frame[targets + covariates]
        V.check_numeric(frame, targets + covariates, key)
        this_freq = V.infer_freq(frame.index, key)
        if freq is not None and this_freq != freq:
            raise ValueError(
                f"{V._where(key)}frequency {this_freq.freqstr} differs from {freq.freqstr} of the "
                "other series / of the fitted data"
            )
        frame = V.check_regular(frame, this_freq, bool(self._param("fill_gaps", False)), key)
        return frame.astype(float), this_freq

    def _fill(self, frame, key, targets, covariates):
        """Apply the NaN policy (raise, or interpolate in time)."""
        policy = self._param("nan_policy", "raise")
        if self._param("fill_gaps", False):
            policy = "interpolate"
        frame = V.check_finite(frame, targets, policy, key, "target")
        if covariates:
            frame = V.check_finite(frame, covariates, policy, key, "covariate")
        return frame

    def _in_fitted_tz(self, frame: pd.DataFrame, key, what: str) -> pd.DataFrame:
        """``frame`` with its index in the fitted time zone (a new frame when converted)."""
        index = V.align_tz(frame.index, self.tz_, key, what)
        return frame if index is frame.index else frame.set_axis(index)

    def _fit_scalers(self, frames: dict) -> None:
        stacked = pd.concat(list(frames.values()))
        self.scaler_ = (
            StandardScaler().fit(stacked[self.columns_].to_numpy()) if self._scale_targets else None
        )
        user = self.past_covariates_ + self.future_covariates_
        self.covariate_scaler_ = StandardScaler().fit(stacked[user].to_numpy()) if user else None

    # ------------------------------------------------------------- arrays
    def _scale(self, y: np.ndarray) -> np.ndarray:
        return self.scaler_.transform(y) if self.scaler_ is not None else y

    def _unscale(self, y: np.ndarray) -> np.ndarray:
        if self.scaler_ is None:
            return y
        return y * self.scaler_.scale_ + self.scaler_.mean_

    def _scale_covariates(self, frame: pd.DataFrame, columns: list) -> np.ndarray:
        values = frame[columns].to_numpy(dtype=float)
        if not columns:
            return values
        user = self.past_covariates_ + self.future_covariates_
        pos = [user.index(c) for c in columns]
        sc = self.covariate_scaler_
        return (values - sc.mean_[pos]) / sc.scale_[pos]

    def _calendar(self, index: pd.DatetimeIndex) -> np.ndarray | None:
        if not self._param("calendar", False):
            return None
        from forecast.frames.calendar import calendar_features

        feats = calendar_features(
            index, timezone=self._param("timezone"), country=self._param("country")
        )
        return feats.to_numpy(dtype=float)

    def _to_arrays(self, frames: dict, horizon: int, future: dict | None) -> list[SeriesArrays]:
        out = []
        for key, frame in frames.items():
            fut = None if future is None else future.get(key)
            out.append(self._series_arrays(key, frame, horizon, fut))
        return out

    def _series_arrays(self, key, frame: pd.DataFrame, horizon: int, future: pd.DataFrame | None):
        y = self._scale(frame[self.columns_].to_numpy(dtype=float))
        past = (
            self._scale_covariates(frame, self.past_covariates_) if self.past_covariates_ else None
        )
        full_index = frame.index
        if horizon:
            full_index = full_index.append(V.future_index(frame.index[-1], self.freq_, horizon))
        blocks = []
        if self.future_covariates_:
            known = frame[self.future_covariates_]
            if horizon:
                known = pd.concat([known, self._check_future(future, full_index[-horizon:], key)])
            blocks.append(self._scale_covariates(known, self.future_covariates_))
        cal = self._calendar(full_index)
        if cal is not None:
            blocks.append(cal)
        fut = np.concatenate(blocks, axis=1) if blocks else None
        return SeriesArrays(key=key, y=y, index=frame.index, past=past, future=fut)

    def _check_future(
        self, future: pd.DataFrame | None, index: pd.DatetimeIndex, key
    ) -> pd.DataFrame:
        cols = self.future_covariates_
        if future is None:
            raise ValueError(
                f"{V._where(key)}future covariates {cols} are declared: pass future=DataFrame with "
                f"their values for the {len(index)} forecast timestamps {index[0]} .. {index[-1]}"
            )
        V.check_index(future, key)
        future = self._in_fitted_tz(future, key, "future")
        V.check_columns(future, cols, key, "future")
        missing = index.difference(future.index)
        if len(missing):
            raise ValueError(
                f"{V._where(key)}future covariates lack {len(missing)} forecast timestamp(s), the "
                f"first at {missing[0]}"
            )
        part = future.loc[index, cols]
        V.check_numeric(part, cols, key)
        hint = (
            "values passed as future= are never interpolated, whatever nan_policy: fill them "
            "before calling predict"
        )
        return V.check_finite(part, cols, "raise", key, "future covariate", hint)

    # -------------------------------------------------------------- predict
    def predict(
        self,
        horizon: int = 1,
        history: FrameLike | None = None,
        future: FrameLike | None = None,
        *,
        quantiles: bool | tuple | None = None,
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
            must be finite: ``nan_policy`` applies to the history only.
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
        levels = select_levels(quantiles, self._quantile_levels(), type(self).__name__)
        if history is None:
            frames, kind = self.train_tail_, self.input_kind_
        else:
            raw, kind = V.split_series(history, "history")
            frames = {
                k: self._clean(
                    self._in_fitted_tz(f, k, "history"),
                    k,
                    self.columns_,
                    self.past_covariates_ + self.future_covariates_,
                    self.freq_,
                    "history",
                )[0]
                for k, f in raw.items()
            }
        for key, frame in frames.items():
            V.check_length(len(frame), self._min_history(), key, "history needed by predict")
        fut = None
        if future is not None:
            fut_frames, _ = V.split_series(future, "future")
            fut = (
                fut_frames
                if kind != "frame"
                else {k: next(iter(fut_frames.values())) for k in frames}
            )
        arrays = self._to_arrays(frames, horizon, fut)
        pred = self._predict_values(arrays, horizon, levels)
        columns = self._output_columns(levels)
        out = {}
        for i, (key, frame) in enumerate(frames.items()):
            index = V.future_index(frame.index[-1], self.freq_, horizon, self.index_name_)
            out[key] = pd.DataFrame(pred[i], index=index, columns=columns)
        return V.join_series(out, kind)

    def _predict_values(self, arrays: list, horizon: int, levels: tuple) -> np.ndarray:
        """Unscaled forecasts ``(n, horizon, C * (1 + len(levels)))``: points, then quantiles."""
        if not levels:
            return self._unscale_3d(self._predict(arrays, horizon))
        fitted = self._quantile_levels()
        full = self._unscale_4d(self._predict_quantiles(arrays, horizon))  # (n, h, C, Q)
        point = full[..., point_level(fitted)]
        chosen = full[..., [fitted.index(q) for q in levels]]  # (n, h, C, q)
        n, h, c, q = chosen.shape
        return np.concatenate([point, chosen.reshape(n, h, c * q)], axis=-1)

    def _output_columns(self, levels: tuple) -> list:
        columns = list(self.columns_)
        return columns + [quantile_column(c, q) for c in columns for q in levels]

    def _unscale_3d(self, pred: np.ndarray) -> np.ndarray:
        n, h, c = pred.shape
        return self._unscale(pred.reshape(n * h, c)).reshape(n, h, c)

    def _unscale_4d(self, pred: np.ndarray) -> np.ndarray:
        n, h, c, q = pred.shape
        moved = np.moveaxis(pred, 3, 2).reshape(n * h * q, c)  # channels last
        return np.moveaxis(self._unscale(moved).reshape(n, h, q, c), 2, 3)

    def predict_origins(
        self,
        data: FrameLike,
        origins: pd.DatetimeIndex | list | dict,
        horizon: int,
        *,
        quantiles: bool | tuple | None = None,
        max_horizon: int | None = V.MAX_HORIZON,
    ) -> pd.DataFrame:
        """Forecast from many origins of one data set in one batched call.

        The forecast issued at origin ``t`` sees only the rows of ``data`` with timestamp
        ``<= t`` (plus declared future covariates for its horizon).

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

        Returns
        -------
        DataFrame
            Long frame with columns ``origin``, ``id`` (for several series), ``time`` and one
            column per target (then the quantile columns).
        """
        check_is_fitted(self, "columns_")
        horizon = V.check_horizon(horizon, max_horizon)
        levels = select_levels(quantiles, self._quantile_levels(), type(self).__name__)
        raw, kind = V.split_series(data, "data")
        covs = self.past_covariates_ + self.future_covariates_
        arrays, meta = [], []
        per_series = self._origins_per_series(origins, raw)
        for key, frame in raw.items():
            if key not in per_series:
                continue
            origins = per_series[key]
            frame = self._in_fitted_tz(frame, key, "data")
            frame = self._conform(frame, key, self.columns_, covs, self.freq_, "data")[0]
            filled = self._fill(frame, key, self.columns_, covs)
            whole = self._series_arrays(key, filled, 0, None)
            causal = (
                None if filled is frame else CausalFill(self._series_arrays(key, frame, 0, None))
            )
            for origin in origins:
                pos = int(frame.index.searchsorted(origin, side="right"))
                if pos == 0 or frame.index[pos - 1] != origin:
                    raise ValueError(
                        f"{V._where(key)}origin {origin} is not a timestamp of the data"
                    )
                V.check_length(pos, self._min_history(), key, f"history before origin {origin}")
                arrays.append(self._origin_arrays(whole, frame, pos, horizon, causal))
                meta.append((key, origin))
        pred = self._predict_values(arrays, horizon, levels)
        return self._origin_frame(meta, pred, horizon, kind, self._output_columns(levels))

    def _origins_per_series(self, origins, raw: dict) -> dict:
        """Map each series key to its origins (a list applies to every series)."""
        if not isinstance(origins, dict):
            index = self._origin_index(origins)
            return {key: index for key in raw}
        unknown = [key for key in origins if key not in raw]
        if unknown:
            raise ValueError(
                f"origins names series {unknown} that are not in data (series: {list(raw)[:10]})"
            )
        if not origins:
            raise ValueError("origins is empty: give at least one series and timestamp")
        out = {}
        for key, times in origins.items():
            try:
                out[key] = self._origin_index(times)
            except (TypeError, ValueError) as err:
                raise type(err)(f"{V._where(key)}{err}") from err
        return out

    def _origin_index(self, origins) -> pd.DatetimeIndex:
        if isinstance(origins, str | pd.Timestamp) or not hasattr(origins, "__len__"):
            raise TypeError(
                f"origins must be a list or DatetimeIndex of timestamps, got {origins!r}"
            )
        if len(origins) == 0:
            raise ValueError("origins is empty: give at least one timestamp")
        try:
            index = pd.DatetimeIndex(origins)
        except (ValueError, TypeError) as err:
            raise ValueError(f"origins must be timestamps of the data: {err}") from err
        return V.align_tz(index, self.tz_, None, "origins")

    def _origin_frame(
        self, meta: list, pred: np.ndarray, horizon: int, kind: str, columns: list | None = None
    ) -> pd.DataFrame:
        n = len(meta)
        starts = pd.DatetimeIndex([origin for _, origin in meta])
        try:
            step = pd.Timedelta(self.freq_)
            times = starts.repeat(horizon) + np.tile(np.arange(1, horizon + 1) * step, n)
        except (TypeError, ValueError):  # calendar frequencies (months, business days)
            times = starts[:0].append([V.future_index(o, self.freq_, horizon) for o in starts])
        columns = list(self.columns_) if columns is None else columns
        out = pd.DataFrame(pred.reshape(n * horizon, -1), columns=columns)
        out.insert(0, V.TIME_COLUMN, times)
        if kind != "frame":
            keys = np.array([key for key, _ in meta], dtype=object)
            out.insert(0, V.ID_COLUMN, np.repeat(keys, horizon))
        out.insert(0, "origin", starts.repeat(horizon))
        return out

    def _origin_arrays(
        self, whole: SeriesArrays, frame: pd.DataFrame, pos: int, horizon: int, causal=None
    ) -> SeriesArrays:
        y, past = whole.y[:pos], None if whole.past is None else whole.past[:pos]
        if causal is not None:
            y, past = causal.history(whole, pos, frame.index[pos - 1])
        fut = whole.future
        if fut is not None:
            if pos + horizon > len(fut):
                if self.future_covariates_:
                    raise ValueError(
                        f"{V._where(whole.key)}future covariates end at {frame.index[-1]}, before "
                        f"the horizon of origin {frame.index[pos - 1]}"
                    )
                index = frame.index[:pos].append(
                    V.future_index(frame.index[pos - 1], self.freq_, horizon)
                )
                fut = self._calendar(index)
            else:
                fut = fut[: pos + horizon]
        return SeriesArrays(key=whole.key, y=y, index=whole.index[:pos], past=past, future=fut)

    # ---------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Save the fitted estimator to the folder ``path`` (:mod:`forecast.persistence`).

        Parameters
        ----------
        path : str or path-like
            Target folder; its files are data only (JSON, npz, safetensors), never a pickle.
        overwrite : bool, default=False
            Replace an existing saved model folder atomically; without it an existing path
            raises ``FileExistsError``.

        Returns
        -------
        Path
            The folder written.
        """
        from forecast.persistence.format import save

        return save(self, path, overwrite=overwrite)

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | None = None) -> BaseForecaster:
        """Load an estimator saved with :meth:`save`, optionally onto ``device``.

        Parameters
        ----------
        path : str or path-like
            Folder written by :meth:`save`; it is checked against its manifest first.
        device : str, optional
            ``"auto"`` (default), ``"cpu"``, ``"cuda"`` or ``"cuda:N"`` for torch modules.

        Returns
        -------
        BaseForecaster
            The fitted estimator: an instance of ``cls`` or of a subclass (``TypeError``
            otherwise); ``BaseForecaster.load`` accepts any registered estimator.
        """
        from forecast.persistence.format import load

        return load(path, device=device, cls=cls)
