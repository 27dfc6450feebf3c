"""The files of a partitioned batch: listing the inputs, naming the outputs, forecasting each.

One partition (a CSV or Parquet file) gives one forecast file, written by
:func:`forecast.batch.run.forecast_file`; a bad partition is reported, never raised. Used by
both engines of :func:`forecast.batch.partitions.run_partitions`.
"""

from __future__ import annotations

import glob
import os
from functools import partial
from pathlib import Path
from typing import Any

from forecast.batch.files import OUTPUT_SUFFIXES, BatchError, output_path
from forecast.batch.overlap import check_partition_outputs
from forecast.batch.run import BatchResult, forecast_file
from forecast.frames.messages import first_line
from forecast.persistence.manifest import ModelFormatError

INPUT_SUFFIXES = (".csv", ".csv.gz", ".parquet")


def is_partitioned(input: str | os.PathLike[str]) -> bool:
    """Whether ``input`` names many partitions: a folder or a glob pattern."""
    text = os.fspath(input)
    return Path(text).is_dir() or any(ch in text for ch in "*?[")


def list_partitions(input: str | os.PathLike[str]) -> list[Path]:
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


def partition_output(output: str | os.PathLike[str], input: Path, date: str) -> Path:
    """Return the forecast file of partition ``input`` (see the module docstring)."""
    text = os.fspath(output)
    if "{stem}" in text:
        return output_path(text.replace("{stem}", stem(input)), date)
    suffix = ".csv" if input.name.lower().endswith((".csv", ".csv.gz")) else ".parquet"
    return Path(text) / f"{stem(input)}{suffix}"


def _check_output(
    output: str | os.PathLike[str], inputs: list[Path], input_spec: str | os.PathLike[str]
) -> None:
    """Refuse a bad ``output`` before any work.

    Its form, two inputs writing one file, and outputs over inputs (see
    :mod:`forecast.batch.overlap`).
    """
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
    exact = None if "{date}" in text else [partition_output(text, p, "") for p in inputs]
    check_partition_outputs(text, [(stem(p), p) for p in inputs], exact, input_spec)


def forecast_partitions(
    estimator: Any,
    predict: Any,
    model: str,
    inputs: list[Path],
    output: str | os.PathLike[str],
    options: dict[str, Any],
) -> list[tuple[str, BatchResult | None, str | None]]:
    """Forecast each input; return ``(input, result or None, error or None)`` per input."""
    out: list[tuple[str, BatchResult | None, str | None]] = []
    for path in inputs:
        try:
            result, _, _ = forecast_file(
                estimator,
                predict,
                model,
                path,
                partial(partition_output, output, path),  # date -> this partition's file
                **options,
            )
            out.append((str(path), result, None))
        except (BatchError, ModelFormatError) as err:
            out.append((str(path), None, first_line(err)))
        except Exception as err:  # one bad partition never stops the others
            out.append((str(path), None, f"input {path}: {type(err).__name__}: {first_line(err)}"))
    return out
