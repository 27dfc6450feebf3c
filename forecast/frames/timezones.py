"""Time zones, one definition: checking a zone's name and reading an index in local time."""

from __future__ import annotations

import datetime as dt

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


def from_local(wall: pd.DatetimeIndex, timezone: dt.tzinfo | str) -> pd.DatetimeIndex:
    """Return naive local wall-clock times ``wall`` as the instants they are in ``timezone``.

    The inverse of :func:`to_local` where it has one: a local time that does not exist
    there (skipped when the clocks go forward) or exists twice (when they go back) is not
    one instant and becomes NaT. (Input that names such a time is refused instead, by
    :func:`localize_naive`.)

    Examples
    --------
    >>> wall = pd.DatetimeIndex(["2023-03-26 01:00", "2023-03-26 02:00"])
    >>> from_local(wall, "Europe/Berlin").strftime("%H:%M%z").tolist()
    ['01:00+0100', nan]
    """
    return wall.tz_localize(timezone, ambiguous="NaT", nonexistent="NaT")


def local_day_starts(days: pd.DatetimeIndex, tz: dt.tzinfo | str | None) -> pd.DatetimeIndex:
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


def localize_naive(stamps: pd.DatetimeIndex, zone: str, where: str) -> pd.DatetimeIndex:
    """Read naive ``stamps`` as local times in ``zone``: the one rule for naive timestamps.

    Every path that meets naive timestamps for a model or file with a time zone (history
    given to ``predict``, origins, pyfunc and service requests, files read with a zone)
    reads them as wall-clock times in that zone. A local time that does not exist there
    (skipped when the clocks go forward) or exists twice (when they go back) cannot be
    placed in time from its naive form, so it is refused, named, rather than guessed.

    Parameters
    ----------
    stamps : DatetimeIndex
        Naive timestamps (aware ones are returned converted to ``zone``).
    zone : str
        IANA zone such as ``"Europe/Berlin"``.
    where : str
        What the stamps are, for messages (``"history"``, ``"in.csv: column 'time'"``).

    Returns
    -------
    DatetimeIndex
        The same wall-clock times, aware, in ``zone``.

    Raises
    ------
    ValueError
        Naming the first nonexistent or ambiguous local time.

    Examples
    --------
    >>> idx = pd.DatetimeIndex(["2023-03-26 01:00", "2023-03-26 03:00"])
    >>> localize_naive(idx, "Europe/Berlin", "history").strftime("%H:%M%z").tolist()
    ['01:00+0100', '03:00+0200']
    """
    if stamps.tz is not None:
        return stamps.tz_convert(zone)
    check_wall_clock(stamps, zone, where)
    return stamps.tz_localize(zone, ambiguous="raise", nonexistent="raise")


def check_wall_clock(stamps: pd.DatetimeIndex, zone: str, where: str) -> None:
    """Raise a ValueError naming the first of naive ``stamps`` that is not one instant in ``zone``.

    Parameters
    ----------
    stamps : DatetimeIndex
        Naive local (wall-clock) times.
    zone : str
        The zone they are local times of.
    where : str
        What the stamps are, for the message.
    """
    if stamps.tz is not None or len(stamps) == 0:
        return
    local = stamps.tz_localize(zone, ambiguous="NaT", nonexistent="NaT")
    gone = np.asarray(local.isna()) & np.asarray(stamps.notna())
    if not gone.any():
        return
    stamp = stamps[int(gone.argmax())]
    try:
        pd.DatetimeIndex([stamp]).tz_localize(zone, ambiguous="raise", nonexistent="NaT")
        twice = False
    except Exception:  # pandas/pytz raise their own ambiguous-time error types
        twice = True
    what = (
        "occurs twice there (the clocks go back)"
        if twice
        else "does not exist there (the clocks skip it)"
    )
    raise ValueError(
        f"{where}: the naive timestamp {stamp} is read as local time in {zone} and {what}; "
        "give timestamps with UTC offsets (e.g. 2023-10-29T02:00+01:00) or aware ones"
    )
