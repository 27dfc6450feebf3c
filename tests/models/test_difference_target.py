"""target_transform="difference": the network forecasts step changes that are summed."""

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

import forecast.models.neural as neural
from forecast import load
from forecast.models.dct_mixer import DCTMixerForecaster
from forecast.models.recurrent import GRUForecaster
from forecast.training.loop import StepChangeLoss, masked_mae, masked_mse, training_loss
from tests.conftest import neural_families
from tests.models.test_residual import walk, zero_weights

TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=1, batch_size=32)
DIFF = dict(TINY, target_transform="difference", random_state=0)
# the DCT mixer is residual over the last step by construction and refuses target_transform
# (tests/models/test_dct_mixer.py checks that its zero correction forecasts the last value)
FAMILIES = [c for c in neural_families() if c is not DCTMixerForecaster]


def rms_step(df: pd.DataFrame) -> np.ndarray:
    """The change scale by hand: RMS one-step change of the standardised channels."""
    scaled = (df - df.mean()) / df.std(ddof=0)
    return np.sqrt((scaled.diff().iloc[1:] ** 2).mean()).to_numpy()


def test_defaults_it_resolves_to():
    df = walk()
    model = GRUForecaster(**DIFF).fit(df)
    assert model.difference_ is True and model.residual_ is False and model.season_ == 1
    assert model.normalize_ is False and model.skip_ is False  # "auto" turns both off
    np.testing.assert_allclose(model.change_scale_, rms_step(df), rtol=1e-9)
    assert model.module_.changes and model.module_.integrates  # reads and forecasts changes
    both = GRUForecaster(**DIFF, normalization="window", linear_skip=True).fit(df)
    assert both.normalize_ is True and both.skip_ is True  # given explicitly, kept
    plain = GRUForecaster(**TINY).fit(df)
    assert plain.difference_ is False and plain.change_scale_ is None


@pytest.mark.parametrize("cls", FAMILIES)
def test_zero_network_forecasts_the_last_value_and_round_trips(cls, tmp_path):
    df = walk()
    model = cls(**DIFF).fit(df)
    assert clone(model).get_params()["target_transform"] == "difference"
    fc = model.predict(horizon=6)  # longer than the head: rolled out from its own output
    assert fc.index[0] == df.index[-1] + pd.Timedelta("1h") and fc.shape == (6, 2)
    model.save(tmp_path / "m")
    again = load(tmp_path / "m")
    assert again.difference_ is True
    pd.testing.assert_frame_equal(again.predict(horizon=6), fc)
    zero_weights(again)
    last = df.iloc[-1].to_numpy()
    np.testing.assert_allclose(
        again.predict(horizon=6).to_numpy(), np.tile(last, (6, 1)), atol=1e-5
    )


@pytest.mark.parametrize("windowing", ["sliding", "tbptt"])
def test_a_constant_head_output_is_a_constant_velocity(windowing):
    """Head bias d per step (units of change_scale_): step k is last + k d s sigma."""
    df = walk()
    sigma = df.to_numpy().std(axis=0)  # the StandardScaler's scale
    model = zero_weights(GRUForecaster(**DIFF, windowing=windowing).fit(df))
    d = np.array([0.5, -0.25])
    with torch.no_grad():
        model.module_.head.direct.bias.view(-1, 2).add_(torch.tensor(d, dtype=torch.float32))
    k = np.arange(1, 5)[:, None]
    expected = df.iloc[-1].to_numpy() + k * d * model.change_scale_ * sigma
    np.testing.assert_allclose(model.predict(horizon=4).to_numpy(), expected, atol=1e-4)


def test_step_change_loss_by_hand():
    # errors of the 3 horizon steps: 1, 3, 2 (channel a), 0, 0, 4 (channel b)
    target = torch.zeros(1, 3, 2)
    pred = torch.tensor([[[1.0, 0.0], [3.0, 0.0], [2.0, 4.0]]])
    scale = (2.0, 4.0)
    # step changes of the error: a (1, 2, -1) / 2, b (0, 0, 4) / 4
    expected = ((0.5**2 + 1**2 + 0.5**2) + (0 + 0 + 1**2)) / 6
    loss = StepChangeLoss(masked_mse, scale)
    assert loss(pred, target).item() == pytest.approx(expected)
    # the same error on every step is one change at the first step only
    flat = StepChangeLoss(masked_mse, (1.0, 1.0))(torch.ones(1, 3, 2), target)
    assert flat.item() == pytest.approx(2 / 6)
    # truncated-BPTT chunks (B, k, h, C) with a step mask
    chunked = pred.unsqueeze(1).repeat(1, 2, 1, 1)  # (1, 2, 3, 2)
    mask = torch.tensor([[True, False]])
    assert loss(chunked, torch.zeros_like(chunked), mask).item() == pytest.approx(expected)


def test_the_fit_trains_on_step_changes(monkeypatch):
    seen = []
    real = neural.train

    def spy(net, train_data, val_data, config, *args):
        seen.append(config)
        return real(net, train_data, val_data, config, *args)

    monkeypatch.setattr(neural, "train", spy)
    model = GRUForecaster(**DIFF, loss="mae").fit(walk())
    assert seen[0].step_scale == pytest.approx(tuple(model.change_scale_))
    loss = training_loss(None, seen[0].loss, seen[0].step_scale)
    assert isinstance(loss, StepChangeLoss) and loss.base is masked_mae
    GRUForecaster(**TINY).fit(walk())
    assert seen[1].step_scale is None


def test_what_it_does_not_combine_with():
    df = walk()
    with pytest.raises(
        ValueError, match="target_transform must be None or 'difference', got 'log'"
    ):
        GRUForecaster(**TINY, target_transform="log").fit(df)
    for extra, name in (
        ({"residual": True}, "residual=True"),
        ({"reference": 6}, "reference=6"),
        ({"quantiles": (0.1, 0.5, 0.9)}, "quantiles"),
        ({"strategy": "seq2seq"}, "strategy='seq2seq'"),
    ):
        with pytest.raises(ValueError, match=f"does not combine with {name}"):
            GRUForecaster(**DIFF, **extra).fit(df)


def test_pyfunc_and_batch_give_the_estimators_forecast(new_store, tmp_path):
    from mlflow.pyfunc import load_model  # the mlflow extra

    from forecast.batch import run_batch  # reads models through mlflow
    from forecast.tracking import track_fit, use_store  # the mlflow extra

    store = new_store("difference")
    df = walk(n=120)
    est = GRUForecaster(**DIFF, device="cpu")
    run = track_fit(est, df, experiment="difference", tracking_uri=store, log_model=True)
    history = df.iloc[-40:]
    expected = est.predict(horizon=4, history=history)
    with use_store(store):
        got = load_model(run.model_info.model_uri).predict(history, params={"horizon": 4})
    pd.testing.assert_frame_equal(got, expected)
    est.save(tmp_path / "model")
    history.rename_axis("timestamp").to_csv(tmp_path / "latest.csv")
    result = run_batch(
        tmp_path / "model", tmp_path / "latest.csv", str(tmp_path / "out.csv"), 4, track=False
    )
    written = pd.read_csv(result.path, index_col=0, parse_dates=True)
    np.testing.assert_allclose(written.to_numpy(), expected.to_numpy(), rtol=1e-6)
