"""Forecast with an exported model through onnxruntime: numpy and pandas only, no torch.

:class:`OnnxForecaster` reads an export folder (:mod:`forecast.onnx.folder`, checked as any
saved folder is) and forecasts through the estimator's own frame pipeline
(:class:`forecast.frames.pipeline.ForecastPipeline`: zones and the naive local-time rule,
the grid, validation, scaling, calendar and covariates, vintages, context windows, quantile
levels, output frames), supplying only the network call: the context windows and the block
roll-out of :mod:`forecast.frames.context` through an onnxruntime session. Nothing on this
module's import path imports torch.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from forecast.frames import validation as V
from forecast.frames.context import context_windows, roll_out
from forecast.frames.pipeline import ForecastPipeline, check_roll_out
from forecast.frames.quantiles import point_level
from forecast.frames.series import SeriesArrays
from forecast.onnx.folder import MAX_NETWORK_BYTES, Export, read_export
from forecast.onnx.graph import extra_module
from forecast.onnx.metadata import PARAMS

__all__ = ["OnnxForecaster"]

CHUNK = 256  # windows per onnxruntime call, as the estimator's PREDICT_CHUNK


def _session(network: bytes, threads: int | None) -> Any:
    """Open an onnxruntime session of a checked graph (:func:`~forecast.onnx.graph.check_graph`)."""
    ort = extra_module("onnxruntime")  # only an export needs it

    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = int(threads)
        options.inter_op_num_threads = 1
    return ort.InferenceSession(network, options, providers=["CPUExecutionProvider"])


class OnnxForecaster(ForecastPipeline):
    """A neural forecaster exported to ONNX, forecasting without torch.

    Build it with :meth:`load`. It forecasts through the same frame pipeline as the
    estimator it was exported from (``predict`` and ``predict_origins``, with the same
    checks, time-zone rules, vintages and quantile levels); only the network runs in
    onnxruntime. An export keeps no training data: ``predict`` needs ``history=``.

    Parameters
    ----------
    export : Export
        A checked export folder (:func:`forecast.onnx.folder.read_export`).
    threads : int, optional
        onnxruntime's intra-op threads (default: its own choice).

    Attributes
    ----------
    columns_, past_covariates_, future_covariates_ : list
        Target columns and covariates, as fitted.
    freq_ : DateOffset
        Frequency of the data.
    tz_ : str or None
        Fitted time zone.
    quantiles_ : tuple of float or None
        Levels of a quantile head.
    estimator_name_ : str
        Registry name of the estimator the export came from (``"gru"``).
    manifest_ : dict
        The folder's manifest (versions, save time, files).
    """

    # the estimator's parameters (metadata.PARAMS), set from the folder by __init__
    calendar: bool
    country: str | None
    timezone: str | None
    fill_gaps: bool
    nan_policy: str
    horizon: int | None
    context_length: int
    # fitted attributes read by the network call (metadata.FITTED)
    quantiles_: tuple[float, ...] | None
    head_horizon_: int

    def __init__(self, export: Export, threads: int | None = None) -> None:
        for name, value in export.params.items():
            setattr(self, name, value)
        for name, value in export.fitted.items():
            setattr(self, name, value)
        self.manifest_ = dict(export.manifest)
        self.estimator_name_ = str(export.manifest.get("estimator"))
        self._session = _session(export.network, threads)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        threads: int | None = None,
        max_network_bytes: int = MAX_NETWORK_BYTES,
    ) -> OnnxForecaster:
        """Read an export folder, checked as a saved folder is, then its state and graph.

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

        Raises
        ------
        ModelFormatError
            One line naming the file and what is wrong (see :mod:`forecast.onnx.folder`).
        """
        return cls(read_export(Path(path), max_network_bytes=max_network_bytes), threads)

    # ------------------------------------------------------------ parameters
    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """Return the input options, ``horizon`` and ``context_length`` of the model.

        Parameters
        ----------
        deep : bool
            Ignored (no nested estimators).

        Returns
        -------
        dict
        """
        return {name: getattr(self, name) for name in PARAMS}

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

    # ------------------------------------------------------------ the pipeline's hooks
    def _check_fitted(self) -> None:
        """Pass: an export is fitted by construction (its folder was checked when loaded)."""

    def _kept_history(self) -> Any:
        raise ValueError("OnnxForecaster.predict needs history=: an export keeps no data")

    def _min_history(self) -> int:
        return int(self.context_length)

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(self.quantiles_ or ())

    # ------------------------------------------------------------ the network call
    def _forward(self, x: np.ndarray, future: np.ndarray | None) -> np.ndarray:
        feed = {"x": np.ascontiguousarray(x, dtype=np.float32)}
        if future is not None:
            feed["future"] = np.ascontiguousarray(future, dtype=np.float32)
        out: np.ndarray = self._session.run(None, feed)[0]
        return out

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        out = self._predict_quantiles(series, horizon)
        return out if out.ndim == 3 else out[..., point_level(self._quantile_levels())]

    def _predict_quantiles(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Forecasts ``(n, horizon, C, Q)`` of a quantile head (``(n, horizon, C)`` without)."""
        head = self.head_horizon_
        check_roll_out(horizon, head, self.past_covariates_)
        levels = self._quantile_levels()
        point = point_level(levels) if levels else None
        x, future = context_windows(series, self.context_length, horizon)
        parts = [slice(i, i + CHUNK) for i in range(0, len(x), CHUNK)]
        out = roll_out(self._forward, x, future, horizon, head, parts, point=point)
        if not np.isfinite(out).all():
            raise RuntimeError(f"{self.estimator_name_} (ONNX) forecasts NaN/inf")
        return out
