"""horizon_weight (per-lead loss weights) and dropout="auto" of the neural estimators."""

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone

from forecast.base import BaseForecaster
from forecast.models.recurrent import GRUForecaster
from forecast.models.transformer import TransformerForecaster
from forecast.training.losses import (
    LeadWeightedLoss,
    PinballLoss,
    lead_weights,
    masked_mse,
    training_loss,
)

TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=2, batch_size=32)


def walk(n=160, seed=0):
    rng = np.random.default_rng(seed)
    index = pd.date_range("2024-01-01", periods=n, freq="h")
    return pd.DataFrame(
        np.cumsum(rng.standard_normal((n, 2)), axis=0), index=index, columns=["a", "b"]
    )


def test_lead_weights_by_hand():
    assert lead_weights(None, 4) is None
    w = lead_weights(1.0, 4)
    raw = np.array([1, 1 / 2, 1 / 3, 1 / 4])
    np.testing.assert_allclose(w, raw / raw.mean())
    np.testing.assert_allclose(lead_weights(0, 3), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(lead_weights(1.5, 2), np.array([1, 2**-1.5]) / ((1 + 2**-1.5) / 2))
    np.testing.assert_allclose(lead_weights([3, 1, 0], 3), [2.25, 0.75, 0.0])
    assert lead_weights(np.array([2.0, 2.0]), 2).tolist() == [1.0, 1.0]


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=30).filter(lambda w: sum(w) > 0))
def test_given_weights_keep_their_ratios_at_mean_one(raw):
    w = lead_weights(raw, len(raw))
    assert w.mean() == pytest.approx(1.0)
    np.testing.assert_allclose(w * sum(raw) / len(raw), raw, rtol=1e-9, atol=1e-9)


@given(st.floats(0, 8), st.integers(1, 50))
def test_decay_weights_never_rise_with_the_lead(power, horizon):
    w = lead_weights(power, horizon)
    assert len(w) == horizon and w.mean() == pytest.approx(1.0)
    assert (np.diff(w) <= 1e-12).all()


@pytest.mark.parametrize(
    "spec, message",
    [
        ([1.0, 2.0], "has 2 weight\\(s\\); the network forecasts 3 lead"),
        ([1.0, -1.0, 1.0], "lead 2 has -1.0"),
        ([1.0, np.nan, 1.0], "lead 2 has nan"),
        ([0, 0, 0], "must not be all zero"),
        (-0.5, "decay exponent must be a finite number >= 0"),
        ("steep", "must be 'auto', None, a decay exponent"),
        (True, "must be 'auto', None, a decay exponent"),
    ],
)
def test_lead_weights_name_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        lead_weights(spec, 3)


def test_weighted_point_loss_by_hand():
    pred = torch.zeros(1, 2, 1)  # (B, h, C)
    target = torch.tensor([[[1.0], [2.0]]])  # errors 1 and 2 at leads 1 and 2
    loss = LeadWeightedLoss(masked_mse, [1.5, 0.5])
    assert loss(pred, target).item() == pytest.approx((1.5 * 1 + 0.5 * 4) / 2)
    # every lead alike: the plain mean
    assert LeadWeightedLoss(masked_mse, [1.0, 1.0])(pred, target).item() == pytest.approx(2.5)


def test_weighted_loss_with_chunk_mask_by_hand():
    # truncated BPTT: pred (B, k, h, C), mask (B, k) drops the second chunk step
    pred = torch.zeros(1, 2, 2, 1)
    target = torch.tensor([[[[1.0], [2.0]], [[10.0], [10.0]]]])
    mask = torch.tensor([[True, False]])
    loss = LeadWeightedLoss(masked_mse, [1.5, 0.5])
    assert loss(pred, target, mask).item() == pytest.approx((1.5 * 1 + 0.5 * 4) / 2)


def test_weighted_pinball_loss_weighs_the_lead_axis():
    levels = (0.1, 0.5, 0.9)
    pred = torch.zeros(1, 2, 1, 3)  # (B, h, C, Q)
    target = torch.tensor([[[1.0], [2.0]]])
    weighted = training_loss(levels, lead_weight=[2.0, 0.0])
    first = PinballLoss(levels)(pred[:, :1], target[:, :1])
    assert weighted(pred, target).item() == pytest.approx(first.item())  # lead 2 ignored
    assert isinstance(weighted, LeadWeightedLoss) and weighted.lead_axis == -3


def test_step_change_loss_takes_lead_weights():
    pred = torch.zeros(1, 2, 1)
    target = torch.tensor([[[1.0], [3.0]]])  # step changes of the error: -1, -2
    loss = training_loss(None, "mse", step_scale=[1.0], lead_weight=[0.0, 2.0])
    assert loss(pred, target).item() == pytest.approx(2.0 * 4 / 2)


def test_auto_resolves_with_residual_only():
    df = walk()
    residual = GRUForecaster(**TINY, residual=True, random_state=0).fit(df)
    raw = np.arange(1, 5, dtype=float) ** -1.5
    np.testing.assert_allclose(residual.horizon_weight_, raw / raw.mean())
    assert residual.dropout_ == 0.5
    assert residual.module_.encoder.output_dropout.p == 0.5
    plain = GRUForecaster(**TINY, random_state=0).fit(df)
    assert plain.horizon_weight_ is None and plain.dropout_ == 0.0
    assert isinstance(plain.module_.encoder.output_dropout, torch.nn.Identity)
    given = GRUForecaster(**TINY, residual=True, dropout=0.1, horizon_weight=None, random_state=0)
    given.fit(df)
    assert given.horizon_weight_ is None and given.dropout_ == 0.1
    recursive = GRUForecaster(**TINY, residual=True, strategy="recursive", random_state=0).fit(df)
    assert recursive.horizon_weight_.tolist() == [1.0]  # a one-step head has one lead
    transformer = TransformerForecaster(**TINY, residual=True, random_state=0).fit(df)
    assert transformer.dropout_ == 0.5


def test_zero_weight_leads_are_not_trained():
    """With all weight on lead 1, the head rows of leads 2.. keep their initial values."""
    df = walk()
    model = GRUForecaster(**TINY, horizon_weight=[1.0, 0.0, 0.0, 0.0], random_state=0).fit(df)
    assert model.horizon_weight_.tolist() == [4.0, 0.0, 0.0, 0.0]
    fresh = clone(model)
    for name, value in vars(model).items():  # the shapes, seed and resolved options
        if name.endswith("_") and name != "module_":
            setattr(fresh, name, value)
    fresh._build_module()
    rows = model.n_outputs_  # head rows per lead: (horizon, C) flattened
    trained = model.module_.head.direct.weight.detach()
    initial = fresh.module_.head.direct.weight.detach()
    assert not torch.equal(trained[:rows], initial[:rows])  # lead 1 learned
    torch.testing.assert_close(trained[rows:], initial[rows:], rtol=0, atol=0)
    skip = model.module_.skip.weight.detach()  # (horizon, L), initialised at zero
    assert skip[0].abs().sum() > 0 and skip[1:].abs().sum() == 0


def test_weighted_fit_differs_from_unweighted_and_early_stopping_watches_it():
    df = walk()
    alike = GRUForecaster(**TINY, horizon_weight=None, random_state=0).fit(df)
    near = GRUForecaster(**TINY, horizon_weight=2.0, random_state=0).fit(df)
    assert alike.history_["val_loss"] != near.history_["val_loss"]
    assert not np.allclose(alike.predict(4).to_numpy(), near.predict(4).to_numpy())


def test_bad_settings_are_named_at_fit():
    df = walk()
    with pytest.raises(ValueError, match="horizon_weight has 3 weight"):
        GRUForecaster(**TINY, horizon_weight=[1, 1, 1]).fit(df)
    with pytest.raises(ValueError, match="dropout must be in \\[0, 1\\) or 'auto', got 'high'"):
        GRUForecaster(**TINY, dropout="high").fit(df)
    with pytest.raises(ValueError, match="dropout must be in \\[0, 1\\) or 'auto', got 1.0"):
        GRUForecaster(**TINY, dropout=1.0).fit(df)


def test_save_load_keeps_weights_and_forecasts(tmp_path):
    df = walk()
    model = GRUForecaster(**TINY, residual=True, horizon_weight=[4, 3, 2, 1], random_state=0)
    model.fit(df)
    loaded = BaseForecaster.load(model.save(tmp_path / "m"))
    np.testing.assert_allclose(loaded.horizon_weight_, [1.6, 1.2, 0.8, 0.4])
    assert loaded.dropout_ == 0.5 and loaded.get_params()["horizon_weight"] == [4, 3, 2, 1]
    pd.testing.assert_frame_equal(loaded.predict(4), model.predict(4))
    twin = clone(model)
    assert twin.get_params()["dropout"] == "auto" and not hasattr(twin, "horizon_weight_")


@pytest.mark.parametrize(
    "options",
    [
        dict(windowing="tbptt"),  # forecasts (B, k, h, C) per chunk step
        dict(quantiles=(0.1, 0.5, 0.9)),  # (B, h, C, Q): the lead axis is the third last
        dict(strategy="seq2seq"),
    ],
)
def test_auto_weights_train_every_layout(options):
    df = walk()
    model = GRUForecaster(**TINY, residual=True, random_state=0, **options).fit(df)
    assert len(model.horizon_weight_) == 4 and model.horizon_weight_[0] > model.horizon_weight_[-1]
    assert np.isfinite(model.history_["train_loss"]).all()
    forecast = model.predict(4)
    assert forecast.shape == (4, 2) and np.isfinite(forecast.to_numpy()).all()
    assert forecast.index[0] == df.index[-1] + pd.Timedelta("1h")
