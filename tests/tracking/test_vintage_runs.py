"""An MLflow run of a backtest on vintages says what the test read and what training read."""

import numpy as np
import pandas as pd
from mlflow import MlflowClient

from forecast.evaluation.compare import compare
from forecast.frames.vintage_sources import simulate_vintages
from forecast.frames.vintages import TRAINED_ON_OBSERVED
from forecast.models.baselines import LinearLagForecaster, Naive
from forecast.tracking import MLflowTracker


def test_compare_on_vintages_logs_their_label_and_the_training_fallback(new_store):
    store = new_store("vintage-runs")
    index = pd.date_range("2023-01-01", periods=24 * 14, freq="h", tz="UTC")
    rng = np.random.default_rng(0)
    temp = pd.Series(10 + rng.standard_normal(len(index)).cumsum() * 0.1, index, name="temp")
    df = pd.DataFrame({"load": 50 - 2 * temp + rng.standard_normal(len(index)), "temp": temp})
    issues = pd.date_range("2023-01-01 06:00", periods=14, freq="D", tz="UTC")
    vintages = simulate_vintages(temp, issues, "48h", random_state=0)
    models = {
        "naive": Naive(),
        "ridge": LinearLagForecaster(lags=24, seasonal_lags=["1D"], future_covariates=["temp"]),
    }
    tracker = MLflowTracker(experiment="vintages", tracking_uri=store, dataset="synthetic")
    result = compare(models, df, tracker=tracker, origins="12:00", horizon=24, lead=11,
                     start="2023-01-10", timezone="UTC", target="load", future=vintages,
                     progress=False)  # fmt: skip
    assert result.results["ridge"].estimator.training_covariates_ == TRAINED_ON_OBSERVED
    client = MlflowClient(store)
    ridge = client.get_run(tracker.runs["ridge"]).data
    assert ridge.params["backtest.future"].startswith("simulated: observed + error sd 1.5")
    assert ridge.tags["training_covariates"] == TRAINED_ON_OBSERVED
    naive = client.get_run(tracker.runs["naive"]).data
    assert "training_covariates" not in naive.tags  # no future covariates, nothing to say
