"""Patches: the encoder reads ``patch_length`` steps per token (``patch_length``)."""

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

from forecast.base import BaseForecaster
from forecast.models import get_estimator
from forecast.models.hopfield import HopfieldForecaster
from forecast.models.recurrent import GRUForecaster
from forecast.models.transformer import TransformerForecaster
from forecast.nn.heads import PointHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import GRUEncoder
from tests.conftest import TINY_NEURAL as TINY
from tests.conftest import make_series

FAMILIES = ("elman", "lstm", "gru", "orthogonal", "transformer", "hopfield")


def test_tokens_hold_consecutive_steps_in_time_order():
    net = ForecastNet(GRUEncoder(6, 3), PointHead(3, 2, 1), n_targets=1, patch=3)
    x = torch.arange(2 * 6 * 2, dtype=torch.float32).view(2, 6, 2)  # (B, T, I)
    tokens = net.tokens(x)
    assert tokens.shape == (2, 2, 6)
    # token 1 of window 0: steps 3, 4, 5 with their two inputs each, oldest first
    np.testing.assert_array_equal(tokens[0, 1].numpy(), [6, 7, 8, 9, 10, 11])
    np.testing.assert_array_equal(tokens[1, 0].numpy(), [12, 13, 14, 15, 16, 17])
    with pytest.raises(ValueError, match="windows of 5 steps do not split into patches of 3"):
        net.tokens(x[:, :5])


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_reads_patches_and_forecasts_every_step(family):
    df = make_series(240)
    model = get_estimator(family)(**TINY, patch_length=4, n_ensemble=1).fit(df)  # one network
    inputs = model.module_.encoder_input(torch.zeros(1, 24, model.n_inputs_))
    assert inputs.shape == (1, 6, 4 * model.n_inputs_)
    forecast = model.predict(horizon=15)  # the 6-step head rolled out
    assert forecast.shape == (15, 1)
    assert forecast.index[0] == df.index[-1] + pd.Timedelta("1h")
    assert np.isfinite(forecast.to_numpy()).all()


def test_forecast_reads_the_whole_context_and_nothing_before_it():
    df = make_series(240)
    model = GRUForecaster(**TINY, patch_length=6, normalization=None).fit(df)
    history = df.iloc[-60:]
    base = model.predict(horizon=6, history=history).to_numpy()
    older = history.copy()
    older.iloc[: 60 - 24] += 5.0  # outside the 24-step context
    np.testing.assert_array_equal(model.predict(horizon=6, history=older).to_numpy(), base)
    first = history.copy()
    first.iloc[60 - 24] += 5.0  # the oldest step of the context, inside the first patch
    assert not np.allclose(model.predict(horizon=6, history=first).to_numpy(), base)


def test_patches_of_one_step_change_nothing():
    df = make_series(240)
    plain = GRUForecaster(**TINY).fit(df).predict(horizon=6)
    ones = GRUForecaster(**TINY, patch_length=1).fit(df).predict(horizon=6)
    pd.testing.assert_frame_equal(plain, ones)


def test_bad_patch_lengths_are_reported():
    df = make_series(240)
    with pytest.raises(ValueError, match="context_length=24 must be a multiple of patch_length=5"):
        GRUForecaster(**TINY, patch_length=5).fit(df)
    with pytest.raises(ValueError, match="patch_length must be an int >= 1, got 0"):
        GRUForecaster(**TINY, patch_length=0).fit(df)
    with pytest.raises(ValueError, match="patch_length=4 needs context windows"):
        GRUForecaster(**TINY, patch_length=4, windowing="tbptt").fit(df)


def test_attention_and_association_weights_are_per_token():
    df = make_series(240)
    transformer = TransformerForecaster(**TINY, n_heads=2, patch_length=4).fit(df)
    assert transformer.attention_weights().shape == (1, 2, 6, 6)
    hopfield = HopfieldForecaster(**TINY, n_heads=2, patch_length=8).fit(df)
    weights = hopfield.association_weights()
    assert weights.shape == (1, 2, 3)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-6)


def test_save_load_and_clone_keep_the_patches(tmp_path):
    df = make_series(240)
    model = HopfieldForecaster(**TINY, patch_length=4, n_ensemble=2).fit(df)
    model.save(tmp_path / "m")
    loaded = BaseForecaster.load(tmp_path / "m", device="cpu")
    pd.testing.assert_frame_equal(loaded.predict(horizon=9), model.predict(horizon=9))
    twin = clone(model)
    assert twin.patch_length == 4
    pd.testing.assert_frame_equal(twin.fit(df).predict(horizon=9), model.predict(horizon=9))
