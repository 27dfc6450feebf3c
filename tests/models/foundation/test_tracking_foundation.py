"""MLflow logs a foundation wrapper like any model: params, tags, and a pyfunc model whose
folder holds the reference to the weights (a separate file: MLflow's store costs seconds)."""

import json
import os

import mlflow
import pandas as pd
from mlflow import MlflowClient

from forecast.models.foundation import Chronos2Forecaster
from forecast.tracking import track_fit, use_store
from tests.conftest import make_series


def test_mlflow_logs_params_and_a_model_that_reads_the_same_weights(
    new_store, chronos_weights, tmp_path
):
    store = new_store("foundation")
    data = make_series(24 * 8, tz="Europe/Berlin", start="2023-03-20", name="time")
    est = Chronos2Forecaster(weights=str(chronos_weights), device="cpu", context_length=48)
    cb = track_fit(est, data, experiment="foundation", tracking_uri=store, log_model=True)
    run = MlflowClient(store).get_run(cb.run_id)
    assert run.data.params["weights"] == str(chronos_weights)
    assert run.data.params["context_length"] == "48"
    assert run.data.tags["model_class"].endswith("Chronos2Forecaster")
    with use_store(store):
        model = mlflow.pyfunc.load_model(cb.model_info.model_uri)
        folder = mlflow.artifacts.download_artifacts(
            cb.model_info.model_uri, dst_path=str(tmp_path)
        )
    history = data.iloc[-60:]
    got = model.predict(history, params={"horizon": 6})
    pd.testing.assert_frame_equal(got, est.predict(horizon=6, history=history))
    saved = os.path.join(folder, "data", "estimator")
    assert sorted(os.listdir(saved)) == ["fitted.json", "fitted.npz", "meta.json", "params.json"]
    assert json.loads(open(os.path.join(saved, "meta.json")).read())["modules"] == []
