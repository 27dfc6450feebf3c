"""Window normalisation, seasonal references, ensembles, validation size, training origins,
micro-batches."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast import load
from forecast.base import SeriesArrays
from forecast.frames.steps import origin_masks
from forecast.models import auto
from forecast.models.auto import resolve_origins
from forecast.models.hopfield import HopfieldForecaster
from forecast.models.orthogonal import OrthogonalRNNForecaster
from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
from forecast.models.transformer import TransformerForecaster
from forecast.nn.ensemble import EnsembleNet
from forecast.nn.net import ForecastNet
from tests.conftest import TINY_NEURAL, make_series, neural_families

TINY = TINY_NEURAL


def test_auto_normalisation_is_window_for_sliding_and_off_for_tbptt():
    df = make_series(200)
    assert GRUForecaster(**TINY).fit(df).normalize_ is True
    assert GRUForecaster(**TINY, windowing="tbptt").fit(df).normalize_ is False
    assert GRUForecaster(**TINY, normalization=None).fit(df).normalize_ is False
    with pytest.raises(ValueError, match="normalization"):
        GRUForecaster(**TINY, normalization="revin").fit(df)
    with pytest.raises(ValueError, match="windowing='tbptt' use normalization=None"):
        GRUForecaster(**TINY, windowing="tbptt", normalization="window").fit(df)
    with pytest.raises(ValueError, match="reference=None"):
        GRUForecaster(**TINY, windowing="tbptt", reference="1D").fit(df)


def test_window_normalised_model_follows_a_level_shift_of_the_history():
    df = make_series(300)
    model = GRUForecaster(**TINY).fit(df)
    history = df.iloc[-100:]
    base = model.predict(horizon=6, history=history)
    shifted = model.predict(horizon=6, history=history + 3.0)
    np.testing.assert_allclose(shifted.to_numpy(), base.to_numpy() + 3.0, atol=1e-4)


@pytest.mark.parametrize(
    ("reference", "steps"),
    [("1D", 24), (12, 12), ("12h", 12), (pd.Timedelta("1D"), 24), ("a day", None), (1.5, None)],
)
def test_reference_in_steps_or_as_a_duration(reference, steps):
    df = make_series(200)
    if steps is None:
        with pytest.raises(ValueError, match="is neither an int number of steps nor a fixed time"):
            GRUForecaster(**TINY, reference=reference).fit(df)
        return
    model = GRUForecaster(**TINY, reference=reference).fit(df)
    assert model.season_ == steps
    assert model.predict(horizon=30).shape == (30, 1)  # rolled out beyond the head


def test_reference_must_fit_in_the_context_and_the_frequency():
    df = make_series(300)
    with pytest.raises(ValueError, match="longer than context_length=24"):
        GRUForecaster(**TINY, reference="2D").fit(df)
    with pytest.raises(ValueError, match="whole multiple of the data frequency h"):
        GRUForecaster(**TINY, reference="90min").fit(df)


def test_ensemble_forecast_is_the_mean_of_members_trained_with_consecutive_seeds():
    df = make_series(200)
    ens = ElmanForecaster(**TINY, n_ensemble=2).fit(df)
    assert isinstance(ens.module_, EnsembleNet) and len(ens.module_.members) == 2
    one = ElmanForecaster(**TINY, n_ensemble=1).fit(df)
    two = ElmanForecaster(**{**TINY, "random_state": 1}, n_ensemble=1).fit(df)
    mean = (one.predict(horizon=6) + two.predict(horizon=6)) / 2
    pd.testing.assert_frame_equal(ens.predict(horizon=6), mean, atol=1e-5, rtol=1e-5)


def test_ensemble_saves_and_loads(tmp_path):
    model = TransformerForecaster(**TINY, n_ensemble=2, reference=6).fit(make_series(200))
    model.save(tmp_path / "m")
    back = TransformerForecaster.load(tmp_path / "m", device="cpu")
    pd.testing.assert_frame_equal(back.predict(horizon=8), model.predict(horizon=8))


def test_validation_size_in_steps_or_as_a_duration():
    df = make_series(300)
    by_steps = GRUForecaster(**TINY, validation_size=48).fit(df)
    by_time = GRUForecaster(**TINY, validation_size="2D").fit(df)
    assert by_steps.validation_steps_ == by_time.validation_steps_ == 48
    assert by_steps.history_["val_loss"] == by_time.history_["val_loss"]
    with pytest.raises(ValueError, match="validation_size"):
        GRUForecaster(**TINY, validation_size="2 weeks").fit(df)
    with pytest.raises(ValueError, match="at least 78"):  # 24 + 6 + 48 steps
        GRUForecaster(**TINY, validation_size=48).fit(df.iloc[:77])


def test_train_origins_choose_the_window_ends():
    df = make_series(120, tz="Europe/Berlin")
    freq = pd.tseries.frequencies.to_offset("h")
    s = SeriesArrays(key=None, y=np.zeros((120, 1)), index=df.index)
    origins = resolve_origins("12:00", 120, sliding=True)
    assert origins == ("12:00",)
    (mask,) = origin_masks(origins, [s], freq, "Europe/Berlin")
    # the origin of a forecast issued at 12:00 is the step 11:00-12:00
    assert list(df.index[mask].strftime("%H:%M").unique()) == ["11:00"]
    assert mask.sum() == 5
    (mask,) = origin_masks(resolve_origins(10, 120, sliding=True), [s], freq, None)
    assert np.flatnonzero(mask)[:3].tolist() == [9, 19, 29]
    model = GRUForecaster(**TINY, timezone="Europe/Berlin", train_origins=["12:00", "25:99"])
    with pytest.raises(ValueError, match="train_origins must be"):
        model.fit(df)
    for bad in (2.5, True, 0, [], ["12:00", 12]):
        with pytest.raises(ValueError, match="train_origins must be"):
            GRUForecaster(**TINY, train_origins=bad).fit(df)


def test_train_origins_auto_thins_only_long_data(monkeypatch):
    assert GRUForecaster(**TINY).train_origins == "auto"
    assert resolve_origins("auto", 200, sliding=True) is None  # 200 steps, under the cap
    monkeypatch.setattr(auto, "AUTO_ORIGINS", 70)  # 200 steps: every 3rd (ceil(200 / 70))
    assert resolve_origins("auto", 200, sliding=True) == 3
    index = pd.date_range("2024-01-01", periods=100, freq="h")
    series = [SeriesArrays(key=k, y=np.zeros((100, 1)), index=index) for k in "ab"]
    masks = origin_masks(3, series, index.freq, None)
    assert np.flatnonzero(masks[0])[:3].tolist() == [2, 5, 8]
    assert sum(int(m.sum()) for m in masks) == 66 <= 70
    monkeypatch.setattr(auto, "AUTO_ORIGINS", 100)  # exactly 2 x 100: every 2nd
    stride = resolve_origins("auto", 200, sliding=True)
    assert sum(int(m.sum()) for m in origin_masks(stride, series, index.freq, None)) == 100
    assert resolve_origins("auto", 200, sliding=False) is None  # streams read every step
    model = GRUForecaster(**TINY).fit({"a": make_series(100), "b": make_series(100, seed=1)})
    assert model.train_origins_ == 2  # resolved once in fit and stored


def test_train_origins_fit_fewer_windows_and_refuse_none():
    df = make_series(400, tz="Europe/Berlin")
    model = GRUForecaster(**TINY, timezone="Europe/Berlin", train_origins=["11:00", "12:00"])
    assert model.fit(df).predict(horizon=6).shape == (6, 1)
    tbptt = GRUForecaster(**TINY, windowing="tbptt", train_origins="12:00").fit(df)
    assert tbptt.predict(horizon=6).shape == (6, 1)
    with pytest.raises(ValueError, match="no training window"):
        GRUForecaster(**TINY, train_origins="12:30").fit(df)


def test_linear_skip_is_on_for_windows_and_off_for_streams_by_default():
    df = make_series(200)
    on = GRUForecaster(**TINY).fit(df)
    assert on.skip_ and on.module_.skip.in_features == 24
    assert not GRUForecaster(**TINY, windowing="tbptt").fit(df).skip_
    assert GRUForecaster(**TINY, linear_skip=False).fit(df).module_.skip is None
    with pytest.raises(ValueError, match="linear_skip must be"):
        GRUForecaster(**TINY, linear_skip="yes").fit(df)
    with pytest.raises(ValueError, match="linear_skip=False"):
        GRUForecaster(**TINY, windowing="tbptt", linear_skip=True).fit(df)


MICRO_CASES = {
    "elman": (ElmanForecaster, {}),
    "lstm": (LSTMForecaster, {}),
    "gru-quantiles": (GRUForecaster, {"quantiles": (0.1, 0.5, 0.9)}),
    "gru-tbptt": (GRUForecaster, {"windowing": "tbptt", "tbptt_steps": 12}),
    "orthogonal": (OrthogonalRNNForecaster, {}),
    "transformer": (TransformerForecaster, {"n_heads": 2}),
    "hopfield": (HopfieldForecaster, {"n_heads": 2, "train_origins": "12:00"}),
}


@pytest.mark.parametrize("case", list(MICRO_CASES), ids=list(MICRO_CASES))
def test_micro_batches_fit_like_whole_batches(case):
    cls, extra = MICRO_CASES[case]
    df = make_series(260)
    whole = cls(**TINY, **extra).fit(df)
    # batches of 32 windows (tbptt: of streams) read in slices of at most 5 (3)
    micro = 3 if extra.get("windowing") == "tbptt" else 5
    sliced = cls(**TINY, **extra, micro_batch_size=micro).fit(df)
    assert sliced.micro_batch_size == micro and whole.micro_batch_size is None
    assert len(sliced.history_["val_loss"]) == 2
    np.testing.assert_allclose(sliced.history_["val_loss"], whole.history_["val_loss"], atol=1e-5)
    np.testing.assert_allclose(
        sliced.history_["train_loss"], whole.history_["train_loss"], rtol=1e-5
    )
    pd.testing.assert_frame_equal(sliced.predict(horizon=6), whole.predict(horizon=6), atol=1e-4)


def test_micro_batch_size_slices_training_validation_and_prediction(tmp_path, monkeypatch):
    data = {k: make_series(120, seed=i) for i, k in enumerate("abcdefg")}
    read = {True: [], False: []}  # windows per forward, in training / in evaluation
    forward = ForecastNet.forward

    def spy(net, x, *args, **kwargs):
        read[net.training].append(len(x))
        return forward(net, x, *args, **kwargs)

    monkeypatch.setattr(ForecastNet, "forward", spy)
    model = GRUForecaster(**TINY, micro_batch_size=3).fit(data)
    assert max(read[True]) == 3 and max(read[False]) == 3
    assert sum(read[True]) == 2 * sum(len(d) - 24 - 6 - 11 for d in data.values())
    read[False].clear()
    forecast = model.predict(horizon=6)
    assert read[False] == [2, 2, 3]  # the seven series' windows in even slices of at most 3
    monkeypatch.undo()
    whole = clone(model).set_params(micro_batch_size=None).fit(data)
    assert clone(model).get_params()["micro_batch_size"] == 3
    for key, frame in whole.predict(horizon=6).items():
        pd.testing.assert_frame_equal(forecast[key], frame, atol=1e-4)
    model.save(tmp_path / "m")
    back = load(tmp_path / "m")
    assert back.micro_batch_size == 3
    for key, frame in back.predict(horizon=6).items():
        pd.testing.assert_frame_equal(frame, forecast[key])


@pytest.mark.parametrize("bad", [0, -4, 2.5, True, "8"])
def test_micro_batch_size_must_be_a_positive_int(bad):
    with pytest.raises(
        ValueError, match=rf"micro_batch_size must be None or an int >= 1, got {bad!r}"
    ):
        GRUForecaster(**TINY, micro_batch_size=bad).fit(make_series(200))


@pytest.mark.parametrize("cls", neural_families())
def test_mae_loss_trains_every_family_and_round_trips(cls, tmp_path):
    df = make_series(200)
    mae = cls(**TINY, loss="mae").fit(df)
    mse = cls(**TINY).fit(df)
    # same seed, same windows: only the loss differs, so the curves do
    assert mae.history_["train_loss"][0] != pytest.approx(mse.history_["train_loss"][0])
    assert clone(mae).get_params()["loss"] == "mae"
    mae.save(tmp_path / "m")
    again = load(tmp_path / "m")
    assert again.loss == "mae"
    pd.testing.assert_frame_equal(again.predict(horizon=6), mae.predict(horizon=6))


def test_loss_is_checked_when_fitting():
    df = make_series(200)
    one_of = r"loss must be one of \('mse', 'mae', 'position'\), got 'l1'"
    with pytest.raises(ValueError, match=one_of):
        GRUForecaster(**TINY, loss="l1").fit(df)
    with pytest.raises(ValueError, match="trains the pinball loss; loss='mae' is for point"):
        GRUForecaster(**TINY, loss="mae", quantiles=(0.1, 0.5, 0.9)).fit(df)
