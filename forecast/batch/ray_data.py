r"""Partitioned batch forecasts on Ray Data: ``forecast batch --input DIR --engine ray``.

The dataset holds one row per input partition (its path and its position), split into
blocks that Ray Data streams through :class:`PartitionForecaster`, a callable class run
by ``map_batches`` on a pool of ``concurrency`` actors. Each actor loads the model once,
in its constructor (with the safe loader, :func:`forecast.batch.run.load_forecaster`), and
then forecasts every partition it is handed (several per call, :func:`files_per_call`)
with the single-process code
(:func:`forecast.batch.partitions.forecast_partitions`), which reads the file, forecasts
and writes the output atomically (temporary file, then rename). The rows coming back
carry what was written or why the partition failed; the driver sorts them into input
order.

Why the rows are paths and not the data itself (``ray.data.read_parquet`` /
``read_csv``): the guarantees of the batch need the file as the unit of work.

* Same bytes as the single-process path: the forecast must come from the same reader
  (datetime index, time zone, ``id`` column, NaN policy) and the same writer; Arrow
  blocks built by ``read_*`` lose the pandas index and re-infer types, so a second
  reading path could differ in a timestamp or a dtype.
* Per-file error isolation: a ``read_*`` dataset fails as a whole when one file is
  malformed (a bad Parquet footer, a renamed column that breaks the schema union), which
  would stop every other partition. Reading inside the worker turns a bad file into one
  failed row naming it, and the other partitions go on.
* One output per input partition: a row is a file, so nothing has to regroup records by
  source file before writing.

If an actor dies (out of memory, a lost node), Ray Data retries its block on another
actor; writes are atomic and deterministic, so a retried partition rewrites the same
bytes and never leaves a partial file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from forecast.batch.files import BatchError
from forecast.batch.partition_files import forecast_partitions
from forecast.batch.run import BatchResult, load_forecaster
from forecast.parallel.engine import cluster_cpus, ray_session

__all__ = ["PartitionForecaster", "forecast_on_ray_data", "run_on_ray"]

_FIELDS = ("position", "input", "path", "sha256", "rows", "issue_date", "input_sha256", "error")
# Files one actor forecasts per call at most (see :func:`files_per_call`).
MAX_FILES_PER_CALL = 16


class PartitionForecaster:
    """Ray Data callable class: the model, loaded once per actor, forecasting partitions.

    Parameters
    ----------
    model : str
        Saved-model folder or MLflow model URI (absolute, as workers run elsewhere).
    tracking_uri : str or None
        MLflow store for ``models:/`` and ``runs:/`` URIs.
    device : str or None
        Device to load the model on.
    output : str or path-like
        Output folder or ``{stem}`` pattern (see :mod:`forecast.batch.partitions`).
    options : dict
        ``horizon``, ``time_column``, ``timezone``, ``nan_policy``.
    """

    def __init__(
        self,
        model: str,
        tracking_uri: str | None,
        device: str | None,
        output: str | os.PathLike[str],
        options: dict[str, Any],
    ) -> None:
        self.model = model
        self.output = output
        self.options = options
        self.estimator, self.predict = load_forecaster(model, tracking_uri, device)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        """Forecast the partitions of ``batch`` (columns ``position``, ``input``).

        Returns one row per partition with the fields of :class:`BatchResult` (empty for
        a failed one) and ``error`` (empty for a written one).
        """
        paths = [Path(str(p)) for p in batch["input"]]
        outcomes = forecast_partitions(
            self.estimator, self.predict, self.model, paths, self.output, self.options
        )
        out: dict[str, list[Any]] = {name: [] for name in _FIELDS}
        for position, (input, result, error) in zip(batch["position"], outcomes, strict=True):
            out["position"].append(int(position))
            out["input"].append(input)
            out["path"].append(str(result.path) if result else "")
            out["sha256"].append(result.sha256 if result else "")
            out["rows"].append(result.rows if result else -1)
            out["issue_date"].append(result.issue_date if result else "")
            out["input_sha256"].append(result.input_sha256 if result else "")
            out["error"].append(error or "")
        return out


def forecast_on_ray_data(
    ray: Any,
    model: str,
    inputs: list[Path],
    output: str | os.PathLike[str],
    options: dict[str, Any],
    tracking_uri: str | None,
    device: str | None,
) -> list[tuple[str, BatchResult | None, str | None]]:
    """Forecast ``inputs`` on Ray Data; return ``(input, result, error)`` in input order.

    ``ray`` is connected (see :func:`forecast.parallel.ray_session`); the actor pool has
    one actor per schedulable CPU, at most one per partition.
    """
    from ray import data as ray_data  # optional: the extra forecast-toolkit[ray]

    n = min(cluster_cpus(ray), len(inputs))
    context = ray_data.DataContext.get_current()
    saved = context.enable_progress_bars, context.print_on_execution_start
    context.enable_progress_bars = context.print_on_execution_start = False
    try:
        rows = [{"position": k, "input": str(path)} for k, path in enumerate(inputs)]
        blocks = min(len(rows), 4 * n)
        dataset = ray_data.from_items(rows, override_num_blocks=blocks)
        forecasts = dataset.map_batches(
            PartitionForecaster,
            fn_constructor_args=(model, tracking_uri, device, output, options),
            batch_size=files_per_call(len(rows), blocks),
            batch_format="numpy",
            compute=ray_data.ActorPoolStrategy(size=n),
            num_cpus=1,
        )
        done = sorted(forecasts.take_all(), key=lambda row: int(row["position"]))
    finally:
        context.enable_progress_bars, context.print_on_execution_start = saved
    return [_outcome(row) for row in done]


def files_per_call(n_files: int, n_blocks: int) -> int:
    """Partitions an actor forecasts per call: a block's share, at most ``MAX_FILES_PER_CALL``.

    One file per call pays Ray Data's per-batch cost on every file (at 4,000 small
    partitions two actors then only matched one process); several per call keep the pool
    busy with fewer, larger batches. Failures stay per file: :func:`forecast_partitions`
    catches each file's error on its own.
    """
    return max(1, min(MAX_FILES_PER_CALL, -(-n_files // max(n_blocks, 1))))


def _outcome(row: dict[str, Any]) -> tuple[str, BatchResult | None, str | None]:
    if row["error"]:
        return str(row["input"]), None, str(row["error"])
    result = BatchResult(
        path=Path(str(row["path"])),
        sha256=str(row["sha256"]),
        rows=int(row["rows"]),
        issue_date=str(row["issue_date"]),
        input_sha256=str(row["input_sha256"]),
    )
    return str(row["input"]), result, None


def run_on_ray(
    model: str,
    inputs: list[Path],
    output: str | os.PathLike[str],
    options: dict[str, Any],
    tracking_uri: str | None,
    device: str | None,
    address: str | None,
    num_cpus: int | None,
) -> list[tuple[str, BatchResult | None, str | None]]:
    """Forecast ``inputs`` on Ray Data; the same ``(input, result, error)`` rows as sequentially."""
    from forecast.tracking._store import resolve_tracking_uri  # optional: mlflow, seconds

    uri = resolve_tracking_uri(tracking_uri)  # absolute for workers in other folders
    if uri.startswith("sqlite:///"):
        uri = "sqlite:///" + str(Path(uri.removeprefix("sqlite:///")).resolve())
    if "://" not in model and ":/" not in model:
        model = os.fspath(Path(model).resolve())
    with contextlib.ExitStack() as stack:
        try:
            ray = stack.enter_context(ray_session(address, num_cpus))
        except ConnectionError as err:  # no cluster, or it refused us: nothing was written
            raise BatchError(str(err)) from err
        return forecast_on_ray_data(ray, model, inputs, output, options, uri, device)
