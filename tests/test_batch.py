import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast import batch
from forecast.batch import BatchError, issue_date, main, run_batch
from forecast.models.baselines import SeasonalNaive
from forecast.tracking import fingerprint, register, track_fit
from tests.conftest import make_series

MODEL = "models:/power-load-de@champion"


@pytest.fixture(scope="module")
def setup(tmp_path_factory, new_store):
    """A registered champion, a locally saved copy, and the latest data as CSV and Parquet."""
    store = new_store("batch")
    folder = tmp_path_factory.mktemp("batch-files")
    data = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    est = SeasonalNaive(season="1D", n_seasons=2)
    cb = track_fit(est, data.iloc[: 24 * 7], experiment="train", tracking_uri=store, log_model=True)
    register(cb.model_info.model_uri, "power-load-de", alias="champion", tracking_uri=store)
    est.save(folder / "saved")
    latest = data.iloc[-24 * 3 :]  # ends 2023-01-10 23:00+01:00
    latest.to_csv(folder / "latest.csv")
    latest.to_parquet(folder / "latest.parquet")
    return {"store": store, "dir": folder, "est": est, "latest": latest}


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_rerun_is_byte_identical_and_matches_the_estimator(setup, tmp_path, suffix):
    store, latest = setup["store"], setup["latest"]
    pattern = str(tmp_path / "forecasts" / f"{{date}}{suffix}")
    first = run_batch(MODEL, setup["dir"] / "latest.csv", pattern, tracking_uri=store)
    assert first.path == tmp_path / "forecasts" / f"2023-01-10{suffix}"
    body = first.path.read_bytes()
    second = run_batch(MODEL, setup["dir"] / "latest.csv", pattern, tracking_uri=store)
    assert second.path == first.path and second.path.read_bytes() == body
    assert first.sha256 == second.sha256 == sha(first.path)
    assert os.listdir(first.path.parent) == [first.path.name]  # no temp files, no duplicates
    out = pd.read_parquet(first.path) if suffix == ".parquet" else pd.read_csv(first.path)
    expected = setup["est"].predict(horizon=24, history=latest)
    assert len(out) == 24 and not out["timestamp"].duplicated().any()
    stamps = pd.to_datetime(out["timestamp"], utc=True)
    assert (stamps == expected.index.tz_convert("UTC")).all()
    assert out["load"].to_numpy() == pytest.approx(expected["load"].to_numpy(), rel=1e-15)


def test_batch_run_is_logged_with_fingerprints(setup, tmp_path):
    result = run_batch(
        MODEL,
        setup["dir"] / "latest.parquet",
        tmp_path / "f.parquet",
        horizon=6,
        tracking_uri=setup["store"],
    )
    assert result.rows == 6
    run = MlflowClient(setup["store"]).get_run(result.run_id)
    assert run.data.tags["input_sha256"] == fingerprint(setup["latest"]) == result.input_sha256
    assert run.data.tags["output_sha256"] == result.sha256
    assert run.data.tags["issue_date"] == "2023-01-10"
    assert run.data.params["horizon"] == "6" and run.data.params["model"] == MODEL
    assert run.inputs.dataset_inputs[0].dataset.digest == result.input_sha256[:16]


def test_local_folder_parquet_input_gives_the_same_bytes(setup, tmp_path):
    via_registry = run_batch(
        MODEL,
        setup["dir"] / "latest.csv",
        tmp_path / "a.parquet",
        tracking_uri=setup["store"],
        track=False,
    )
    via_folder = run_batch(
        setup["dir"] / "saved", setup["dir"] / "latest.parquet", tmp_path / "b.parquet", track=False
    )
    assert via_registry.run_id is None
    assert via_folder.path.read_bytes() == via_registry.path.read_bytes()


def test_issue_date_is_the_last_timestamps_date_in_the_input_time_zone():
    index = pd.date_range("2023-01-14 22:00", periods=3, freq="h", tz="Europe/Berlin")
    frame = pd.DataFrame({"load": [1.0, 2.0, 3.0]}, index=index)
    assert issue_date(frame) == "2023-01-15"  # 00:00 local, still 2023-01-14 in UTC
    assert issue_date(frame.tz_convert("UTC")) == "2023-01-14"


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "case",
    [
        "garbage-csv",
        "truncated-parquet",
        "bad-timestamp",
        "missing-column",
        "nan-value",
        "missing-input",
        "bad-suffix",
    ],
)
def test_bad_input_exits_non_zero_with_one_line_and_writes_nothing(setup, tmp_path, capsys, case):
    bad = tmp_path / "in.csv"
    output = tmp_path / "out" / "{date}.parquet"
    latest = setup["latest"]
    expected = {
        "garbage-csv": "in.csv",
        "truncated-parquet": "in.parquet",
        "bad-timestamp": "not a time",
        "missing-column": "lacks column(s) ['load']",
        "nan-value": "non-finite",
        "missing-input": "does not exist",
        "bad-suffix": "unknown file type '.txt'",
    }[case]
    if case == "garbage-csv":
        bad.write_bytes(b"\x00\xff\x13garbage\n\x01,,\n")
    elif case == "truncated-parquet":
        bad = tmp_path / "in.parquet"
        bad.write_bytes((setup["dir"] / "latest.parquet").read_bytes()[:300])
    elif case == "bad-timestamp":
        frame = latest.rename_axis("timestamp").reset_index().astype({"timestamp": str})
        frame.loc[5, "timestamp"] = "not a time"
        frame.to_csv(bad, index=False)
    elif case == "missing-column":
        latest.rename(columns={"load": "demand"}).to_csv(bad)
    elif case == "nan-value":
        latest.assign(load=latest["load"].where(latest.index != latest.index[7])).to_csv(bad)
    elif case == "missing-input":
        bad = tmp_path / "nothing.csv"
    elif case == "bad-suffix":
        latest.to_csv(bad)
        output = tmp_path / "out" / "{date}.txt"
    code, out, err = run_cli(
        ["--model", setup["dir"] / "saved", "--input", bad, "--output", output, "--no-track"],
        capsys,
    )
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("forecast batch: error: ")
    assert expected in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "model", ["models:/nope@champion", "models:/power-load-de@retired", "missing-folder"]
)
def test_missing_model_exits_non_zero(setup, tmp_path, capsys, model):
    model = tmp_path / model if model == "missing-folder" else model
    code, out, err = run_cli(
        [
            "--model",
            model,
            "--input",
            setup["dir"] / "latest.csv",
            "--output",
            tmp_path / "out.csv",
            "--tracking-uri",
            setup["store"],
        ],
        capsys,
    )
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"model {model} not found" in err
    assert not (tmp_path / "out.csv").exists()


def test_model_uri_with_a_missing_store_creates_no_database(setup, tmp_path, capsys):
    store = f"sqlite:///{tmp_path / 'nowhere.db'}"
    code, out, err = run_cli(
        [
            "--model",
            MODEL,
            "--input",
            setup["dir"] / "latest.csv",
            "--output",
            tmp_path / "out.csv",
            "--tracking-uri",
            store,
        ],
        capsys,
    )
    assert code == 1 and "does not exist" in err and err.count("\n") == 1
    assert os.listdir(tmp_path) == []


def test_success_prints_path_rows_and_checksum(setup, tmp_path, capsys):
    code, out, err = run_cli(
        [
            "--model",
            MODEL,
            "--input",
            setup["dir"] / "latest.csv",
            "--output",
            tmp_path / "{date}.csv",
            "--tracking-uri",
            setup["store"],
            "--horizon",
            "3",
        ],
        capsys,
    )
    path = tmp_path / "2023-01-10.csv"
    assert code == 0 and err == ""
    assert out == f"{path}\t3 rows\tsha256 {sha(path)}\n"


def test_crash_while_writing_keeps_the_old_file_and_leaves_no_temp(setup, tmp_path, monkeypatch):
    target = tmp_path / "2023-01-10.csv"
    target.write_text("yesterday's forecast\n")

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        run_batch(
            setup["dir"] / "saved",
            setup["dir"] / "latest.csv",
            tmp_path / "{date}.csv",
            track=False,
        )
    assert target.read_text() == "yesterday's forecast\n"
    assert os.listdir(tmp_path) == [target.name]


def test_forecast_with_duplicated_rows_is_refused():
    stamps = pd.to_datetime(["2023-01-01 00:00", "2023-01-01 00:00"])
    with pytest.raises(BatchError, match="duplicated rows"):
        batch.forecast_table(pd.DataFrame({"load": [1.0, 2.0]}, index=stamps))


def test_module_entry_point_in_a_subprocess(setup, tmp_path):
    bad = tmp_path / "latest.parquet"  # a download cut short
    bad.write_bytes((setup["dir"] / "latest.parquet").read_bytes()[:-100])
    env = {**os.environ, "MLFLOW_TRACKING_URI": setup["store"]}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "forecast.batch",
            "--model",
            MODEL,
            "--input",
            str(bad),
            "--output",
            str(tmp_path / "out" / "{date}.parquet"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"forecast batch: error: input {bad}: ")
    assert not (tmp_path / "out").exists()
