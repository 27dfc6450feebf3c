"""Special days of a backtest: public holidays, bridge days and the Christmas week.

Load on such days departs from the weekly pattern, so comparisons report the error on them
separately (``mape_special``). A special-days setting is either

* ``"holidays-<CC>"`` (e.g. ``"holidays-DE"``): the public holidays of country ``CC`` of the
  :mod:`holidays` package, national or in any of its states (subdivisions with a short code
  such as ``"BY"``; city holidays such as Augsburg's are left out), plus bridge days (a
  working day with a holiday on one side and a weekend or holiday on the other, e.g. the
  Friday after Ascension) and every day from 24 December to 1 January; or
* a list of dates (``["2023-12-24", ...]``), taken as given.

Days are local calendar days: a timestamp counts by its date in the backtest's time zone.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from forecast.frames.timezones import to_local

_PREFIX = "holidays-"
_STATE_CODE = re.compile(r"[A-Z0-9]{1,3}")


def check_special_days(spec) -> None:
    """Raise a ValueError/TypeError naming the problem if ``spec`` is not a valid setting."""
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
    import holidays

    code = spec[len(_PREFIX) :] if spec.startswith(_PREFIX) else ""
    if code not in holidays.list_supported_countries():
        raise ValueError(
            f"special_days={spec!r}: expected 'holidays-<country>' with a country code of the "
            "holidays package, e.g. 'holidays-DE'"
        )
    return code


def special_dates(spec, years: Iterable[int]) -> set[dt.date]:
    """Return the special days of ``spec`` (see the module docstring) in the given years.

    Parameters
    ----------
    spec : str or list of date-like
        ``"holidays-<CC>"`` or explicit dates.
    years : iterable of int
        Calendar years wanted (a list of dates is returned whole).

    Returns
    -------
    set of datetime.date
    """
    check_special_days(spec)
    if not isinstance(spec, str):
        return {pd.Timestamp(day).date() for day in spec}
    import holidays

    code = _country(spec)
    years = sorted(set(years))
    if not years:
        return set()
    span = range(years[0] - 1, years[-1] + 2)  # neighbours of the first and last days
    country = holidays.country_holidays(code, years=span)
    states = [s for s in country.subdivisions if _STATE_CODE.fullmatch(s)]
    days = set(country)
    for state in states:
        days |= set(holidays.country_holidays(code, subdiv=state, years=span))
    for year in span:
        days |= {dt.date(year, 12, d) for d in range(24, 32)} | {dt.date(year, 1, 1)}
    days |= _bridge_days(days, span)
    return {d for d in days if d.year in years}


def _bridge_days(holidays: set[dt.date], years: range) -> set[dt.date]:
    """Working days with a holiday on one side and a day off (weekend, holiday) on the other."""

    def off(day: dt.date) -> bool:
        return day.weekday() >= 5 or day in holidays

    one = dt.timedelta(days=1)
    bridges = set()
    day, last = dt.date(years[0], 1, 1), dt.date(years[-1], 12, 31)
    while day <= last:
        before, after = day - one, day + one
        if not off(day) and off(before) and off(after):
            if before in holidays or after in holidays:
                bridges.add(day)
        day += one
    return bridges


def special_mask(times, spec, timezone: str) -> np.ndarray:
    """Whether each timestamp falls on a special day (its local date in ``timezone``).

    Parameters
    ----------
    times : array-like of timestamps
        E.g. the ``time`` column of a backtest's forecasts.
    spec : str or list of date-like
        The special-days setting.
    timezone : str
        Local time zone (ignored for naive timestamps, taken as local).

    Returns
    -------
    ndarray of bool
    """
    local = to_local(pd.DatetimeIndex(times), timezone)
    if len(local) == 0:
        return np.zeros(0, dtype=bool)
    days = special_dates(spec, range(local.year.min(), local.year.max() + 1))
    dates = local.normalize().tz_localize(None) if local.tz is not None else local.normalize()
    wanted = pd.DatetimeIndex(sorted(pd.Timestamp(d) for d in days), dtype=dates.dtype)
    return np.asarray(dates.isin(wanted))
