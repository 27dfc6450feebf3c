import numpy as np
import pandas as pd
import pytest

from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
from tests.conftest import make_series

FAMILIES = [ElmanForecaster, LSTMForecaster, GRUForecaster]
TINY = dict(
    context_length=24, horizon=12, hidden_size=8, learning_rate=0.02, batch_size=32, random_state=0
)


def sine_frame(n, channels=1, start="2023-01-01", tz=None, period=24):
    t = np.arange(n)
    index = pd.date_range(start, periods=n, freq="h", tz=tz)
    cols = {
        f"y{c}" if channels > 1 else "load": 10 + 3 * np.sin(2 * np.pi * t / period + c)
        for c in range(channels)
    }
    return pd.DataFrame(cols, index=index)


@pytest.mark.parametrize("cls", FAMILIES)
def test_fits_a_sine_and_forecasts_the_next_timestamps(cls):
    whole = sine_frame(312)
    df, truth = whole.iloc[:300], whole.iloc[300:]
    model = cls(max_epochs=6, **TINY)
    fc = model.fit(df).predict(horizon=12)
    assert isinstance(fc, pd.DataFrame) and list(fc.columns) == ["load"]
    pd.testing.assert_index_equal(fc.index, truth.index, check_names=False)
    mae = np.abs(fc["load"] - truth["load"]).mean()
    assert mae < 0.3 * np.abs(truth["load"] - 10).mean()  # far better than the mean
    assert model.n_epochs_ == 6 and len(model.history_["train_loss"]) == 6
    assert model.history_["train_loss"][-1] < model.history_["train_loss"][0]
    assert model.device_ == "cpu" or model.device_.startswith("cuda")


def test_family_parameters_reach_the_network():
    df = sine_frame(120)
    elman = ElmanForecaster(nonlinearity="relu", max_epochs=1, **TINY).fit(df)
    assert elman.module_.encoder.rnn.nonlinearity == "relu"
    lstm = LSTMForecaster(num_layers=2, dropout=0.1, max_epochs=1, **TINY).fit(df)
    assert lstm.module_.encoder.rnn.num_layers == 2 and lstm.module_.encoder.rnn.dropout == 0.1


def test_peephole_lstm_forecaster():
    pytest.importorskip("forecast.nn.peephole")
    model = LSTMForecaster(peephole=True, max_epochs=1, **TINY).fit(sine_frame(120))
    assert type(model.module_.encoder).__name__ == "PeepholeLSTM"
    assert model.predict(horizon=3).shape == (3, 1)


def test_multivariate_three_channels():
    df = sine_frame(150, channels=3)
    model = GRUForecaster(max_epochs=1, **TINY).fit(df)
    fc = model.predict(horizon=5)
    assert list(fc.columns) == ["y0", "y1", "y2"] and fc.shape == (5, 3)
    assert model.n_outputs_ == 3 and model.n_inputs_ == 3
    assert np.isfinite(fc.to_numpy()).all()


def test_dict_of_series_in_and_out():
    data = {"a": sine_frame(120), "b": sine_frame(140, start="2023-02-01") * 2}
    model = LSTMForecaster(max_epochs=1, **TINY).fit(data)
    fc = model.predict(horizon=4)
    assert set(fc) == {"a", "b"}
    assert fc["b"].index[0] == data["b"].index[-1] + pd.Timedelta("1h")
    assert fc["b"]["load"].mean() > fc["a"]["load"].mean()  # scale follows each series' history


def test_tbptt_mode_fits_and_forecasts():
    df = sine_frame(300)
    model = GRUForecaster(windowing="tbptt", tbptt_steps=12, max_epochs=6, **TINY)
    fc = model.fit(df).predict(horizon=12)
    assert fc.shape == (12, 1)
    assert model.history_["train_loss"][-1] < model.history_["train_loss"][0]
    assert "val_loss" in model.history_


def test_recursive_strategy_rolls_a_one_step_head():
    df = sine_frame(200)
    model = ElmanForecaster(strategy="recursive", max_epochs=2, n_ensemble=1, **TINY).fit(df)
    assert model.head_horizon_ == 1 and model.module_.head.horizon == 1
    fc = model.predict(horizon=30)
    assert fc.shape == (30, 1) and np.isfinite(fc.to_numpy()).all()


def test_horizon_longer_than_trained_rolls_out_in_blocks():
    model = LSTMForecaster(max_epochs=1, **TINY).fit(sine_frame(150))
    long = model.predict(horizon=30)
    short = model.predict(horizon=12)
    assert len(long) == 30 and long.index[-1] == short.index[0] + pd.Timedelta("29h")
    np.testing.assert_allclose(long.iloc[:12].to_numpy(), short.to_numpy(), rtol=1e-6)


def test_future_covariates_are_required_and_used():
    df = make_series(200)
    df["temp"] = np.cos(np.arange(200) / 5)
    model = GRUForecaster(future_covariates=["temp"], max_epochs=1, **TINY).fit(df)
    assert model.n_future_ == 1 and model.n_inputs_ == 2
    future_index = pd.date_range(df.index[-1], periods=13, freq="h")[1:]
    with pytest.raises(ValueError, match="future covariates"):
        model.predict(horizon=12)
    a = model.predict(horizon=12, future=pd.DataFrame({"temp": 0.0}, index=future_index))
    b = model.predict(horizon=12, future=pd.DataFrame({"temp": 5.0}, index=future_index))
    assert a.shape == (12, 1) and not np.allclose(a.to_numpy(), b.to_numpy())
    # beyond the trained horizon the covariates of the later steps are fed to the roll-out
    longer = pd.date_range(df.index[-1], periods=31, freq="h")[1:]
    rolled = model.predict(horizon=30, future=pd.DataFrame({"temp": 0.0}, index=longer))
    assert rolled.shape == (30, 1)


def test_calendar_features_on():
    pytest.importorskip("forecast.frames.calendar")
    df = sine_frame(24 * 10, tz="Europe/Berlin")
    model = LSTMForecaster(calendar=True, country="DE", max_epochs=1, **TINY).fit(df)
    assert model.n_future_ > 0
    fc = model.predict(horizon=30)
    assert fc.shape == (30, 1) and str(fc.index.tz) == "Europe/Berlin"
