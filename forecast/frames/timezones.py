"""Time zones, one definition: checking a zone's name and reading an index in local time."""

from __future__ import annotations

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
