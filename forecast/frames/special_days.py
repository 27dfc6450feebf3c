"""Special days: public holidays, bridge days and the Christmas week, defined once.

Load on such days departs from the weekly pattern, so comparisons report the error on them
separately (``mape_special``) and the calendar features flag them. :func:`special_days` is
the one definition; everything else here feeds it or reads it:

* **public holidays** of the :mod:`holidays` package: the country's nationwide holidays and
  those of its states (subdivisions with a short code, such as ``"BY"``; city holidays such
  as Augsburg's are left out);
* **bridge days**: a working day (Monday to Friday, not a holiday) whose previous and next
  days are both days off (weekend, holiday, or a day of the Christmas week), at least one of
  them a holiday or Christmas-week day, e.g. the Friday after Ascension or Monday 23 December
  before a Tuesday Christmas Eve;
* **the Christmas week**: every day from 24 December to 1 January.

A regional holiday or bridge day counts when the states that have it hold at least
``min_share`` of the population (:data:`REGION_POPULATION`, Germany: Destatis 2022). The
default ``min_share=0`` counts one in any state; this is what ``special_days="holidays-DE"``
of :func:`forecast.compare` scores. The German day-ahead tables of
``experiments/entsoe_day_ahead.py`` use ``min_share=0.1`` (a day off for at least 10 % of
Germans): in 2023 that leaves out Women's Day (Berlin, Mecklenburg-Vorpommern), Easter and
Whit Sunday (Brandenburg), Assumption and its bridge Monday (Saarland), World Children's Day
(Thuringia) and Repentance Day (Saxony), 23 special days instead of 30.

The holiday calendars, the bridge rule and the population table are in
:mod:`forecast.frames.holiday_calendar`; the calendar features (:mod:`forecast.frames.calendar`)
are built from them too: :func:`holiday_flags` (nationwide or one subdivision),
:func:`holiday_shares` (share of the population) and :func:`christmas_period`, also importable
from here. Their bridge columns count public holidays only; the Christmas week is a column of
its own.

Days are local calendar days: a timestamp counts by its date in the local time zone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import holidays
import numpy as np
import pandas as pd

from forecast.frames.holiday_calendar import (
    REGION_POPULATION,
    christmas_days,
    christmas_period,
    day_flags,
    holiday_days,
    holiday_flags,
    holiday_shares,
    regions,
    split_country,
    year_range,
)
from forecast.frames.timezones import to_local

__all__ = [
    "REGION_POPULATION",
    "check_special_days",
    "christmas_period",
    "holiday_flags",
    "holiday_shares",
    "special_dates",
    "special_days",
    "special_mask",
]

_PREFIX = "holidays-"
_EPOCH = np.datetime64(0, "D")


# ------------------------------------------------------------------ the one definition
def _check_share(min_share: object) -> float:
    if isinstance(min_share, bool) or not isinstance(min_share, int | float | np.floating):
        raise TypeError(f"min_share must be a number in [0, 1], got {min_share!r}")
    if not 0.0 <= float(min_share) <= 1.0:
        raise ValueError(f"min_share must be in [0, 1], got {min_share!r}")
    return float(min_share)


def _special(days: np.ndarray, country: str, min_share: float) -> np.ndarray:
    """Whether each day (days since 1970-01-01) is special; see :func:`special_days`."""
    code, subdiv = split_country(country)
    days = np.asarray(days, dtype=np.int64)
    christmas = christmas_period(days)
    if len(days) == 0:
        return christmas
    first, last = year_range(days)
    off = np.union1d(holiday_days(code, None, first, last), christmas_days(first, last))
    shares = {subdiv: 1.0} if subdiv is not None else regions(code)
    if min_share > 0 and None in shares.values():
        raise ValueError(
            f"min_share={min_share} needs the population of each state of {code!r}; "
            f"population tables: {sorted(REGION_POPULATION)} (min_share=0 counts any state)"
        )
    holiday_share = np.zeros(len(days))
    bridge_share = np.zeros(len(days))
    for region, share in shares.items():
        calendar = np.union1d(off, holiday_days(code, region, first, last))
        holiday, bridge = day_flags(days, calendar)
        holiday_share += (share or 1.0) * holiday
        bridge_share += (share or 1.0) * bridge

    def counts(share: np.ndarray) -> np.ndarray:  # a sum of shares: allow for rounding
        return (share > 0) & (share >= min_share - 1e-12)

    national = np.isin(days, off)  # nationwide holidays (and Christmas week) count everywhere
    return christmas | national | counts(holiday_share) | counts(bridge_share)


def special_days(
    years: int | Iterable[int], country: str = "DE", *, min_share: float = 0.0
) -> list[dt.date]:
    """Return the special days of ``country`` in ``years``: the one definition.

    A day is special when it is (see the module notes for the details)

    * a public holiday, nationwide or in states holding at least ``min_share`` of the
      population;
    * a bridge day in states holding at least ``min_share`` of the population;
    * or in the Christmas week, 24 December to 1 January.

    Parameters
    ----------
    years : int or iterable of int
        Calendar years wanted.
    country : str, default="DE"
        ISO country code of the :mod:`holidays` package (``"DE"``), or one subdivision
        (``"DE-BY"``: that state's holidays and bridge days only).
    min_share : float, default=0.0
        Smallest share of the population whose states must have the holiday or bridge day
        for it to count (0: any state; 1: nationwide only). A nationwide holiday always
        counts. Above 0 it needs a population table (:data:`REGION_POPULATION`).

    Returns
    -------
    list of datetime.date
        Sorted special days.

    Raises
    ------
    ValueError
        For an unknown country or subdivision, or ``min_share`` outside [0, 1] or above 0
        for a country without population table.

    Examples
    --------
    >>> len(special_days(2023)), len(special_days(2023, min_share=0.1))
    (30, 23)
    >>> dt.date(2023, 6, 9) in special_days(2023)  # the Friday after Corpus Christi
    True
    """
    share = _check_share(min_share)
    wanted = sorted({int(years)} if isinstance(years, int | np.integer) else set(years))
    if not wanted:
        return []
    start = np.datetime64(f"{wanted[0]:04d}-01-01", "D")
    stop = np.datetime64(f"{wanted[-1] + 1:04d}-01-01", "D")
    days = np.arange((start - _EPOCH).astype(np.int64), (stop - _EPOCH).astype(np.int64))
    dates = pd.DatetimeIndex(days.astype("datetime64[D]"))
    keep = _special(days, country, share) & dates.year.isin(wanted)
    return [d.date() for d in dates[keep]]


# ------------------------------------------------------------- the evaluation setting
def check_special_days(spec: object) -> None:
    """Raise a ValueError/TypeError naming the problem if ``spec`` is not a valid setting.

    A setting is ``"holidays-<CC>"`` (e.g. ``"holidays-DE"``: :func:`special_days` of country
    ``CC``) or a list of dates, taken as given.
    """
    if isinstance(spec, str):
        _country(spec)
        return
    if not isinstance(spec, Iterable):
        raise TypeError(
            f"special_days must be 'holidays-<country>' or a list of dates, got {spec!r}"
        )
    for day in spec:
        try:
            pd.Timestamp(day)
        except (TypeError, ValueError) as err:
            raise ValueError(f"special_days: {day!r} is not a date") from err


def _country(spec: str) -> str:
    code = spec[len(_PREFIX) :] if spec.startswith(_PREFIX) else ""
    if code not in holidays.list_supported_countries():
        raise ValueError(
            f"special_days={spec!r}: expected 'holidays-<country>' with a country code of the "
            "holidays package, e.g. 'holidays-DE'"
        )
    return code


def special_dates(
    spec: str | Iterable[Any], years: Iterable[int], *, min_share: float = 0.0
) -> set[dt.date]:
    """Return the special days of a setting in the given years.

    Parameters
    ----------
    spec : str or list of date-like
        ``"holidays-<CC>"`` (:func:`special_days` of country ``CC``) or explicit dates.
    years : iterable of int
        Calendar years wanted (a list of dates is returned whole).
    min_share : float, default=0.0
        See :func:`special_days`; only for ``"holidays-<CC>"``.

    Returns
    -------
    set of datetime.date
    """
    check_special_days(spec)
    if not isinstance(spec, str):
        if min_share:
            raise ValueError("min_share applies to 'holidays-<country>', not to a list of dates")
        return {pd.Timestamp(day).date() for day in spec}
    return set(special_days(years, _country(spec), min_share=min_share))


def special_mask(
    times: pd.Series | pd.Index | np.ndarray | list[Any],
    spec: str | Iterable[Any],
    timezone: str,
    *,
    min_share: float = 0.0,
) -> np.ndarray:
    """Whether each timestamp falls on a special day (its local date in ``timezone``).

    Parameters
    ----------
    times : array-like of timestamps
        E.g. the ``time`` column of a backtest's forecasts.
    spec : str or list of date-like
        The special-days setting: ``"holidays-<CC>"`` or explicit dates.
    timezone : str
        Local time zone (ignored for naive timestamps, taken as local).
    min_share : float, default=0.0
        See :func:`special_days`; only for ``"holidays-<CC>"``.

    Returns
    -------
    ndarray of bool
    """
    local = to_local(pd.DatetimeIndex(times), timezone)
    if len(local) == 0:
        check_special_days(spec)
        return np.zeros(0, dtype=bool)
    years = range(local.year.min(), local.year.max() + 1)
    days = special_dates(spec, years, min_share=min_share)
    dates = local.normalize().tz_localize(None) if local.tz is not None else local.normalize()
    wanted = pd.DatetimeIndex(sorted(pd.Timestamp(d) for d in days), dtype=dates.dtype)
    return np.asarray(dates.isin(wanted))
