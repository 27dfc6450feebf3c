"""``forecast update``: a saved or registered model learns the latest data's new rows."""

from __future__ import annotations

import json

import pandas as pd

from forecast import Naive
from forecast.cli import main

ZONE = "Europe/Berlin"


def write(frame: pd.DataFrame, path) -> str:
    frame.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return str(path)


def hours(n: int = 48) -> pd.DataFrame:
    index = pd.date_range("2024-05-01", periods=n, freq="h", tz=ZONE)
    return pd.DataFrame({"load": range(n), "extra": 0.0}, index=index).astype(float)


def test_update_of_a_folder_learns_the_new_rows_only(tmp_path, capsys):
    data = hours()
    Naive().fit(data.loc[: data.index[23], ["load"]]).save(tmp_path / "week-0")
    latest = write(data, tmp_path / "latest.csv")  # an extra column: left out
    args = ["update", "--model", str(tmp_path / "week-0"), "--input", latest, "--no-track"]
    assert main([*args, "--output", str(tmp_path / "week-1")]) == 0
    assert "updated " in capsys.readouterr().err
    manifest = json.loads((tmp_path / "week-1" / "meta.json").read_text())
    lineage = manifest["lineage"]
    assert lineage["n_updates"] == 1 and lineage["updated_through"] == str(data.index[-1])
    assert lineage["records"][-1]["rows"] == 24
    again = ["update", "--model", str(tmp_path / "week-1"), "--input", latest, "--no-track"]
    assert main([*again, "--output", str(tmp_path / "week-2")]) == 1
    assert "nothing new; nothing was updated" in capsys.readouterr().err
    assert not (tmp_path / "week-2").exists()
    assert main([*args, "--output", str(tmp_path / "x"), "--alias", "challenger"]) == 1
    assert "--alias needs --register" in capsys.readouterr().err


def test_update_of_a_registered_version_registers_the_next(tmp_path, new_store):
    from mlflow import MlflowClient

    from forecast.tracking import register, track_fit

    store = new_store("update-command")
    data = hours()
    run = track_fit(
        Naive(), data.loc[: data.index[23], ["load"]], experiment="fits", tracking_uri=store,
        log_model=True,
    )  # fmt: skip
    register(run.model_info.model_uri, "load", alias="champion", tracking_uri=store)
    latest = write(data, tmp_path / "latest.csv")
    args = ["update", "--model", "models:/load@champion", "--input", latest]
    args += ["--output", str(tmp_path / "updated"), "--tracking-uri", store]
    assert main([*args, "--register", "load", "--alias", "challenger"]) == 0
    client = MlflowClient(store)
    version = client.get_model_version_by_alias("load", "challenger")
    assert str(version.version) == "2"
    tags = client.get_run(version.run_id).data.tags
    assert tags["n_updates"] == "1" and tags["updated_through"] == str(data.index[-1])
