import json
import os

import mlflow
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlflow import MlflowClient

from forecast.models.baselines import SeasonalNaive
from forecast.tracking import register, to_history, track_fit, use_store
from forecast.tracking.pyfunc import input_example, model_signature, split_future
from tests.conftest import make_series


@pytest.fixture(scope="module")
def store(new_store):
    return new_store("pyfunc")


@pytest.fixture(scope="module")
def data():
    # two weeks over the spring DST change, in local time
    return make_series(n=24 * 14, tz="Europe/Berlin", start="2023-03-20", name="time")


@pytest.fixture(scope="module")
def logged(store, data):
    est = SeasonalNaive(season="1D", n_seasons=2)
    cb = track_fit(est, data, experiment="pyfunc", tracking_uri=store, log_model=True)
    version = register(
        cb.model_info.model_uri, "power-load-de", alias="champion", tracking_uri=store
    )
    return est, cb, version


def load(uri, store):
    with use_store(store):
        return mlflow.pyfunc.load_model(uri)


def test_registered_alias_gives_the_estimators_forecast(store, data, logged):
    est, cb, version = logged
    assert version == "1"
    model = load("models:/power-load-de@champion", store)
    history = data.iloc[-100:]  # tz-aware DatetimeIndex
    got = model.predict(history, params={"horizon": 24})
    expected = est.predict(horizon=24, history=history)
    pd.testing.assert_frame_equal(got, expected)
    assert str(got.index.tz) == "Europe/Berlin" and got.index.name == "time"
    assert got.index[0] == data.index[-1] + pd.Timedelta("1h")


@pytest.mark.parametrize("uri", ["model_info", "runs"])
def test_logged_model_uris_load(store, data, logged, uri):
    est, cb, _ = logged
    target = cb.model_info.model_uri if uri == "model_info" else f"runs:/{cb.run_id}/model"
    got = load(target, store).predict(data, params={"horizon": 5})
    pd.testing.assert_frame_equal(got, est.predict(horizon=5, history=data))


def test_horizon_param_default_and_signature(store, data, logged):
    est, cb, _ = logged
    model = load(cb.model_info.model_uri, store)
    assert len(model.predict(data)) == 24  # default of the typed "horizon" parameter
    (param,) = model.metadata.get_params_schema().params
    assert param.to_dict() == {"name": "horizon", "type": "long", "default": 24, "shape": None}
    inputs = model.metadata.get_input_schema().to_dict()
    # any type: datetimes, or ISO-8601 strings with UTC offsets (exact across DST changes)
    assert inputs[0] == {"type": "any", "name": "timestamp", "required": False}
    assert inputs[1] == {"type": "double", "name": "load", "required": True}
    with pytest.raises(mlflow.exceptions.MlflowException):
        model.predict(data, params={"horizon": "a day"})


def test_timestamp_column_round_trip_and_input_example(store, data, logged, tmp_path):
    est, cb, _ = logged
    model = load(cb.model_info.model_uri, store)
    expected = est.predict(horizon=6, history=data)
    # the form of JSON requests: ISO-8601 strings with UTC offsets in a column
    flat = data.reset_index()
    flat["timestamp"] = [t.isoformat() for t in flat.pop("time")]
    assert flat["timestamp"].iloc[0] == "2023-03-20T00:00:00+01:00"
    pd.testing.assert_frame_equal(model.predict(flat, params={"horizon": 6}), expected)
    # naive stamps are local times in the model's zone (here across the spring change)
    local = data.reset_index()
    local["timestamp"] = local.pop("time").dt.tz_localize(None)
    pd.testing.assert_frame_equal(model.predict(local, params={"horizon": 6}), expected)
    utc = data.reset_index()  # naive UTC is not the model's clock: read as local, refused
    utc["timestamp"] = utc.pop("time").dt.tz_convert("UTC").dt.tz_localize(None)
    with pytest.raises(ValueError, match="2023-03-26 02:00:00 is read as local time in Europe"):
        model.predict(utc, params={"horizon": 6})
    with use_store(store):
        folder = mlflow.artifacts.download_artifacts(
            cb.model_info.model_uri, dst_path=str(tmp_path)
        )
    example = json.loads(open(os.path.join(folder, "input_example.json")).read())
    assert example["params"] == {"horizon": 24}
    assert example["inputs"]["columns"] == ["timestamp", "load"]
    stamps = [row[0] for row in example["inputs"]["data"]]
    assert stamps[-1] == data.index[-1].isoformat()  # with its UTC offset
    assert len(example["inputs"]["data"]) == est._min_history()
    assert os.path.isdir(os.path.join(folder, "data", "estimator"))


def test_to_history_accepts_index_column_and_strings(data):
    est = SeasonalNaive(season="1D").fit(data)
    tail = data.iloc[-30:]
    from_utc_index = to_history(tail.tz_convert("UTC"), est)
    pd.testing.assert_frame_equal(from_utc_index, tail)
    strings = tail.reset_index()
    strings["timestamp"] = strings.pop("time").map(lambda t: t.isoformat())
    pd.testing.assert_frame_equal(to_history(strings, est), tail, check_freq=False)
    with pytest.raises(ValueError, match="no timestamps.*RangeIndex"):
        to_history(tail.reset_index(drop=True), est)
    bad = strings.assign(timestamp=["yesterday"] + list(strings["timestamp"][1:]))
    with pytest.raises(ValueError, match="has a value that is not a timestamp: 'yesterday'"):
        to_history(bad, est)


def test_naive_model_rejects_aware_history(data):
    naive = data.tz_convert("UTC").tz_localize(None)
    est = SeasonalNaive(season="1D").fit(naive)
    pd.testing.assert_frame_equal(to_history(naive, est), naive)
    with pytest.raises(ValueError, match="fitted on naive timestamps"):
        to_history(data, est)


def test_input_example_and_signature_of_several_series():
    frames = {"north": make_series(n=60, seed=1), "south": make_series(n=60, seed=2)}
    est = SeasonalNaive(season="1D").fit(frames)
    example = input_example(est)
    assert list(example.columns) == ["timestamp", "id", "load"]
    assert sorted(example["id"].unique()) == ["north", "south"]
    names = [c["name"] for c in model_signature(est).inputs.to_dict()]
    assert names == ["timestamp", "id", "load"]


def test_neural_model_round_trip(store, seed):
    recurrent = pytest.importorskip("forecast.models.recurrent")
    df = make_series(n=24 * 4, tz="UTC")
    est = recurrent.LSTMForecaster(
        context_length=24,
        horizon=12,
        hidden_size=4,
        max_epochs=2,
        batch_size=64,
        random_state=0,
        device="cpu",
    )
    cb = track_fit(est, df, experiment="pyfunc", tracking_uri=store, log_model=True)
    client = MlflowClient(store)
    steps = [m.step for m in client.get_metric_history(cb.run_id, "train_loss")]
    assert steps == list(range(est.n_epochs_))
    got = load(f"runs:/{cb.run_id}/model", store).predict(df.iloc[-48:], params={"horizon": 12})
    pd.testing.assert_frame_equal(got, est.predict(horizon=12, history=df.iloc[-48:]))


def test_dct_mixer_round_trip(store):
    from forecast.models.dct_mixer import DCTMixerForecaster

    df = make_series(n=24 * 4, tz="UTC")
    est = DCTMixerForecaster(
        context_length=24, horizon=12, hidden_size=4, num_layers=1, max_epochs=2, random_state=0
    )
    cb = track_fit(est, df, experiment="pyfunc", tracking_uri=store, log_model=True)
    params = MlflowClient(store).get_run(cb.run_id).data.params
    assert params["mixer"] == "gcn" and params["observed_loss"] == "True"
    got = load(f"runs:/{cb.run_id}/model", store).predict(df.iloc[-48:], params={"horizon": 12})
    pd.testing.assert_frame_equal(got, est.predict(horizon=12, history=df.iloc[-48:]))


def test_future_covariates_come_from_the_rows_after_the_history(store):
    from forecast.models.baselines import ExternalForecast

    df = make_series(n=24 * 6, tz="Europe/Berlin", name="time")
    df["forecast"] = df["load"] * 1.01 + 3.0
    est = ExternalForecast(column="forecast", debias="1D").fit(df.iloc[:-24])
    cb = track_fit(
        ExternalForecast(column="forecast", debias="1D"),
        df.iloc[:-24],
        experiment="pyfunc",
        tracking_uri=store,
        log_model=True,
    )
    names = [c["name"] for c in model_signature(est).inputs.to_dict()]
    assert names == ["timestamp", "load", "forecast", "issue_time"]
    model = load(cb.model_info.model_uri, store)
    # the last 24 rows are the forecast steps: targets empty, the forecast column given
    frame = df.copy()
    frame.iloc[-24:, frame.columns.get_loc("load")] = float("nan")
    got = model.predict(frame, params={"horizon": 24})
    expected = est.predict(horizon=24, history=df.iloc[:-24], future=df)
    pd.testing.assert_frame_equal(got, expected)
    assert got.index[0] == df.index[-24]
    # the same through the timestamp column of a JSON-like request
    flat = frame.reset_index().rename(columns={"time": "timestamp"})
    flat["timestamp"] = [t.isoformat() for t in flat["timestamp"]]
    pd.testing.assert_frame_equal(model.predict(flat, params={"horizon": 24}), expected)
    # the logged input example has the forecast steps' rows with empty targets
    example = input_example(est, df.iloc[:-24], horizon=24)
    assert example["load"].isna().sum() == 24 and example["forecast"].notna().all()
    from mlflow.exceptions import MlflowException

    with pytest.raises(MlflowException, match="forecast"):  # the signature's check
        model.predict(frame[["load"]], params={"horizon": 24})
    with pytest.raises(ValueError, match=r"the input lacks \['forecast'\]"):
        split_future(frame[["load"]], est)
    with pytest.raises(ValueError, match="no row of the input has a value of the targets"):
        split_future(frame.assign(load=float("nan")), est)
    with pytest.raises(ValueError, match="lack 6 forecast timestamp"):
        model.predict(frame.iloc[:-6], params={"horizon": 24})


def test_input_example_comes_from_the_fit_data_when_the_model_keeps_one_row(store):
    from forecast.models.baselines import Naive

    df = make_series(n=48, tz="UTC")
    est = Naive().fit(df)
    assert input_example(est) is None  # one kept row cannot be forecast from
    example = input_example(est, df)
    assert len(example) == 3
    assert list(example["timestamp"]) == [t.isoformat() for t in df.index[-3:]]
    cb = track_fit(Naive(), df, experiment="pyfunc", tracking_uri=store, log_model=True)
    model = load(cb.model_info.model_uri, store)
    assert model.metadata.saved_input_example_info["type"] == "dataframe"
    got = model.predict(df.iloc[-5:], params={"horizon": 2})
    assert list(got["load"]) == [df["load"].iloc[-1]] * 2


def test_quantiles_param_adds_interval_columns(store, data):
    from forecast import ConformalForecaster

    est = ConformalForecaster(SeasonalNaive(season="1D"), horizon=6, calibration="4D")
    cb = track_fit(est, data, experiment="pyfunc-q", tracking_uri=store, log_model=True)
    model = load(cb.model_info.model_uri, store)
    names = [p.name for p in model.metadata.get_params_schema().params]
    assert names == ["horizon", "quantiles"]
    history = data.iloc[-100:]
    got = model.predict(history, params={"horizon": 6, "quantiles": "0.1,0.9"})
    pd.testing.assert_frame_equal(got, est.predict(6, history=history, quantiles=True))
    got = model.predict(history, params={"horizon": 6, "quantiles": "0.9"})
    assert list(got.columns) == ["load", "load_q0.9"]
    assert list(model.predict(history, params={"horizon": 6}).columns) == ["load"]
    with pytest.raises(Exception, match="no quantile level 0.05"):
        model.predict(history, params={"horizon": 6, "quantiles": "0.05"})


@settings(max_examples=50, deadline=None)
@given(
    n_observed=st.integers(1, 30),
    n_ahead=st.integers(0, 10),
    holes=st.lists(st.integers(0, 29), max_size=5),
    long=st.booleans(),
)
def test_split_future_keeps_rows_up_to_the_last_observed_target(n_observed, n_ahead, holes, long):
    from forecast.models.baselines import ExternalForecast

    fitted = ExternalForecast(column="f").fit(
        pd.DataFrame(
            {"load": [1.0, 2.0, 3.0, 4.0], "f": [1.0, 2.0, 3.0, 4.0]},
            index=pd.date_range("2023-01-01", periods=4, freq="h"),
        )
    )
    n = n_observed + n_ahead
    index = pd.date_range("2023-01-02", periods=n, freq="h", name="time")
    load = np.arange(n, dtype=float)
    load[n_observed:] = np.nan
    for h in holes:  # gaps inside the history stay in it
        if h < n_observed - 1:
            load[h] = np.nan
    frame = pd.DataFrame({"load": load, "f": np.arange(n) + 0.5}, index=index)
    if long:
        frame = pd.concat([frame.assign(id="a"), frame.assign(id="b")]).reset_index()
    before = frame.copy()
    history, future = split_future(frame, fitted)
    pd.testing.assert_frame_equal(frame, before)  # the input is not changed
    per_series = [history] if not long else [p for _, p in history.groupby("id")]
    for part in per_series:
        assert len(part) == n_observed
        assert np.isfinite(part["load"].iloc[-1])
    assert len(future) == len(frame) and list(future["f"]) == list(frame["f"])


def test_rows_with_an_issue_time_are_vintages_read_as_known_at_the_origin(store):
    from forecast.frames.vintage_sources import daily_vintages
    from forecast.models.baselines import ExternalForecast

    df = make_series(n=24 * 6, tz="Europe/Berlin", name="time")
    df["forecast"] = df["load"] + 1.0
    history = df.iloc[: 24 * 4 + 12]  # up to 11:00 on day 5
    cb = track_fit(
        ExternalForecast(column="forecast", published="10:00 D-1"),
        history,
        experiment="pyfunc",
        tracking_uri=store,
        log_model=True,
    )
    model = load(cb.model_info.model_uri, store)
    first = daily_vintages(df, ["forecast"], time="10:00")
    late = first.assign(issue_time=first.issue_time + pd.Timedelta("5h"), forecast=-1.0)
    vintages = pd.concat([first, late]).rename(columns={"valid_time": "timestamp"})
    request = pd.concat([history.reset_index().rename(columns={"time": "timestamp"}), vintages])
    request["timestamp"] = [t.isoformat() for t in request["timestamp"]]
    request["issue_time"] = [None if pd.isna(t) else t.isoformat() for t in request["issue_time"]]
    got = model.predict(request.reset_index(drop=True), params={"horizon": 36})
    # the rest of day 5 reads its revision of 15:00 on day 4; day 6 was published at 10:00
    # on day 5, before the 11:00 origin, and its revision of 15:00 comes after it
    expected = df["forecast"].iloc[24 * 4 + 12 : 24 * 4 + 48].to_numpy().copy()
    expected[:12] = -1.0
    np.testing.assert_allclose(got["load"].to_numpy(), expected)
    assert got.index[0] == df.index[24 * 4 + 12]
