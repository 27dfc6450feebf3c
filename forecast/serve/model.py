"""The served model: loaded once through the checked loaders, forecasts one request at a time.

:func:`load_served` loads a saved model folder with :func:`forecast.load` and an MLflow model
(``models:/``, ``runs:/``, another MLflow URI or an artifact folder with ``MLmodel``) with
:func:`forecast.tracking.artifacts.load_artifact`, both through
:func:`forecast.batch.run.load_forecaster`; ``mlflow.pyfunc.load_model`` is never called, so a
tampered artifact is refused before anything in it runs; an ONNX export folder is served by
:class:`forecast.onnx.runtime.OnnxForecaster`, without torch. Requests are answered one at a
time (a lock around parse and predict): the answer to each is the one a lone call would give.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from forecast._version import __version__
from forecast.batch.run import load_forecaster
from forecast.frames.requests import default_horizon
from forecast.serve.payload import parse_request
from forecast.serve.responses import forecast_body


@dataclass
class ServedModel:
    """A fitted estimator behind the service.

    Attributes
    ----------
    estimator : BaseForecaster
        The fitted estimator.
    uri : str
        What it was loaded from, as given on the command line.
    """

    estimator: Any
    uri: str
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def forecast(self, body: Any) -> dict[str, Any]:
        """Answer one parsed JSON request body (see :mod:`forecast.serve.payload`).

        Parameters
        ----------
        body : object
            The parsed JSON body.

        Returns
        -------
        dict
            The response body (see :func:`forecast.serve.responses.forecast_body`).
        """
        est = self.estimator
        with self._lock:  # one request at a time: predict is not made for concurrent calls
            request = parse_request(body, est)
            extra = {} if request.future is None else {"future": request.future}
            frame = est.predict(
                horizon=request.horizon,
                history=request.history,
                quantiles=request.quantiles,
                **extra,
            )
        return forecast_body(frame, est, request.horizon)

    def health(self) -> dict[str, Any]:
        """Return what ``GET /health`` answers: the model, its zone, columns and version.

        Returns
        -------
        dict
        """
        est = self.estimator
        levels = est._quantile_levels() if hasattr(est, "_quantile_levels") else ()
        freq = getattr(est, "freq_", None)
        return {
            "status": "ok",
            "model": self.uri,
            "estimator": type(est).__name__,
            "timezone": None if getattr(est, "tz_", None) is None else str(est.tz_),
            "frequency": None if freq is None else str(getattr(freq, "freqstr", freq)),
            "columns": [str(c) for c in est.columns_],
            "past_covariates": [str(c) for c in getattr(est, "past_covariates_", ())],
            "future_covariates": [str(c) for c in getattr(est, "future_covariates_", ()) or ()],
            "min_history": int(est._min_history()) if hasattr(est, "_min_history") else None,
            "default_horizon": default_horizon(est),
            "quantile_levels": [float(q) for q in levels or ()],
            "version": __version__,
        }


def load_served(
    model: str | os.PathLike[str], tracking_uri: str | None = None, device: str | None = None
) -> ServedModel:
    """Load the model to serve through the checked loaders.

    Parameters
    ----------
    model : str or path-like
        ``models:/name@alias``, ``models:/name/version``, ``runs:/<id>/model``, another MLflow
        model URI, a local MLflow model folder (with ``MLmodel``) or a folder written by
        :func:`forecast.save` (with ``meta.json``).
    tracking_uri : str, optional
        Store resolving ``models:/`` and ``runs:/`` URIs.
    device : str, optional
        Device for torch modules (default: as saved / CUDA when present).

    Returns
    -------
    ServedModel

    Raises
    ------
    ModelFormatError
        The folder or artifact is not what our format writes (one line naming the field).
    BatchError
        The model or the store does not exist.
    """
    estimator, _ = load_forecaster(model, tracking_uri=tracking_uri, device=device)
    return ServedModel(estimator, os.fspath(model))
