"""The MLflow side of a batch: models from a store, and the runs that record batches.

Everything here needs MLflow (seconds to import), so :mod:`forecast.batch.run` and
:mod:`forecast.batch.partitions` import this module only for a model URI or a tracked run;
a batch from a saved folder with ``track=False`` never imports MLflow.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from mlflow.exceptions import MlflowException

from forecast.batch.files import BatchError, _first_line
from forecast.frames.quantiles import parse_levels
from forecast.tracking import _runs
from forecast.tracking._store import client as make_client
from forecast.tracking._store import ensure_experiment, resolve_tracking_uri, sqlite_path
from forecast.tracking.artifacts import load_artifact
from forecast.tracking.fingerprint import dataset_input

__all__ = ["load_from_store", "log_batch_run", "log_partitions_run"]


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
    db = sqlite_path(resolve_tracking_uri(tracking_uri))
    if model.startswith(("models:/", "runs:/")) and db is not None and not db.is_file():
        raise BatchError(  # rather than creating an empty store where cron happens to run
            f"model {model} not found: the store {db} does not exist (pass --tracking-uri or "
            "set MLFLOW_TRACKING_URI)"
        )
    try:
        wrapper = load_artifact(model, tracking_uri, device=device)
    except (MlflowException, OSError) as err:
        where = f" in {resolve_tracking_uri(tracking_uri)}" if uri else ""
        raise BatchError(f"model {model} not found{where}: {_first_line(err)}") from err
    params = {} if parse_levels(quantiles) is None else {"quantiles": quantiles}
    return wrapper.estimator, lambda h, n: wrapper.predict(
        None, h, params={"horizon": int(n), **params}
    )


def log_batch_run(
    result: Any,
    history: pd.DataFrame,
    estimator: Any,
    model: str,
    input_path: str,
    options: dict,
    uri: str | None,
    experiment: str,
) -> str | None:
    """Log one batch (a BatchResult) as a run; return its id, None if logging failed.

    Params: model, input, output and the run's options; tags: the estimator's, the input
    fingerprint and the output's SHA-256; metrics: input and output rows; the input as an
    MLflow dataset. A tracking failure is reported on stderr and does not undo the forecast.
    """
    try:
        client = make_client(uri)
        run = client.create_run(
            ensure_experiment(client, experiment),
            run_name=f"batch {result.issue_date}",
            tags={"run_kind": "batch", "model_uri": model, "issue_date": result.issue_date},
        )
        run_id = run.info.run_id
        _runs.log_params(
            client,
            run_id,
            {
                "model": model,
                "input": str(Path(input_path).resolve()),
                "output": str(result.path.resolve()),
                **{k: v for k, v in options.items() if v is not None},
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
        _runs.log_metrics(client, run_id, {"input_rows": len(history), "output_rows": result.rows})
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
        client.set_terminated(run_id, "FINISHED")
        return run_id
    except Exception as err:
        print(
            f"forecast batch: warning: forecast written, but tracking failed: {_first_line(err)}",
            file=sys.stderr,
        )
        return None


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
    does not undo the forecasts.
    """
    try:
        client = make_client(tracking_uri)
        run = client.create_run(
            ensure_experiment(client, experiment),
            run_name=f"batch {len(result.written) + len(result.failed)} partitions",
            tags={"run_kind": "batch-partitions", "model_uri": model},
        )
        run_id = run.info.run_id
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
        print(
            f"forecast batch: warning: forecasts written, but tracking failed: {_first_line(err)}",
            file=sys.stderr,
        )
        return None
