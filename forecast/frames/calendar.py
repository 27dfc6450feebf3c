"""Calendar and holiday covariates, known in advance for any timestamp.

:func:`calendar_features` is what the estimator base calls (``calendar=True``) for the
history and the forecast timestamps; the columns therefore depend only on the index, the
time zone and the country, never on the data. The holiday columns come from the one
definition of special days, :mod:`forecast.frames.special_days` (holiday calendars, bridge
rule, population shares, Christmas week); its functions are importable from here too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forecast.frames.special_days import (
    REGION_POPULATION,
    christmas_period,
    holiday_flags,
    holiday_shares,
)

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
            # pandas-stubs: Timedelta takes Tick offsets only; calendar ones raise, caught below
            return pd.Timedelta(index.freq) < pd.Timedelta(days=1)  # type: ignore[arg-type]
        except ValueError:  # calendar offsets (month, year) are not sub-daily
            return False
    return bool((wall.asi8 % _DAY_NS != 0).any())


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
        :data:`~forecast.frames.calendar.HOLIDAY_COLUMNS` (see
        :func:`~forecast.frames.special_days.holiday_flags`,
        :func:`~forecast.frames.special_days.holiday_shares` and
        :func:`~forecast.frames.special_days.christmas_period`).

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
