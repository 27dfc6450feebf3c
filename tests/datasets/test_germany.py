import numpy as np
import pandas as pd
import pytest

from forecast.datasets import german_load, load
from tests.datasets.test_entsoe import export_rows, value_of, write

TZ = "Europe/Berlin"


@pytest.fixture
def folder(tmp_path):
    """A data folder with two days of synthetic ENTSO-E quarter-hours around New Year 2019.

    Values are minutes since 2023-01-01 of the UTC timestamp; one quarter-hour (00:15 local
    on 1 January) and one whole hour (05:00-06:00 local on 2 January) are missing.
    """

    def values(utc):
        v = value_of(utc).astype(object)
        local = utc.tz_convert(TZ)
        v[np.asarray(local == pd.Timestamp("2019-01-01 00:15", tz=TZ))] = None
        hour = (local >= pd.Timestamp("2019-01-02 05:00", tz=TZ)) & (
            local < pd.Timestamp("2019-01-02 06:00", tz=TZ)
        )
        v[np.asarray(hour)] = None
        return v

    data = tmp_path / "entsoe_de_load_15min"
    data.mkdir()
    write(data / "de.csv", export_rows("2018-12-31", "2019-01-04", "15min", values=values))
    return tmp_path


def test_hourly_means_of_local_days(folder):
    df = german_load(start="2019-01-01", end="2019-01-02", data_dir=folder)
    assert list(df.columns) == ["actual", "forecast"] and df.index.name == "time"
    assert str(df.index.tz) == TZ and df.index.freq == pd.Timedelta("1h")
    assert df.index[0] == pd.Timestamp("2019-01-01 00:00", tz=TZ) and len(df) == 48
    first = value_of(pd.DatetimeIndex([df.index[0]]))[0]
    # 00:00-01:00 local: 00:00, 00:30, 00:45 observed (00:15 missing) -> their mean
    assert df["actual"].iloc[0] == pytest.approx(first + (0 + 30 + 45) / 3)
    assert df["actual"].iloc[1] == pytest.approx(first + 60 + 22.5)  # all four
    assert df["forecast"].iloc[1] == pytest.approx(first + 60 + 22.5 + 1)
    missing = df["actual"][df["actual"].isna()]
    assert list(missing.index) == [pd.Timestamp("2019-01-02 05:00", tz=TZ)]  # stays NaN


def test_quarter_hours_columns_and_zone(folder):
    df = german_load("15min", start="2019-01-02", end="2019-01-02", columns=["actual"],
                     timezone="UTC", data_dir=folder)  # fmt: skip
    assert list(df.columns) == ["actual"] and len(df) == 96 and str(df.index.tz) == "UTC"
    assert df.index[0] == pd.Timestamp("2019-01-01 23:00", tz="UTC")  # local midnight
    naive_bounds = german_load(
        start=pd.Timestamp("2019-01-02"), end=pd.Timestamp("2019-01-02 23:00"), data_dir=folder
    )
    assert naive_bounds.index[0] == pd.Timestamp("2019-01-02", tz=TZ) and len(naive_bounds) == 24


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(resolution="daily"), r"resolution must be one of \('hourly', '15min'\)"),
        (dict(columns=["load"]), r"unknown columns \['load'\]; entsoe-de has"),
        (dict(start="2020-01-01", end="2020"), "no load between start='2020-01-01'"),
    ],
)
def test_bad_arguments(folder, kwargs, message):
    with pytest.raises(ValueError, match=message):
        german_load(data_dir=folder, **kwargs)


def test_real_data_is_the_catalogue_frame_resampled(data_dir):
    raw = load("entsoe-de", data_dir=data_dir)
    df = german_load(columns=["actual"], start="2023-01-01", end="2023", data_dir=data_dir)
    expected = raw[["actual"]].resample("1h").mean().tz_convert(TZ).loc["2023-01-01":"2023"]
    pd.testing.assert_frame_equal(df, expected)
    per_day = df.groupby(df.index.date).size()
    assert per_day[pd.Timestamp("2023-03-26").date()] == 23  # spring forward
    assert per_day[pd.Timestamp("2023-10-29").date()] == 25  # fall back
    assert len(df) == 8760
