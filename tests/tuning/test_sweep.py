import json
import os
import signal
import threading
import time

import pandas as pd
import pytest
from mlflow import MlflowClient
from mlflow.entities import ViewType

from forecast.cli import main
from forecast.tuning.sweep import tune
from tests.conftest import make_series

SPEC = """
name = "tiny-sweep"

[data]
path = "{csv}"

[backtest]
horizon = 24
start = "2023-02-20"
end = "2023-02-22"

[models.gru]
model = "gru"
context_length = 24
horizon = 24
hidden_size = 4
max_epochs = 3
batch_size = 64
early_stopping_patience = 10
device = "cpu"
random_state = 0

[tune]
model = "gru"
num_samples = 5
seed = 3
validation_start = "2023-02-13"
validation_end = "2023-02-15"
grace_period = 1
max_concurrent = 2

[tune.space]
hidden_size = {{ choice = [4, 6] }}
learning_rate = {{ loguniform = [0.001, 0.01] }}
dropout = {{ choice = [0.0, 2.0] }}   # 2.0 makes the fit raise: a failing trial

[tracking]
experiment = "sweep-test"
tracking_uri = "{store}"
"""


@pytest.fixture(scope="module")
def sweep(ray_local, tmp_path_factory, new_store):
    folder = tmp_path_factory.mktemp("sweep")
    make_series(n=24 * 56, start="2023-01-01", name="timestamp").to_csv(folder / "data.csv")
    store = new_store("sweep")
    spec = folder / "spec.toml"
    spec.write_text(SPEC.format(csv=folder / "data.csv", store=store))
    return {"result": tune(spec, output=folder / "out"), "store": store, "spec": spec}


def test_failing_trials_are_recorded_and_the_sweep_goes_on(sweep):
    trials = sweep["result"].trials
    assert len(trials) == 5
    failed = trials["dropout"] == 2.0
    assert 1 <= failed.sum() <= 4  # the seed samples both values
    assert (trials.loc[failed, "status"] == "FAILED").all()
    assert trials.loc[failed, "error"].str.contains("dropout must be in").all()
    assert (trials.loc[~failed, "status"] != "FAILED").all()


def test_best_config_is_the_lowest_validation_score_and_is_refitted(sweep):
    result = sweep["result"]
    finished = result.trials[result.trials["status"] == "FINISHED"]
    assert result.best_score == finished["mape"].min()
    assert result.best_config["dropout"] == 0.0
    params = result.estimator.get_params()
    assert params["hidden_size"] == result.best_config["hidden_size"]
    assert params["learning_rate"] == result.best_config["learning_rate"]
    # refitted on everything before the test period, nothing of it
    assert result.estimator.predict(horizon=1).index[0] == pd.Timestamp("2023-02-20")
    best = json.loads((result.path / "best.json").read_text())
    assert best["config"] == result.best_config and best["mape"] == result.best_score


def test_mlflow_parent_with_one_child_per_trial(sweep):
    result, client = sweep["result"], MlflowClient(sweep["store"])
    parent = client.get_run(result.parent_run_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.params["best.hidden_size"] == str(result.best_config["hidden_size"])
    assert parent.data.metrics["trials_failed"] == (result.trials["status"] == "FAILED").sum()
    children = client.search_runs(
        [parent.info.experiment_id],
        filter_string=f"tags.mlflow.parentRunId = '{result.parent_run_id}'",
    )
    assert len(children) == 5
    statuses = sorted(run.info.status for run in children)
    expected = {"FINISHED": "FINISHED", "STOPPED": "KILLED", "FAILED": "FAILED"}
    assert statuses == sorted(expected[s] for s in result.trials["status"])
    done = [run for run in children if run.info.status == "FINISHED"]
    history = client.get_metric_history(done[0].info.run_id, "val_loss")
    assert [m.step for m in history] == [1, 2, 3]  # one point per epoch
    # the table's epochs are the epochs each trial ran (not one more for its last report)
    trials = result.trials.set_index("trial_id")
    for run in children:
        ran = len(client.get_metric_history(run.info.run_id, "val_loss"))
        assert trials.loc[run.data.tags["trial_id"], "epochs"] == ran
    assert (trials.loc[trials["status"] == "FINISHED", "epochs"] == 3).all()
    assert "mape" in done[0].data.metrics and "tune.dropout" in done[0].data.params
    failed = [run for run in children if run.info.status == "FAILED"]
    assert all("dropout must be in" in run.data.tags["error"] for run in failed)
    assert result.model_uri is not None


def test_resume_of_a_finished_sweep_keeps_its_trials_and_parent(sweep):
    again = tune(sweep["spec"], output=sweep["result"].path, resume=True)
    assert again.parent_run_id == sweep["result"].parent_run_id
    assert sorted(again.trials["trial_id"]) == sorted(sweep["result"].trials["trial_id"])


def _interrupt_after(store: str, experiment: str, k: int) -> threading.Thread:
    """Signal this process, as Ctrl+C would, once ``k`` trials of the sweep have ended."""

    def watch():
        client = MlflowClient(store)
        for _ in range(3000):
            found = client.get_experiment_by_name(experiment)
            runs = client.search_runs([found.experiment_id]) if found else []
            ended = [r for r in runs if r.data.tags.get("run_kind") == "tune-trial"]
            if sum(r.info.status != "RUNNING" for r in ended) >= k:
                # Ray Tune treats SIGUSR1 like SIGINT: stop, save the state, return; unlike
                # SIGINT it cannot abort pytest if it arrives after the sweep returned
                os.kill(os.getpid(), signal.SIGUSR1)
                return
            time.sleep(0.1)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_an_interrupted_sweep_resumes_without_rerunning_finished_trials(
    ray_local, tmp_path, new_store
):
    make_series(n=24 * 56, start="2023-01-01", name="timestamp").to_csv(tmp_path / "data.csv")
    store = new_store("resume")
    text = SPEC.format(csv=tmp_path / "data.csv", store=store)
    for old, new in [
        ("num_samples = 5", "num_samples = 4"),
        ("max_concurrent = 2", "max_concurrent = 1"),
        ("grace_period = 1", "grace_period = 10"),  # ASHA never stops: only the interrupt
        ('experiment = "sweep-test"', 'experiment = "sweep-resume"'),
        # no failing trial here: a trial that fails at once could let the sweep end before
        # the interrupt arrives
        ("dropout = { choice = [0.0, 2.0] }", "dropout = { choice = [0.0, 0.1] }"),
    ]:
        text = text.replace(old, new)
    assert "choice = [0.0, 0.1]" in text and "max_concurrent = 1" in text
    spec = tmp_path / "spec.toml"
    spec.write_text(text)
    watcher = _interrupt_after(store, "sweep-resume", 1)
    ExperimentAnalysis = pytest.importorskip("ray.tune").ExperimentAnalysis
    with pytest.raises(KeyboardInterrupt, match=r"trials unfinished; continue it with `forecast"):
        tune(spec, output=tmp_path / "out")
    watcher.join(timeout=5)
    client = MlflowClient(store)
    experiment = client.get_experiment_by_name("sweep-resume").experiment_id
    (parent,) = client.search_runs([experiment], "tags.run_kind = 'tune-sweep'")
    assert parent.info.status == "RUNNING"  # left open for the resume
    before = client.search_runs([experiment], "tags.run_kind = 'tune-trial'")
    state = ExperimentAnalysis(str(tmp_path / "out" / "sweep"))  # what Tune saw end
    done = {t.trial_id for t in state.trials if t.status in ("TERMINATED", "ERROR")}
    assert 1 <= len(done) < 4
    ended = {r.data.tags["trial_id"]: r for r in before if r.data.tags["trial_id"] in done}
    assert set(ended) == done

    result = tune(spec, output=tmp_path / "out", resume=True)
    assert result.parent_run_id == parent.info.run_id
    assert len(result.trials) == 4 and result.trials["trial_id"].is_unique
    assert client.get_run(parent.info.run_id).info.status == "FINISHED"
    children = client.search_runs([experiment], "tags.run_kind = 'tune-trial'")
    assert sorted(r.data.tags["trial_id"] for r in children) == sorted(result.trials["trial_id"])
    # trials that had ended are kept as they were, not run again
    for trial_id, run in ended.items():
        (now,) = [r for r in children if r.data.tags["trial_id"] == trial_id]
        assert now.info.run_id == run.info.run_id and now.info.status == run.info.status
    # a trial cut short was started again: the run of its first attempt deleted, the new
    # one tagged
    deleted = client.search_runs([experiment], run_view_type=ViewType.DELETED_ONLY)
    resumed = [r for r in children if r.data.tags.get("resumed") == "true"]
    cut_short = {r.data.tags["trial_id"] for r in before} - done
    assert {r.data.tags["trial_id"] for r in deleted} == cut_short
    assert {r.data.tags["trial_id"] for r in resumed} == cut_short


def test_validation_must_end_before_the_test_period(tmp_path):
    spec = tmp_path / "spec.toml"
    text = SPEC.format(csv=tmp_path / "d.csv", store="x.db")
    spec.write_text(text.replace('validation_end = "2023-02-15"', 'validation_end = "2023-02"'))
    with pytest.raises(ValueError, match=r"validation period \(2023-02-13 to 2023-02\) must end"):
        tune(spec)


def test_cli_reports_spec_errors_in_one_line(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    text = SPEC.format(csv=tmp_path / "d.csv", store="x.db")
    spec.write_text(text.replace("loguniform = [0.001, 0.01]", "loguniform = [0, 0.01]"))
    assert main(["tune", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "[tune.space] learning_rate: loguniform needs 0 < lo, got [0, 0.01]" in err


def test_without_ray_tune_says_so_before_creating_anything(tmp_path, monkeypatch, capsys):
    import sys

    make_series(n=24 * 56, start="2023-01-01", name="timestamp").to_csv(tmp_path / "data.csv")
    text = SPEC.format(csv=tmp_path / "data.csv", store="unused")
    spec = tmp_path / "spec.toml"
    spec.write_text(text.replace('tracking_uri = "unused"\n', ""))  # default: ./mlflow.db
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main(["tune", str(spec)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "forecast tune: error: forecast tune needs Ray, which is not installed: "
        'pip install "forecast-toolkit[ray]"\n'
    )
    assert sorted(os.listdir(tmp_path)) == ["data.csv", "spec.toml"]  # no mlflow.db, no run


def test_a_cluster_that_cannot_be_reached_leaves_no_run_behind(tmp_path, monkeypatch):
    import socket

    pytest.importorskip("ray")
    make_series(n=24 * 56, start="2023-01-01", name="timestamp").to_csv(tmp_path / "data.csv")
    store = tmp_path / "mlflow.db"
    (tmp_path / "spec.toml").write_text(
        SPEC.format(csv=tmp_path / "data.csv", store=f"sqlite:///{store}")
    )
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionError, match=f"at '127.0.0.1:{port}': nothing answers"):
        tune(tmp_path / "spec.toml", address=f"127.0.0.1:{port}", output=tmp_path / "out")
    assert sorted(os.listdir(tmp_path)) == ["data.csv", "spec.toml"]  # no store, no folder
