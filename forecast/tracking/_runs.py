"""Shared run plumbing: what every run records about an estimator and its environment."""

from __future__ import annotations

import json
import math
import platform
import time
from collections.abc import Iterable, Mapping
from typing import Any

import mlflow
import torch
from mlflow import MlflowClient
from mlflow.entities import Metric, Param, RunTag
from mlflow.utils.validation import MAX_PARAM_VAL_LENGTH, MAX_TAG_VAL_LENGTH

from forecast._version import __version__
from forecast.persistence.registry import builtin_names

_BATCH = 100  # params or tags per log_batch call (MLflow's limit is 100 params, 1000 items)


def model_family(estimator: Any) -> str:
    """Short model name (``"lstm"``, ``"seasonal-naive"``) or the class name."""
    cls = type(estimator)
    for short, builtin in builtin_names().items():
        if builtin is cls or builtin.__qualname__ == cls.__qualname__:
            return short
    return cls.__name__


def estimator_params(estimator: Any, prefix: str = "") -> dict[str, str]:
    """``get_params(deep=False)`` as strings fit for MLflow params."""
    get = getattr(estimator, "get_params", None)
    params = get(deep=False) if callable(get) else {}
    return {f"{prefix}{k}": _text(v, MAX_PARAM_VAL_LENGTH) for k, v in sorted(params.items())}


def estimator_tags(estimator: Any) -> dict[str, str]:
    """Tags naming the model and the software it ran on."""
    cls = type(estimator)
    device = getattr(estimator, "device_", None) or getattr(estimator, "device", None) or "cpu"
    return (
        {
            "model_family": model_family(estimator),
            "model_class": f"{cls.__module__}.{cls.__qualname__}",
            "device": str(device),
            "torch_version": torch.__version__,
            "forecast_version": __version__,
            "mlflow_version": mlflow.__version__,
            "python_version": platform.python_version(),
        }
        | _training_covariates(estimator)
        | lineage_tags(estimator)
    )


def _training_covariates(estimator: Any) -> dict[str, str]:
    """Tag what a fitted model's future covariates were in training (vintages or observed)."""
    source = getattr(estimator, "training_covariates_", None)
    return {} if source is None else {"training_covariates": str(source)}


def lineage_tags(estimator: Any) -> dict[str, str]:
    """Tags of what a fitted model has seen: ``updated_through``, ``n_updates``, fingerprints.

    ``data_fingerprints`` lists the fingerprint of the fit's data, then of each update's
    (oldest first, comma-separated; truncated to MLflow's tag length). The whole lineage is
    the run's ``lineage.json`` (:func:`log_lineage`) and the saved folder's manifest.
    """
    records = getattr(estimator, "lineage_", None)
    if not isinstance(records, list) or not records:
        return {}
    through = estimator.updated_through_
    if isinstance(through, dict):
        through = max(through.values())
    return {
        "updated_through": str(through),
        "n_updates": str(int(getattr(estimator, "n_updates_", 0))),
        "data_fingerprints": ",".join(str(r.get("fingerprint", "")) for r in records),
    }


def log_lineage(client: MlflowClient, run_id: str, estimator: Any) -> None:
    """Tag the run with the model's lineage and log it whole as ``lineage.json``."""
    records = getattr(estimator, "lineage_", None)
    if not isinstance(records, list) or not records:
        return
    log_tags(client, run_id, lineage_tags(estimator))
    client.log_text(run_id, json.dumps(records, indent=1), "lineage.json")


def _text(value: Any, limit: int) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def log_params(client: MlflowClient, run_id: str, params: Mapping[str, Any]) -> None:
    """Log params in batches (values stringified and truncated to MLflow's limit)."""
    items = [Param(str(k), _text(v, MAX_PARAM_VAL_LENGTH)) for k, v in params.items()]
    for i in range(0, len(items), _BATCH):
        client.log_batch(run_id, params=items[i : i + _BATCH], synchronous=True)


def log_tags(client: MlflowClient, run_id: str, tags: Mapping[str, Any]) -> None:
    """Set tags in batches (None values are skipped)."""
    items = [RunTag(str(k), _text(v, MAX_TAG_VAL_LENGTH)) for k, v in tags.items() if v is not None]
    for i in range(0, len(items), _BATCH):
        client.log_batch(run_id, tags=items[i : i + _BATCH], synchronous=True)


def log_metrics(
    client: MlflowClient, run_id: str, metrics: Mapping[str, Any], step: int = 0
) -> None:
    """Log numeric metrics at ``step``; values that are not real numbers are skipped."""
    log_metric_steps(client, run_id, ((k, v, step) for k, v in metrics.items()))


def log_metric_steps(
    client: MlflowClient, run_id: str, rows: Iterable[tuple[str, Any, int]]
) -> None:
    """Log ``(key, value, step)`` rows in few batches, skipping values that are not numbers."""
    stamp = int(time.time() * 1000)
    items = [Metric(str(k), float(v), stamp, int(s)) for k, v, s in rows if _is_real(v)]
    for i in range(0, len(items), 10 * _BATCH):
        client.log_batch(run_id, metrics=items[i : i + 10 * _BATCH], synchronous=True)


def _is_real(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    return not math.isinf(number)


def metric_key(*parts: object) -> str:
    """Join parts into an MLflow metric name (only characters MLflow accepts)."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. /:")
    text = "/".join(str(p) for p in parts if p is not None and str(p) != "")
    return "".join(c if c in allowed else "_" for c in text)


def end_status(err: BaseException | None) -> str:
    """MLflow status of a run its code left by ``err``: KILLED for Ctrl+C or SIGTERM, else FAILED.

    Parameters
    ----------
    err : BaseException or None
        What ended the run's block (``KeyboardInterrupt`` for both signals, see
        :mod:`forecast.training.interrupts`).

    Returns
    -------
    str
    """
    return "KILLED" if isinstance(err, KeyboardInterrupt) else "FAILED"
