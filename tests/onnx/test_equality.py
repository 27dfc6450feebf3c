"""onnxruntime forecasts equal torch's ``predict`` for every family, point and quantile heads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import make_series, neural_families
from tests.onnx.helpers import LEVELS, TINY, assert_same_forecast

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from forecast.onnx.runtime import OnnxForecaster  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return make_series(n=200)


@pytest.mark.parametrize("quantiles", [None, LEVELS], ids=["point", "quantile"])
@pytest.mark.parametrize("cls", neural_families(), ids=lambda c: c.__name__)
def test_onnx_forecast_equals_torch_predict(cls, quantiles, data, tmp_path):
    model = cls(**TINY, quantiles=quantiles).fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "export"))
    history = data.iloc[-60:] + 0.5  # new history, not the training tail
    ask = True if quantiles else None
    for horizon in (6, 3, 14):  # the head's horizon, fewer steps, a roll-out fed back
        want = model.predict(horizon=horizon, history=history, quantiles=ask)
        got = runtime.predict(horizon=horizon, history=history, quantiles=ask)
        assert_same_forecast(want, got)
    if quantiles:
        assert got.shape[1] == 1 + len(LEVELS)
        assert (got["load_q0.1"] <= got["load_q0.9"]).all()
        part = runtime.predict(horizon=6, history=history, quantiles=(0.9,))
        assert list(part.columns) == ["load", "load_q0.9"]


@pytest.mark.parametrize(
    "options",
    [
        dict(strategy="recursive"),
        dict(strategy="seq2seq"),
        dict(residual=True),  # dropout between layers, step changes read (torch.diff)
        dict(residual=True, strategy="recursive", quantiles=LEVELS),
        dict(normalization="window", linear_skip=True, n_ensemble=2),
        dict(target_transform="difference", input_differences=True, patch_length=4),
        dict(residual=True, dct_input=20, dct_output=3, channel_mixing=True, quantiles=LEVELS),
    ],
    ids=[
        "recursive",
        "seq2seq",
        "residual",
        "residual-recursive-q",
        "norm-skip-ens",
        "diff",
        "dct",
    ],
)
def test_options_export_and_forecast_alike(options, data, tmp_path):
    from forecast.models.recurrent import GRUForecaster

    model = GRUForecaster(**dict(TINY, num_layers=2, dropout=0.2), **options).fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    ask = True if "quantiles" in options else None
    for horizon in (6, 17):
        want = model.predict(horizon=horizon, history=data.iloc[-40:], quantiles=ask)
        got = runtime.predict(horizon=horizon, history=data.iloc[-40:], quantiles=ask)
        assert_same_forecast(want, got)


def test_dst_crossing_calendar_covariates_and_many_series(tmp_path):
    """Calendar features in local time, future and past covariates, a long frame of 2 series."""
    from forecast.models.recurrent import LSTMForecaster

    frames = []
    for i in range(2):
        s = make_series(n=200, tz="Europe/Berlin", start="2023-03-22", seed=i)
        s["temp"] = np.cos(np.arange(200) / 7.0) + i
        s["price"] = np.sin(np.arange(200) / 5.0)
        frames.append(s.rename_axis("time").reset_index().assign(id=f"s{i}"))
    long = pd.concat(frames, ignore_index=True)
    params = dict(TINY, calendar=True, country="DE", timezone="Europe/Berlin")
    model = LSTMForecaster(**params, future_covariates=["temp"], past_covariates=["price"])
    model.fit(long)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    history = long.groupby("id").head(96)  # ends 2023-03-25 23:00 local, before spring-forward
    last = pd.DatetimeIndex(history["time"]).max()
    steps = pd.date_range(last, periods=7, freq="h")[1:]
    future = {f"s{i}": pd.DataFrame({"temp": np.arange(6.0) + i}, index=steps) for i in range(2)}
    want = model.predict(horizon=6, history=history, future=future)
    got = runtime.predict(horizon=6, history=history, future=future)
    assert_same_forecast(want, got)
    local = pd.DatetimeIndex(got.loc[got["id"] == "s0", "time"])
    assert local.hour.tolist() == [0, 1, 3, 4, 5, 6]  # 02:00 does not exist on 2023-03-26
    assert str(local.tz) == "Europe/Berlin"


def test_predict_needs_history_and_refuses_what_the_estimator_refuses(data, tmp_path):
    from forecast.models.recurrent import GRUForecaster

    model = GRUForecaster(**TINY).fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    with pytest.raises(ValueError, match="needs history"):
        runtime.predict(horizon=3)
    with pytest.raises(ValueError, match="history needed by predict"):
        runtime.predict(horizon=3, history=data.iloc[-5:])
    with pytest.raises(ValueError, match="forecasts no quantiles"):
        runtime.predict(horizon=3, history=data, quantiles=True)
    with pytest.raises(ValueError, match="load"):
        runtime.predict(horizon=3, history=data.rename(columns={"load": "other"}))


@pytest.fixture(scope="module")
def gru(data):
    from forecast.models.recurrent import GRUForecaster

    return GRUForecaster(**TINY, quantiles=LEVELS, strategy="recursive").fit(data)


@pytest.fixture(scope="module")
def gru_runtime(gru, tmp_path_factory):
    return OnnxForecaster.load(gru.to_onnx(tmp_path_factory.mktemp("gru") / "m"))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    length=st.integers(24, 80),
    start=st.datetimes(min_value=pd.Timestamp("2000-01-01"), max_value=pd.Timestamp("2030-01-01")),
    level=st.floats(-1e3, 1e3),
    spread=st.floats(1e-3, 1e2),
    horizon=st.integers(1, 30),
    seed=st.integers(0, 2**16),
)
def test_any_history_forecasts_alike(gru, gru_runtime, length, start, level, spread, horizon, seed):
    rng = np.random.default_rng(seed)
    index = pd.date_range(pd.Timestamp(start).floor("h"), periods=length, freq="h")
    history = pd.DataFrame({"load": level + spread * rng.standard_normal(length)}, index=index)
    want = gru.predict(horizon=horizon, history=history, quantiles=True)
    got = gru_runtime.predict(horizon=horizon, history=history, quantiles=True)
    assert got.index.equals(want.index) and list(got.columns) == list(want.columns)
    scale = max(1.0, float(np.abs(want.to_numpy()).max()))  # float32 networks: relative 1e-5
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize("quantiles", [None, LEVELS], ids=["point", "quantile"])
def test_peephole_lstm_exports_through_its_stand_in(quantiles, data, tmp_path):
    """The in-place peephole loop is traced through an out-of-place stand-in, checked."""
    from forecast.models.recurrent import LSTMForecaster

    params = dict(TINY, peephole=True, num_layers=2, dropout=0.2)
    model = LSTMForecaster(**params, quantiles=quantiles).fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    ask = True if quantiles else None
    for horizon in (6, 13):
        want = model.predict(horizon=horizon, history=data.iloc[-30:], quantiles=ask)
        got = runtime.predict(horizon=horizon, history=data.iloc[-30:], quantiles=ask)
        assert_same_forecast(want, got)


def test_several_channels_roll_out_on_the_median(tmp_path):
    """Three target channels (mocap-like): the median of each channel is fed back."""
    from forecast.models.hopfield import HopfieldForecaster

    data = make_series(n=200, channels=3)
    model = HopfieldForecaster(**TINY, quantiles=LEVELS, strategy="recursive").fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    want = model.predict(horizon=10, history=data.iloc[-30:], quantiles=True)
    got = runtime.predict(horizon=10, history=data.iloc[-30:], quantiles=True)
    assert got.shape == (10, 3 * (1 + len(LEVELS)))
    assert_same_forecast(want, got)


@pytest.mark.parametrize("mixer", ["gcn", "mlp", "pgbig"])
def test_dct_mixer_exports_and_forecasts_alike(mixer, data, tmp_path):
    from forecast.models.dct_mixer import DCTMixerForecaster

    rtol = 0.0
    if mixer == "pgbig":  # PGBIG's stages read (x, y, z) triples: one joint
        data = make_series(n=200, channels=3)
        rtol = 1e-5  # float32 rounding through its deeper stack and the 14-step roll-out
    model = DCTMixerForecaster(**TINY, num_layers=1, mixer=mixer).fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    history = data.iloc[-60:] + 0.5
    for horizon in (6, 3, 14):
        want = model.predict(horizon=horizon, history=history)
        assert_same_forecast(want, runtime.predict(horizon=horizon, history=history), rtol)
