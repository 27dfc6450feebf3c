"""Readers of the German weather files: the hourly 23-city reanalysis mean and DWD stations.

The hourly file (Open-Meteo historical API, ERA5-based reanalysis; mean of 23 points in large
German cities) is *observed* weather: as an input to a day-ahead forecast it is the perfect
forecast, an upper bound (see :mod:`forecast.frames.vintage_sources` for simulated
vintages). Attribution: "Weather data by Open-Meteo.com" (CC BY 4.0) and "Contains modified
Copernicus Climate Change Service information"; stations: "Deutscher Wetterdienst".
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from forecast.datasets._numbers import numeric_column
from forecast.frames.io import parse_timestamps
from forecast.frames.tables import read_csv_table

__all__ = ["WEATHER_COLUMNS", "read_de_weather", "read_dwd_daily"]

WEATHER_COLUMNS = ("temperature_2m", "precipitation", "wind_speed_100m", "direct_radiation")
UNITS = {
    "temperature_2m": "degC",
    "precipitation": "mm (preceding hour)",
    "wind_speed_100m": "km/h",
    "direct_radiation": "W/m2 (mean of the preceding hour)",
}


def read_de_weather(
    path: str | Path, columns: list[str] | None = None, timezone: str | None = None
) -> pd.DataFrame:
    """Read the hourly 23-city mean weather file (``.csv`` or ``.csv.gz``).

    Parameters
    ----------
    path : str or Path
        The file.
    columns : list of str, optional
        Columns to keep (default: all four of :data:`WEATHER_COLUMNS`).
    timezone : str, optional
        Convert the UTC index to this zone (e.g. ``"Europe/Berlin"``).

    Returns
    -------
    DataFrame
        Hourly, tz-aware index named ``time``; ``attrs`` holds units and attribution.

    Raises
    ------
    ValueError
        If a column is missing or a value is not a number (naming column and timestamp),
        or the timestamps are not strictly increasing.
    """
    path = Path(path)
    keep = list(columns or WEATHER_COLUMNS)
    raw = read_csv_table(path)
    missing = [c for c in ["date", *keep] if c not in raw.columns]
    if missing:
        raise ValueError(
            f"{path}: not the German weather file: lacks column(s) {missing}; found "
            f"{list(raw.columns)}"
        )
    index = parse_timestamps(raw["date"], where=f"{path}: column 'date'").rename("time")
    if not index.is_monotonic_increasing or index.has_duplicates:
        raise ValueError(f"{path}: column 'date' is not strictly increasing")
    data = {column: numeric_column(raw, column, index, path) for column in keep}
    frame = pd.DataFrame(data, index=index)
    if timezone is not None:
        frame = frame.tz_convert(timezone)
    frame.attrs = {
        "units": {c: UNITS[c] for c in keep if c in UNITS},
        "kind": "observed (reanalysis), not a forecast",
        "attribution": "Weather data by Open-Meteo.com (CC BY 4.0); contains modified "
        "Copernicus Climate Change Service information",
    }
    return frame


def read_dwd_daily(path: str | Path) -> pd.DataFrame:
    """Read the DWD daily station file: daily mean temperature, one column per station.

    Parameters
    ----------
    path : str or Path
        The file (``.csv`` or ``.csv.gz``).

    Returns
    -------
    DataFrame
        Daily index named ``date``, one column per station name (``TMK_mean_C``, degrees C;
        NaN where a station has no value).
    """
    path = Path(path)
    raw = read_csv_table(path)
    need = ["station_name", "date", "TMK_mean_C"]
    missing = [c for c in need if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: not the DWD daily file: lacks column(s) {missing}")
    raw = raw.assign(
        date=pd.to_datetime(raw["date"], format="%Y-%m-%d"),
        TMK_mean_C=pd.to_numeric(raw["TMK_mean_C"], errors="coerce"),
    )
    out = raw.pivot(index="date", columns="station_name", values="TMK_mean_C")
    out.columns.name = None
    out.attrs = {"unit": "degC", "attribution": "Deutscher Wetterdienst"}
    return out
