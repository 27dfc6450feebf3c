"""A batch run as a scheduler starts it: one at a time, logged, failures on record, fresh data."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.batch import main, run_batch
from forecast.batch.files import BatchError, StaleInputError, check_staleness, parse_duration
from forecast.batch.joblock import EXIT_LOCKED, JobLocked, default_lock_path, job_lock
from forecast.models.baselines import SeasonalNaive
from forecast.tracking import register, track_fit
from tests.batch.logcheck import errors, log_lines
from tests.conftest import make_series

MODEL = "models:/power-load-de@champion"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def job(tmp_path_factory, new_store):
    """Two registered versions (the alias on the second) and the latest data as CSV."""
    store = new_store("schedule")
    folder = tmp_path_factory.mktemp("schedule-files")
    data = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    for n_seasons in (1, 2):
        est = SeasonalNaive(season="1D", n_seasons=n_seasons)
        cb = track_fit(est, data.iloc[:168], experiment="train", tracking_uri=store, log_model=True)
        register(cb.model_info.model_uri, "power-load-de", alias="champion", tracking_uri=store)
    data.iloc[-24 * 3 :].to_csv(folder / "latest.csv")  # ends 2023-01-10 23:00+01:00
    return {"store": store, "dir": folder, "end": data.index[-1]}


def batch_runs(store, experiment="forecast-batch"):
    client = MlflowClient(store)
    found = client.get_experiment_by_name(experiment)
    return [] if found is None else client.search_runs([found.experiment_id])


# ------------------------------------------------------------------------- the lock
def test_default_lock_is_per_output_pattern_and_outside_the_output(tmp_path):
    a = default_lock_path(tmp_path / "out" / "{date}.csv")
    assert a == default_lock_path(str(tmp_path / "out" / "{date}.csv"))
    assert a != default_lock_path(tmp_path / "out" / "{date}.parquet")
    assert tmp_path not in a.parents and a.name.endswith(".lock")


def test_second_holder_in_the_same_process_is_refused_with_the_holder(tmp_path):
    lock = tmp_path / "locks" / "job.lock"
    with job_lock(lock):
        with pytest.raises(JobLocked, match=rf"held by pid {os.getpid()} on .* since 20"):
            with job_lock(lock):
                pass
    with job_lock(lock):  # released: the next run takes it
        pass
    assert not Path(f"{lock}.owner").exists()


SLOW_RUN = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import forecast.batch.run as run
    real = run.forecast_file
    def slow(*args, **kwargs):  # a batch that lasts until the test releases it (or 120 s)
        deadline = time.monotonic() + 120
        while not Path(sys.argv[1]).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return real(*args, **kwargs)
    run.forecast_file = slow
    from forecast.batch.cli import main
    sys.exit(main(sys.argv[2:]))
    """
)


def test_two_overlapping_runs_one_writes_the_other_exits_75(job, tmp_path):
    output = tmp_path / "forecasts" / "{date}.csv"
    lock = tmp_path / "job.lock"
    store = job["store"]
    argv = ["--model", MODEL, "--input", str(job["dir"] / "latest.csv"), "--output", str(output)]
    argv += ["--tracking-uri", store, "--lock", str(lock), "--experiment", "overlap"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    release = tmp_path / "release"
    first = subprocess.Popen(
        [sys.executable, "-c", SLOW_RUN, str(release), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while not Path(f"{lock}.owner").exists():  # the first run holds the lock
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first run never took the lock"
            time.sleep(0.1)
        second = subprocess.run(
            [sys.executable, "-m", "forecast.batch", *argv],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert first.poll() is None  # it really overlapped
    finally:
        release.touch()
        out, err = first.communicate(timeout=300)
    assert second.returncode == EXIT_LOCKED and second.stdout == ""
    message = errors(second.stderr)
    assert message.count("\n") == 1
    assert f"another run of this job is in progress (held by pid {first.pid} on " in message
    assert first.returncode == 0, err
    assert out.startswith(str(tmp_path / "forecasts" / "2023-01-10.csv"))
    assert len(batch_runs(store, "overlap")) == 1  # one run, one MLflow record


# -------------------------------------------------------------------- log lines
def test_log_lines_carry_timestamp_level_and_logger(job, tmp_path, capsys):
    argv = ["--model", MODEL, "--input", job["dir"] / "latest.csv", "--output"]
    argv += [tmp_path / "f.csv", "--tracking-uri", job["store"], "--experiment", "logs"]
    argv += ["--issue-time", "2023-01-11T12:00+01:00", "--max-staleness", "2D"]
    assert main([str(a) for a in argv]) == 0
    lines = log_lines(capsys.readouterr().err)
    assert [level for _, level, _ in lines] == ["INFO"]
    stamp = pd.Timestamp(lines[0][0])
    assert abs(pd.Timestamp.now(tz="UTC") - stamp) < pd.Timedelta(minutes=5)
    assert lines[0][2].startswith(f"wrote {tmp_path / 'f.csv'} (24 rows, model version 2, ")
    (run,) = batch_runs(job["store"], "logs")
    assert run.data.metrics["input_age_hours"] == 13  # 2023-01-10 23:00 to 01-11 12:00


# ------------------------------------------------------- failed runs and versions
def test_failed_run_is_recorded_in_mlflow(job, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("timestamp,demand\n2023-01-01T00:00+01:00,1.0\n")
    argv = ["--model", MODEL, "--input", bad, "--output", tmp_path / "f.csv"]
    argv += ["--tracking-uri", job["store"], "--experiment", "failures"]
    assert main([str(a) for a in argv]) == 1
    message = errors(capsys.readouterr().err).strip()
    assert "lacks column" in message or "'load'" in message, message
    (run,) = batch_runs(job["store"], "failures")
    assert run.info.status == "FAILED"
    assert run.data.tags["error"] == message
    assert run.data.params["input"] == str(bad.resolve())
    assert run.data.tags["model_uri"] == MODEL
    assert run.data.tags["model_version"] == "2"
    assert not (tmp_path / "f.csv").exists()


def test_run_records_the_version_the_alias_pointed_to(job, tmp_path):
    result = run_batch(
        MODEL, job["dir"] / "latest.csv", tmp_path / "f.csv", tracking_uri=job["store"]
    )
    assert result.model_version == "2"
    run = MlflowClient(job["store"]).get_run(result.run_id)
    tags = run.data.tags
    assert (tags["registered_model"], tags["model_alias"], tags["model_version"]) == (
        "power-load-de",
        "champion",
        "2",
    )
    assert tags["model_uri"] == MODEL and run.data.params["model_version"] == "2"
    pinned = run_batch(
        "models:/power-load-de/1", job["dir"] / "latest.csv", tmp_path / "g.csv",
        tracking_uri=job["store"],
    )  # fmt: skip
    assert pinned.model_version == "1"
    assert pd.read_csv(pinned.path)["load"].tolist() != pd.read_csv(result.path)["load"].tolist()


# --------------------------------------------------------------------- staleness
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2D", pd.Timedelta(days=2)),
        ("36h", pd.Timedelta(hours=36)),
        ("90min", pd.Timedelta(90, "m")),
    ],
)
def test_parse_duration(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["0h", "-1D", "soon", ""])
def test_parse_duration_refuses_what_is_not_a_positive_duration(text):
    with pytest.raises(ValueError, match="expected a positive duration"):
        parse_duration(text)


def test_staleness_boundary_is_inclusive():
    last = pd.Timestamp("2023-01-10 23:00", tz="Europe/Berlin")
    issue = pd.Timestamp("2023-01-11 22:00", tz="UTC")  # exactly 24 h after 22:00 UTC
    assert check_staleness(last, "x.csv", pd.Timedelta("24h"), issue) == pd.Timedelta("24h")
    with pytest.raises(StaleInputError, match="1 days 00:00:00 before the issue time"):
        check_staleness(last, "x.csv", pd.Timedelta("23h"), issue)


def test_stale_input_is_refused_with_exit_65_and_recorded(job, tmp_path, capsys):
    argv = ["--model", MODEL, "--input", job["dir"] / "latest.csv", "--output"]
    argv += [tmp_path / "f.csv", "--tracking-uri", job["store"], "--experiment", "stale"]
    code = main([str(a) for a in [*argv, "--max-staleness", "36h"]])  # the data end in 2023
    assert code == 65 and not (tmp_path / "f.csv").exists()
    message = errors(capsys.readouterr().err)
    assert message.startswith(f"input {job['dir'] / 'latest.csv'}: last observation 2023-01-10 ")
    assert "more than --max-staleness 1 days 12:00:00: is the data feed stuck?" in message
    (run,) = batch_runs(job["store"], "stale")
    assert run.info.status == "FAILED" and "max-staleness" in run.data.tags["error"]
    fresh = ["--issue-time", "2023-01-12T10:00+01:00", "--max-staleness", "36h"]  # 35 h old
    assert main([str(a) for a in [*argv, *fresh]]) == 0


def test_old_input_without_max_staleness_is_forecast_with_a_warning(job, tmp_path, capsys):
    argv = ["--model", MODEL, "--input", job["dir"] / "latest.csv", "--output"]
    argv += [tmp_path / "f.csv", "--tracking-uri", job["store"], "--no-track"]
    assert main([str(a) for a in argv]) == 0
    warnings = [m for _, level, m in log_lines(capsys.readouterr().err) if level == "WARNING"]
    assert len(warnings) == 1 and "latest.csv: last observation " in warnings[0]
    age = pd.Timestamp.now(tz="UTC") - job["end"]
    shown = pd.Timedelta(warnings[0].split("last observation ")[1].split(" before")[0])
    assert abs(shown - age) < pd.Timedelta(minutes=5)


def test_max_staleness_needs_one_input_file(job, tmp_path, capsys):
    argv = ["--model", MODEL, "--input", str(job["dir"]), "--output", str(tmp_path)]
    assert main([*argv, "--max-staleness", "2D", "--no-track"]) == 2
    assert "apply to one --input file" in errors(capsys.readouterr().err)


# ------------------------------------------------------- a lock never takes a user's file
def test_lock_keeps_an_owner_file_it_did_not_write(tmp_path):
    (tmp_path / "notes.owner").write_text("my notes\n")
    with pytest.raises(BatchError, match=r"notes.owner exists and is not a lock owner file"):
        with job_lock(tmp_path / "notes"):
            pass
    assert (tmp_path / "notes.owner").read_text() == "my notes\n"
    assert not (tmp_path / "notes").exists()


def test_lock_refuses_a_file_with_content_and_takes_a_stale_owner_of_ours(tmp_path):
    (tmp_path / "data.lock").write_text("a,b\n1,2\n")
    with pytest.raises(BatchError, match=r"data.lock exists and is not a lock file"):
        with job_lock(tmp_path / "data.lock"):
            pass
    assert (tmp_path / "data.lock").read_text() == "a,b\n1,2\n"
    stale = tmp_path / "job.lock.owner"  # left by a run killed with -9
    stale.write_text("pid 12345 on host-1 since 2026-01-01T12:05:00+0100\n")
    with job_lock(tmp_path / "job.lock"):
        assert stale.read_text().startswith(f"pid {os.getpid()} on ")
    assert not stale.exists()


def test_lock_on_the_input_file_is_refused_before_the_run(job, tmp_path, capsys):
    before = (job["dir"] / "latest.csv").read_bytes()
    code = main(["--model", str(job["dir"] / "missing"), "--input", str(job["dir"] / "latest.csv"),
                 "--output", str(tmp_path / "fc.csv"), "--lock", str(job["dir"] / "latest.csv"),
                 "--no-track"])  # fmt: skip
    assert code == 1
    assert "--lock" in (err := capsys.readouterr().err) and "is the --input file" in err
    assert (job["dir"] / "latest.csv").read_bytes() == before
    assert not (job["dir"] / "latest.csv.owner").exists() and not (tmp_path / "fc.csv").exists()


def test_default_locks_of_the_test_suite_stay_in_its_own_temporary_folder(tmp_path_factory):
    lock = default_lock_path("x.csv")  # what a batch run of any test takes
    assert tmp_path_factory.getbasetemp() in lock.parents
