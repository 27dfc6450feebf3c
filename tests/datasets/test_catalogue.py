import pandas as pd
import pytest

from forecast.datasets import DATASETS, list_datasets, load, resolve_data_dir
from forecast.datasets.catalogue import ENV_VAR


def test_resolution_order(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    assert resolve_data_dir(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_data_dir() == tmp_path / "env"
    monkeypatch.delenv(ENV_VAR)
    work = tmp_path / "project" / "repo"
    (tmp_path / "project" / "shared" / "data" / "ett_small").mkdir(parents=True)
    work.mkdir()
    monkeypatch.chdir(work)
    assert (
        resolve_data_dir(dataset="ett-h1") == (tmp_path / "project" / "shared" / "data").resolve()
    )


def test_unknown_and_missing(tmp_path):
    with pytest.raises(KeyError, match="entsoe-de"):
        load("nope")
    with pytest.raises(
        FileNotFoundError, match=r"ett_small.*FORECAST_DATA_DIR.*forecast data fetch ett-h1"
    ):
        load("ett-h1", data_dir=tmp_path)


def test_list_datasets(tmp_path):
    table = list_datasets(tmp_path)
    assert list(table.columns) == ["name", "available", "path", "description", "source", "licence"]
    assert set(table["name"]) == set(DATASETS)
    assert {"entsoe-de", "entsoe-ch", "smard-de", "cmu-mocap", "ett-h1", "elecdemand"} <= set(
        table["name"]
    )
    avail = dict(zip(table["name"], table["available"], strict=True))
    assert avail["elecdemand"] and not avail["entsoe-de"]


def test_elecdemand():
    df = load("elecdemand")
    assert df.shape == (17520, 3) and list(df.columns) == ["demand", "temperature", "workday"]
    assert df.index.freq == pd.Timedelta("30min") and str(df.index.tz) == "Etc/GMT-10"
    assert df.index[0] == pd.Timestamp("2014-01-01 00:00", tz="Etc/GMT-10")
    assert df.index[0].tz_convert("UTC") == pd.Timestamp("2013-12-31 14:00", tz="UTC")
    daily = df["workday"].groupby(df.index.date).first()
    assert daily[pd.Timestamp("2014-01-01").date()] == 0  # New Year's Day
    assert daily[pd.Timestamp("2014-01-02").date()] == 1  # Thursday
    assert daily[pd.Timestamp("2014-01-04").date()] == 0  # Saturday
    assert 3 < df["demand"].mean() < 6  # GW


def test_load_staged(data_dir):
    shapes = {
        "entsoe-ch": (84719, 2),
        "smard-de": (78894, 18),
        "ett-h1": (17420, 7),
    }
    for name, shape in shapes.items():
        df = load(name, data_dir=data_dir)
        assert df.shape == shape, name
        assert isinstance(df.index, pd.DatetimeIndex) and df.index.freq is not None
    mocap = load("cmu-mocap", data_dir=data_dir, drop_constant=True, drop_global=True)
    assert len(mocap) == 38 and sum(k.startswith("test/") for k in mocap) == 6
    # every 2nd frame; 70 dimensions vary over the staged training split, 64 without root
    assert {f.shape[1] for f in mocap.values()} == {64}
    assert mocap["train/walking_1"].shape == (172, 64)
    assert mocap["train/walking_1"].index.freq == pd.Timedelta("40ms")
    bvh = load("cmu-bvh", data_dir=data_dir)
    assert sorted(bvh) == ["131_01", "131_02", "131_03"]
