"""The MLflow side of a batch: models from a store, and the runs that record batches.

Everything here needs MLflow (seconds to import), so :mod:`forecast.batch.run` and
:mod:`forecast.batch.partitions` import this module only for a model URI or a tracked run;
a batch from a saved folder with ``track=False`` never imports MLflow.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from mlflow.exceptions import MlflowException

from forecast.batch.files import BatchError
from forecast.frames.messages import first_line
from forecast.frames.quantiles import parse_levels
from forecast.tracking import _runs
from forecast.tracking._store import client as make_client
from forecast.tracking._store import ensure_experiment, resolve_tracking_uri, sqlite_path
from forecast.tracking.artifacts import load_artifact
from forecast.tracking.fingerprint import dataset_input

__all__ = [
    "check_store",
    "load_from_store",
    "log_batch_run",
    "log_failed_run",
    "log_partitions_run",
    "parse_models_uri",
    "pin_registered",
]

_log = logging.getLogger("forecast.batch")


def load_from_store(
    model: str,
    tracking_uri: str | None,
    quantiles: str | None,
    *,
    uri: bool,
    device: str | None = None,
) -> tuple[Any, Callable[[pd.DataFrame, int], pd.DataFrame]]:
    """Load an MLflow model (a URI, or a local folder with an ``MLmodel`` file).

    The artifact is downloaded into a temporary folder, its ``MLmodel`` checked against
    what our pyfunc flavour writes and its model folder read with the checked loader
    (:func:`forecast.tracking.artifacts.load_artifact`): nothing in it is imported or
    unpickled, and ``mlflow.pyfunc.load_model`` is never called.

    Parameters
    ----------
    model : str
        ``models:/``, ``runs:/`` or other MLflow model URI, or a local MLflow model folder.
    tracking_uri : str, optional
        Store resolving ``models:/`` and ``runs:/`` URIs.
    quantiles : str, optional
        ``"all"`` or levels such as ``"0.1,0.9"``: the forecasts get quantile columns.
    uri : bool
        Whether ``model`` is a URI (error messages then name the store).
    device : str, optional
        Device for torch modules (default: CUDA when present, else CPU).

    Returns
    -------
    estimator : BaseForecaster
        The fitted estimator inside the pyfunc model.
    predict : callable
        ``predict(history, horizon) -> DataFrame``, as the pyfunc model answers.

    Raises
    ------
    BatchError
        The store or the model does not exist.
    ArtifactError
        The artifact is not what our flavour writes (the message names the ``MLmodel``
        field); a :class:`ModelFormatError`.
    """
    check_store(model, tracking_uri)
    try:
        wrapper = load_artifact(model, tracking_uri, device=device)
    except (MlflowException, OSError) as err:
        where = f" in {resolve_tracking_uri(tracking_uri)}" if uri else ""
        raise BatchError(f"model {model} not found{where}: {first_line(err)}") from err
    params = {} if parse_levels(quantiles) is None else {"quantiles": quantiles}
    return wrapper.estimator, lambda h, n: wrapper.predict(
        None, h, params={"horizon": int(n), **params}
    )


def check_store(model: str, tracking_uri: str | None) -> None:
    """Refuse a store URI whose SQLite file does not exist, rather than creating an empty one.

    Parameters
    ----------
    model : str
        The model reference; only ``models:/`` and ``runs:/`` URIs need the store.
    tracking_uri : str, optional
        The MLflow store (default: ``$MLFLOW_TRACKING_URI``).

    Raises
    ------
    BatchError
        When ``model`` needs a SQLite store whose file is missing.
    """
    db = sqlite_path(resolve_tracking_uri(tracking_uri))
    if model.startswith(("models:/", "runs:/")) and db is not None and not db.is_file():
        raise BatchError(  # rather than creating an empty store where cron happens to run
            f"model {model} not found: the store {db} does not exist (pass --tracking-uri or "
            "set MLFLOW_TRACKING_URI)"
        )


def _store_exists(tracking_uri: str | None) -> bool:
    db = sqlite_path(resolve_tracking_uri(tracking_uri))
    return db is None or db.is_file()


def pin_registered(model: str, tracking_uri: str | None) -> tuple[str, dict[str, str]]:
    """Resolve ``models:/name@alias`` to the version the alias points at now.

    The batch then loads ``models:/name/<version>``, so the version it records is the one
    it used even if the alias moves while it runs.

    Parameters
    ----------
    model : str
        Any model reference; only ``models:/name@alias`` and ``models:/name/<version>``
        are resolved.
    tracking_uri : str, optional
        The store of the registry.

    Returns
    -------
    uri : str
        ``models:/name/<version>`` for an alias, else ``model`` unchanged.
    registered : dict
        ``registered_model``, ``model_version`` and (for an alias) ``model_alias``; empty
        for other references.

    Raises
    ------
    BatchError
        The store, the registered model or the alias does not exist.
    """
    name, alias, version = parse_models_uri(model)
    if name is None:
        return model, {}
    if alias is None:
        return model, {"registered_model": name, "model_version": str(version)}
    check_store(model, tracking_uri)
    try:
        found = make_client(tracking_uri).get_model_version_by_alias(name, alias)
    except MlflowException as err:
        where = resolve_tracking_uri(tracking_uri)
        raise BatchError(f"model {model} not found in {where}: {first_line(err)}") from err
    registered = {"registered_model": name, "model_alias": alias}
    registered["model_version"] = str(found.version)
    return f"models:/{name}/{found.version}", registered


def parse_models_uri(model: str) -> tuple[str | None, str | None, str | None]:
    """Return ``(name, alias, version)`` of a ``models:/`` URI; ``(None, None, None)`` otherwise.

    Parameters
    ----------
    model : str
        Any model reference.

    Returns
    -------
    tuple
        ``(name, alias, None)`` for ``models:/name@alias``, ``(name, None, version)`` for
        ``models:/name/<version>``.
    """
    if not model.startswith("models:/"):
        return None, None, None
    rest = model.removeprefix("models:/").strip("/")
    if "@" in rest and "/" not in rest:
        name, _, alias = rest.partition("@")
        return (name, alias, None) if name and alias else (None, None, None)
    name, _, version = rest.partition("/")
    return (name, None, version) if name and version.isdigit() else (None, None, None)


def _registered_if_known(model: str, uri: str | None) -> dict[str, str]:
    """Return the registered-model tags of ``model`` (:func:`pin_registered`); {} if unknown."""
    try:
        return pin_registered(model, uri)[1]
    except BatchError:
        return {}


def _start_run(
    uri: str | None, experiment: str, name: str, tags: dict[str, str]
) -> tuple[Any, str]:
    """Create a run named ``name`` with ``tags`` in ``experiment``; return the client and its id."""
    client = make_client(uri)
    run = client.create_run(ensure_experiment(client, experiment), run_name=name, tags=tags)
    return client, run.info.run_id


def log_failed_run(
    model: str,
    input_path: str,
    output: str,
    error: str,
    uri: str | None,
    experiment: str,
    registered: dict[str, str] | None = None,
) -> str | None:
    """Record a batch that failed as a FAILED run; return its id, None if not recorded.

    Params: model, input (absolute), output; tags: ``error`` (the line the command printed),
    ``run_kind=batch``, the model URI and, when known, the registered version. A SQLite store
    that does not exist is not created (the failure may be that very store); a tracking
    failure is logged as a warning.

    Parameters
    ----------
    model, input_path, output : str
        As given to the batch.
    error : str
        The one-line error.
    uri : str, optional
        The tracking store.
    experiment : str
        Experiment of the batch runs.
    registered : dict, optional
        From :func:`pin_registered`; resolved here (best effort) when not given.

    Returns
    -------
    str or None
        The run id.
    """
    if not _store_exists(uri):
        return None
    try:
        if registered is None:
            registered = _registered_if_known(model, uri)
        tags = {"run_kind": "batch", "model_uri": model, "error": error, **registered}
        client, run_id = _start_run(uri, experiment, "batch failed", tags)
        _runs.log_params(
            client,
            run_id,
            {"model": model, "input": str(Path(input_path).resolve()), "output": output},
        )
        client.set_terminated(run_id, "FAILED")
        return run_id
    except Exception as err:
        _log.warning("the failure was not recorded in MLflow: %s", first_line(err))
        return None


def log_batch_run(
    result: Any,
    history: pd.DataFrame,
    estimator: Any,
    model: str,
    input_path: str,
    options: dict[str, Any],
    uri: str | None,
    experiment: str,
    registered: dict[str, str] | None = None,
    explanation: pd.DataFrame | None = None,
) -> str | None:
    """Log one batch (a BatchResult) as a run; return its id, None if logging failed.

    Params: model, input, output and the run's options; tags: the estimator's, the input
    fingerprint and the output's SHA-256, and for a registered model ``registered_model``,
    ``model_alias`` and ``model_version`` (the version used; see :func:`pin_registered`);
    metrics: input and output rows, the input's age at the issue time in hours
    (``input_age_hours``); the input as an MLflow dataset; with ``explanation`` (``--explain``)
    the attributions as the artifact ``explanation/explanation.parquet``. A tracking failure
    is logged as a warning and does not undo the forecast.
    """
    try:
        client, run_id = _start_run(
            uri,
            experiment,
            f"batch {result.issue_date}",
            {
                "run_kind": "batch",
                "model_uri": model,
                "issue_date": result.issue_date,
                **(registered or {}),
            },
        )
        _runs.log_params(
            client,
            run_id,
            {
                "model": model,
                **({"model_version": registered["model_version"]} if registered else {}),
                "input": str(Path(input_path).resolve()),
                "output": str(result.path.resolve()),
                **{k: v for k, v in options.items() if v is not None and k != "input_age_hours"},
            },
        )
        _runs.log_tags(
            client,
            run_id,
            {
                **_runs.estimator_tags(estimator),
                "input_sha256": result.input_sha256,
                "output_sha256": result.sha256,
            },
        )
        _runs.log_metrics(
            client,
            run_id,
            {
                "input_rows": len(history),
                "output_rows": result.rows,
                "input_age_hours": options.get("input_age_hours"),
            },
        )
        client.log_inputs(
            run_id,
            datasets=[
                dataset_input(
                    history,
                    Path(input_path).name,
                    "batch-input",
                    str(Path(input_path).resolve()),
                    result.input_sha256,
                )
            ],
        )
        if explanation is not None:
            _log_table(client, run_id, explanation)
        client.set_terminated(run_id, "FINISHED")
        return run_id
    except Exception as err:
        _log.warning("forecast written, but tracking failed: %s", first_line(err))
        return None


def _log_table(client: Any, run_id: str, table: pd.DataFrame) -> None:
    """Log ``table`` as the Parquet artifact ``explanation/explanation.parquet``."""
    with tempfile.TemporaryDirectory(prefix="forecast-explain-") as tmp:
        path = Path(tmp) / "explanation.parquet"
        table.to_parquet(path)
        client.log_artifact(run_id, str(path), "explanation")


def log_partitions_run(
    result: Any,
    estimator: Any,
    model: str,
    input: str,
    output: str,
    engine: str,
    tracking_uri: str | None,
    experiment: str,
) -> str | None:
    """Log ``result`` (a PartitionsResult) as one run; return its id, None if logging failed.

    Params: model, input, output, engine; metrics: ``partitions``, ``failed``,
    ``output_rows``; tag ``failed_inputs``: the failed file names, one per line. The run
    ends FAILED when any partition failed. A tracking failure is reported on stderr and
    does not undo the forecasts. A ``models:/name@alias`` is resolved to its version here,
    after the forecasts (the partitioned batch loads the alias itself).
    """
    try:
        registered = _registered_if_known(model, tracking_uri)
        client, run_id = _start_run(
            tracking_uri,
            experiment,
            f"batch {len(result.written) + len(result.failed)} partitions",
            {"run_kind": "batch-partitions", "model_uri": model, **registered},
        )
        _runs.log_params(client, run_id, {"model": model, "input": input, "output": output})
        _runs.log_params(client, run_id, {"engine": engine})
        _runs.log_tags(client, run_id, _runs.estimator_tags(estimator))
        if result.failed:
            failed = "\n".join(path for path, _ in result.failed)
            _runs.log_tags(client, run_id, {"failed_inputs": failed})
        _runs.log_metrics(
            client,
            run_id,
            {
                "partitions": len(result.written) + len(result.failed),
                "failed": len(result.failed),
                "output_rows": sum(r.rows for r in result.written),
            },
        )
        client.set_terminated(run_id, "FAILED" if result.failed else "FINISHED")
        return run_id
    except Exception as err:
        _log.warning("forecasts written, but tracking failed: %s", first_line(err))
        return None
