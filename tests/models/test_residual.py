"""residual=True: the network forecasts changes from the last observed value."""

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

from forecast.base import BaseForecaster
from forecast.models.recurrent import GRUForecaster, LSTMForecaster

TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=1, batch_size=32)


def walk(n=200, channels=2, seed=0):
    """A random walk per channel, hourly, channels on different levels."""
    rng = np.random.default_rng(seed)
    index = pd.date_range("2024-01-01", periods=n, freq="h")
    steps = rng.standard_normal((n, channels))
    return pd.DataFrame(
        np.cumsum(steps, axis=0) + 10 * np.arange(channels), index=index, columns=["a", "b"]
    )


def zero_weights(model):
    with torch.no_grad():
        for p in model.module_.parameters():
            p.zero_()
    return model


@pytest.mark.parametrize("windowing", ["sliding", "tbptt"])
@pytest.mark.parametrize("strategy", ["direct", "recursive"])
def test_zero_network_forecasts_the_last_observed_value(strategy, windowing):
    df = walk()
    model = GRUForecaster(
        **TINY, residual=True, strategy=strategy, windowing=windowing, random_state=0
    )
    zero_weights(model.fit(df))
    assert model.residual_ is True and model.season_ == 1
    last = df.iloc[-1].to_numpy()
    np.testing.assert_allclose(last, [-19.5972402, 14.94924815])  # the walk's last step
    fc = model.predict(horizon=6)  # longer than the head: rolled out
    np.testing.assert_allclose(fc.to_numpy(), np.tile(last, (6, 1)), rtol=0, atol=1e-5)
    history = df.iloc[:50]
    fc = model.predict(horizon=1, history=history)
    np.testing.assert_allclose(fc.to_numpy()[0], history.iloc[-1].to_numpy(), atol=1e-5)


def test_a_constant_change_is_integrated_by_the_recursive_roll_out():
    """Head bias d (scaled units): recursive step k is last + k d sigma, direct last + d sigma."""
    df = walk()
    sigma = df.to_numpy().std(axis=0)  # the StandardScaler's scale (population std)
    last = df.iloc[-1].to_numpy()
    d = np.array([0.5, -0.25])
    for strategy, steps in (("recursive", np.arange(1, 5)), ("direct", np.ones(4))):
        model = GRUForecaster(
            **TINY, residual=True, strategy=strategy, normalization=None, linear_skip=False
        )
        zero_weights(model.fit(df))
        with torch.no_grad():
            bias = model.module_.head.direct.bias.view(-1, 2)  # (head horizon, C)
            bias += torch.tensor(d, dtype=torch.float32)
        expected = last + steps[:, None] * d * sigma
        np.testing.assert_allclose(model.predict(horizon=4).to_numpy(), expected, atol=1e-4)


def test_residual_without_it_the_zero_network_forecasts_the_window_mean():
    df = walk()
    model = zero_weights(GRUForecaster(**TINY, residual=False, random_state=0).fit(df))
    expected = df.iloc[-12:].mean().to_numpy()  # window normalisation: level = context mean
    np.testing.assert_allclose(model.predict(horizon=1).to_numpy()[0], expected, atol=1e-4)


def test_residual_parameter_checks_and_clone():
    model = GRUForecaster(**TINY, residual=True)
    assert model.get_params()["residual"] is True
    assert clone(model).get_params() == model.get_params()
    assert GRUForecaster().get_params()["residual"] is False
    with pytest.raises(ValueError, match="residual must be True or False, got 'yes'"):
        GRUForecaster(**TINY, residual="yes").fit(walk())
    with pytest.raises(ValueError, match="give only one of them"):
        GRUForecaster(**TINY, residual=True, reference=24).fit(walk())


@pytest.mark.parametrize("quantiles", [None, (0.1, 0.5, 0.9)])
@pytest.mark.parametrize("strategy", ["direct", "recursive"])
def test_save_load_round_trip(tmp_path, strategy, quantiles):
    df = walk()
    model = LSTMForecaster(
        **TINY, residual=True, strategy=strategy, quantiles=quantiles, random_state=1
    ).fit(df)
    model.save(tmp_path / "m")
    loaded = BaseForecaster.load(tmp_path / "m", device="cpu")
    assert loaded.residual_ is True and loaded.season_ == 1
    np.testing.assert_array_equal(loaded.change_scale_, model.change_scale_)
    q = quantiles is not None
    pd.testing.assert_frame_equal(
        loaded.predict(horizon=7, quantiles=q), model.predict(horizon=7, quantiles=q)
    )


def test_residual_beats_no_residual_on_a_random_walk():
    """Two epochs on a random walk that leaves the training range: zero velocity wins.

    With only the global scaling (normalization=None), the plain network forecasts levels
    it saw in training (error ~7 here); the residual one starts from the last value (~2,
    zero velocity itself ~1.2). Seeds 3-5 give ratios 0.27, 0.21, 0.16.
    """
    df = walk(n=600, seed=3)
    train = df.iloc[:500]
    origins = df.index[480:595:5]  # 23 windows, 19 of them after the training data
    errors = {}
    for residual in (False, True):
        model = GRUForecaster(
            **{**TINY, "max_epochs": 2},
            residual=residual,
            normalization=None,
            linear_skip=False,
            input_differences=False,  # the residual connection alone
            random_state=3,
        ).fit(train)
        fc = model.predict_origins(df, origins, horizon=4)
        truth = df.reindex(pd.DatetimeIndex(fc["time"]))[["a", "b"]].to_numpy()
        errors[residual] = float(np.mean(np.abs(fc[["a", "b"]].to_numpy() - truth)))
    values, at = df.to_numpy(), [df.index.get_loc(o) for o in origins]
    naive = np.mean([np.abs(values[i + 1 : i + 5] - values[i]).mean() for i in at])
    assert errors[True] < 0.5 * errors[False], (errors, naive)
    assert errors[True] < 2 * naive, (errors, naive)
