"""``forecast batch --future FILE``: covariate vintages read as they were known at the issue.

The input file holds the history; the vintage file (CSV or Parquet, columns ``issue_time``,
``valid_time`` and the model's future covariates; see :mod:`forecast.frames.vintages`) holds
the forecasts the model reads, each with its issue time. For the forecast issued after the
last observed row, every step reads the latest value issued at or before that row; the values
become the rows after the history, as if the file had carried them, so every model kind
(saved folder, MLflow model, ONNX export) reads them alike.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.batch.files import BatchError
from forecast.frames.tables import read_csv_table, read_parquet_table
from forecast.frames.timeindex import future_index
from forecast.frames.vintages import as_of, check_vintages

__all__ = ["read_vintages", "with_vintage_rows"]


def read_vintages(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a vintage table (``.csv``, compressed or not, or ``.parquet``)."""
    file = Path(path)
    if not file.is_file():
        raise BatchError(f"--future {file} does not exist")
    if file.suffix == ".parquet":
        return read_parquet_table(file)
    return read_csv_table(file)


def with_vintage_rows(
    observed: pd.DataFrame, vintages: pd.DataFrame, steps: int, estimator: Any, where: str
) -> pd.DataFrame:
    """``observed`` followed by ``steps`` rows of future covariates known at its last row."""
    columns = [str(c) for c in getattr(estimator, "future_covariates_", None) or []]
    if not columns:
        raise BatchError(f"--future {where}: the model declares no future covariates")
    index = pd.DatetimeIndex(observed.index)
    origin = index[-1]
    zone = None if index.tz is None else str(index.tz)
    try:
        checked = check_vintages(vintages, columns, zone, where=f"--future {where}")
        steps_index = future_index(origin, estimator.freq_, steps)
        known = as_of(checked, origin, steps_index, columns)
    except ValueError as err:
        raise BatchError(str(err)) from err
    rows = known.reindex(columns=observed.columns)
    return pd.concat([observed, rows])
