"""The line ``forecast run`` prints: the runs of the experiment sorted by the selection metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forecast.cli import main
from forecast.tracking.views import runs_link_line
from tests.conftest import make_series

SPEC = """
name = "tiny-link"
[data]
path = "{csv}"
timezone = "Europe/Berlin"
[backtest]
protocol = "day-ahead"
start = "2023-01-15"
end = "2023-01-17"
target = "load"
[models.last]
model = "naive"
[models.daily]
model = "seasonal-naive"
season = "1D"
[tracking]
enabled = true
tracking_uri = "{uri}"
experiment = "link"
select = "{select}"
"""

VIEW = "mlflow.sharedViewState."
URL = "http://127.0.0.1:5000/#/experiments/1/runs?workflowType=machine_learning"


def test_a_server_serves_the_link_a_database_or_folder_says_which_ui_to_start(tmp_path):
    server = runs_link_line("live MAPE", URL, "https://mlflow.example.org/")
    assert server == f"runs by live MAPE: {URL}"
    db = runs_link_line("mape", URL, "sqlite:///mlflow.db")  # relative: made absolute
    assert db == (
        f"runs by mape: {URL} (start: mlflow ui --backend-store-uri "
        f"sqlite:///{Path('mlflow.db').resolve()})"
    )
    folder = runs_link_line("mape", URL, str(tmp_path / "mlruns"))
    assert folder.endswith(f"--backend-store-uri {(tmp_path / 'mlruns').as_uri()})")
    assert runs_link_line("mape", URL, "file:///srv/mlruns").endswith(" file:///srv/mlruns)")
    remote = runs_link_line("mape", URL, "postgresql://user@db/mlflow")
    assert remote.endswith("(start: mlflow ui --backend-store-uri postgresql://user@db/mlflow)")


@pytest.mark.parametrize("select", ["mae", "mape"])
def test_forecast_run_prints_the_link_to_the_runs_by_the_selection_metric(
    tmp_path, new_store, capsys, select
):
    from mlflow import MlflowClient

    uri = new_store("link")
    csv = tmp_path / "load.csv"
    make_series(24 * 21, tz="UTC").rename_axis("timestamp").reset_index().to_csv(csv, index=False)
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(csv=csv, uri=uri, select=select))
    assert main(["run", str(spec), "--output", str(tmp_path / "out"), "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    experiment = MlflowClient(uri).get_experiment_by_name("link").experiment_id
    lines = [line for line in out if line.startswith("runs by ")]
    assert lines == [
        f"runs by {select}: http://127.0.0.1:5000/#/experiments/{experiment}/runs?"
        f"workflowType=machine_learning&viewStateShareKey=forecast-by-{select} "
        f"(start: mlflow ui --backend-store-uri {uri})"
    ]
    view = MlflowClient(uri).get_experiment(experiment).tags[f"{VIEW}forecast-by-{select}"]
    state = json.loads(json.loads(view)["state"])
    assert state["orderByKey"] == f"metrics.`{select}`" and state["orderByAsc"] is True
