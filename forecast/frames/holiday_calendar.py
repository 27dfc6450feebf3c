"""Public holidays, bridge days and the Christmas week of a country, as calendar days.

The building blocks of :mod:`forecast.frames.special_days` (the one definition of a
special day) and of the calendar features (:mod:`forecast.frames.calendar`): the holiday
calendars of the :mod:`holidays` package, nationwide and per state (subdivisions with a
short code, such as ``"BY"``), the bridge rule, the Christmas week and the population of
the German states that weighs regional holidays (:data:`REGION_POPULATION`).

A **bridge day** is a working day (Monday to Friday, not a holiday) whose previous and next
days are both days off (weekend or holiday), at least one of them a holiday, e.g. the Friday
after Ascension. Days are local calendar dates, counted as days since 1970-01-01.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache

import holidays
import numpy as np
import pandas as pd

__all__ = [
    "REGION_POPULATION",
    "christmas_days",
    "christmas_period",
    "day_flags",
    "holiday_days",
    "holiday_flags",
    "holiday_shares",
    "regions",
    "split_country",
    "year_range",
]

_STATE_CODE = re.compile(r"[A-Z0-9]{1,3}")
_EPOCH = np.datetime64(0, "D")

# Population of the German states on 31 Dec 2022 (Destatis, Bevoelkerungsfortschreibung auf
# Basis des Zensus 2011, table 12411-0010; total 84,358,845). They weight the states' public
# holidays into the share of the population that has a day off.
REGION_POPULATION: dict[str, dict[str, int]] = {
    "DE": {
        "BW": 11_280_257,
        "BY": 13_369_393,
        "BE": 3_755_251,
        "BB": 2_573_135,
        "HB": 684_864,
        "HH": 1_892_122,
        "HE": 6_391_360,
        "MV": 1_628_378,
        "NI": 8_140_242,
        "NW": 18_139_116,
        "RP": 4_159_150,
        "SL": 992_666,
        "SN": 4_086_152,
        "ST": 2_186_643,
        "SH": 2_953_270,
        "TH": 2_126_846,
    }
}


# --------------------------------------------------------------------- building blocks
def split_country(country: str) -> tuple[str, str | None]:
    """Split ``"DE-BY"`` into ``("DE", "BY")`` (``("DE", None)`` without a subdivision)."""
    code, _, subdiv = country.partition("-")
    return code.upper(), (subdiv.upper() or None)


@lru_cache(maxsize=1024)
def _holiday_days_of_year(code: str, subdiv: str | None, year: int) -> tuple[int, ...]:
    """Public holidays of one year as days since 1970-01-01 (memoised: a pure look-up)."""
    try:
        calendar = holidays.country_holidays(code, subdiv=subdiv, years=year)
    except NotImplementedError as err:
        where = code if subdiv is None else f"{code}-{subdiv}"
        raise ValueError(
            f"unknown holiday calendar country={where!r} (expected e.g. 'DE' or 'DE-BY'): {err}"
        ) from err
    return tuple(int((np.datetime64(d, "D") - _EPOCH).astype(np.int64)) for d in calendar)


def holiday_days(code: str, subdiv: str | None, first: int, last: int) -> np.ndarray:
    """Public holidays of the years ``first`` to ``last``, sorted, as days since 1970-01-01."""
    years = range(first, last + 1)
    return np.array(
        sorted(d for y in years for d in _holiday_days_of_year(code, subdiv, y)), dtype=np.int64
    )


def day_flags(days: np.ndarray, holiday_days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Holiday and bridge flags of ``days`` for one calendar of holidays."""

    def is_holiday(d: np.ndarray) -> np.ndarray:
        return np.isin(d, holiday_days)

    def is_off(d: np.ndarray) -> np.ndarray:
        return ((d + 3) % 7 >= 5) | is_holiday(d)  # 1970-01-01 was a Thursday (weekday 3)

    holiday = is_holiday(days)
    before = days - 1
    after = days + 1
    bridge = ~is_off(days) & is_off(before) & is_off(after)
    bridge &= is_holiday(before) | is_holiday(after)
    return holiday, bridge


def year_range(days: np.ndarray) -> tuple[int, int]:
    """Years of the days and of their neighbours (bridges look one day either side)."""
    first = pd.Timestamp(int(days.min()) - 1, unit="D").year
    last = pd.Timestamp(int(days.max()) + 1, unit="D").year
    return first, last


def christmas_days(first: int, last: int) -> np.ndarray:
    """24 December to 1 January of the years ``first`` to ``last``, as days since 1970-01-01."""
    dates = [dt.date(y, 12, d) for y in range(first, last + 1) for d in range(24, 32)]
    dates += [dt.date(y, 1, 1) for y in range(first, last + 1)]
    return np.sort((np.array(dates, dtype="datetime64[D]") - _EPOCH).astype(np.int64))


def regions(code: str) -> dict[str | None, float | None]:
    """States of ``code`` with their population share (None where no table has it)."""
    table = REGION_POPULATION.get(code)
    if table is not None:
        total = float(sum(table.values()))
        return {region: population / total for region, population in table.items()}
    subdivisions = holidays.country_holidays(code).subdivisions
    states = [s for s in subdivisions if _STATE_CODE.fullmatch(s)]
    return {state: None for state in states} or {None: 1.0}


def holiday_flags(days: np.ndarray, country: str) -> tuple[np.ndarray, np.ndarray]:
    """Public-holiday and bridge-day flags for calendar days.

    Parameters
    ----------
    days : ndarray of int
        Days since 1970-01-01 (local calendar dates).
    country : str
        ISO country code, optionally with a subdivision: ``"DE"``, ``"DE-BY"``.

    Returns
    -------
    holiday, bridge : ndarray of bool
        ``holiday``: the day is a public holiday of ``country`` (package ``holidays``; for a
        country without subdivision only the nationwide holidays). ``bridge``: a working day
        (Monday-Friday, not a holiday) whose previous and next days are both days off
        (weekend or holiday), at least one of them a holiday, e.g. the Friday after
        Ascension Thursday.
    """
    code, subdiv = split_country(country)
    days = np.asarray(days, dtype=np.int64)
    return day_flags(days, holiday_days(code, subdiv, *year_range(days)))


def holiday_shares(days: np.ndarray, country: str) -> tuple[np.ndarray, np.ndarray]:
    """Share of the population on a public holiday, and on a bridge day, per calendar day.

    For a country with a population table (:data:`REGION_POPULATION`: Germany) and no
    subdivision, each region's own holidays (Corpus Christi, All Saints, Reformation Day,
    ...) and bridge days count with the region's share of the population; a nationwide
    holiday gives 1. For other countries, and for a single subdivision (``"DE-BY"``), the
    shares are the 0/1 flags of :func:`holiday_flags`.

    Parameters
    ----------
    days : ndarray of int
        Days since 1970-01-01 (local calendar dates).
    country : str
        ISO country code, optionally with a subdivision.

    Returns
    -------
    holiday_share, bridge_share : ndarray of float
        Values in [0, 1].
    """
    code, subdiv = split_country(country)
    days = np.asarray(days, dtype=np.int64)
    first, last = year_range(days)
    if subdiv is not None or code not in REGION_POPULATION:
        holiday, bridge = day_flags(days, holiday_days(code, subdiv, first, last))
        return holiday.astype(float), bridge.astype(float)
    holiday_share = np.zeros(len(days))
    bridge_share = np.zeros(len(days))
    for region, share in regions(code).items():
        holiday, bridge = day_flags(days, holiday_days(code, region, first, last))
        holiday_share += share * holiday
        bridge_share += share * bridge
    return holiday_share, bridge_share


def christmas_period(days: np.ndarray) -> np.ndarray:
    """Flag the days from 24 December to 1 January (inclusive); days since 1970-01-01."""
    dates = pd.DatetimeIndex(np.asarray(days, dtype=np.int64).astype("datetime64[D]"))
    month = dates.month.to_numpy()
    day = dates.day.to_numpy()
    return ((month == 12) & (day >= 24)) | ((month == 1) & (day == 1))
