"""Calendar and holiday covariates, known in advance for any timestamp.

:func:`calendar_features` is what the estimator base calls (``calendar=True``) for the
history and the forecast timestamps; the columns therefore depend only on the index, the
time zone and the country, never on the data.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

__all__ = [
    "CALENDAR_COLUMNS",
    "HOLIDAY_COLUMNS",
    "REGION_POPULATION",
    "calendar_features",
    "christmas_period",
    "holiday_flags",
    "holiday_shares",
]

#: Columns of :func:`calendar_features` in order (``hour_*`` only for sub-daily data).
CALENDAR_COLUMNS = ("hour_sin", "hour_cos", "dow_sin", "dow_cos", "doy_sin", "doy_cos")
#: Columns added when a country is given.
HOLIDAY_COLUMNS = ("holiday", "bridge_day", "holiday_share", "bridge_share", "christmas")

_DAY_NS = 86_400 * 10**9


def _local_wall(index: pd.DatetimeIndex, timezone: str | None) -> pd.DatetimeIndex:
    """Naive local wall-clock times of ``index`` (naive input is taken as local already)."""
    if index.tz is not None:
        index = index.tz_convert(timezone or index.tz).tz_localize(None)
    return index.as_unit("ns")


def _is_sub_daily(index: pd.DatetimeIndex, wall: pd.DatetimeIndex) -> bool:
    if len(index) >= 2:
        steps = np.diff(index.as_unit("ns").asi8)
        positive = steps[steps > 0]
        if positive.size:
            return bool(positive.min() < _DAY_NS)
    if index.freq is not None:
        try:
            return pd.Timedelta(index.freq) < pd.Timedelta(days=1)
        except ValueError:  # calendar offsets (month, year) are not sub-daily
            return False
    return bool((wall.asi8 % _DAY_NS != 0).any())


def _split_country(country: str) -> tuple[str, str | None]:
    code, _, subdiv = country.partition("-")
    return code.upper(), (subdiv.upper() or None)


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


@lru_cache(maxsize=1024)
def _holiday_days_of_year(code: str, subdiv: str | None, year: int) -> tuple[int, ...]:
    """Public holidays of one year as days since 1970-01-01 (memoised: a pure look-up)."""
    import holidays as hol

    try:
        calendar = hol.country_holidays(code, subdiv=subdiv, years=year)
    except NotImplementedError as err:
        where = code if subdiv is None else f"{code}-{subdiv}"
        raise ValueError(
            f"unknown holiday calendar country={where!r} (expected e.g. 'DE' or 'DE-BY'): {err}"
        ) from err
    return tuple(
        int((np.datetime64(d, "D") - np.datetime64(0, "D")).astype(np.int64)) for d in calendar
    )


def _holiday_days(code: str, subdiv: str | None, first: int, last: int) -> np.ndarray:
    years = range(first, last + 1)
    return np.array(
        sorted(d for y in years for d in _holiday_days_of_year(code, subdiv, y)), dtype=np.int64
    )


def _flags(days: np.ndarray, holiday_days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Holiday and bridge flags of ``days`` for one calendar of holidays."""

    def is_holiday(d: np.ndarray) -> np.ndarray:
        return np.isin(d, holiday_days)

    def is_off(d: np.ndarray) -> np.ndarray:
        return ((d + 3) % 7 >= 5) | is_holiday(d)  # 1970-01-01 was a Thursday (weekday 3)

    holiday = is_holiday(days)
    prev, nxt = days - 1, days + 1
    bridge = ~is_off(days) & is_off(prev) & is_off(nxt) & (is_holiday(prev) | is_holiday(nxt))
    return holiday, bridge


def _year_range(days: np.ndarray) -> tuple[int, int]:
    first = pd.Timestamp(int(days.min()) - 1, unit="D").year
    last = pd.Timestamp(int(days.max()) + 1, unit="D").year
    return first, last


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
    code, subdiv = _split_country(country)
    days = np.asarray(days, dtype=np.int64)
    return _flags(days, _holiday_days(code, subdiv, *_year_range(days)))


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
    code, subdiv = _split_country(country)
    days = np.asarray(days, dtype=np.int64)
    first, last = _year_range(days)
    regions = REGION_POPULATION.get(code)
    if subdiv is not None or regions is None:
        holiday, bridge = _flags(days, _holiday_days(code, subdiv, first, last))
        return holiday.astype(float), bridge.astype(float)
    total = float(sum(regions.values()))
    holiday_share, bridge_share = np.zeros(len(days)), np.zeros(len(days))
    for region, population in regions.items():
        holiday, bridge = _flags(days, _holiday_days(code, region, first, last))
        holiday_share += population / total * holiday
        bridge_share += population / total * bridge
    return holiday_share, bridge_share


def christmas_period(days: np.ndarray) -> np.ndarray:
    """Flag the days from 24 December to 1 January (inclusive); days since 1970-01-01."""
    dates = pd.DatetimeIndex(np.asarray(days, dtype=np.int64).astype("datetime64[D]"))
    month, day = dates.month.to_numpy(), dates.day.to_numpy()
    return ((month == 12) & (day >= 24)) | ((month == 1) & (day == 1))


def calendar_features(
    index: pd.DatetimeIndex, timezone: str | None = None, country: str | None = None
) -> pd.DataFrame:
    """Cyclical calendar features and holiday flags, computed in local time.

    Parameters
    ----------
    index : DatetimeIndex
        Timestamps (tz-aware or naive).
    timezone : str, optional
        Zone whose wall clock defines hours, days and holidays, e.g. ``"Europe/Berlin"``
        for a UTC index of German load. Default: the index's own zone. A naive index is
        taken to be local time already (``timezone`` is then ignored).
    country : str, optional
        Holiday calendar, ``"DE"`` or with a subdivision ``"DE-BY"``; adds the
        :data:`HOLIDAY_COLUMNS` (see :func:`holiday_flags`, :func:`holiday_shares` and
        :func:`christmas_period`).

    Returns
    -------
    DataFrame
        Same index, float columns in this order: ``hour_sin``, ``hour_cos`` (sub-daily
        data only; the hour includes the minute fraction, period 24 h), ``dow_sin``,
        ``dow_cos`` (Monday = 0, period 7), ``doy_sin``, ``doy_cos`` (day of year - 1 over
        the year's length), then, when ``country`` is given: ``holiday`` and
        ``bridge_day`` (0/1 flags of the country's nationwide calendar, or of the
        subdivision), ``holiday_share`` and ``bridge_share`` (share of the population on a
        public or bridge day, regional holidays included) and ``christmas`` (1 from 24
        December to 1 January). Day-level values are computed once per local date, so ten
        years of hourly data take milliseconds.

    Examples
    --------
    >>> idx = pd.date_range("2023-10-02 22:00", periods=3, freq="h", tz="UTC")
    >>> calendar_features(idx, timezone="Europe/Berlin", country="DE")["holiday"].tolist()
    [1.0, 1.0, 1.0]
    """
    if not isinstance(index, pd.DatetimeIndex):
        raise TypeError(f"index must be a pandas DatetimeIndex, got {type(index).__name__}")
    if index.hasnans:
        raise ValueError(
            f"index has a missing timestamp (NaT) at row {int(np.argmax(index.isna()))}"
        )
    wall = _local_wall(index, timezone)
    values = wall.asi8
    day_numbers = values // _DAY_NS  # local calendar day since 1970-01-01
    days, inverse = np.unique(day_numbers, return_inverse=True)

    columns: dict[str, np.ndarray] = {}
    if _is_sub_daily(index, wall):
        hour = (values - day_numbers * _DAY_NS) / 3.6e12  # (N,) fractional local hour
        columns["hour_sin"] = np.sin(2 * np.pi * hour / 24)
        columns["hour_cos"] = np.cos(2 * np.pi * hour / 24)
    day_index = pd.DatetimeIndex(days.astype("datetime64[D]"))
    dow = ((days + 3) % 7).astype(float)
    year_length = np.where(day_index.is_leap_year, 366.0, 365.0)
    doy = (day_index.day_of_year.to_numpy() - 1) / year_length
    per_day = {
        "dow_sin": np.sin(2 * np.pi * dow / 7),
        "dow_cos": np.cos(2 * np.pi * dow / 7),
        "doy_sin": np.sin(2 * np.pi * doy),
        "doy_cos": np.cos(2 * np.pi * doy),
    }
    if country:
        holiday, bridge = holiday_flags(days, country)
        holiday_share, bridge_share = holiday_shares(days, country)
        per_day["holiday"] = holiday.astype(float)
        per_day["bridge_day"] = bridge.astype(float)
        per_day["holiday_share"] = holiday_share
        per_day["bridge_share"] = bridge_share
        per_day["christmas"] = christmas_period(days).astype(float)
    for name, per in per_day.items():
        columns[name] = per[inverse]
    return pd.DataFrame(columns, index=index, dtype=float)
