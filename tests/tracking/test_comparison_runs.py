"""What a comparison leaves in MLflow for a person to read: loss curves in every neural
child run, one metric for best_model and the champion, the dataset's own name."""

from types import SimpleNamespace

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.evaluation.backtest import backtest
from forecast.evaluation.compare import compare
from forecast.models import get_estimator
from forecast.models.baselines import Naive
from forecast.models.recurrent import GRUForecaster
from forecast.tracking import MLflowTracker
from forecast.tracking.champion import register_champion
from tests.conftest import TINY_NEURAL, make_series


@pytest.fixture(scope="module")
def store(new_store):
    return new_store("comparison-runs")


def scored(mape, mae):
    """A stand-in backtest result with only a pooled metrics row."""
    metrics = pd.DataFrame({"mape": [mape], "mae": [mae], "n": [24]}, index=["overall"])
    return SimpleNamespace(metrics=metrics)


def test_child_runs_of_a_neural_model_hold_its_epoch_curves(store):
    df = make_series(n=24 * 12, tz="Europe/Berlin")
    models = {"naive": Naive(), "gru": GRUForecaster(**{**TINY_NEURAL, "max_epochs": 3})}
    tracker = MLflowTracker(experiment="curves", tracking_uri=store, dataset="synthetic")
    result = compare(models, df, tracker=tracker, horizon=24, start="2023-01-11", progress=False)
    client = MlflowClient(store)
    fitted = result.results["gru"].estimator
    assert set(fitted.history_) >= {"train_loss", "val_loss"}
    for key, values in fitted.history_.items():
        history = client.get_metric_history(tracker.runs["gru"], key)
        assert [(m.step, m.value) for m in sorted(history, key=lambda m: m.step)] == [
            (epoch, pytest.approx(v)) for epoch, v in enumerate(values)
        ]
    gru = client.get_run(tracker.runs["gru"])
    assert gru.data.metrics["n_epochs"] == 3
    assert gru.data.metrics["best_loss"] == pytest.approx(min(fitted.history_["val_loss"]))
    assert gru.data.tags["loss_curve_of"].startswith("fold 1 of 1, trained to 2023-01-10")
    naive = client.get_run(tracker.runs["naive"])
    assert "train_loss" not in naive.data.metrics and "loss_curve_of" not in naive.data.tags
    assert [d.dataset.name for d in gru.inputs.dataset_inputs] == ["synthetic"]


@pytest.mark.parametrize(("select", "winner"), [("mape", "b"), ("mae", "a")])
def test_best_model_follows_the_select_metric(store, select, winner):
    # a has the lower MAE, b the lower MAPE: the tag must name the metric's winner
    tracker = MLflowTracker(experiment="select", tracking_uri=store, select=select)
    with tracker.comparison("two") as parent_id:
        tracker.log_backtest("a", Naive(), scored(mape=5.0, mae=1.0))
        tracker.log_backtest("b", Naive(), scored(mape=4.0, mae=2.0))
    tags = MlflowClient(store).get_run(parent_id).data.tags
    assert (tags["best_model"], tags["best_by"]) == (winner, select)


def test_best_model_falls_back_to_the_first_metric_and_says_so(store):
    tracker = MLflowTracker(experiment="fallback", tracking_uri=store, select="crps")
    with tracker.comparison("no crps") as parent_id:
        tracker.log_backtest("a", Naive(), scored(mape=5.0, mae=1.0))
        tracker.log_backtest("b", Naive(), scored(mape=4.0, mae=2.0))
    tags = MlflowClient(store).get_run(parent_id).data.tags
    assert (tags["best_model"], tags["best_by"]) == ("b", "mape")


def test_best_model_tag_and_champion_agree(store):
    df = make_series(n=24 * 12, tz="Europe/Berlin")
    df["tso"] = df["load"] * 1.02  # 2 % off everywhere: low MAPE
    models = {"naive": Naive(), "external": get_estimator("external")(column="tso")}
    tracker = MLflowTracker(experiment="agree", tracking_uri=store)
    result = compare(
        models, df, tracker=tracker, horizon=24, start="2023-01-11", target="load", progress=False
    )
    champion = register_champion(tracker, result, "agree", select=tracker.select, history=df)
    parent = MlflowClient(store).get_run(tracker.runs[champion.model])
    tags = MlflowClient(store).get_run(parent.data.tags["mlflow.parentRunId"]).data.tags
    assert tags["best_model"] == tags["champion"] == result.table["mape"].idxmin()
    assert tags["best_by"] == tags["champion_by"] == "mape"


def test_backtest_without_history_logs_no_curves(store):
    df = make_series(n=24 * 10, tz="Europe/Berlin")
    tracker = MLflowTracker(experiment="no-curves", tracking_uri=store)
    run_id = tracker.log_backtest(
        "naive", Naive(), backtest(Naive(), df, horizon=24, start="2023-01-09")
    )
    assert "n_epochs" not in MlflowClient(store).get_run(run_id).data.metrics
