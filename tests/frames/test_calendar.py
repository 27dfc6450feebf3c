import time

import numpy as np
import pandas as pd
import pytest

from forecast.frames.calendar import (
    CALENDAR_COLUMNS,
    HOLIDAY_COLUMNS,
    REGION_POPULATION,
    calendar_features,
    holiday_shares,
)

TZ = "Europe/Berlin"


def local_hour(features):
    return np.round(np.degrees(np.arctan2(features["hour_sin"], features["hour_cos"])) / 15, 6) % 24


def test_columns_order_and_dtype():
    idx = pd.date_range("2023-01-01", periods=48, freq="h", tz="UTC")
    f = calendar_features(idx, timezone=TZ, country="DE")
    assert tuple(f.columns) == CALENDAR_COLUMNS + HOLIDAY_COLUMNS
    assert f.index.equals(idx) and all(d == np.float64 for d in f.dtypes)
    daily = calendar_features(pd.date_range("2023-01-01", periods=10, freq="D"))
    assert tuple(daily.columns) == CALENDAR_COLUMNS[2:]


def test_hour_includes_minutes_and_local_time():
    idx = pd.date_range("2023-01-01 23:00", periods=4, freq="15min", tz="UTC")
    f = calendar_features(idx, timezone=TZ)  # 00:00, 00:15, 00:30, 00:45 CET
    assert np.allclose(local_hour(f), [0, 0.25, 0.5, 0.75])
    assert np.allclose(f["hour_sin"].iloc[0], 0) and np.allclose(f["hour_cos"].iloc[0], 1)
    # the index's own zone is the default; naive = already local
    assert np.allclose(local_hour(calendar_features(idx)), [23, 23.25, 23.5, 23.75])
    naive = calendar_features(idx.tz_localize(None), timezone=TZ)
    assert np.allclose(local_hour(naive), [23, 23.25, 23.5, 23.75])


@pytest.mark.parametrize("day, hours", [("2023-03-26", 23), ("2023-10-29", 25)])
def test_dst_days_follow_the_local_clock(day, hours):
    idx = pd.date_range("2023-03-20", "2023-11-05", freq="h", tz="UTC")
    f = calendar_features(idx, timezone=TZ)
    local = idx.tz_convert(TZ)
    assert np.array_equal(local_hour(f), local.hour)
    on_day = local_hour(f)[local.normalize() == pd.Timestamp(day, tz=TZ)]
    assert len(on_day) == hours
    assert on_day.iloc[0] == 0 and on_day.iloc[-1] == 23  # local midnight to 23:00
    if hours == 23:
        assert 2 not in set(on_day)
    else:
        assert (on_day == 2).sum() == 2
    # a whole local day shares day-of-week and day-of-year
    mask = local.normalize() == pd.Timestamp(day, tz=TZ)
    assert f.loc[mask, ["dow_sin", "doy_sin"]].nunique().tolist() == [1, 1]


def test_day_of_week_and_year_by_hand():
    idx = pd.DatetimeIndex(["2024-01-01", "2024-01-07", "2024-12-31", "2023-07-02"])  # Mon, Sun
    f = calendar_features(idx)
    assert np.allclose(f["dow_sin"], np.sin(2 * np.pi * np.array([0, 6, 1, 6]) / 7))
    assert np.allclose(f[["doy_sin", "doy_cos"]].iloc[0], [0, 1])
    assert np.allclose(f["doy_sin"].iloc[2], np.sin(2 * np.pi * 365 / 366))  # leap year


def test_german_holidays_and_bridge_days():
    idx = pd.date_range("2023-05-01", "2023-12-31 23:00", freq="h", tz="UTC")
    f = calendar_features(idx, timezone=TZ, country="DE")
    by_day = f.groupby(idx.tz_convert(TZ).date)[["holiday", "bridge_day"]].agg(["min", "max"])
    # one value per local day, even though UTC hours straddle midnight
    assert (by_day.xs("min", axis=1, level=1) == by_day.xs("max", axis=1, level=1)).all().all()
    day = by_day.xs("max", axis=1, level=1)

    def flags(d):
        return day.loc[pd.Timestamp(d).date()].tolist()

    assert flags("2023-10-03") == [1, 0]  # German Unity Day (Tuesday)
    assert flags("2023-10-02") == [0, 1]  # Monday before it
    assert flags("2023-05-18") == [1, 0]  # Ascension Day (Thursday)
    assert flags("2023-05-19") == [0, 1]  # bridge day
    assert flags("2023-05-20") == [0, 0]  # Saturday: not a working day
    assert flags("2023-10-04") == [0, 0]
    assert flags("2023-06-08") == [0, 0]  # Corpus Christi is not national
    # May 1, Ascension, Whit Monday, Oct 3, Dec 25, Dec 26 (+ Jan 1 2024 at 00:00 CET = 23:00Z)
    assert day["holiday"].sum() == 7 and flags("2024-01-01") == [1, 0]


def test_population_shares_of_regional_holidays_and_bridge_days():
    # Destatis, 31 Dec 2022
    pop = {"BW": 11_280_257, "BY": 13_369_393, "HE": 6_391_360, "NW": 18_139_116}
    pop |= {"RP": 4_159_150, "SL": 992_666}
    total = 84_358_845
    assert REGION_POPULATION["DE"]["NW"] == pop["NW"]
    assert sum(REGION_POPULATION["DE"].values()) == total
    idx = pd.date_range("2023-01-01", "2024-01-02 23:00", freq="h", tz="UTC")
    f = calendar_features(idx, timezone=TZ, country="DE")
    local = idx.tz_convert(TZ)
    day = f.groupby(local.date).first()

    def row(d):
        return day.loc[pd.Timestamp(d).date(), ["holiday_share", "bridge_share", "christmas"]]

    corpus_christi = sum(pop.values()) / total  # BW, BY, HE, NW, RP, SL: 54,331,942
    assert corpus_christi == pytest.approx(0.644057, abs=1e-6)
    assert row("2023-06-08").tolist() == pytest.approx([corpus_christi, 0, 0])
    assert row("2023-06-09").tolist() == pytest.approx([0, corpus_christi, 0])  # bridge Friday
    all_saints = (sum(pop.values()) - pop["HE"]) / total  # Wednesday: no bridge
    assert row("2023-11-01").tolist() == pytest.approx([all_saints, 0, 0])
    assert row("2023-10-03").tolist() == [1, 0, 0]  # German Unity Day: everyone
    assert row("2023-05-19").tolist() == [0, 1, 0]  # Friday after Ascension, everywhere
    assert row("2023-12-27").tolist() == [0, 0, 1] and row("2023-12-24").tolist() == [0, 0, 1]
    assert row("2023-12-25").tolist() == [1, 0, 1] and row("2024-01-01").tolist() == [1, 0, 1]
    assert row("2023-12-23").tolist() == [0, 0, 0] and row("2024-01-02").tolist() == [0, 0, 0]
    # the national flags stay national: Corpus Christi is not a holiday everywhere
    assert day.loc[pd.Timestamp("2023-06-08").date(), ["holiday", "bridge_day"]].tolist() == [0, 0]
    # a subdivision, and a country without a population table, give 0/1 flags
    days = np.array([19516, 19517])  # 2023-06-08, 2023-06-09
    by = holiday_shares(days, "DE-BY")
    assert [v.tolist() for v in by] == [[1.0, 0.0], [0.0, 1.0]]
    fr = holiday_shares(np.array([19662]), "FR")  # 2023-11-01, Toussaint
    assert [v.tolist() for v in fr] == [[1.0], [0.0]]


def test_subdivision():
    idx = pd.date_range("2023-06-08", periods=2, freq="D")
    by = calendar_features(idx, country="DE-BY")
    assert by["holiday"].tolist() == [1, 0] and by["bridge_day"].tolist() == [0, 1]
    with pytest.raises(ValueError, match="DE-XX"):
        calendar_features(idx, country="DE-XX")


def test_ten_years_hourly_is_fast():
    idx = pd.date_range("2014-01-01", "2023-12-31 23:00", freq="h", tz="UTC")
    calendar_features(idx[:48], timezone=TZ, country="DE")  # warm the holidays import
    start = time.perf_counter()
    f = calendar_features(idx, timezone=TZ, country="DE")
    elapsed = time.perf_counter() - start
    assert f.shape == (len(idx), 6 + 5)
    assert elapsed < 1.0, f"{elapsed:.2f} s"


def test_bad_input():
    with pytest.raises(TypeError, match="DatetimeIndex"):
        calendar_features(pd.RangeIndex(3))
    with pytest.raises(ValueError, match="NaT"):
        calendar_features(pd.DatetimeIndex(["2023-01-01", None]))
