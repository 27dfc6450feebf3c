"""Forecast with an exported model through onnxruntime: numpy and pandas only, no torch.

:class:`OnnxForecaster` reads an export folder (:mod:`forecast.onnx.metadata`) and offers
``predict(horizon=..., history=..., future=..., quantiles=...)`` as the estimator it came
from does. History frames go through the same functions of :mod:`forecast.frames` as in the
estimator base (time zone, regular grid, NaN policy, scaling, calendar features, context
windows, the block roll-out, forecast frames); only the network runs in onnxruntime. Nothing
on this module's import path imports torch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.frames import validation as V
from forecast.frames.cleaning import apply_nan_policy, conform, in_zone
from forecast.frames.context import context_windows, roll_out
from forecast.frames.covariates import calendar_block
from forecast.frames.output import forecast_frames, output_columns, points_and_levels
from forecast.frames.quantiles import point_level, select_levels
from forecast.frames.scaling import Scaling
from forecast.frames.series import SeriesArrays, SeriesEncoder
from forecast.onnx.metadata import MAX_NETWORK_BYTES, OnnxFormatError, read_folder

CHUNK = 256  # windows per onnxruntime call, as the estimator's PREDICT_CHUNK
_PARAMS = ("calendar", "country", "timezone", "fill_gaps", "nan_policy", "horizon")


@dataclass(frozen=True)
class _Standard:
    """A fitted standard scaler from its JSON record (``transform`` as scikit-learn's)."""

    mean_: np.ndarray
    scale_: np.ndarray

    @classmethod
    def of(cls, record: dict[str, Any] | None) -> _Standard | None:
        if record is None:
            return None
        return cls(np.asarray(record["mean"], float), np.asarray(record["scale"], float))

    def transform(self, values: np.ndarray) -> np.ndarray:
        """Scaled ``values`` ``(T, C)``: ``(values - mean_) / scale_``."""
        return (np.asarray(values, dtype=float) - self.mean_) / self.scale_


def _session(network: bytes, threads: int | None, where: str) -> Any:
    import onnx  # optional extra forecast[onnx]: only an exported model needs it
    import onnxruntime as ort  # optional extra forecast[onnx], as onnx
    from onnx.external_data_helper import uses_external_data  # optional, as onnx

    try:
        graph = onnx.load_model_from_string(network).graph
    except Exception as err:  # protobuf raises its own DecodeError
        raise OnnxFormatError(f"{where}: model.onnx is not an ONNX model ({err})") from None
    if any(uses_external_data(t) for t in graph.initializer):
        raise OnnxFormatError(f"{where}: model.onnx refers to external data files")
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = int(threads)
        options.inter_op_num_threads = 1
    return ort.InferenceSession(network, options, providers=["CPUExecutionProvider"])


class OnnxForecaster:
    """A neural forecaster exported to ONNX, forecasting without torch.

    Build it with :meth:`load`. Its fitted attributes mirror the estimator's, so the batch
    and service code that reads them (``columns_``, ``tz_``, ``freq_``, ``horizon``,
    ``timezone``, ``get_params``) works alike.

    Parameters
    ----------
    metadata : dict
        Checked metadata (:func:`forecast.onnx.metadata.read_folder`).
    network : bytes
        The ONNX graph.
    threads : int, optional
        onnxruntime's intra-op threads (default: its own choice).
    where : str
        The folder, named in messages.

    Attributes
    ----------
    columns_, past_covariates_, future_covariates_ : list of str
        Target columns and covariates, as fitted.
    freq_ : DateOffset
        Frequency of the data.
    tz_ : str or None
        Fitted time zone.
    quantiles_ : tuple of float or None
        Levels of a quantile head.
    metadata_ : dict
        Everything the export recorded.
    """

    # the estimator's parameters _PARAMS, set from the metadata by __init__
    calendar: bool
    country: str | None
    timezone: str | None
    fill_gaps: bool
    nan_policy: str
    horizon: int | None

    def __init__(
        self,
        metadata: dict[str, Any],
        network: bytes,
        threads: int | None = None,
        where: str = "model",
    ) -> None:
        self.metadata_ = dict(metadata)
        m = self.metadata_
        self.estimator_name_ = m["estimator"]
        self.columns_ = list(m["columns"])
        self.past_covariates_ = list(m["past_covariates"])
        self.future_covariates_ = list(m["future_covariates"])
        self.freq_ = to_offset(str(m["freq"]))  # a str, as the metadata schema checks
        self.tz_ = m["tz"]
        self.index_name_ = m["index_name"]
        self.quantiles_ = None if m["quantiles"] is None else tuple(m["quantiles"])
        self.context_length = m["context_length"]
        for name in _PARAMS:
            setattr(self, name, m[name])
        self._scaling = Scaling(
            _Standard.of(m["target_scaler"]),
            _Standard.of(m["covariate_scaler"]),
            self.past_covariates_ + self.future_covariates_,
        )
        self._session = _session(network, threads, where)
        names = [i.name for i in self._session.get_inputs()]
        if names != m["inputs"]:
            raise OnnxFormatError(f"{where}: the graph reads {names}, the metadata {m['inputs']}")

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        threads: int | None = None,
        max_network_bytes: int = MAX_NETWORK_BYTES,
    ) -> OnnxForecaster:
        """Read an export folder (checked, see :func:`forecast.onnx.metadata.read_folder`).

        Parameters
        ----------
        path : str or path-like
            Folder written by ``estimator.to_onnx(path)``.
        threads : int, optional
            onnxruntime's intra-op threads.
        max_network_bytes : int
            Largest ``model.onnx`` accepted.

        Returns
        -------
        OnnxForecaster
        """
        meta, network = read_folder(path, max_network_bytes=max_network_bytes)
        return cls(meta, network, threads, os.fspath(path))

    # ------------------------------------------------------------ parameters
    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """Return the input options and ``horizon`` the model was fitted with.

        Parameters
        ----------
        deep : bool
            Ignored (no nested estimators).

        Returns
        -------
        dict
        """
        return {name: getattr(self, name) for name in (*_PARAMS, "context_length")}

    def set_params(self, **params: Any) -> OnnxForecaster:
        """Change ``nan_policy`` (the one option a forecast may override).

        Parameters
        ----------
        **params
            ``nan_policy="raise"`` or ``"interpolate"``.

        Returns
        -------
        self
        """
        for name, value in params.items():
            if name != "nan_policy" or value not in V.NAN_POLICIES:
                raise ValueError(f"an exported model only takes nan_policy, got {name}={value!r}")
            self.nan_policy = value
        return self

    # -------------------------------------------------------------- predict
    def predict(
        self,
        horizon: int = 1,
        history: Any = None,
        future: Any = None,
        *,
        quantiles: bool | tuple[float, ...] | None = None,
        max_horizon: int | None = V.MAX_HORIZON,
    ) -> Any:
        """Forecast the ``horizon`` steps after ``history`` (as the estimator's ``predict``).

        Parameters
        ----------
        horizon : int
            Steps to forecast.
        history : DataFrame, long DataFrame or dict of DataFrames
            At least ``context_length`` rows per series with the fitted columns; required
            (an export keeps no training data).
        future : DataFrame or dict of DataFrames, optional
            The declared future covariates at the forecast timestamps.
        quantiles : bool or tuple of float, optional
            Quantile columns of a quantile head, as in the estimator's ``predict``.
        max_horizon : int or None
            Largest ``horizon`` accepted; None lifts the limit.

        Returns
        -------
        DataFrame or dict of DataFrames
            Indexed by the forecast timestamps, in the container ``history`` came in.
        """
        if history is None:
            raise ValueError("OnnxForecaster.predict needs history=: an export keeps no data")
        horizon = V.check_horizon(horizon, max_horizon)
        levels = select_levels(quantiles, self.quantiles_ or (), "OnnxForecaster")
        raw, kind = V.split_series(history, "history")
        covariates = self.past_covariates_ + self.future_covariates_
        gaps = bool(self.fill_gaps)
        policy = "interpolate" if gaps else self.nan_policy  # as FrameOptions.policy
        frames = {}
        for key, frame in raw.items():
            frame = in_zone(frame, self.tz_, key, "history")
            frame = conform(frame, key, self.columns_, covariates, self.freq_, "history", gaps)[0]
            frames[key] = apply_nan_policy(frame, key, self.columns_, covariates, policy)
        for key, frame in frames.items():
            V.check_length(len(frame), self.context_length, key, "history needed by predict")
        fut = None if future is None else V.split_series(future, "future")[0]
        if fut is not None and kind == "frame":  # a single series: its one future frame
            fut = {k: next(iter(fut.values())) for k in frames}
        arrays = self._encoder().encode_all(frames, horizon, fut)
        pred = self._predict_values(arrays, horizon, levels)
        columns = output_columns(self.columns_, levels)
        out = forecast_frames(frames, pred, horizon, self.freq_, columns, self.index_name_)
        return V.join_series(out, kind)

    def _encoder(self) -> SeriesEncoder:
        scaling = self._scaling

        def calendar(index: pd.DatetimeIndex) -> np.ndarray | None:
            return calendar_block(index, self.timezone, self.country) if self.calendar else None

        return SeriesEncoder(
            self.columns_,
            self.past_covariates_,
            self.future_covariates_,
            self.freq_,
            self.tz_,
            scaling.scale,
            scaling.scale_covariates,
            calendar,
        )

    def _forward(self, x: np.ndarray, future: np.ndarray | None) -> np.ndarray:
        feed = {"x": np.ascontiguousarray(x, dtype=np.float32)}
        if future is not None:
            feed["future"] = np.ascontiguousarray(future, dtype=np.float32)
        return self._session.run(None, feed)[0]

    def _predict_values(
        self, arrays: list[SeriesArrays], horizon: int, levels: tuple[float, ...]
    ) -> Any:
        """Unscaled forecasts ``(n, horizon, C * (1 + len(levels)))``: points, then levels."""
        m = self.metadata_
        head = m["head_horizon"]
        if horizon > head and m["n_past"]:
            raise ValueError(
                f"horizon={horizon} exceeds the {head} step(s) the network forecasts at once, so "
                f"forecasts would be fed back as inputs, but the past covariates "
                f"{self.past_covariates_} are unknown after the last timestamp: forecast at most "
                f"{head} steps"
            )
        fitted = self.quantiles_ or ()
        point = point_level(fitted) if fitted else None
        x, future = context_windows(arrays, self.context_length, horizon)
        parts = [slice(i, i + CHUNK) for i in range(0, len(x), CHUNK)]
        out = roll_out(self._forward, x, future, horizon, head, parts, point=point)
        if not np.isfinite(out).all():
            raise RuntimeError(f"{self.estimator_name_} (ONNX) forecasts NaN/inf")
        if not levels:
            points = out if out.ndim == 3 else out[..., point]
            return self._scaling.unscale(points)
        return points_and_levels(self._scaling.unscale_levels(out), fitted, levels)
