"""``forecast serve`` of a registered MLflow model, and models refused at start-up.

The served model is a tiny quantile GRU (one epoch) registered as ``serve-gru@champion``;
``models:/`` URIs load through :func:`forecast.tracking.artifacts.load_artifact`, so a tampered
artifact stops the command with one line before anything in it runs.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor

import mlflow
import pytest

from forecast.models.baselines import SeasonalNaive
from forecast.models.recurrent import GRUForecaster
from forecast.tracking import register, track_fit, use_store
from tests.conftest import TINY_NEURAL, make_series
from tests.serve.harness import Server, finish, rows, start_to_exit
from tests.tracking.test_artifacts import tamper

ZONE = "Europe/Berlin"
LEVELS = (0.1, 0.5, 0.9)


@pytest.fixture(scope="module")
def logged(tmp_path_factory, new_store):
    store = new_store("serve")
    folder = tmp_path_factory.mktemp("serve-mlflow")
    data = make_series(24 * 14, tz=ZONE, start="2023-03-01")
    est = GRUForecaster(**{**TINY_NEURAL, "max_epochs": 1, "quantiles": LEVELS})
    cb = track_fit(est, data, experiment="serve", tracking_uri=store, log_model=True)
    register(cb.model_info.model_uri, "serve-gru", alias="champion", tracking_uri=store)
    with use_store(store):
        clean = mlflow.artifacts.download_artifacts(
            artifact_uri=f"runs:/{cb.run_id}/model", dst_path=str(folder / "download")
        )
    return {"store": store, "est": est, "clean": clean, "dir": folder}


@pytest.fixture(scope="module")
def served(logged):
    server = Server(["models:/serve-gru@champion", "--tracking-uri", logged["store"]])
    yield server, logged["est"]
    server.stop()


def test_health_of_a_registered_model(served):
    server, _ = served
    status, body = server.call("GET", "/health")
    assert status == 200 and body["model"] == "models:/serve-gru@champion"
    assert body["estimator"] == "GRUForecaster" and body["timezone"] == ZONE
    assert body["quantile_levels"] == list(LEVELS)


@pytest.mark.parametrize(
    ("asked", "levels"),
    [("all", True), ([0.1, 0.9], (0.1, 0.9)), ("0.9", (0.9,)), (True, True), (None, None)],
)
def test_quantiles_on_request_equal_predict(served, asked, levels):
    server, est = served
    history = make_series(24 * 3, tz=ZONE, start="2023-03-24", seed=3)  # ends 27 Mar 00:00
    status, body = server.call(
        "POST", "/forecast", {"history": rows(history), "horizon": 6, "quantiles": asked}
    )
    assert status == 200, body
    expected = est.predict(horizon=6, history=history, quantiles=levels)
    got = body["forecast"]
    assert [r["timestamp"] for r in got] == [t.isoformat() for t in expected.index]
    assert got[0]["timestamp"] == "2023-03-27T01:00:00+02:00"
    assert [list(r)[1:] for r in got] == [list(expected.columns)] * 6
    for column in expected.columns:
        assert [r[column] for r in got] == expected[column].tolist()


def test_concurrent_requests_to_a_torch_model(served):
    server, est = served
    histories = [make_series(24 * 2, tz=ZONE, start=f"2023-03-{10 + i}", seed=i) for i in range(8)]
    bodies = [
        {"history": rows(h), "horizon": 3 + i, "quantiles": "all"} for i, h in enumerate(histories)
    ]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda b: server.call("POST", "/forecast", b), bodies))
    for i, (status, body) in enumerate(answers):
        assert status == 200, body
        expected = est.predict(horizon=3 + i, history=histories[i], quantiles=True)
        for column in expected.columns:
            assert [r[column] for r in body["forecast"]] == expected[column].tolist()


def test_unknown_quantile_level_is_refused(served):
    server, _ = served
    history = make_series(24 * 3, tz=ZONE, start="2023-03-24")
    status, body = server.call("POST", "/forecast", {"history": rows(history), "quantiles": [0.25]})
    assert status == 422 and "0.25" in body["error"] and "\n" not in body["error"]


@pytest.fixture(scope="module")
def refused(logged, tmp_path_factory):
    """Start ``forecast serve`` on models it must refuse, all at once; their outcomes."""
    tmp = tmp_path_factory.mktemp("refused")
    other = SeasonalNaive(season="1D").fit(make_series(48)).save(tmp / "other")
    cases = {}
    for case in ("python_model",):  # tests/tracking/test_artifacts.py tries every kind
        root = tmp / case / "model"
        shutil.copytree(logged["clean"], root)
        marker = tmp / case / "marker"
        field = tamper(case, root, marker, other)
        cases[case] = ([root], f"model {root}: MLmodel field '{field}' refused", marker)
    changed = SeasonalNaive(season="1D").fit(make_series(48)).save(tmp / "changed")
    fitted = changed / "fitted.json"
    fitted.write_text(fitted.read_text().replace("{", "{ ", 1))  # same JSON, other bytes
    cases["changed folder"] = ([changed], "fitted.json", None)
    missing = ["models:/no-such@champion", "--tracking-uri", logged["store"]]
    cases["missing"] = (missing, "model models:/no-such@champion not found", None)
    starts = {case: start_to_exit(args) for case, (args, _, _) in cases.items()}
    return {case: (finish(starts[case]), *cases[case][1:]) for case in cases}


@pytest.mark.parametrize("case", ["python_model", "changed folder", "missing"])
def test_a_model_that_cannot_be_loaded_stops_the_start_with_one_line(refused, case):
    (code, err), message, marker = refused[case]
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("forecast serve: error: ") and message in err
    if marker is not None:  # the planted code never ran
        assert not marker.exists()
