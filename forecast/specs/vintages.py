"""A spec's ``[vintages]`` table: covariate vintages every backtest of the run reads.

::

    [vintages]
    path = "weather_vintages.parquet"   # a vintage table: issue_time, valid_time, covariates
    daily = { columns = ["forecast"], time = "10:00", days_before = 1 }

``path`` names a vintage file (CSV or Parquet; :mod:`forecast.frames.vintages`); ``daily``
turns columns of the ``[data]`` frame into one vintage a day (the values for local day D
issued at ``time`` on D-``days_before``; :func:`forecast.frames.vintage_sources.daily_vintages`).
Both may be given; each model reads the rows that carry its future covariates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from forecast.frames.tables import read_csv_table, read_parquet_table
from forecast.frames.vintage_sources import daily_vintages, parse_schedule

__all__ = ["check_vintages_table", "load_vintages"]

_KEYS = {"path", "daily"}
_DAILY_KEYS = {"columns", "time", "days_before"}


def check_vintages_table(source: str | Path, table: Any) -> None:
    """Raise a ValueError naming ``source`` if the ``[vintages]`` table is malformed."""
    where = f"{source}: [vintages]"
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{where} must be a table with `path` and/or `daily`")
    unknown = set(table) - _KEYS
    if unknown:
        raise ValueError(f"{where} unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    if "path" in table and (not isinstance(table["path"], str) or not table["path"]):
        raise ValueError(f"{where} path must be a file name")
    daily = table.get("daily")
    if daily is None:
        return
    if not isinstance(daily, dict) or set(daily) - _DAILY_KEYS or "columns" not in daily:
        raise ValueError(
            f"{where} daily must be a table with `columns` (and optionally `time`, "
            f"`days_before`); got {daily!r}"
        )
    columns = daily["columns"]
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise ValueError(f"{where} daily.columns must be a list of column names")
    days = daily.get("days_before", 1)
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        raise ValueError(f"{where} daily.days_before must be an integer >= 0, got {days!r}")
    try:
        parse_schedule(str(daily.get("time", "10:00")))
    except ValueError as err:
        raise ValueError(f"{where} daily.time: {err}") from err


def load_vintages(table: dict[str, Any], data: pd.DataFrame) -> pd.DataFrame:
    """Build the vintages a ``[vintages]`` table describes (``data``: the ``[data]`` frame)."""
    parts = []
    if "path" in table:
        path = Path(table["path"])
        if not path.is_file():
            raise ValueError(f"[vintages] path {path} does not exist")
        read = read_parquet_table if path.suffix == ".parquet" else read_csv_table
        parts.append(read(path))
    if "daily" in table:
        daily = table["daily"]
        missing = [c for c in daily["columns"] if c not in data.columns]
        if missing:
            raise ValueError(
                f"[vintages] daily.columns {missing} not in the data; found {list(data.columns)}"
            )
        time = str(daily.get("time", "10:00"))
        days = int(daily.get("days_before", 1))
        parts.append(daily_vintages(data, daily["columns"], time=time, days_before=days))
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
