"""Day-ahead schedules in zones whose daylight-saving switch is at local midnight.

In America/Santiago, America/Havana and Asia/Beirut the clocks jump from 00:00 to 01:00 in
spring, so that local day starts at 01:00 and has 23 hours; Havana falls back from 01:00 to
00:00 (two midnights), Santiago and Beirut from 00:00 to 23:00 of the day before (two
23:00s). The dates below are those of the IANA database as pandas reads it.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from forecast.evaluation.backtest import backtest, day_ahead_plan
from forecast.evaluation.schedule import BeyondDataWarning
from forecast.frames.timezones import local_day_starts
from forecast.models.baselines import Naive


def mae(y_true, y_pred):
    return float(np.mean(np.abs(y_true - y_pred)))


# zone: [(local day, hours, first local stamp of the day, last local stamp)]
DAYS = {
    "America/Santiago": [
        ("2023-09-03", 23, "2023-09-03 01:00-03:00", "2023-09-03 23:00-03:00"),
        ("2023-04-01", 25, "2023-04-01 00:00-03:00", "2023-04-01 23:00-04:00"),
    ],
    "America/Havana": [
        ("2023-03-12", 23, "2023-03-12 01:00-04:00", "2023-03-12 23:00-04:00"),
        ("2023-11-05", 25, "2023-11-05 00:00-04:00", "2023-11-05 23:00-05:00"),
    ],
    "Asia/Beirut": [
        ("2023-03-26", 23, "2023-03-26 01:00+03:00", "2023-03-26 23:00+03:00"),
        ("2023-10-28", 25, "2023-10-28 00:00+03:00", "2023-10-28 23:00+02:00"),
    ],
}
CASES = [(zone, *day) for zone, days in DAYS.items() for day in days]


def hourly_utc(start="2023-01-01", end="2024-01-01"):
    """A ramp 0, 1, 2, ... on hourly UTC stamps: every instant exists exactly once."""
    index = pd.date_range(start, end, freq="h", tz="UTC", inclusive="left")
    return pd.DataFrame({"load": np.arange(len(index), dtype=float)}, index=index)


def test_the_switches_are_at_local_midnight():
    for zone, days in DAYS.items():
        index = hourly_utc().index.tz_convert(zone)
        offsets = pd.Series(index.map(lambda t: t.utcoffset()), index=index)
        switches = index[1:][offsets.to_numpy()[1:] != offsets.to_numpy()[:-1]]
        assert len(switches) == 2
        spring, autumn = sorted(switches, key=lambda t: t.utcoffset(), reverse=True)
        assert (spring.hour, spring.minute) == (1, 0)  # 00:00 does not exist
        assert spring.strftime("%Y-%m-%d") == days[0][0]
        assert autumn.hour in (0, 23)  # a repeated midnight (Havana) or 23:00


def test_local_day_starts_is_the_first_existing_local_time():
    days = pd.DatetimeIndex(["2023-09-02", "2023-09-03", "2023-09-04"])
    starts = local_day_starts(days, "America/Santiago")
    assert [t.isoformat() for t in starts] == [
        "2023-09-02T00:00:00-04:00",
        "2023-09-03T01:00:00-03:00",
        "2023-09-04T00:00:00-03:00",
    ]
    havana = local_day_starts(pd.DatetimeIndex(["2023-11-05"]), "America/Havana")
    assert havana[0].isoformat() == "2023-11-05T00:00:00-04:00"  # the first of two midnights
    assert local_day_starts(days, None).equals(days)


@pytest.mark.parametrize(("zone", "day", "hours", "first", "last"), CASES)
def test_day_ahead_plan_of_a_switch_day(zone, day, hours, first, last):
    plan = day_ahead_plan(hourly_utc().index, day, day, timezone=zone)
    assert len(plan) == 1
    row = plan.iloc[0]
    assert row["n_steps"] == hours
    assert row["first"] == pd.Timestamp(first) and row["last"] == pd.Timestamp(last)
    assert row["day"] == pd.Timestamp(first)  # the day's start, in local time
    # issued at 12:00 local on the day before; the origin is the hour 11:00-12:00
    before = (pd.Timestamp(day) - pd.Timedelta("1D")).strftime("%Y-%m-%d")
    assert row["issue"] == pd.Timestamp(f"{before} 12:00").tz_localize(zone)
    assert row["origin"] == row["issue"] - pd.Timedelta("1h")


@pytest.mark.parametrize("zone", list(DAYS))
def test_backtest_scores_each_local_day_as_it_is(zone):
    df = hourly_utc()
    (spring, *_), (autumn, *_) = DAYS[zone]
    counts = {}
    for day in (spring, autumn):
        start = (pd.Timestamp(day) - pd.Timedelta("1D")).strftime("%Y-%m-%d")
        end = (pd.Timestamp(day) + pd.Timedelta("1D")).strftime("%Y-%m-%d")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = backtest(
                Naive(),
                df,
                protocol="day-ahead",
                start=start,
                end=end,
                timezone=zone,
                metrics=(mae,),
            )
        local = res.forecasts["time"].dt.tz_convert(zone)
        per_day = res.forecasts.groupby(local.dt.strftime("%Y-%m-%d")).size()
        counts.update(per_day.to_dict())
        # each forecast is scored on one local day, issued at 12:00 of the day before
        issue = (res.origins + pd.Timedelta("1h")).tz_convert(zone)
        assert (issue.hour == 12).all() and (issue.minute == 0).all()
        assert list(per_day.index) == [start, day, end]
        assert len(res.origins) == 3
    assert counts[spring] == 23
    assert counts[autumn] == 25
    others = [n for d, n in counts.items() if d not in (spring, autumn)]
    assert others == [24] * 4


def test_hh_mm_origins_around_a_midnight_switch():
    res = backtest(
        Naive(),
        hourly_utc(),
        horizon=24,
        origins="12:00",
        start="2023-09-02",
        end="2023-09-05",
        timezone="America/Santiago",
        metrics=(mae,),
    )
    issue = (res.origins + pd.Timedelta("1h")).tz_convert("America/Santiago")
    assert list(issue.strftime("%m-%d %H:%M")) == ["09-02 12:00", "09-03 12:00", "09-04 12:00"]


# ------------------------------------------------------------- a period past the data
def test_end_beyond_the_data_warns_with_the_end_and_the_last_timestamp():
    df = hourly_utc("2023-01-01", "2023-03-25")  # last stamp 2023-03-24 23:00 UTC
    with pytest.warns(BeyondDataWarning, match="2023-12-31.*2023-03-24 23:00") as caught:
        res = backtest(
            Naive(),
            df,
            protocol="day-ahead",
            start="2023-01-02",
            end="2023-12-31",
            timezone="UTC",
            metrics=(mae,),
        )
    assert len(caught) == 1 and caught[0].filename == __file__
    assert len(res.origins) == 82  # 2 January .. 24 March: what the data hold
    # an end inside the data, or at its very end, says nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        backtest(Naive(), df, horizon=24, start="2023-03-01", end="2023-03-24", timezone="UTC")
        end = pd.Timestamp("2023-03-24 23:00", tz="UTC")
        backtest(Naive(), df, horizon=24, start="2023-03-01", end=end, timezone="UTC")


def test_start_beyond_the_data_raises_with_the_last_timestamp():
    df = hourly_utc("2023-01-01", "2023-03-25")
    with pytest.raises(ValueError, match="start='2023-06-01'.*2023-03-24 23:00"):
        backtest(Naive(), df, protocol="day-ahead", start="2023-06-01", timezone="UTC")
