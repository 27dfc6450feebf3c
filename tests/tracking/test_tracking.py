import os

import mlflow
import numpy as np
import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.base import BaseForecaster
from forecast.evaluation.backtest import backtest
from forecast.models.baselines import Naive, SeasonalNaive
from forecast.tracking import (
    DEFAULT_TRACKING_URI,
    MLflowCallback,
    MLflowTracker,
    fingerprint,
    resolve_tracking_uri,
    track_fit,
    use_store,
)
from tests.conftest import make_series


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def store(new_store):
    return new_store("tracking")


class EpochFake(BaseForecaster):
    """Last-value forecaster with a fake training loop that reports per-epoch logs."""

    def __init__(self, epochs=3, hidden_size=4, fail=False):
        self.epochs = epochs
        self.hidden_size = hidden_size
        self.fail = fail

    def _fit(self, series, callbacks):
        if self.fail:
            raise RuntimeError("diverged at epoch 1")
        self.history_ = {"train_loss": [], "val_loss": [], "lr": [], "orthogonality_error": []}
        for epoch in range(self.epochs):
            logs = {
                "train_loss": 1.0 / (epoch + 1),
                "val_loss": 2.0 / (epoch + 1),
                "lr": 0.01,
                "orthogonality_error": 1e-7 * epoch,
            }
            for key, value in logs.items():
                self.history_[key].append(value)
            for callback in callbacks:
                callback.on_epoch_end(epoch, logs)
        self.n_epochs_ = self.epochs
        self.device_ = "cpu"

    def _predict(self, series, horizon):
        return np.stack([np.repeat(s.y[-1:], horizon, axis=0) for s in series])


# ------------------------------------------------------------------------------ store
def test_default_uri_is_local_sqlite_and_env_overrides(monkeypatch, tmp_path):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert resolve_tracking_uri() == DEFAULT_TRACKING_URI == "sqlite:///mlflow.db"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    assert resolve_tracking_uri() == "http://127.0.0.1:5999"
    assert resolve_tracking_uri("sqlite:///x.db") == "sqlite:///x.db"
    assert resolve_tracking_uri(tmp_path / "a.db") == f"sqlite:///{tmp_path / 'a.db'}"


def test_use_store_restores_global_state(monkeypatch, store):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    monkeypatch.delenv("MLFLOW_REGISTRY_URI", raising=False)
    before = mlflow.get_tracking_uri()
    with use_store(store) as uri:
        assert mlflow.get_tracking_uri() == uri == store
    assert mlflow.get_tracking_uri() == before == "http://127.0.0.1:5999"
    assert os.environ["MLFLOW_TRACKING_URI"] == "http://127.0.0.1:5999"
    assert "MLFLOW_REGISTRY_URI" not in os.environ


# ------------------------------------------------------------------------ fingerprint
def test_fingerprint_depends_on_content_only():
    df = make_series(n=48, tz="Europe/Berlin")
    same = df.copy()
    assert fingerprint(df) == fingerprint(same)
    changed = df.copy()
    changed.iloc[17, 0] += 1e-9
    assert fingerprint(changed) != fingerprint(df)
    assert fingerprint(df.tz_convert("UTC")) != fingerprint(df)  # time zone is content
    assert fingerprint(df.rename(columns={"load": "y"})) != fingerprint(df)
    ints = pd.DataFrame({"load": [1, 2, 3]}, index=df.index[:3])
    assert fingerprint(ints) == fingerprint(ints.astype(float))
    assert fingerprint({"a": df, "b": same}) != fingerprint({"a": df, "b": changed})
    assert len(fingerprint(df)) == 64


def test_fingerprint_has_one_definition_and_pinned_values():
    """Saved folders and MLflow runs store these hashes: the values must never move."""
    import importlib

    for module in ("forecast.frames.fingerprint", "forecast.tracking.fingerprint"):
        assert importlib.import_module(module).fingerprint is fingerprint
    index = pd.date_range("2023-03-26", periods=4, freq="h", tz="Europe/Berlin", name="time")
    df = pd.DataFrame({"load": [1.5, np.nan, 3.0, 4.25], "count": [1, 2, 3, 4]}, index=index)
    naive = pd.DataFrame({"y": [0.0, -1.0]}, index=pd.date_range("2024-01-01", periods=2))
    # the values of version 0.1.0 (forecast/_fingerprint.py then)
    assert fingerprint(df) == "e31ec59ebc62391a6c38285d7b5eb1273ad45f12da1c7be82efe3f2f97a6752f"
    assert (
        fingerprint({"a": df, "b": naive})
        == "d4d21cb8160cdd30d19500a03fa675e9fdd19738385ea7735d46660ab4a612e7"
    )


# --------------------------------------------------------------------------- callback
def test_callback_logs_params_epochs_fingerprint_and_tags(store):
    df = make_series(n=96, tz="Europe/Berlin")
    est = EpochFake(epochs=3)
    cb = MLflowCallback(
        data=df,
        experiment="fits",
        tracking_uri=store,
        dataset="synthetic",
        data_source="/data/synthetic.csv",
    )
    est.fit(df, callbacks=[cb])
    client = MlflowClient(store)
    run = client.get_run(cb.run_id)
    assert run.info.status == "FINISHED"
    assert run.info.run_name == "EpochFake"
    assert run.data.params == {"epochs": "3", "hidden_size": "4", "fail": "False"}
    for key, values in est.history_.items():
        history = client.get_metric_history(cb.run_id, key)
        assert [m.step for m in history] == [0, 1, 2]
        assert [m.value for m in history] == pytest.approx(values)
    metrics = run.data.metrics
    assert metrics["final_val_loss"] == pytest.approx(2.0 / 3)
    assert metrics["best_loss"] == pytest.approx(2.0 / 3)  # min of val_loss
    assert metrics["n_epochs"] == 3 and metrics["fit_seconds"] >= 0
    tags = run.data.tags
    assert tags["data_sha256"] == fingerprint(df)
    assert tags["data_fingerprint_of"] == "data"
    assert tags["dataset"] == "synthetic"
    assert tags["model_family"] == "EpochFake"
    assert tags["device"] == "cpu"
    import torch

    assert tags["torch_version"] == torch.__version__
    (inp,) = run.inputs.dataset_inputs
    assert inp.dataset.name == "synthetic"
    assert inp.dataset.digest == fingerprint(df)[:16]
    assert '"num_rows": 96' in inp.dataset.profile
    assert {t.key: t.value for t in inp.tags}["mlflow.data.context"] == "training"


def test_callback_without_data_fingerprints_the_kept_tail(store):
    df = make_series(n=48)
    cb = MLflowCallback(experiment="fits", tracking_uri=store)
    est = Naive().fit(df, callbacks=[cb])  # keeps only the last row
    tags = MlflowClient(store).get_run(cb.run_id).data.tags
    assert tags["data_fingerprint_of"] == "train_tail_"
    assert tags["data_sha256"] == fingerprint(est.train_tail_[None])
    assert tags["model_family"] == "naive"


def test_track_fit_marks_failed_run_and_reraises(store):
    df = make_series(n=48)
    client = MlflowClient(store)
    with pytest.raises(RuntimeError, match="diverged"):
        track_fit(EpochFake(fail=True), df, experiment="fails", tracking_uri=store)
    exp = client.get_experiment_by_name("fails")
    (run,) = client.search_runs([exp.experiment_id])
    assert run.info.status == "FAILED"
    assert "diverged at epoch 1" in run.data.tags["error"]


def test_sqlite_artifacts_go_beside_the_database(store):
    exp = MlflowClient(store).get_experiment_by_name("fits")
    db_folder = store.removeprefix("sqlite:///").rsplit("/", 1)[0]
    assert exp.artifact_location == f"file://{db_folder}/mlruns"


# ---------------------------------------------------------------------------- tracker
@pytest.fixture(scope="module")
def results():
    df = make_series(n=24 * 10, tz="Europe/Berlin", channels=2)
    models = {"naive": Naive(), "seasonal-naive": SeasonalNaive(season="1D")}
    out = {name: backtest(est, df, horizon=24, start="2023-01-08") for name, est in models.items()}
    return df, models, out


def test_comparison_parent_with_child_runs(store, results, tmp_path):
    df, models, out = results
    png = tmp_path / "week.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n fake")
    tracker = MLflowTracker(experiment="compare", tracking_uri=store, dataset="synthetic")
    with tracker.comparison("day-ahead test", df) as parent_id:
        for name, est in models.items():
            tracker.log_backtest(name, est, out[name], df, plots={"week": png})
    assert tracker.parent_run_id is None
    client = MlflowClient(store)
    parent = client.get_run(parent_id)
    assert parent.info.status == "FINISHED"
    children = client.search_runs(
        [parent.info.experiment_id], f"tags.mlflow.parentRunId = '{parent_id}'"
    )
    assert sorted(r.info.run_name for r in children) == ["naive", "seasonal-naive"]
    for child in children:
        result = out[child.info.run_name]
        overall = result.metrics.loc["overall"]
        assert child.data.metrics["mae"] == pytest.approx(overall["mae"])
        assert child.data.metrics["rmse"] == pytest.approx(overall["rmse"])
        for target in ("y0", "y1"):
            assert child.data.metrics[f"mae/{target}"] == pytest.approx(
                result.metrics.loc[target, "mae"]
            )
        steps = client.get_metric_history(child.info.run_id, "mae_by_step")
        assert sorted(m.step for m in steps) == list(range(1, 25))
        assert child.data.params["backtest.horizon"] == "24"
        assert child.data.tags["data_sha256"] == fingerprint(df)
        files = {f.path for f in client.list_artifacts(child.info.run_id, "backtest")}
        assert {"backtest/forecasts.parquet", "backtest/metrics.csv"} <= files
        plots = [f.path for f in client.list_artifacts(child.info.run_id, "plots")]
        assert plots == ["plots/week.png"]
        local = client.download_artifacts(
            child.info.run_id, "backtest/forecasts.parquet", str(tmp_path)
        )
        pd.testing.assert_frame_equal(pd.read_parquet(local), result.forecasts)
    best = min(out[n].metrics.loc["overall", "mae"] for n in models)
    assert parent.data.metrics["best_mae"] == pytest.approx(best)
    winner = min(models, key=lambda n: out[n].metrics.loc["overall", "mape"])
    assert parent.data.tags["best_model"] == winner and parent.data.tags["best_by"] == "mape"
    assert [f.path for f in client.list_artifacts(parent_id)] == ["comparison.csv"]
    assert "best_n_scored" not in parent.data.metrics
    exp = client.get_experiment(parent.info.experiment_id)
    assert exp.tags["mlflow.experimentKind"] == "custom_model_development"


def test_log_backtest_outside_comparison_is_standalone(store, results):
    df, models, out = results
    tracker = MLflowTracker(experiment="standalone", tracking_uri=store)
    run_id = tracker.log_backtest("naive", models["naive"], out["naive"], df)
    run = MlflowClient(store).get_run(run_id)
    assert "mlflow.parentRunId" not in run.data.tags
    assert run.data.tags["run_kind"] == "backtest"
    assert run.info.status == "FINISHED"
    assert run.data.metrics["n_scored"] == len(out["naive"].forecasts)
    took_ms = run.info.end_time - run.info.start_time  # the duration shown is the backtest's
    assert took_ms >= 1000 * out["naive"].total_seconds - 2


def test_comparison_that_raises_is_marked_failed(store, results):
    df = results[0]
    tracker = MLflowTracker(experiment="compare-fail", tracking_uri=store)
    with pytest.raises(KeyError):
        with tracker.comparison("broken", df) as parent_id:
            raise KeyError("no such model")
    assert MlflowClient(store).get_run(parent_id).info.status == "FAILED"
    assert tracker.parent_run_id is None


def test_backtest_and_compare_call_the_tracker(store, tmp_path):
    from forecast.evaluation.compare import compare

    df = make_series(n=24 * 9, tz="Europe/Berlin")
    tracker = MLflowTracker(experiment="via-compare", tracking_uri=store)
    result = compare(
        {"naive": Naive(), "snaive": SeasonalNaive(season="1D")},
        df,
        tracker=tracker,
        name="cmp",
        horizon=24,
        start="2023-01-08",
        plots_dir=tmp_path,
    )
    client = MlflowClient(store)
    exp = client.get_experiment_by_name("via-compare")
    runs = client.search_runs([exp.experiment_id])
    assert sorted(r.info.run_name for r in runs) == ["cmp", "naive", "snaive"]
    child = next(r for r in runs if r.info.run_name == "snaive")
    assert child.data.metrics["mae"] == pytest.approx(result.table.loc["snaive", "mae"])
    assert "mae/load" not in child.data.metrics  # one target: no per-target copy
    plots = client.list_artifacts(child.info.run_id, "plots")
    assert plots and all(p.path.endswith(".png") for p in plots)


# --------------------------------------------------------------------------- champion
def test_champion_reuses_logged_models_and_serves_the_external_forecast(store):
    from forecast.evaluation.compare import compare
    from forecast.models.baselines import ExternalForecast
    from forecast.tracking import register_champion

    df = make_series(n=24 * 9, tz="Europe/Berlin")
    df["tso"] = df["load"] + 0.01
    models = {
        "tso": ExternalForecast(column="tso"),
        "naive": Naive(),
        "snaive": SeasonalNaive(season="1D"),
    }
    tracker = MLflowTracker(experiment="champion-logged", tracking_uri=store, log_models=True)
    result = compare(models, df, tracker=tracker, horizon=24, start="2023-01-08", target="load")
    client = MlflowClient(store)
    assert sorted(tracker.models) == ["naive", "snaive", "tso"]
    assert result.table["mae"].idxmin() == "tso"

    champion = register_champion(tracker, result, "logged-load", alias="best", select="mae")
    assert champion.model == "tso" and champion.metric == "mae" and not champion.skipped
    assert champion.value == pytest.approx(result.table.loc["tso", "mae"])
    assert champion.model_uri == tracker.models["tso"]  # registered, not logged twice
    exp = client.get_experiment_by_name("champion-logged")
    logged = client.search_logged_models(experiment_ids=[exp.experiment_id])
    assert len(logged) == 3
    version = client.get_model_version_by_alias("logged-load", "best")
    assert str(version.version) == champion.version and version.run_id == tracker.runs["tso"]
    # served: the forecast steps' rows carry the tso column, their targets empty
    with use_store(store):
        served = mlflow.pyfunc.load_model("models:/logged-load@best")
    frame = df.copy()
    frame.iloc[-24:, frame.columns.get_loc("load")] = float("nan")
    got = served.predict(frame, params={"horizon": 24})
    np.testing.assert_allclose(got["load"], df["tso"].iloc[-24:])


def test_champion_needs_a_scored_model(store):
    from forecast.evaluation.compare import compare
    from forecast.tracking import register_champion

    df = make_series(n=24 * 9, tz="Europe/Berlin")
    tracker = MLflowTracker(experiment="champion-none", tracking_uri=store)
    result = compare({"naive": Naive()}, df, tracker=tracker, horizon=24, start="2023-01-08")
    result.table.loc["naive", "mape"] = float("nan")
    with pytest.raises(ValueError, match="no model of the comparison can be registered"):
        register_champion(tracker, result, "none-load", select="mape")
    with pytest.raises(ValueError, match=r"by 'n'; choose one of \['mape', 'mae', 'rmse'\]"):
        register_champion(tracker, result, "none-load", select="n")
    from mlflow.exceptions import MlflowException

    with pytest.raises(MlflowException):
        MlflowClient(store).get_registered_model("none-load")


def test_interval_scores_are_logged_as_metrics(store):
    from forecast import ConformalForecaster

    df = make_series(24 * 40, tz="Europe/Berlin")
    model = ConformalForecaster(SeasonalNaive(season="1D"), horizon=36, calibration="15D")
    result = backtest(model, df, protocol="day-ahead", start="2023-02-02", end="2023-02-08")
    tracker = MLflowTracker(experiment="intervals", tracking_uri=store)
    client = MlflowClient(store)
    run = client.get_run(tracker.log_backtest("conformal", model, result, df))
    overall = result.metrics.loc["overall"]
    for name in ("crps", "pinball", "coverage_80", "width_80", "winkler_80"):
        assert run.data.metrics[name] == pytest.approx(overall[name])
    curve = client.get_metric_history(run.info.run_id, "coverage_80_by_step")
    assert len(curve) == len(result.by_horizon)
    assert run.data.params["estimator"].startswith("SeasonalNaive(")
