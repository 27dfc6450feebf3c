"""Tracking one fit: :class:`MLflowCallback` and the :func:`track_fit` shortcut.

Tracking is attached per call, never a hyperparameter::

    est.fit(df, callbacks=[MLflowCallback(data=df, dataset="smard-de")])
    track_fit(est, df, dataset="smard-de")  # the same, and marks the run FAILED on errors
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pandas as pd
from mlflow import MlflowClient

from forecast.frames.fingerprint import fingerprint
from forecast.tracking import _runs
from forecast.tracking._store import client as make_client
from forecast.tracking._store import ensure_experiment
from forecast.tracking.fingerprint import dataset_input
from forecast.tracking.pyfunc import log_model
from forecast.training.callbacks import Callback

if TYPE_CHECKING:
    from mlflow.models.model import ModelInfo

__all__ = ["MLflowCallback", "log_history", "track_fit"]

DEFAULT_EXPERIMENT = "forecast"


class MLflowCallback(Callback):
    """Log one MLflow run per ``fit``: params, per-epoch metrics, data fingerprint, model.

    Parameters
    ----------
    data : DataFrame or dict of DataFrames, optional
        The frame passed to ``fit``; its content hash
        (:func:`~forecast.frames.fingerprint.fingerprint`) and an MLflow dataset input are
        logged. Without it the estimator's kept training tail
        (``train_tail_``) is fingerprinted instead, and the tag ``data_fingerprint_of``
        says so.
    experiment : str
        Experiment name (created when missing).
    run_name : str, optional
        Default: the estimator's class name.
    tracking_uri : str, optional
        Store; default ``MLFLOW_TRACKING_URI`` or ``sqlite:///mlflow.db``.
    dataset : str, optional
        Dataset name for the ``dataset`` tag and the dataset input (default ``"data"``).
    data_source : str, optional
        Where the data came from (path or URL), recorded with the dataset input.
    tags : dict, optional
        Extra run tags.
    log_model : bool
        Also log the fitted estimator as a pyfunc model (``runs:/<run_id>/model``).
    registered_model_name : str, optional
        Register the logged model under this name (implies ``log_model``).
    parent_run_id : str, optional
        Make the run a child of this run.

    Attributes
    ----------
    run_id : str or None
        Id of the current (or last) run, set in ``on_fit_start``.
    model_info : ModelInfo or None
        Set when the model was logged.

    Examples
    --------
    >>> from forecast.models.baselines import SeasonalNaive  # doctest: +SKIP
    >>> cb = MLflowCallback(data=df, dataset="smard-de", log_model=True)  # doctest: +SKIP
    >>> SeasonalNaive(season_length=168).fit(df, callbacks=[cb])  # doctest: +SKIP
    """

    def __init__(
        self,
        data: pd.DataFrame | Mapping[Any, pd.DataFrame] | None = None,
        *,
        experiment: str = DEFAULT_EXPERIMENT,
        run_name: str | None = None,
        tracking_uri: str | None = None,
        dataset: str | None = None,
        data_source: str | None = None,
        tags: Mapping[str, Any] | None = None,
        log_model: bool = False,
        registered_model_name: str | None = None,
        parent_run_id: str | None = None,
    ) -> None:
        self.data = data
        self.experiment = experiment
        self.run_name = run_name
        self.tracking_uri = tracking_uri
        self.dataset = dataset
        self.data_source = data_source
        self.tags = dict(tags or {})
        self.log_model = log_model
        self.registered_model_name = registered_model_name
        self.parent_run_id = parent_run_id
        self.run_id: str | None = None
        self.model_info: ModelInfo | None = None
        self._client: MlflowClient | None = None
        self._started = 0.0
        self._last: dict[str, float] = {}

    # ----------------------------------------------------------------- hooks
    def on_fit_start(self, estimator: Any) -> None:
        """Open the run; log params, tags and the data fingerprint."""
        self._client = make_client(self.tracking_uri)
        experiment_id = ensure_experiment(self._client, self.experiment)
        tags = {"dataset": self.dataset or "data", **self.tags}
        if self.parent_run_id:
            tags["mlflow.parentRunId"] = self.parent_run_id
        run = self._client.create_run(
            experiment_id, run_name=self.run_name or type(estimator).__name__, tags=tags
        )
        self.run_id = run.info.run_id
        self._last, self.model_info = {}, None
        if self.data is not None:
            data, of = self.data, "data"
        else:
            tail = estimator.train_tail_
            data, of = (tail[None] if None in tail else tail), "train_tail_"
        digest = fingerprint(data)
        _runs.log_params(self._client, self.run_id, _runs.estimator_params(estimator))
        _runs.log_tags(
            self._client,
            self.run_id,
            {**_runs.estimator_tags(estimator), "data_sha256": digest, "data_fingerprint_of": of},
        )
        self._client.log_inputs(
            self.run_id,
            datasets=[
                dataset_input(data, self.dataset or "data", "training", self.data_source, digest)
            ],
        )
        self._started = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        """Log every numeric entry of ``logs`` with the epoch as step."""
        if self.run_id is None or self._client is None:  # set together in on_fit_start
            return
        numeric = {k: float(v) for k, v in logs.items() if _runs._is_real(v)}
        self._last.update(numeric)
        _runs.log_metrics(self._client, self.run_id, numeric, step=int(epoch))

    def on_fit_end(self, estimator: Any) -> None:
        """Log final metrics and the device, optionally the model, and close the run."""
        if self.run_id is None or self._client is None:  # set together in on_fit_start
            return
        final = {"fit_seconds": time.perf_counter() - self._started}
        final.update(_final_metrics(estimator))
        _runs.log_metrics(self._client, self.run_id, final, step=0)
        device = getattr(estimator, "device_", None)
        if device is not None:
            _runs.log_tags(self._client, self.run_id, {"device": str(device)})
        _runs.log_lineage(self._client, self.run_id, estimator)
        if self.log_model or self.registered_model_name:
            self.model_info = log_model(
                estimator,
                self.run_id,
                tracking_uri=self.tracking_uri,
                registered_model_name=self.registered_model_name,
                history=self.data,
            )
        self._client.set_terminated(self.run_id, "FINISHED")

    # ------------------------------------------------------- context manager
    def __enter__(self) -> MLflowCallback:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Mark the run KILLED (Ctrl+C, SIGTERM) or FAILED when the block raised before the end."""
        if exc_type is None or self.run_id is None or self._client is None:
            return
        status = self._client.get_run(self.run_id).info.status
        if status == "RUNNING":
            _runs.log_tags(self._client, self.run_id, {"error": f"{exc_type.__name__}: {exc}"})
            self._client.set_terminated(self.run_id, _runs.end_status(exc))


def _final_metrics(estimator: Any) -> dict[str, float]:
    """Summary numbers a fitted estimator exposes: epochs, best epoch and losses."""
    out: dict[str, float] = {}
    history = getattr(estimator, "history_", None)
    if isinstance(history, Mapping) and history:
        for key, values in history.items():
            if values and _runs._is_real(values[-1]):
                out[f"final_{key}"] = float(values[-1])
        monitored = history.get("val_loss") or history.get("train_loss") or []
        finite = [v for v in monitored if _runs._is_real(v) and not math.isnan(v)]
        if finite:
            out["best_loss"] = min(finite)
    for attr in ("n_epochs_", "best_epoch_"):
        value = getattr(estimator, attr, None)
        if value is not None and _runs._is_real(value):
            out[attr.rstrip("_")] = float(value)
    return out


def log_history(client: MlflowClient, run_id: str, estimator: Any) -> int:
    """Log a fitted estimator's per-epoch history as metric curves; return the epochs logged.

    Every list in ``history_`` (``train_loss``, ``val_loss``, ...) becomes the metric of
    that name with the epoch as step (0 = the first epoch), as :class:`MLflowCallback` logs
    them during a fit; the summary numbers (``best_loss``, ``n_epochs``, ``best_epoch``,
    ``final_<key>``) are logged too. Estimators without a history (baselines) log nothing.

    Parameters
    ----------
    client : MlflowClient
        Client of the run's store.
    run_id : str
        The run.
    estimator : BaseForecaster
        A fitted estimator.

    Returns
    -------
    int
        Number of epochs in the history (0 without one).
    """
    history = getattr(estimator, "history_", None)
    if not isinstance(history, Mapping) or not history:
        return 0
    rows = [
        (key, value, epoch)
        for key, values in history.items()
        for epoch, value in enumerate(values or [])
    ]
    _runs.log_metric_steps(client, run_id, rows)
    _runs.log_metrics(client, run_id, _final_metrics(estimator))
    return max(len(values or []) for values in history.values())


def track_fit(
    estimator: Any, data: pd.DataFrame | Mapping[Any, pd.DataFrame], **kwargs: Any
) -> MLflowCallback:
    """Fit ``estimator`` on ``data`` with an :class:`MLflowCallback` and return the callback.

    A fit that raises leaves its run marked FAILED (with the error as a tag) and the error
    propagates.

    Parameters
    ----------
    estimator : BaseForecaster
        The estimator (fitted in place).
    data : DataFrame or dict of DataFrames
        Training data, passed to ``fit`` and fingerprinted.
    **kwargs
        Options of :class:`MLflowCallback`; ``fit_kwargs`` (dict) and ``callbacks`` (list)
        go to ``fit``.

    Returns
    -------
    MLflowCallback
        With ``run_id`` (and ``model_info`` when the model was logged).
    """
    fit_kwargs = dict(kwargs.pop("fit_kwargs", None) or {})
    extra = list(kwargs.pop("callbacks", None) or [])
    with MLflowCallback(data=data, **kwargs) as callback:
        estimator.fit(data, callbacks=[callback, *extra], **fit_kwargs)
    return callback
