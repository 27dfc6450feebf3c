import datetime as dt

import numpy as np
import pandas as pd
import pytest

from forecast.frames import calendar
from forecast.frames.special_days import (
    REGION_POPULATION,
    holiday_shares,
    special_dates,
    special_days,
    special_mask,
)

TZ = "Europe/Berlin"


def dates(*days):
    return [dt.date.fromisoformat(d) for d in days]


# German special days of 2023, counted by hand (Monday 2 January is an ordinary day).
NATIONAL_2023 = dates(
    "2023-01-01",  # New Year (a Sunday)
    "2023-04-07",  # Good Friday
    "2023-04-10",  # Easter Monday
    "2023-05-01",  # Labour Day
    "2023-05-18",  # Ascension (Thursday)
    "2023-05-19",  # its bridge Friday, everywhere
    "2023-05-29",  # Whit Monday
    "2023-10-02",  # Monday before German Unity Day, everywhere
    "2023-10-03",  # German Unity Day (Tuesday)
)
CHRISTMAS_2023 = [dt.date(2023, 12, d) for d in range(24, 32)]  # 25 and 26: national too
WIDE_2023 = dates(  # regional, >= 10 % of the population
    "2023-01-06",  # Epiphany: BW, BY, ST (31.8 %)
    "2023-06-08",  # Corpus Christi: BW, BY, HE, NW, RP, SL (64.4 %)
    "2023-06-09",  # its bridge Friday, same states
    "2023-10-30",  # bridge Monday before Reformation Day (31.1 %)
    "2023-10-31",  # Reformation Day: BB, HB, HH, MV, NI, SH, SN, ST, TH
    "2023-11-01",  # All Saints: BW, BY, NW, RP, SL (56.8 %)
)
NARROW_2023 = dates(  # regional, < 10 %
    "2023-03-08",  # Women's Day: BE, MV (6.4 %)
    "2023-04-09",  # Easter Sunday: BB (3.1 %)
    "2023-05-28",  # Whit Sunday: BB
    "2023-08-14",  # bridge Monday before Assumption: SL (1.2 %)
    "2023-08-15",  # Assumption: SL
    "2023-09-20",  # World Children's Day: TH (2.5 %)
    "2023-11-22",  # Repentance Day: SN (4.8 %)
)


def share(*states):
    return sum(REGION_POPULATION["DE"][s] for s in states) / sum(REGION_POPULATION["DE"].values())


def test_german_special_days_2023_by_hand():
    every = sorted(NATIONAL_2023 + CHRISTMAS_2023 + WIDE_2023 + NARROW_2023)
    assert special_days(2023) == every and len(every) == 30
    assert special_days([2023], "DE", min_share=0.0) == every
    assert special_days(2023, min_share=0.1) == sorted(NATIONAL_2023 + CHRISTMAS_2023 + WIDE_2023)
    # the shares of the hand-made table
    assert share("BW", "BY", "ST") == pytest.approx(0.3181, abs=1e-4)
    reformation = ("BB", "HB", "HH", "MV", "NI", "SH", "SN", "ST", "TH")
    assert share(*reformation) == pytest.approx(0.3114, abs=1e-4)
    assert share("BW", "BY", "NW", "RP", "SL") == pytest.approx(0.5683, abs=1e-4)
    assert share("BE", "MV") == pytest.approx(0.0638, abs=1e-4)
    # above a third: Epiphany and Reformation Day (and its bridge) drop out
    half = special_days(2023, min_share=0.5)
    gone = dates("2023-01-06", "2023-10-30", "2023-10-31")
    assert half == sorted(set(NATIONAL_2023 + CHRISTMAS_2023 + WIDE_2023) - set(gone))
    # only what everyone has off: nationwide holidays and bridges, the Christmas week
    assert special_days(2023, min_share=1.0) == sorted(NATIONAL_2023 + CHRISTMAS_2023)


def test_one_state_and_several_years():
    bavaria = special_days(2023, "DE-BY")
    assert set(dates("2023-01-06", "2023-06-08", "2023-06-09", "2023-11-01")) <= set(bavaria)
    assert dt.date(2023, 10, 31) not in bavaria and dt.date(2023, 5, 19) in bavaria
    both = special_days([2022, 2023])
    assert {d.year for d in both} == {2022, 2023} and set(special_days(2023)) <= set(both)
    assert special_days([]) == []


def test_christmas_week_counts_as_days_off_for_bridges():
    # 2024: Christmas Eve is a Tuesday, so Monday 23 December is a bridge day
    assert dt.date(2024, 12, 23) in special_days(2024, min_share=1.0)
    assert dt.date(2023, 12, 22) not in special_days(2023)  # Friday before a Saturday
    # the calendar features keep public holidays only in their bridge column
    days = np.array([(np.datetime64("2024-12-23") - np.datetime64(0, "D")).astype(int)])
    assert holiday_shares(days, "DE")[1].tolist() == [0.0]


def test_calendar_features_and_special_days_agree():
    idx = pd.date_range("2023-01-01", "2023-12-31 23:00", freq="h", tz=TZ)
    features = calendar.calendar_features(idx, timezone=TZ, country="DE")
    by_day = features.groupby(idx.date).first()
    for min_share in (0.0, 0.1, 0.5):
        cut = min_share if min_share else 1e-12
        special = (
            (by_day["holiday_share"] >= cut)
            | (by_day["bridge_share"] >= cut)
            | (by_day["christmas"] == 1)
        )
        assert list(by_day.index[special]) == special_days(2023, min_share=min_share)
    # the calendar module re-exports the building blocks of the one definition
    assert calendar.holiday_shares is holiday_shares


def test_settings_mask_and_list():
    assert special_dates("holidays-DE", [2023], min_share=0.1) == set(
        special_days(2023, min_share=0.1)
    )
    assert special_dates(["2023-04-04"], [2023]) == {dt.date(2023, 4, 4)}
    # local days: 23:30 UTC on 30 October is already Reformation Day in Berlin
    times = pd.DatetimeIndex(["2023-10-30 22:30", "2023-10-30 23:30", "2023-03-08 12:00"], tz="UTC")
    assert special_mask(times, "holidays-DE", TZ).tolist() == [True, True, True]
    assert special_mask(times, "holidays-DE", TZ, min_share=0.1).tolist() == [True, True, False]
    assert special_mask(times[:0], "holidays-DE", TZ).shape == (0,)
    naive = pd.DatetimeIndex(["2023-05-19 08:00", "2023-05-17 08:00"])  # taken as local
    assert special_mask(naive, "holidays-DE", TZ).tolist() == [True, False]


def test_other_countries():
    # Australia: no population table; a holiday in any state counts
    au = special_days(2023, "AU")
    assert dt.date(2023, 1, 26) in au  # Australia Day
    assert dt.date(2023, 3, 6) in au  # Labour Day in Western Australia only
    with pytest.raises(ValueError, match=r"min_share=0.1 needs the population.*'AU'"):
        special_days(2023, "AU", min_share=0.1)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(country="XX"), ValueError, "unknown holiday calendar country='XX'"),
        (dict(country="DE-XX"), ValueError, "DE-XX"),
        (dict(min_share=1.5), ValueError, r"min_share must be in \[0, 1\], got 1.5"),
        (dict(min_share="10 %"), TypeError, "min_share must be a number"),
    ],
)
def test_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        special_days(2023, **kwargs)


def test_min_share_needs_a_country():
    with pytest.raises(ValueError, match="min_share applies to 'holidays-<country>'"):
        special_dates(["2023-01-02"], [2023], min_share=0.1)
