import numpy as np
import pandas as pd
import pytest

from forecast.datasets import read_opsd


@pytest.fixture
def opsd_file(tmp_path):
    utc = pd.date_range("2019-03-30 22:00", periods=30, freq="h", tz="UTC")
    df = pd.DataFrame(
        {
            "utc_timestamp": utc.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "cet_cest_timestamp": utc.tz_convert("Europe/Berlin").strftime("%Y-%m-%dT%H:%M:%S%z"),
            "AT_load_actual_entsoe_transparency": np.arange(30) + 6000.0,
            "AT_load_forecast_entsoe_transparency": np.arange(30) + 6100.0,
            "DE_load_actual_entsoe_transparency": np.arange(30) + 50000.0,
            "DE_load_forecast_entsoe_transparency": np.arange(30) + 51000.0,
            "DE_solar_generation_actual": np.zeros(30),
            "DE_LU_load_actual_entsoe_transparency": np.arange(30) + 52000.0,
        }
    )
    df.loc[5, "DE_load_actual_entsoe_transparency"] = np.nan
    path = tmp_path / "time_series_60min_singleindex.csv"
    df.to_csv(path, index=False)
    return path


def test_select_one_country(opsd_file):
    df = read_opsd(opsd_file, countries="DE")
    assert list(df.columns) == [
        "DE_load_actual_entsoe_transparency",
        "DE_load_forecast_entsoe_transparency",
    ]
    assert df.index[0] == pd.Timestamp(
        "2019-03-30 22:00", tz="UTC"
    ) and df.index.freq == pd.Timedelta("1h")
    assert len(df) == 30  # the UTC index has no DST hole
    assert np.isnan(df.iloc[5, 0]) and df.iloc[6, 0] == 50006.0
    assert df.attrs["gaps"]["DE_load_actual_entsoe_transparency"]["n_missing"] == 1


def test_select_all_and_variables(opsd_file):
    assert list(read_opsd(opsd_file).columns) == [
        "AT_load_actual_entsoe_transparency",
        "AT_load_forecast_entsoe_transparency",
        "DE_load_actual_entsoe_transparency",
        "DE_load_forecast_entsoe_transparency",
        "DE_LU_load_actual_entsoe_transparency",
    ]
    df = read_opsd(
        opsd_file, countries=["DE_LU", "AT"], variables=["load_actual_entsoe_transparency"]
    )
    assert list(df.columns) == [
        "AT_load_actual_entsoe_transparency",
        "DE_LU_load_actual_entsoe_transparency",
    ]


def test_unknown_country_lists_available(opsd_file):
    with pytest.raises(ValueError, match=r"\['FR'\].*\['AT', 'DE', 'DE_LU'\]"):
        read_opsd(opsd_file, countries=["DE", "FR"])
