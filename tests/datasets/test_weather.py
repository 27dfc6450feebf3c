import gzip

import numpy as np
import pandas as pd
import pytest

from forecast.datasets import DATASETS, list_datasets, load, read_de_weather
from forecast.frames.weather import weather_features


def _write(path, text):
    with gzip.open(path, "wt") as handle:
        handle.write(text)


HEADER = "date,temperature_2m,precipitation,wind_speed_100m,direct_radiation\n"


def test_read_de_weather_parses_utc_and_converts(tmp_path):
    path = tmp_path / "w.csv.gz"
    _write(
        path,
        HEADER + "2023-03-26 00:00:00+00:00,1.5,0.0,10,0\n2023-03-26 01:00:00+00:00,2.5,0.1,12,0\n",
    )
    frame = read_de_weather(path, timezone="Europe/Berlin")
    assert list(frame.columns) == [
        "temperature_2m",
        "precipitation",
        "wind_speed_100m",
        "direct_radiation",
    ]
    # 00:00 UTC is 01:00 CET; 01:00 UTC is 03:00 CEST (the clocks went forward)
    assert [t.strftime("%H:%M%z") for t in frame.index] == ["01:00+0100", "03:00+0200"]
    assert frame["temperature_2m"].tolist() == [1.5, 2.5]
    assert "Open-Meteo" in frame.attrs["attribution"] and "not a forecast" in frame.attrs["kind"]


@pytest.mark.parametrize(
    "body, match",
    [
        ("date,temperature_2m\n2023-01-01 00:00+00:00,1\n", r"lacks column\(s\) \['precipitation'"),
        (
            HEADER + "2023-01-01 00:00+00:00,warm,0,0,0\n",
            r"'temperature_2m'.*2023-01-01 00:00:00\+00:00: 'warm'",
        ),
        (
            HEADER + "2023-01-01 01:00+00:00,1,0,0,0\n2023-01-01 00:00+00:00,1,0,0,0\n",
            "not strictly increasing",
        ),
    ],
)
def test_read_de_weather_names_what_is_wrong(tmp_path, body, match):
    path = tmp_path / "bad.csv.gz"
    _write(path, body)
    with pytest.raises(ValueError, match=match):
        read_de_weather(path)


def test_catalogue_lists_the_weather_with_its_attribution(tmp_path):
    info = DATASETS["de-weather"]
    assert info.folder == "de_temperature"
    assert "Open-Meteo.com" in info.licence and "Deutscher Wetterdienst" in info.licence
    row = list_datasets(tmp_path).set_index("name").loc["de-weather"]
    assert not row["available"] and "observed, not forecast" in row["description"]
    with pytest.raises(FileNotFoundError, match="forecast data fetch de-weather"):
        load("de-weather", data_dir=tmp_path)


def test_load_staged_weather(data_dir):
    weather = load("de-weather", data_dir=data_dir, timezone="Europe/Berlin")
    assert weather.shape == (62473, 4)
    hours = weather.loc["2019-01-01 01:00":"2024-01-01 00:00"]  # 2019-2023 in UTC
    assert len(hours) == 43824 and not hours.isna().any().any()
    assert weather["temperature_2m"].idxmax() == pd.Timestamp(
        "2019-07-25 15:00", tz="Europe/Berlin"
    )
    yearly = weather["temperature_2m"].tz_convert("UTC").groupby(lambda t: t.year).mean()
    assert round(yearly[2021], 2) == 10.13 and round(yearly[2023], 2) == 11.68  # PROVENANCE.md
    stations = load("de-weather", data_dir=data_dir, stations=True)
    assert stations.shape == (1826, 10) and stations.notna().sum().min() >= 1674


def test_weather_features_degrees_and_local_day_mean():
    index = pd.date_range("2023-01-01 22:00", periods=4, freq="h", tz="UTC")
    frame = pd.DataFrame({"temperature_2m": [10.0, 14.0, 25.0, 15.0]}, index=index)
    out = weather_features(frame, timezone="Europe/Berlin")
    assert out["heating_degrees"].tolist() == [5.0, 1.0, 0.0, 0.0]
    assert out["cooling_degrees"].tolist() == [0.0, 0.0, 3.0, 0.0]
    # 22:00 UTC is 23:00 on 1 Jan in Berlin; 23:00, 00:00, 01:00 UTC are on 2 Jan
    assert out["temperature_2m_day_mean"].tolist() == [10.0, 18.0, 18.0, 18.0]
    assert list(frame.columns) == ["temperature_2m"]  # input unchanged


def test_weather_features_keep_vintages_apart():
    valid = pd.date_range("2023-01-02", periods=2, freq="h", tz="UTC")
    frame = pd.DataFrame(
        {
            "issue_time": [valid[0] - pd.Timedelta("1D")] * 2 + [valid[0] - pd.Timedelta("2D")] * 2,
            "valid_time": list(valid) * 2,
            "temperature_2m": [1.0, 3.0, 10.0, 20.0],
        }
    )
    out = weather_features(frame)
    assert out["temperature_2m_day_mean"].tolist() == [2.0, 2.0, 15.0, 15.0]
    assert np.allclose(out["heating_degrees"], [14, 12, 5, 0])
