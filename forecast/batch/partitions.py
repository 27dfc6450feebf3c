r"""Batch forecasts over many input partitions: ``forecast batch --input DIR_OR_GLOB``.

Each input partition (a CSV or Parquet file: one series, or several with an ``id``
column) gives one forecast file, written atomically by the same code as a single-file
batch (:func:`forecast.batch.run.forecast_file`), so its bytes are the same whichever
engine wrote it::

    forecast batch --model models/lstm --input 'latest/*.parquet' --output forecasts/
    forecast batch --model models/lstm --input latest/ --output 'out/{stem}-{date}.csv' \
                   --engine ray --num-cpus 2

``--output`` is a folder (each forecast is ``<folder>/<input stem>.<input format>``) or a
pattern holding ``{stem}`` (the input's file name without suffixes) and optionally
``{date}`` (the issue date). A bad partition is reported with its file name and does not
stop the others; nothing is written for it.

With ``engine="ray"`` the partitions are a Ray Data dataset forecast by ``map_batches``
on one actor per CPU, each of which loads the model once (see
:mod:`forecast.batch.ray_data` for the design and why each file is read inside its
worker).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from forecast.batch.partition_files import (
    INPUT_SUFFIXES,
    _check_output,
    forecast_partitions,
    is_partitioned,
    list_partitions,
    partition_output,
    stem,
)
from forecast.batch.ray_data import run_on_ray
from forecast.batch.run import BatchResult, _check_options, load_forecaster
from forecast.parallel.engine import check_engine, check_resources

__all__ = [
    "INPUT_SUFFIXES",
    "PartitionsResult",
    "forecast_partitions",
    "is_partitioned",
    "list_partitions",
    "partition_output",
    "run_partitions",
    "stem",
]


@dataclass
class PartitionsResult:
    """What a partitioned batch wrote and what failed.

    Attributes
    ----------
    written : list of BatchResult
        One per forecast file written, in the order of the inputs.
    failed : list of (str, str)
        ``(input file, reason)`` per partition that failed; nothing was written for them.
    run_id : str or None
        MLflow run of the whole batch (None without tracking or when logging failed).
    """

    written: list[BatchResult] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    run_id: str | None = None


def run_partitions(
    model: str | os.PathLike[str],
    input: str | os.PathLike[str],
    output: str | os.PathLike[str],
    horizon: int | str | None = None,
    *,
    engine: str = "sequential",
    address: str | None = None,
    num_cpus: int | None = None,
    time_column: str | None = None,
    timezone: str | None = None,
    nan_policy: str | None = None,
    tracking_uri: str | None = None,
    track: bool = True,
    experiment: str = "forecast-batch",
    device: str | None = None,
) -> PartitionsResult:
    """Forecast every partition of a folder or glob with one stored model.

    Parameters
    ----------
    model : str or path-like
        As in :func:`forecast.batch.run_batch`.
    input : str or path-like
        Folder, or glob pattern, of CSV/Parquet files (one output per file).
    output : str or path-like
        Folder, or pattern with ``{stem}`` (and optionally ``{date}``).
    horizon, time_column, timezone, nan_policy, tracking_uri, experiment, device
        As in :func:`forecast.batch.run_batch`.
    engine : {"sequential", "ray"}
        This process, or Ray Data with one actor per CPU (extra ``forecast-toolkit[ray]``).
    address, num_cpus : optional
        Ray cluster address or CPUs of a local Ray (see
        :func:`forecast.parallel.ray_session`).
    track : bool
        Log one MLflow run for the whole batch (partitions, failures, output rows).

    Returns
    -------
    PartitionsResult
        Failed partitions are listed there, not raised.

    Raises
    ------
    BatchError
        No inputs, a bad output, bad options or a model that cannot be loaded; nothing
        was written.
    """
    check_engine(engine)
    check_resources(address, num_cpus)
    _check_options(horizon, timezone, nan_policy)
    inputs = [p.resolve() for p in list_partitions(input)]
    _check_output(output, inputs, input)  # outputs over inputs too: before the model loads
    model = os.fspath(model)
    output = os.fspath(Path(output).resolve()) if "{" not in os.fspath(output) else output
    options = {
        "horizon": horizon,
        "time_column": time_column,
        "timezone": timezone,
        "nan_policy": nan_policy,
    }
    estimator, predict = load_forecaster(model, tracking_uri, device)  # fails before any work
    if engine == "sequential":
        outcomes = forecast_partitions(estimator, predict, model, inputs, output, options)
    else:
        outcomes = run_on_ray(
            model, inputs, output, options, tracking_uri, device, address, num_cpus
        )
    result = PartitionsResult(
        written=[r for _, r, _ in outcomes if r is not None],
        failed=[(path, error) for path, _, error in outcomes if error is not None],
    )
    if track:
        # optional: only a tracked run needs mlflow, seconds to import
        from forecast.batch.tracking import log_partitions_run

        result.run_id = log_partitions_run(
            result, estimator, model, os.fspath(input), os.fspath(output), engine,
            tracking_uri, experiment,
        )  # fmt: skip
    return result
