import json

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.cli import main
from forecast.parallel.sweep import tune
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
    assert "mape" in done[0].data.metrics and "tune.dropout" in done[0].data.params
    failed = [run for run in children if run.info.status == "FAILED"]
    assert all("dropout must be in" in run.data.tags["error"] for run in failed)
    assert result.model_uri is not None


def test_resume_of_a_finished_sweep_keeps_its_trials_and_parent(sweep):
    again = tune(sweep["spec"], output=sweep["result"].path, resume=True)
    assert again.parent_run_id == sweep["result"].parent_run_id
    assert sorted(again.trials["trial_id"]) == sorted(sweep["result"].trials["trial_id"])


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
