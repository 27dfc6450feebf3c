import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast import batch
from forecast.batch import BatchError, issue_date, main, run_batch
from forecast.models.baselines import Naive, SeasonalNaive
from forecast.tracking import fingerprint, register, track_fit
from tests.batch.logcheck import errors
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
    """Run ``forecast batch``; return the exit code, stdout and the ERROR messages."""
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, errors(captured.err)


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
    assert err.count("\n") == 1
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
    yesterday = "timestamp,load\n2023-01-10T00:00:00+01:00,1.5\n"  # an earlier run's file
    target.write_text(yesterday)

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
    assert target.read_text() == yesterday
    assert os.listdir(tmp_path) == [target.name]


def test_output_over_a_file_that_is_not_a_forecast_is_refused_and_kept(setup, tmp_path):
    target = tmp_path / "2023-01-10.csv"
    target.write_text("my notes\n")
    with pytest.raises(BatchError, match=r"2023-01-10.csv exists and is not a table of the same"):
        run_batch(setup["dir"] / "saved", setup["dir"] / "latest.csv", tmp_path / "{date}.csv",
                  track=False)  # fmt: skip
    assert target.read_text() == "my notes\n"
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
    assert errors(proc.stderr).count("\n") == 1, proc.stderr
    assert errors(proc.stderr).startswith(f"input {bad}: ")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- local time and DST
BERLIN = "Europe/Berlin"


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """A model with ``timezone="Europe/Berlin"`` fitted on Berlin hourly data, and its inputs.

    ``cut(end, start)`` writes the synthetic Berlin series from ``start`` to ``end`` (local
    wall time, inclusive) as a CSV in local time, i.e. with the offsets of the day.
    """
    from forecast.models.baselines import LinearLagForecaster

    folder = tmp_path_factory.mktemp("batch-local")
    data = make_series(n=24 * 400, tz=BERLIN, start="2022-10-15", name="timestamp", seed=3)
    est = LinearLagForecaster(lags=[1, 2, 24], calendar=True, timezone=BERLIN)
    est.fit(data.loc[:"2022-11-15"])  # spans the October 2022 switch
    est.save(folder / "model")

    def cut(end, start="2022-10-29", suffix=".csv"):
        frame = data.loc[start:end]
        path = folder / f"{start}_{end.replace(':', '')}{suffix}"
        if suffix == ".csv":
            frame.to_csv(path)  # pandas writes each stamp with its own offset
        return path, frame

    return {"dir": folder, "model": folder / "model", "est": est, "data": data, "cut": cut}


def local_stamps(path):
    """The timestamp column of a written forecast, as the text in the file."""
    if path.suffix == ".csv":
        return pd.read_csv(path, dtype={"timestamp": str})["timestamp"].tolist()
    return [t.isoformat() for t in pd.read_parquet(path)["timestamp"]]


@pytest.mark.parametrize(
    ("end", "rows", "first", "last"),
    [
        # data ending at local midnight of the 26th: the short day, 02:00 does not exist
        ("2023-03-25 23:00", 23, "2023-03-26T00:00:00+01:00", "2023-03-26T23:00:00+02:00"),
        # ending at local midnight of the 29th: the long day, 02:00 twice
        ("2023-10-28 23:00", 25, "2023-10-29T00:00:00+02:00", "2023-10-29T23:00:00+01:00"),
        # ending at local midnight of the 30th, right after the switch
        ("2023-10-29 23:00", 24, "2023-10-30T00:00:00+01:00", "2023-10-30T23:00:00+01:00"),
        # issued at noon: the rest of today and all of the short day
        ("2023-03-25 11:00", 35, "2023-03-25T12:00:00+01:00", "2023-03-26T23:00:00+02:00"),
    ],
)
def test_day_ahead_on_dst_days_is_the_next_local_day(
    local, tmp_path, capsys, end, rows, first, last
):
    path, history = local["cut"](end)
    assert pd.read_csv(path)["timestamp"].str[-6:].nunique() == 2  # the input has two offsets
    code, out, err = run_cli(
        [
            "--model",
            local["model"],
            "--input",
            path,
            "--output",
            tmp_path / "{date}.csv",
            "--horizon",
            "day-ahead",
            "--no-track",
        ],
        capsys,
    )
    assert code == 0, err
    written = tmp_path / f"{end[:10]}.csv"  # {date}: local date of the last input stamp
    assert out.startswith(f"{written}\t{rows} rows")
    stamps = local_stamps(written)
    assert (len(stamps), stamps[0], stamps[-1]) == (rows, first, last)
    parsed = pd.to_datetime(pd.Series(stamps), format="ISO8601", utc=True).dt.tz_convert(BERLIN)
    assert (parsed.diff().dropna() == pd.Timedelta("1h")).all()  # consecutive instants
    assert [t.isoformat() for t in parsed] == stamps  # each offset is Berlin's at that instant
    if rows < 30:
        assert parsed.dt.strftime("%Y-%m-%d").nunique() == 1  # exactly one local day
    expected = local["est"].predict(horizon=rows, history=history)
    values = pd.read_csv(written)["load"].to_numpy()
    assert values == pytest.approx(expected["load"].to_numpy(), rel=1e-12)


def test_date_is_the_local_date_for_data_ending_just_after_local_midnight(local, tmp_path):
    """The reported case: hourly stamps up to 2023-10-30T00:00+01:00 were named 2023-10-29."""
    path, _ = local["cut"]("2023-10-30 00:00")
    result = run_batch(local["model"], path, tmp_path / "fc-{date}.csv", 24, track=False)
    assert result.path.name == "fc-2023-10-30.csv" and result.issue_date == "2023-10-30"
    stamps = local_stamps(result.path)
    assert stamps[0] == "2023-10-30T01:00:00+01:00" and stamps[-1] == "2023-10-31T00:00:00+01:00"


def test_csv_parquet_column_and_parquet_index_give_the_same_bytes(local, tmp_path):
    csv, history = local["cut"]("2023-10-28 23:00")
    utc_column = tmp_path / "utc-column.parquet"  # a tz-aware UTC column
    history.tz_convert("UTC").reset_index().to_parquet(utc_column)
    berlin_index = tmp_path / "berlin-index.parquet"  # a tz-aware Berlin DatetimeIndex
    history.to_parquet(berlin_index)
    assert str(pd.read_parquet(utc_column)["timestamp"].dt.tz) == "UTC"
    bodies = set()
    for source in (csv, utc_column, berlin_index):
        for suffix in (".csv", ".parquet"):
            out = tmp_path / source.stem / f"{{date}}{suffix}"
            result = run_batch(local["model"], source, out, "day-ahead", track=False)
            assert result.path.name == f"2023-10-28{suffix}" and result.rows == 25
            bodies.add((suffix, result.sha256))
    assert len(bodies) == 2  # one file per format, whatever the input's representation
    table = pd.read_parquet(tmp_path / "berlin-index" / "2023-10-28.parquet")
    assert str(table["timestamp"].dt.tz) == BERLIN
    assert local_stamps(tmp_path / "utc-column" / "2023-10-28.parquet")[2:4] == [
        "2023-10-29T02:00:00+02:00",
        "2023-10-29T02:00:00+01:00",
    ]


def test_single_offset_input_is_converted_to_the_given_zone(setup, local, tmp_path):
    latest = local["data"].loc["2023-03-20":"2023-03-25 23:00"].tz_convert("UTC")
    path = tmp_path / "utc.csv"
    latest.to_csv(path)  # +00:00 throughout
    kept = run_batch(setup["dir"] / "saved", path, tmp_path / "a-{date}.csv", 24, track=False)
    # no --timezone: the model answers in the zone it was fitted in (Europe/Berlin)
    assert local_stamps(kept.path)[0] == "2023-03-26T00:00:00+01:00"
    moved = run_batch(
        setup["dir"] / "saved",
        path,
        tmp_path / "b-{date}.csv",
        "day-ahead",
        timezone=BERLIN,
        track=False,
    )
    stamps = local_stamps(moved.path)
    assert moved.path.name == "b-2023-03-25.csv"
    assert (len(stamps), stamps[0], stamps[-1]) == (
        23,
        "2023-03-26T00:00:00+01:00",
        "2023-03-26T23:00:00+02:00",
    )
    same = pd.read_csv(kept.path)["load"].to_numpy()[:23]  # same instants, same model
    assert pd.read_csv(moved.path)["load"].to_numpy() == pytest.approx(same, rel=1e-15)


def test_registered_model_writes_in_the_given_zone(setup, local, tmp_path):
    path, _ = local["cut"]("2023-10-28 23:00", start="2023-10-20")  # a single offset, +02:00
    result = run_batch(
        MODEL, path, tmp_path / "{date}.csv", 3, timezone="UTC", tracking_uri=setup["store"]
    )
    assert result.path.name == "2023-10-28.csv"  # 21:00 UTC
    assert local_stamps(result.path) == [
        "2023-10-28T22:00:00+00:00",
        "2023-10-28T23:00:00+00:00",
        "2023-10-29T00:00:00+00:00",
    ]
    params = MlflowClient(setup["store"]).get_run(result.run_id).data.params
    assert params["timezone"] == "UTC" and params["horizon"] == "3"


def test_mixed_offsets_are_read_in_the_zone_the_model_was_fitted_in(setup, local, tmp_path, capsys):
    path, _ = local["cut"]("2023-03-25 23:00")
    saved = setup["dir"] / "saved"  # SeasonalNaive(timezone=None) fitted in Europe/Berlin
    written = {}
    for name, extra in [("fitted", []), ("given", ["--timezone", BERLIN])]:
        out = tmp_path / name / "{date}.csv"
        argv = ["--model", saved, "--input", path, "--output", out, "--no-track", *extra]
        code, _, err = run_cli(argv, capsys)
        assert code == 0 and err == ""
        written[name] = (tmp_path / name / "2023-03-25.csv").read_bytes()  # a Berlin date
    assert written["fitted"] == written["given"]


def test_mixed_offsets_for_a_model_fitted_on_naive_stamps_fail_and_write_nothing(
    setup, local, tmp_path, capsys
):
    path, _ = local["cut"]("2023-03-25 23:00")
    naive = setup["latest"].tz_localize(None)
    saved = SeasonalNaive(season="1D").fit(naive).save(tmp_path / "naive-model")
    output = tmp_path / "out" / "{date}.csv"
    argv = ["--model", saved, "--input", path, "--output", output, "--no-track"]
    code, out, err = run_cli(argv, capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"input {path}: column 'timestamp' has 2 " in err
    assert "UTC offsets (+02:00, +01:00; '2022-10-30 02:00:00+02:00' is followed by " in err
    assert f"the model {saved} has timezone=None: pass --timezone ZONE" in err
    assert not (tmp_path / "out").exists()


def test_mixed_offsets_with_a_model_without_timezone_parameter(setup, local, tmp_path, capsys):
    path, _ = local["cut"]("2023-03-25 23:00")
    naive = setup["latest"].tz_localize(None)
    saved = Naive().fit(naive).save(tmp_path / "naive")  # Naive takes no timezone
    output = tmp_path / "out" / "{date}.csv"
    argv = ["--model", saved, "--input", path, "--output", output, "--no-track"]
    code, out, err = run_cli(argv, capsys)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"the model {saved} has no timezone parameter: pass --timezone ZONE" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("zone", "message"),
    [
        ("Europe/Berln", "unknown time zone 'Europe/Berln'"),
        # naive stamps with a zone are now read as local times there (forecast.frames.io)
    ],
)
def test_bad_zone_or_naive_input_with_a_zone_is_refused(setup, tmp_path, capsys, zone, message):
    path = tmp_path / "naive.csv"
    make_series(24 * 3, start="2023-03-20", name="timestamp").to_csv(path)
    code, _, err = run_cli(
        [
            "--model",
            setup["dir"] / "saved",
            "--input",
            path,
            "--output",
            tmp_path / "o.csv",
            "--timezone",
            zone,
            "--no-track",
        ],
        capsys,
    )
    assert code == 1 and message in err and err.count("\n") == 1
    assert not (tmp_path / "o.csv").exists()


def test_nan_policy_applies_to_this_run_only(local, tmp_path, capsys):
    path, history = local["cut"]("2023-10-29 23:00", start="2023-10-20")
    gap = pd.Timestamp("2023-10-29 02:00+01:00")  # the second 02:00 of the long night
    frame = pd.read_csv(path)
    row = int(frame.index[frame["timestamp"] == "2023-10-29 02:00:00+01:00"][0])
    frame.loc[row, "load"] = float("nan")
    bad = tmp_path / "gap.csv"
    frame.to_csv(bad, index=False)
    saved = {p.name: p.read_bytes() for p in local["model"].iterdir()}
    args = ["--model", local["model"], "--input", bad, "--no-track", "--horizon", "day-ahead"]

    code, _, err = run_cli([*args, "--output", tmp_path / "r.csv", "--nan-policy", "raise"], capsys)
    assert code == 1 and err.count("\n") == 1 and not (tmp_path / "r.csv").exists()
    assert "target column 'load' has 1 non-finite value(s), the first (nan) at " in err
    assert f"at {gap} (pass --nan-policy interpolate to fill them)" in err

    code, out, err = run_cli(
        [*args, "--output", tmp_path / "i.csv", "--nan-policy", "interpolate"], capsys
    )
    assert code == 0 and err == "", err
    filled = history.copy()  # time interpolation: the mean of the two neighbouring hours
    filled.loc[gap, "load"] = (history["load"].iloc[row - 1] + history["load"].iloc[row + 1]) / 2
    expected = local["est"].predict(horizon=24, history=filled)["load"].to_numpy()
    assert pd.read_csv(tmp_path / "i.csv")["load"].to_numpy() == pytest.approx(expected, rel=1e-12)
    assert {p.name: p.read_bytes() for p in local["model"].iterdir()} == saved
    assert local["est"].nan_policy == "raise"
    code, _, err = run_cli([*args, "--output", tmp_path / "d.csv"], capsys)  # model's own: raise
    assert code == 1 and "non-finite" in err


def test_day_ahead_horizon_needs_a_fixed_step():
    from forecast.batch.localtime import day_ahead_steps

    last = pd.Timestamp("2023-10-28 23:45", tz=BERLIN)
    assert day_ahead_steps(last, "15min") == 100  # 25 hours of quarter-hours
    assert day_ahead_steps(pd.Timestamp("2023-03-25 23:00"), "h") == 24  # naive: wall clock
    with pytest.raises(ValueError, match="fixed step"):
        day_ahead_steps(last, pd.offsets.MonthBegin())


def test_quantiles_option_writes_interval_columns(setup, tmp_path, capsys):
    from forecast import ConformalForecaster

    data = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    conf = ConformalForecaster(SeasonalNaive(season="1D"), horizon=24, calibration="3D")
    conf.fit(data.iloc[: 24 * 7]).save(tmp_path / "conformal")
    out = tmp_path / "fc.csv"
    argv = ["--model", str(tmp_path / "conformal"), "--input", str(setup["dir"] / "latest.csv")]
    argv += ["--output", str(out), "--no-track", "--quantiles", "0.1,0.9"]
    assert main(argv) == 0
    written = pd.read_csv(out)
    assert list(written.columns) == ["timestamp", "load", "load_q0.1", "load_q0.9"]
    expected = conf.predict(24, history=setup["latest"], quantiles=True)
    assert written["load_q0.9"].to_numpy() == pytest.approx(expected["load_q0.9"].to_numpy())
    # a point model asked for quantiles: one line, nothing written
    bad = tmp_path / "bad.csv"
    argv = ["--model", str(setup["dir"] / "saved"), "--input", str(setup["dir"] / "latest.csv")]
    assert main([*argv, "--output", str(bad), "--no-track", "--quantiles", "all"]) == 1
    assert "SeasonalNaive forecasts no quantiles" in capsys.readouterr().err
    assert not bad.exists()
    assert main([*argv, "--output", str(bad), "--no-track", "--quantiles", "low"]) == 1
    assert "quantiles must be 'all' or comma-separated levels" in capsys.readouterr().err


def test_default_horizon_is_the_request_default_of_batch_and_pyfunc():
    from forecast.frames import requests
    from forecast.tracking import pyfunc

    assert pyfunc.default_horizon is requests.default_horizon
    assert requests.default_horizon(SeasonalNaive()) == requests.DEFAULT_HORIZON == 24

    class WithHorizon:
        horizon = 6

    assert requests.default_horizon(WithHorizon()) == 6
    WithHorizon.horizon = 0
    assert requests.default_horizon(WithHorizon()) == 24


def _planted_artifact(setup, tmp_path):
    """The champion's artifact, copied, with ``code: code`` and a package that marks its run."""
    import mlflow
    import yaml

    from forecast.tracking import use_store

    with use_store(setup["store"]):
        root = Path(mlflow.artifacts.download_artifacts(MODEL, dst_path=str(tmp_path / "dl")))
    marker = tmp_path / "marker"
    (root / "code" / "holidays").mkdir(parents=True)
    (root / "code" / "holidays" / "__init__.py").write_text(f"open({str(marker)!r}, 'w')\n")
    spec = yaml.safe_load((root / "MLmodel").read_text())
    spec["flavors"]["python_function"]["code"] = "code"
    (root / "MLmodel").write_text(yaml.safe_dump(spec))
    return root, marker


def test_registered_model_never_goes_through_mlflow_pyfunc_load_model(setup, tmp_path, monkeypatch):
    import mlflow.pyfunc

    from forecast.batch.ray_data import PartitionForecaster

    def refuse(*args, **kwargs):
        raise AssertionError("mlflow.pyfunc.load_model was called")

    monkeypatch.setattr(mlflow.pyfunc, "load_model", refuse)
    result = run_batch(
        MODEL, setup["dir"] / "latest.csv", tmp_path / "a.csv", tracking_uri=setup["store"]
    )
    assert result.rows == 24
    worker = PartitionForecaster(MODEL, setup["store"], None, str(tmp_path / "o"), {})
    assert worker.estimator.get_params() == setup["est"].get_params()


def test_planted_code_is_refused_on_single_and_partitioned_batches(setup, tmp_path, capsys):
    from forecast.batch.ray_data import PartitionForecaster
    from forecast.tracking import ArtifactError

    root, marker = _planted_artifact(setup, tmp_path)
    parts = tmp_path / "in"
    parts.mkdir()
    setup["latest"].to_csv(parts / "north.csv")
    field = "MLmodel field 'flavors.python_function.code'"
    capsys.readouterr()  # the download's progress bar
    out = tmp_path / "out"
    for source, output in [(setup["dir"] / "latest.csv", out / "a.csv"), (parts, out)]:
        code, printed, err = run_cli(
            ["--model", root, "--input", source, "--output", output, "--no-track"], capsys
        )
        assert code == 1 and printed == "" and err.count("\n") == 1 and field in err, err
    with pytest.raises(ArtifactError, match=field):
        PartitionForecaster(str(root), None, None, str(tmp_path / "o"), {})
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_dct_mixer_folder_forecasts_as_the_estimator(tmp_path):
    from forecast.models.dct_mixer import DCTMixerForecaster

    data = make_series(n=24 * 10, tz="Europe/Berlin", name="time")
    est = DCTMixerForecaster(
        context_length=24, horizon=12, hidden_size=4, num_layers=1, max_epochs=1, random_state=0
    ).fit(data.iloc[:-24])
    est.save(tmp_path / "mixer")
    data.to_csv(tmp_path / "latest.csv")
    result = run_batch(
        tmp_path / "mixer", tmp_path / "latest.csv", tmp_path / "fc.csv", horizon=12, track=False
    )
    got = pd.read_csv(result.path, index_col=0)
    want = est.predict(horizon=12, history=data)
    np.testing.assert_allclose(got["load"].to_numpy(), want["load"].to_numpy(), rtol=1e-6)
    assert list(pd.to_datetime(got.index, utc=True)) == list(want.index.tz_convert("UTC"))
