"""The link to an experiment's runs sorted by the selection metric (a saved MLflow UI view)."""

import json
import logging
from urllib.parse import parse_qs, urlsplit

from mlflow import MlflowClient

from forecast.evaluation.compare import compare
from forecast.models.baselines import Naive, SeasonalNaive
from forecast.tracking import MLflowTracker
from forecast.tracking.views import runs_view_url, ui_base_url, view_state
from tests.conftest import make_series


def test_view_state_sorts_by_the_metric_and_shows_it_first():
    state = view_state("mape", ["mae", "mape"])
    assert state["orderByKey"] == "metrics.`mape`" and state["orderByAsc"] is True
    assert state["selectedColumns"] == ["metrics.`mape`", "metrics.`mae`", "tags.`best_model`"]


def test_ui_base_url_of_a_server_and_of_a_database():
    assert ui_base_url("https://mlflow.example.org/") == "https://mlflow.example.org"
    assert ui_base_url("sqlite:///mlflow.db") == "http://127.0.0.1:5000"


def test_runs_view_url_saves_a_view_the_link_opens(new_store):
    client = MlflowClient(new_store("views"))
    experiment = client.create_experiment("views")
    url = runs_view_url(client, experiment, "mape/load", ["mae"], base_url="http://host:8080/")
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}/" == "http://host:8080/"
    path, _, query = parts.fragment.partition("?")
    assert path == f"/experiments/{experiment}/runs"
    params = {k: v[0] for k, v in parse_qs(query).items()}
    assert params == {
        "workflowType": "machine_learning",
        "viewStateShareKey": "forecast-by-mape-load",
    }
    tag = client.get_experiment(experiment).tags["mlflow.sharedViewState.forecast-by-mape-load"]
    envelope = json.loads(tag)
    assert envelope["name"] == "sorted by mape/load"
    assert json.loads(envelope["state"]) == view_state("mape/load", ["mae"])
    assert runs_view_url(client, experiment, "mape/load", base_url="http://host:8080") == url
    again = json.loads(
        client.get_experiment(experiment).tags[
            f"mlflow.sharedViewState.{params['viewStateShareKey']}"
        ]
    )
    assert again["createdAt"] == envelope["createdAt"]  # rewritten, not a second view


def test_a_tracked_comparison_logs_the_link(new_store, caplog):
    uri = new_store("views-compare")
    tracker = MLflowTracker(experiment="views", tracking_uri=uri)
    df = make_series(n=24 * 10, tz="Europe/Berlin")
    models = {"naive": Naive(), "seasonal-naive": SeasonalNaive(season="1D")}
    with caplog.at_level(logging.INFO, logger="forecast.tracking"):
        compare(models, df, tracker=tracker, horizon=24, start="2023-01-07", progress=False)
    assert tracker.runs_url is not None
    assert f"#/experiments/{tracker.experiment_id}/runs?" in tracker.runs_url
    assert tracker.runs_url in caplog.text and "by mape" in caplog.text
    tags = MlflowClient(uri).get_experiment(tracker.experiment_id).tags
    state = json.loads(json.loads(tags["mlflow.sharedViewState.forecast-by-mape"])["state"])
    assert state["selectedColumns"][0] == "metrics.`mape`"


def test_a_store_refusing_the_view_keeps_the_comparison(new_store, caplog, monkeypatch):
    from mlflow.exceptions import MlflowException

    def refuse(self, *args, **kwargs):
        raise MlflowException("permission denied")

    monkeypatch.setattr(MlflowClient, "set_experiment_tag", refuse)
    uri = new_store("views-refused")
    tracker = MLflowTracker(experiment="views", tracking_uri=uri)
    df = make_series(n=24 * 10, tz="Europe/Berlin")
    with caplog.at_level(logging.WARNING, logger="forecast.tracking"):
        compare({"naive": Naive()}, df, tracker=tracker, horizon=24, start="2023-01-07",
                progress=False)  # fmt: skip
    assert tracker.runs_url is None
    assert "no MLflow UI view of the runs by mape: permission denied" in caplog.text
    runs = MlflowClient(uri).search_runs([tracker.experiment_id])
    assert {run.info.status for run in runs} == {"FINISHED"}
