"""The day-ahead horizon of a batch in zones whose DST switch is at local midnight."""

import pandas as pd
import pytest

from forecast.batch import run_batch
from forecast.batch.localtime import day_ahead_steps
from forecast.models.baselines import LinearLagForecaster
from tests.conftest import make_series

# (zone, last input stamp in local wall time, rows, first and last forecast stamp)
CASES = [
    # Santiago: 00:00 of 3 September does not exist; 23:00 of 1 April happens twice
    ("America/Santiago", "2023-09-02 23:00", 23, "2023-09-03T01:00:00-03:00", "-03:00"),
    ("America/Santiago", "2023-03-31 23:00", 25, "2023-04-01T00:00:00-03:00", "-04:00"),
    ("America/Santiago", "2023-09-02 11:00", 35, "2023-09-02T12:00:00-04:00", "-03:00"),
    # Havana: no 00:00 on 12 March; two midnights on 5 November
    ("America/Havana", "2023-03-11 23:00", 23, "2023-03-12T01:00:00-04:00", "-04:00"),
    ("America/Havana", "2023-11-04 23:00", 25, "2023-11-05T00:00:00-04:00", "-05:00"),
    # Beirut: no 00:00 on 26 March; 23:00 of 28 October twice
    ("Asia/Beirut", "2023-03-25 23:00", 23, "2023-03-26T01:00:00+03:00", "+03:00"),
    ("Asia/Beirut", "2023-10-27 23:00", 25, "2023-10-28T00:00:00+03:00", "+02:00"),
]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Per zone: a model with that ``timezone`` and the zone's hourly series."""
    folder = tmp_path_factory.mktemp("midnight-dst")
    out = {}
    for zone in sorted({case[0] for case in CASES}):
        data = make_series(n=24 * 365, tz="UTC", start="2023-01-01", name="timestamp", seed=5)
        data = data.tz_convert(zone)
        est = LinearLagForecaster(lags=[1, 2, 24], timezone=zone)
        est.fit(data.iloc[: 24 * 30])
        path = folder / zone.replace("/", "-")
        est.save(path)
        out[zone] = (path, data)
    return out


@pytest.mark.parametrize(("zone", "end", "rows", "first", "last_offset"), CASES)
def test_day_ahead_batch_covers_the_next_local_day(
    models, tmp_path, zone, end, rows, first, last_offset
):
    path, data = models[zone]
    history = data[data.index.tz_localize(None) <= pd.Timestamp(end)]
    source = tmp_path / "latest.csv"
    history.to_csv(source)  # local time, each stamp with its own offset
    result = run_batch(path, source, tmp_path / "{date}.csv", "day-ahead", track=False)
    assert result.path.name == f"{end[:10]}.csv"  # issue date: the last input stamp's date
    stamps = pd.read_csv(result.path, dtype={"timestamp": str})["timestamp"].tolist()
    target_day = stamps[-1][:10]
    assert (result.rows, len(stamps), stamps[0]) == (rows, rows, first)
    assert stamps[-1] == f"{target_day}T23:00:00{last_offset}"
    parsed = pd.to_datetime(pd.Series(stamps), format="ISO8601", utc=True).dt.tz_convert(zone)
    assert (parsed.diff().dropna() == pd.Timedelta("1h")).all()
    local_days = parsed.dt.strftime("%Y-%m-%d")
    next_day = (pd.Timestamp(end) + pd.Timedelta("1D")).strftime("%Y-%m-%d")
    assert target_day == next_day
    assert (local_days == next_day).sum() in (23, 24, 25)
    if rows < 30:
        assert local_days.nunique() == 1  # exactly the next local day


def test_day_ahead_steps_at_a_midnight_gap():
    last = pd.Timestamp("2023-09-02 23:00", tz="America/Santiago")
    assert day_ahead_steps(last, "h") == 23
    assert day_ahead_steps(last, "15min") == 23 * 4 + 3  # 23:15 .. 23:45 today, then 23 h
    after = pd.Timestamp("2023-09-03 01:00", tz="America/Santiago")  # the day's first hour
    assert day_ahead_steps(after - pd.Timedelta("1h"), "h") == 23
    assert day_ahead_steps(after, "h") == 22 + 24  # rest of the short day and all of the next
