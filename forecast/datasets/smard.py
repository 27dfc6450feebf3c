"""Reader for SMARD.de (Bundesnetzagentur) grid-load data: SMARD downloads and the staged CSV."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from forecast.datasets._localtime import local_to_utc, open_text, parse_wall, to_regular
from forecast.datasets.gaps import gap_summary

__all__ = ["read_smard"]

_RESOLUTION_SUFFIX = re.compile(
    r"\s*(Originalauflösungen|Berechnete Auflösungen|Original resolutions|Calculated resolutions)"
    r"\s*$",
    re.IGNORECASE,
)
_CANONICAL = {
    "gesamt (netzlast)": "grid_load",
    "netzlast": "grid_load",
    "netzlast inkl. pumpspeicher": "grid_load_incl_pumped_storage",
    "total (grid load)": "grid_load",
    "grid load": "grid_load",
    "residuallast": "residual_load",
    "residual load": "residual_load",
    "pumpspeicher": "pumped_storage",
    "hydro pumped storage": "pumped_storage",
}
# (date column(s), time column or None, strptime format, thousands, decimal)
_LAYOUTS = (
    (("Datum", "Anfang"), "%d.%m.%Y %H:%M", ".", ","),
    (("Datum von",), "%d.%m.%Y %H:%M", ".", ","),
    (("Date", "Start"), "%b %d, %Y %I:%M %p", ",", "."),
    (("Start date",), "%b %d, %Y %I:%M %p", ",", "."),
)
_DROP = {"Ende", "Datum bis", "End", "End date"}


def _column_name(header: str, area: str | None) -> str:
    name = _RESOLUTION_SUFFIX.sub("", header).strip()
    unit = ""
    match = re.search(r"\[([^\]]+)\]\s*$", name)
    if match:
        unit = match.group(1)
        name = name[: match.start()].strip()
    base = _CANONICAL.get(name.lower())
    if base is None:
        base = re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")
    full = f"{base}_{unit}" if unit else base
    return f"{area}_{full}" if area else full


def _read_download(path: Path, area: str | None, timezone: str) -> pd.DataFrame:
    with open_text(path) as handle:
        header = pd.read_csv(handle, sep=";", nrows=0).columns
        handle.seek(0)
        layout = next((lay for lay in _LAYOUTS if all(c in header for c in lay[0])), None)
        if layout is None:
            raise ValueError(
                f"{path.name}: unknown SMARD layout, header {list(header)}; expected 'Datum;Anfang;"
                "Ende;...' or 'Datum von;Datum bis;...' (or the English 'Date;Start;End;...')"
            )
        time_cols, fmt, thousands, decimal = layout
        raw = pd.read_csv(
            handle,
            sep=";",
            dtype={c: str for c in header if c in time_cols or c in _DROP},
            thousands=thousands,
            decimal=decimal,
            na_values=["-", ""],
            keep_default_na=False,
        )
    stamp = raw[time_cols[0]].str.strip()
    for col in time_cols[1:]:
        stamp = stamp + " " + raw[col].str.strip()
    wall = parse_wall(stamp, fmt)
    if wall.hasnans:
        row = int(np.argmax(wall.isna()))
        raise ValueError(
            f"{path.name}: row {row + 2} has time {stamp.iloc[row]!r}, expected format {fmt!r}"
        )
    values = {}
    for column in raw.columns:
        if column in time_cols or column in _DROP or column.startswith("Unnamed"):
            continue
        series = raw[column]
        if not pd.api.types.is_numeric_dtype(series.dtype):
            text = series.astype("string").str.strip()
            plain = text.str.replace(thousands, "", regex=False)
            plain = plain.str.replace(decimal, ".", regex=False)
            bad = pd.to_numeric(plain, errors="coerce").isna() & series.notna()
            row = int(np.argmax(bad.to_numpy()))
            raise ValueError(
                f"{path.name}: column {column!r} row {row + 2} holds {series.iloc[row]!r}, not a "
                f"number with thousands {thousands!r} and decimal {decimal!r}"
            )
        values[_column_name(column, area)] = series.to_numpy(dtype=float)
    utc, nonexistent = local_to_utc(wall, timezone)
    frame = pd.DataFrame(values, index=utc)
    if nonexistent.any():
        warnings.warn(
            f"{path.name}: {int(nonexistent.sum())} row(s) at non-existent local times (skipped "
            f"DST hour) dropped, first at {wall[nonexistent][0]}",
            stacklevel=3,
        )
    return frame[~nonexistent]


def _read_staged(path: Path) -> pd.DataFrame:
    with open_text(path) as handle:
        raw = pd.read_csv(handle)
    if "timestamp_utc" not in raw.columns:
        raise ValueError(
            f"{path.name}: expected a 'timestamp_utc' column (staged SMARD CSV) or a semicolon-"
            f"separated SMARD download; found columns {list(raw.columns)[:5]}"
        )
    index = pd.DatetimeIndex(pd.to_datetime(raw.pop("timestamp_utc"), utc=True))
    return raw.set_axis(index).astype(float)


def read_smard(
    path: str | Path, area: str | None = None, timezone: str = "Europe/Berlin"
) -> pd.DataFrame:
    """Read SMARD grid-load data into a regular UTC frame.

    Two layouts are recognised from the header:

    * SMARD's own download (semicolon-separated, German ``1.234,56`` numbers, ``-`` for
      missing, local time in ``Datum;Anfang;Ende`` or ``Datum von;Datum bis`` columns; the
      English export with ``Date;Start;End`` and ``1,234.56`` also works). Column names
      are normalised: ``Gesamt (Netzlast) [MWh] Originalauflösungen`` becomes
      ``grid_load_MWh``, ``Residuallast [MWh] ...`` ``residual_load_MWh``,
      ``Pumpspeicher [MWh] ...`` ``pumped_storage_MWh``, others a lower-case slug.
    * The staged multi-area CSV (``timestamp_utc`` in UTC plus
      ``<AREA>_grid_load_MWh`` ... columns), read as is.

    Parameters
    ----------
    path : str or Path
        The CSV file, gzip-compressed or not.
    area : str, optional
        Prefix for the column names of a SMARD download (``"TenneT"`` gives
        ``TenneT_grid_load_MWh``, the staged CSV's naming).
    timezone : str
        Zone of the local times of a SMARD download (SMARD uses German time).

    Returns
    -------
    DataFrame
        Tz-aware UTC ``DatetimeIndex`` named ``time`` at the file's regular resolution
        (interval starts), float columns in MWh per interval. The repeated autumn hour is
        resolved by row order (first occurrence = summer time); missing steps are NaN
        rows. ``df.attrs`` holds ``source``, ``unit`` and ``gaps``.

    Examples
    --------
    >>> df = read_smard("smard_de_grid_load_hourly_2015_2023.csv.gz")  # doctest: +SKIP
    >>> df["TenneT_grid_load_MWh"].loc["2023"].mean()  # doctest: +SKIP
    """
    path = Path(path)
    with open_text(path) as handle:
        first_line = handle.readline()
    frame = _read_download(path, area, timezone) if ";" in first_line else _read_staged(path)
    frame.index.name = "time"
    index = frame.index.sort_values()
    if len(index) < 2:
        raise ValueError(f"{path.name}: need at least 2 rows to tell the resolution")
    step = pd.Series(index[1:] - index[:-1]).mode().iloc[0]
    frame = to_regular(frame, pd.Timedelta(step), f"read_smard({path.name})")
    frame.attrs = {
        "source": "Bundesnetzagentur | SMARD.de",
        "unit": "MWh",
        "gaps": gap_summary(frame),
    }
    return frame
