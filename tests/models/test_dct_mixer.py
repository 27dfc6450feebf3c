"""The DCT-mixer family (LTD, siMLPe): estimator contract, whole-window loss, presets."""

import inspect

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

from forecast import DCTMixerForecaster, load
from forecast.datasets import position_columns
from forecast.models import LTD, SIMLPE
from forecast.models.neural_params import NEURAL_PARAMS
from forecast.nn.mixer import DCTMixerNet
from forecast.training.accumulate import accumulate_batch
from forecast.training.loop import EXPONENTIAL_GAMMA
from forecast.training.windows import Batch
from tests.conftest import TINY_NEURAL, make_series

TINY = dict(TINY_NEURAL, num_layers=1)


@pytest.fixture(scope="module")
def data():
    return make_series(n=300, channels=3)


@pytest.mark.parametrize("mixer", ["gcn", "mlp"])
def test_forecasts_the_next_timestamps_of_every_channel(mixer, data):
    model = DCTMixerForecaster(**TINY, mixer=mixer).fit(data)
    for horizon in (6, 3, 14):  # the network's horizon, fewer steps, a roll-out
        fc = model.predict(horizon=horizon)
        assert list(fc.columns) == list(data.columns)
        want = pd.date_range(data.index[-1], periods=horizon + 1, freq="h")[1:]
        pd.testing.assert_index_equal(fc.index, want, check_names=False)
        assert np.isfinite(fc.to_numpy()).all()
    assert isinstance(model.module_, DCTMixerNet)


def test_same_seed_same_forecast_and_save_load_round_trip(data, tmp_path):
    a = DCTMixerForecaster(**TINY).fit(data)
    b = DCTMixerForecaster(**TINY).fit(data)
    pd.testing.assert_frame_equal(a.predict(horizon=6), b.predict(horizon=6))
    a.save(tmp_path / "m")
    back = load(tmp_path / "m")
    pd.testing.assert_frame_equal(back.predict(horizon=9), a.predict(horizon=9))
    assert clone(a).get_params() == a.get_params()


def test_observed_loss_scores_the_context_reconstruction_with_the_forecast():
    torch.manual_seed(0)
    net = DCTMixerNet(2, 2, 0, context=4, horizon=3, hidden_size=4, num_layers=1)
    net.observed_loss = True
    x, y = torch.randn(5, 4, 2), torch.randn(5, 3, 2)
    batch = Batch(x=x, y=y, future=None, mask=None, reset=False)

    def mae(pred, target, mask=None):
        return (pred - target).abs().mean()

    torch.manual_seed(1)  # dropout draws alike in both passes
    loss, n, _ = accumulate_batch(net, batch, mae)
    torch.manual_seed(1)
    window = net(x, window=True)[0]  # (5, 7, 2)
    by_hand = (window - torch.cat([x, y], dim=1)).abs().mean().detach()  # 7 frames alike
    assert n == 5
    assert float(loss) == pytest.approx(float(by_hand), rel=1e-6)
    net.observed_loss = False
    torch.manual_seed(1)
    forecast_only, _, _ = accumulate_batch(net, batch, mae)
    torch.manual_seed(1)
    assert float(forecast_only) == pytest.approx(float(mae(net(x)[0], y).detach()), rel=1e-6)


def test_exponential_schedule_is_ltds_decay(data):
    model = DCTMixerForecaster(**dict(TINY, max_epochs=3), lr_scheduler="exponential").fit(data)
    lr = model.history_["lr"]
    assert lr[0] == pytest.approx(0.01)
    np.testing.assert_allclose(np.diff(np.log(lr)), np.log(EXPONENTIAL_GAMMA), rtol=1e-6)
    assert EXPONENTIAL_GAMMA**2 == pytest.approx(0.96)


def test_tenfold_schedule_ends_at_a_tenth_of_the_rate(data):
    model = DCTMixerForecaster(**dict(TINY, max_epochs=4), lr_scheduler="tenfold").fit(data)
    lr = model.history_["lr"]  # the rate of each epoch: the last is one decay short
    np.testing.assert_allclose(lr, [0.01 * 0.1 ** (e / 4) for e in range(4)], rtol=1e-6)


def test_pgbig_stages_forecast_positions_and_reload(tmp_path):
    rng = np.random.default_rng(0)
    columns = position_columns([3, 4])
    df = pd.DataFrame(rng.normal(size=(140, 6)).cumsum(axis=0), columns=columns,
                      index=pd.date_range("1970-01-01", periods=140, freq="40ms"))  # fmt: skip
    before = df.copy()
    model = DCTMixerForecaster(**TINY, mixer="pgbig", loss="position").fit(df)
    pd.testing.assert_frame_equal(df, before)  # the input frame is left alone
    fc = model.predict(horizon=6)
    want = pd.date_range(df.index[-1], periods=7, freq="40ms")[1:]
    pd.testing.assert_index_equal(fc.index, want, check_names=False)
    assert list(fc.columns) == columns and np.isfinite(fc.to_numpy()).all()
    assert len(model.module_.mixer.stages) == TINY["num_layers"]
    model.save(tmp_path / "m")
    pd.testing.assert_frame_equal(load(tmp_path / "m").predict(horizon=6), fc)
    with pytest.raises(ValueError, match="4 input channels are not a multiple of 3"):
        DCTMixerForecaster(**TINY, mixer="pgbig").fit(make_series(n=160, channels=4))
    with pytest.raises(ValueError, match="a point, not quantiles"):
        DCTMixerForecaster(**TINY, mixer="pgbig", quantiles=(0.1, 0.5, 0.9)).fit(df)


def test_trains_when_the_last_batch_holds_one_window():
    # 104 rows: 65 training windows of 24 + 6 steps before the validation tail, 2 * 32 + 1;
    # the batch norm of the graph blocks refused the lone last window in training mode
    model = DCTMixerForecaster(**TINY, mixer="gcn").fit(make_series(n=104))
    assert len(model.history_["train_loss"]) == TINY["max_epochs"]
    assert np.isfinite(model.predict(horizon=6).to_numpy()).all()


def test_calendar_and_future_covariates_are_nodes():
    df = make_series(n=24 * 20, tz="Europe/Berlin")
    df["temp"] = np.cos(np.arange(len(df)) / 24.0)
    model = DCTMixerForecaster(**TINY, future_covariates=["temp"], calendar=True)
    model.fit(df.iloc[:-24])
    fc = model.predict(horizon=6, future=df.iloc[-24:-18][["temp"]])
    assert fc.shape == (6, 1) and model.n_future_ >= 1
    assert model.module_.mixer.conv_in.att.shape == (model.n_inputs_, model.n_inputs_)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("strategy", "recursive"),
        ("windowing", "tbptt"),
        ("residual", True),
        ("dct_input", 8),
        ("patch_length", 2),
    ],
)
def test_options_the_mixer_does_not_take_are_refused_by_name(option, value, data):
    with pytest.raises(ValueError, match=f"{option}=.* is not taken by DCTMixerForecaster"):
        DCTMixerForecaster(**TINY, **{option: value}).fit(data)


def test_other_bad_settings_say_what(data):
    with pytest.raises(ValueError, match="n_coefficients=40 exceeds the 24 \\+ 6 steps"):
        DCTMixerForecaster(**TINY, n_coefficients=40).fit(data)
    with pytest.raises(ValueError, match="mixer must be one of"):
        DCTMixerForecaster(**TINY, mixer="conv").fit(data)
    with pytest.raises(ValueError, match="horizon_weight weighs the forecast steps"):
        DCTMixerForecaster(**TINY, horizon_weight=1.0).fit(data)


def test_the_family_declares_its_own_parameters_then_the_shared_ones():
    names = [p.name for p in DCTMixerForecaster._param_table]
    assert names[:3] == ["mixer", "n_coefficients", "observed_loss"]
    assert DCTMixerForecaster._param_table[3:] == NEURAL_PARAMS
    assert list(inspect.signature(DCTMixerForecaster).parameters) == names


@pytest.mark.parametrize("preset", [LTD, SIMLPE], ids=["LTD", "siMLPe"])
def test_presets_fit_a_few_motion_channels(preset):
    df = make_series(n=160, channels=4, freq="40ms")
    tiny = {"hidden_size": 8, "num_layers": 1, "max_epochs": 1, "random_state": 0}
    model = DCTMixerForecaster(**{**preset, **tiny}).fit(df)
    assert model.predict(horizon=25).shape == (25, 4)


def test_a_network_without_correction_forecasts_the_last_value_and_reloads(data, tmp_path):
    # the family is residual by construction (what residual=True asks of the other families)
    model = DCTMixerForecaster(**TINY, mixer="mlp").fit(data)
    with torch.no_grad():
        model.module_.mixer.channels_out.weight.zero_()
        model.module_.mixer.channels_out.bias.zero_()
    last = np.tile(data.iloc[-1].to_numpy(), (8, 1))
    np.testing.assert_allclose(model.predict(horizon=8).to_numpy(), last, rtol=1e-5)
    model.save(tmp_path / "m")
    np.testing.assert_allclose(load(tmp_path / "m").predict(horizon=8).to_numpy(), last, rtol=1e-5)


def test_quantile_forecasts_with_the_whole_window_loss(data):
    model = DCTMixerForecaster(**TINY, quantiles=(0.1, 0.5, 0.9)).fit(data)
    fc = model.predict(horizon=6, quantiles=True)
    assert fc.shape == (6, 3 * 4)
    low, mid, high = (fc[f"y0_q{q}"].to_numpy() for q in (0.1, 0.5, 0.9))
    assert (low < mid).all() and (mid < high).all()
    np.testing.assert_allclose(fc["y0"].to_numpy(), mid)


@pytest.mark.parametrize("name", ["LTD_3D", "PGBIG_3D", "SIMLPE_3D", "MOTION_BEST_3D"])
def test_3d_presets_fit_joint_positions_and_forecast_the_protocols_window(name):
    import forecast.models as models
    from forecast import GRUForecaster

    preset = getattr(models, name)
    assert (preset["context_length"], preset["horizon"], preset["loss"]) == (10, 25, "position")
    rng = np.random.default_rng(0)
    columns = position_columns([3, 4])  # two joints, x/y/z each
    values = rng.normal(size=(120, 6)).cumsum(axis=0)
    df = pd.DataFrame(values, columns=columns,
                      index=pd.date_range("1970-01-01", periods=120, freq="40ms"))  # fmt: skip
    kind = GRUForecaster if name == "MOTION_BEST_3D" else DCTMixerForecaster
    tiny = {"hidden_size": 6, "max_epochs": 1, "random_state": 0}
    if kind is DCTMixerForecaster:
        tiny["num_layers"] = 1
    model = kind(**{**preset, **tiny}).fit(df)
    fc = model.predict(horizon=25)
    assert fc.shape == (25, 6) and list(fc.columns) == columns
    assert np.isfinite(fc.to_numpy()).all()
