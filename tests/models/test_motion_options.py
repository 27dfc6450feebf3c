"""Motion options of every neural family: DCT input and output, channel mixing, velocity loss."""

import numpy as np
import pytest
from sklearn.base import clone

from forecast.models.dct_mixer import DCTMixerForecaster
from forecast.models.recurrent import GRUForecaster
from tests.conftest import TINY_NEURAL, make_series, neural_families

OPTIONS = dict(
    dct_input=12, dct_output=3, channel_mixing=True, velocity_weight=0.5, channel_weight="scale"
)


# the DCT mixer reads and forecasts in DCT space by construction and refuses these options
# (tests/models/test_dct_mixer.py)
@pytest.mark.parametrize("family", [c for c in neural_families() if c is not DCTMixerForecaster])
def test_every_family_fits_and_forecasts_with_every_motion_option(family):
    df = make_series(200, channels=2)
    model = family(**TINY_NEURAL, residual=True, **OPTIONS).fit(df)
    fc = model.predict(horizon=6)
    assert fc.shape == (6, 2) and np.isfinite(fc.to_numpy()).all()
    assert fc.index[0] == df.index[-1] + df.index.freq


def test_one_dct_coefficient_forecasts_a_constant_change_from_the_last_value():
    df = make_series(200, channels=2)
    model = GRUForecaster(
        **TINY_NEURAL, residual=True, dct_output=1, linear_skip=False, normalization=None
    ).fit(df)
    fc = model.predict(horizon=6).to_numpy()  # (6, 2): the same offset at every step
    np.testing.assert_allclose(fc, np.broadcast_to(fc[:1], fc.shape), atol=1e-5)
    longer = GRUForecaster(**TINY_NEURAL, residual=True, dct_output=6, linear_skip=False).fit(df)
    steps = longer.predict(horizon=6).to_numpy()
    assert np.ptp(steps, axis=0).max() > 1e-6  # all six coefficients: free to vary


def test_dct_input_reads_coefficients_and_forecasts_depend_only_on_the_window():
    df = make_series(200, channels=2)
    model = GRUForecaster(**TINY_NEURAL, residual=True, dct_input=10).fit(df)
    assert model._n_tokens() == 10
    base = model.predict(horizon=6, history=df.iloc[-50:])
    older = df.iloc[-50:].copy()
    older.iloc[:10] += 100.0  # before the 24-step window: not read
    np.testing.assert_allclose(model.predict(horizon=6, history=older), base, atol=1e-5)
    newer = df.iloc[-50:].copy()
    newer.iloc[-1] += 1.0  # the last step: read (and repeated over the padding)
    assert not np.allclose(model.predict(horizon=6, history=newer), base)


def test_velocity_weight_zero_is_the_plain_loss_and_a_positive_weight_changes_training():
    df = make_series(200, channels=2)
    plain = GRUForecaster(**TINY_NEURAL, residual=True).fit(df)
    zero = GRUForecaster(**TINY_NEURAL, residual=True, velocity_weight=0.0)
    np.testing.assert_array_equal(zero.fit(df).predict(6), plain.predict(6))
    moved = GRUForecaster(**TINY_NEURAL, residual=True, velocity_weight=2.0)
    moved.fit(df)
    assert moved.change_scale_ is not None and plain.change_scale_ is not None
    assert moved.history_["train_loss"][0] > plain.history_["train_loss"][0]


def test_motion_options_survive_clone_and_save_load(tmp_path):
    df = make_series(200, channels=2)
    model = GRUForecaster(**TINY_NEURAL, residual=True, **OPTIONS).fit(df)
    assert clone(model).get_params()["dct_output"] == 3
    model.save(tmp_path / "m")
    loaded = GRUForecaster.load(tmp_path / "m")
    np.testing.assert_allclose(loaded.predict(6), model.predict(6), atol=1e-6)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (dict(dct_input=0), "dct_input must be an int >= 1"),
        (dict(dct_input=31), "exceeds the 30 steps"),
        (dict(dct_input=4, patch_length=2), "patch_length=1"),
        (dict(dct_input=4, windowing="tbptt"), "windowing='sliding'"),
        (dict(dct_output=7), "exceeds horizon=6"),
        (dict(dct_output=3, strategy="recursive"), "strategy='direct'"),
        (dict(channel_mixing=True, linear_skip=False), "needs linear_skip"),
        (dict(channel_mixing="yes"), "channel_mixing must be True or False"),
        (dict(velocity_weight=-1.0), "velocity_weight must be a number >= 0"),
        (dict(velocity_weight=1.0, quantiles=(0.1, 0.5, 0.9)), "not with quantiles"),
        (dict(velocity_weight=1.0, target_transform="difference"), "not with quantiles"),
    ],
)
def test_bad_motion_options_raise_a_clear_error(params, message):
    with pytest.raises(ValueError, match=message):
        GRUForecaster(**TINY_NEURAL, **params).fit(make_series(200))


def test_channel_weight_scale_weighs_channels_by_their_spread():
    df = make_series(200, channels=2)
    df.iloc[:, 1] *= 10.0  # the second channel moves ten times as much
    model = GRUForecaster(**TINY_NEURAL, channel_weight="scale").fit(df)
    var = df.std(ddof=0).to_numpy() ** 2  # the scaler's spread, squared for mse
    np.testing.assert_allclose(model.channel_weight_, var / var.mean())
    assert model.channel_weight_[1] > 50 * model.channel_weight_[0]
    given = GRUForecaster(**TINY_NEURAL, channel_weight=[1.0, 3.0]).fit(df)
    np.testing.assert_allclose(given.channel_weight_, [0.5, 1.5])
    assert GRUForecaster(**TINY_NEURAL).fit(df).channel_weight_ is None
    with pytest.raises(ValueError, match="2 target column"):
        GRUForecaster(**TINY_NEURAL, channel_weight=[1.0]).fit(df)
    with pytest.raises(ValueError, match="channel_weight must be None, 'scale'"):
        GRUForecaster(**TINY_NEURAL, channel_weight=[-1.0, 1.0]).fit(df)
