"""German load (ENTSO-E, bidding zone DE-LU) as the day-ahead experiments read it.

One function, :func:`german_load`: the catalogue's ``entsoe-de`` quarter-hours cut to a
range of local days, hourly means or native quarter-hours, on a local-time index.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.datasets.catalogue import load

__all__ = ["GERMAN_TIMEZONE", "german_load"]

#: The local time of the German market: day-ahead days and holidays are days of this zone.
GERMAN_TIMEZONE = "Europe/Berlin"
_RESOLUTIONS = ("hourly", "15min")


def german_load(
    resolution: str = "hourly",
    *,
    start: str | pd.Timestamp = "2019-01-01",
    end: str | pd.Timestamp = "2023",
    columns: Sequence[str] | None = None,
    timezone: str = GERMAN_TIMEZONE,
    data_dir: str | Path | None = None,
) -> pd.DataFrame:
    """Load German grid load (MW) for the local days from ``start`` to ``end``.

    Parameters
    ----------
    resolution : {"hourly", "15min"}, default="hourly"
        ``"hourly"``: the mean of the four quarter-hours of each hour (a missing quarter-hour
        is skipped; an hour without any value stays NaN). ``"15min"``: the quarter-hours as
        published.
    start, end : str or Timestamp, default "2019-01-01" and "2023"
        First and last local day, inclusive, with pandas' partial-string rules (``"2023"``
        ends on 31 December 2023). The default starts after the bidding-zone change of
        October 2018 (DE-AT-LU split into DE-LU and AT).
    columns : sequence of str, optional
        Columns to keep: ``"actual"`` (the load) and ``"forecast"`` (the grid operators'
        own day-ahead forecast, published by 10:00 on the day before). Default: both.
    timezone : str, default="Europe/Berlin"
        Zone of the returned index (the days are always German local days).
    data_dir : str or Path, optional
        Folder holding ``entsoe_de_load_15min/`` (default: see
        :func:`forecast.datasets.resolve_data_dir`).

    Returns
    -------
    DataFrame
        Regular tz-aware index named ``time`` (interval starts), float columns in MW;
        ``attrs`` of :func:`forecast.datasets.read_entsoe` (source, unit, gaps, ...).

    Raises
    ------
    ValueError
        For an unknown resolution or column, or a range without data.
    FileNotFoundError
        When the dataset is not in the data folder.

    Examples
    --------
    >>> df = german_load(columns=["actual"], start="2022-01-01", end="2022")  # doctest: +SKIP
    >>> len(df), str(df.index.tz)  # doctest: +SKIP
    (8760, 'Europe/Berlin')
    """
    if resolution not in _RESOLUTIONS:
        raise ValueError(f"resolution must be one of {_RESOLUTIONS}, got {resolution!r}")
    frame = load("entsoe-de", data_dir=data_dir)
    if columns is not None:
        unknown = [c for c in columns if c not in frame.columns]
        if unknown:
            raise ValueError(f"unknown columns {unknown}; entsoe-de has {list(frame.columns)}")
        frame = frame[list(columns)]
    local = frame.tz_convert(GERMAN_TIMEZONE).loc[_local(start) : _local(end)]
    if local.empty:
        raise ValueError(
            f"no load between start={start!r} and end={end!r} (data: {frame.index[0]} .. "
            f"{frame.index[-1]})"
        )
    if resolution == "hourly":  # in UTC, where every hour has four quarter-hours
        local = local.tz_convert("UTC").resample("1h").mean()
    return local.tz_convert(timezone)


def _local(bound: Any) -> Any:
    """Read a naive Timestamp bound as German local time (strings are, by pandas' slicing)."""
    if isinstance(bound, pd.Timestamp) and bound.tz is None:
        return bound.tz_localize(GERMAN_TIMEZONE)
    return bound
