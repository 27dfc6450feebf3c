"""Time zones, one definition: checking a zone's name and reading an index in local time."""

from __future__ import annotations

import numpy as np
import pandas as pd


def check_timezone(name: str) -> str:
    """Return ``name`` if pandas knows it as a time zone, else raise a ValueError.

    Parameters
    ----------
    name : str
        IANA zone such as ``"Europe/Berlin"``, ``"UTC"`` or a fixed offset ``"+01:00"``.

    Returns
    -------
    str
        ``name`` unchanged.
    """
    try:
        pd.Timestamp(0, tz="UTC").tz_convert(name)
    except Exception as err:  # zoneinfo raises a KeyError subclass, pytz its own
        raise ValueError(
            f"unknown time zone {name!r}; use an IANA name such as 'Europe/Berlin' or 'UTC'"
        ) from err
    return name


def to_local(index: pd.DatetimeIndex, timezone: str) -> pd.DatetimeIndex:
    """``index`` in local time (a naive index is taken as local already)."""
    return index.tz_convert(timezone) if index.tz is not None else index


def local_day_starts(days: pd.DatetimeIndex, tz) -> pd.DatetimeIndex:
    """Return the first existing local time of each calendar day in ``days``.

    That is midnight, except where a daylight-saving change falls on midnight: when the
    clocks jump from 00:00 to 01:00 (America/Santiago, America/Havana, Asia/Beirut in
    spring) the day starts at 01:00 and has 23 hours; when they fall back from 01:00 to
    00:00 (America/Havana in autumn) it starts at the first of the two midnights and has 25.

    Parameters
    ----------
    days : DatetimeIndex
        Naive local dates (midnight wall-clock times).
    tz : tzinfo, str or None
        Local zone; None keeps the naive dates.

    Returns
    -------
    DatetimeIndex
        The start of each day, in ``tz``.
    """
    if tz is None:
        return days
    first = np.ones(len(days), dtype=bool)  # an ambiguous midnight: its first occurrence
    return days.tz_localize(tz, ambiguous=first, nonexistent="shift_forward")
