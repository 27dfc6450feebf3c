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
:mod:`forecast.parallel.batch_data` for the design and why each file is read inside its
worker).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forecast._manifest import ModelFormatError
from forecast.batch.files import OUTPUT_SUFFIXES, BatchError, _first_line, output_path
from forecast.batch.run import BatchResult, _check_options, forecast_file, load_forecaster

INPUT_SUFFIXES = (".csv", ".csv.gz", ".parquet")


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


def is_partitioned(input: str | os.PathLike) -> bool:
    """Whether ``input`` names many partitions: a folder or a glob pattern."""
    text = os.fspath(input)
    return Path(text).is_dir() or any(ch in text for ch in "*?[")


def list_partitions(input: str | os.PathLike) -> list[Path]:
    """Return the CSV (also ``.csv.gz``) and Parquet files of a folder or glob, sorted.

    Raises
    ------
    BatchError
        When nothing matches.
    """
    text = os.fspath(input)
    if Path(text).is_dir():
        candidates = [p for p in Path(text).iterdir() if p.is_file()]
    else:
        candidates = [Path(p) for p in glob.glob(text) if Path(p).is_file()]
    files = sorted(p for p in candidates if p.name.lower().endswith(INPUT_SUFFIXES))
    if not files:
        raise BatchError(f"input {text}: no {', '.join(INPUT_SUFFIXES)} files found")
    return files


def stem(path: Path) -> str:
    """File name without its data suffixes (``a.csv.gz`` -> ``a``)."""
    name = path.name
    for suffix in sorted(INPUT_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def partition_output(output: str | os.PathLike, input: Path, date: str) -> Path:
    """Return the forecast file of partition ``input`` (see the module docstring)."""
    text = os.fspath(output)
    if "{stem}" in text:
        return output_path(text.replace("{stem}", stem(input)), date)
    suffix = ".csv" if input.name.lower().endswith((".csv", ".csv.gz")) else ".parquet"
    return Path(text) / f"{stem(input)}{suffix}"


def _check_output(output: str | os.PathLike, inputs: list[Path]) -> None:
    text = os.fspath(output)
    if "{stem}" in text:
        output_path(text.replace("{stem}", "stem"), "")  # the suffix
    elif Path(text).suffix.lower() in OUTPUT_SUFFIXES or "{date}" in text:
        raise BatchError(
            f"output {text}: with several input partitions, --output is a folder or a "
            "pattern holding {stem} (e.g. 'forecasts/{stem}-{date}.parquet')"
        )
    elif Path(text).exists() and not Path(text).is_dir():
        raise BatchError(f"output {text} exists and is not a folder")
    seen: dict[str, Path] = {}
    for path in inputs:
        key = str(partition_output(text, path, "{date}"))
        if key in seen:
            raise BatchError(
                f"inputs {seen[key]} and {path} would both write {key}; rename one of them"
            )
        seen[key] = path


def forecast_partitions(
    estimator: Any, predict: Any, model: str, inputs: list[Path], output: str, options: dict
) -> list[tuple[str, BatchResult | None, str | None]]:
    """Forecast each input; return ``(input, result or None, error or None)`` per input."""
    out = []
    for path in inputs:
        try:
            result, _, _ = forecast_file(
                estimator,
                predict,
                model,
                path,
                lambda date, path=path: partition_output(output, path, date),
                **options,
            )
            out.append((str(path), result, None))
        except (BatchError, ModelFormatError) as err:
            out.append((str(path), None, _first_line(err)))
        except Exception as err:  # one bad partition never stops the others
            out.append((str(path), None, f"input {path}: {type(err).__name__}: {_first_line(err)}"))
    return out


def run_partitions(
    model: str | os.PathLike,
    input: str | os.PathLike,
    output: str | os.PathLike,
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
        This process, or Ray Data with one actor per CPU (extra ``forecast[ray]``).
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
    from forecast.parallel._engine import check_engine, check_resources

    check_engine(engine)
    check_resources(address, num_cpus)
    _check_options(horizon, timezone, nan_policy)
    inputs = [p.resolve() for p in list_partitions(input)]
    _check_output(output, inputs)
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
        outcomes = _on_ray(model, inputs, output, options, tracking_uri, device, address, num_cpus)
    result = PartitionsResult(
        written=[r for _, r, _ in outcomes if r is not None],
        failed=[(path, error) for path, _, error in outcomes if error is not None],
    )
    if track:
        from forecast.batch.tracking import log_partitions_run

        result.run_id = log_partitions_run(
            result, estimator, model, os.fspath(input), os.fspath(output), engine,
            tracking_uri, experiment,
        )  # fmt: skip
    return result


def _on_ray(model, inputs, output, options, tracking_uri, device, address, num_cpus) -> list:
    from forecast.parallel._engine import ray_session
    from forecast.parallel.batch_data import forecast_on_ray_data
    from forecast.tracking._store import resolve_tracking_uri

    uri = resolve_tracking_uri(tracking_uri)  # absolute for workers in other folders
    if uri.startswith("sqlite:///"):
        uri = "sqlite:///" + str(Path(uri.removeprefix("sqlite:///")).resolve())
    if "://" not in model and ":/" not in model:
        model = os.fspath(Path(model).resolve())
    with ray_session(address, num_cpus) as ray:
        return forecast_on_ray_data(ray, model, inputs, output, options, uri, device)
