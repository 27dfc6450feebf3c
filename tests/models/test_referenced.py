"""Networks with a reference model: the network corrects the reference's forecast per window."""

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

from forecast.models import HopfieldForecaster, get_estimator
from forecast.models.baselines import LinearLagForecaster, SeasonalNaive
from forecast.models.referenced import (
    ReferencedHopfieldForecaster,
    ReferencedTransformerForecaster,
    ReferencedWindows,
)
from forecast.nn.heads import PointHead
from forecast.nn.hopfield import HopfieldPooling
from forecast.nn.net import ForecastNet
from forecast.nn.referenced import ReferencedNet
from forecast.persistence.format import load, save

TINY = {
    "context_length": 48,
    "horizon": 12,
    "hidden_size": 8,
    "n_heads": 2,
    "max_epochs": 2,
    "batch_size": 64,
    "random_state": 0,
}


def load_series(days=60, seed=0):
    """Hourly load: daily and weekly cycles, a slow trend and noise."""
    index = pd.date_range("2022-03-01", periods=24 * days, freq="h")
    t = np.arange(len(index))
    rng = np.random.default_rng(seed)
    values = 50 + 10 * np.sin(2 * np.pi * t / 24) + 4 * np.sin(2 * np.pi * t / 168) + t / 500
    return pd.DataFrame({"load": values + rng.normal(0, 1, len(t))}, index=index)


def reference():
    return LinearLagForecaster(lags=24, seasonal_lags=("1D",), horizon=12, calendar=False)


def fitted(**params):
    return ReferencedHopfieldForecaster(reference_model=reference(), **TINY, **params).fit(
        load_series()
    )


def tiny_net(normalize):
    encoder = HopfieldPooling(3, hidden_size=8, n_heads=2)
    head = PointHead(8, horizon=5, n_outputs=1, n_future=2)
    return ForecastNet(encoder, head, n_targets=1, normalize=normalize, context=16)


@pytest.mark.parametrize("normalize", [True, False])
def test_referenced_net_adds_the_correction_to_the_reference(normalize):
    torch.manual_seed(0)
    net = tiny_net(normalize)
    wrapped = ReferencedNet(net)
    x = torch.randn(4, 16, 3) * 3 + 7
    covariates = torch.randn(4, 5, 2)
    ref = torch.randn(4, 5, 1)
    out, _ = wrapped(x, torch.cat([covariates, ref], dim=-1))
    assert out.shape == (4, 5, 1)
    plain, _ = net(x, covariates)
    level = x[..., :1].mean(dim=1, keepdim=True) if normalize else 0.0
    torch.testing.assert_close(out, ref + plain - level)


def test_referenced_net_reads_the_normalised_reference_with_reference_input():
    torch.manual_seed(0)
    encoder = HopfieldPooling(3, hidden_size=8, n_heads=2)
    head = PointHead(8, horizon=5, n_outputs=1, n_future=3)  # two covariates + the reference
    net = ForecastNet(encoder, head, n_targets=1, normalize=True, context=16)
    wrapped = ReferencedNet(net, reference_input=True)
    x = torch.randn(2, 16, 3)
    future = torch.randn(2, 5, 3)
    out, _ = wrapped(x, future)
    level = x[..., :1].mean(dim=1, keepdim=True)
    scale = torch.sqrt(x[..., :1].var(dim=1, unbiased=False, keepdim=True) + 1e-5)
    seen = torch.cat([future[..., :2], (future[..., 2:] - level) / scale], dim=-1)
    torch.testing.assert_close(out, future[..., 2:] + net(x, seen)[0] - level)
    with pytest.raises(ValueError, match="reference in the last 1"):
        wrapped(x, None)


def test_training_windows_carry_the_reference_forecast_of_their_origin():
    model = fitted()
    df = load_series()
    series = model._to_arrays({None: df}, horizon=0, future=None)
    train, val = model._training_data(series, None, [])
    assert isinstance(train, ReferencedWindows) and isinstance(val, ReferencedWindows)
    batch = train[np.array([0, len(train) - 1])]
    assert batch.future.shape == (2, 12, model.n_future_ + 1)
    for i, row in ((0, 0), (len(train) - 1, 1)):
        last = int(train.starts[i]) + model.context_length - 1  # the window's last step
        by_hand = model.reference_model_.predict(history=df.iloc[: last + 1], horizon=12)
        scaled = (by_hand["load"].to_numpy() - model.scaler_.mean_[0]) / model.scaler_.scale_[0]
        np.testing.assert_allclose(batch.future[row, :, -1].numpy(), scaled, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(batch.y[row, :, 0].numpy(), series[0].y[last + 1 : last + 13, 0])


def test_forecast_is_the_reference_when_the_network_adds_nothing():
    model = fitted()
    with torch.no_grad():
        for name, p in model.module_.named_parameters():
            if name.startswith(("net.head", "net.skip")):
                p.zero_()
    np.testing.assert_allclose(
        model.predict(horizon=12).to_numpy(),
        model.reference_model_.predict(horizon=12).to_numpy(),
        rtol=1e-5,
    )


def test_the_network_improves_on_a_poor_reference():
    df = load_series(days=90)
    train, test = df.iloc[:-12], df.iloc[-12:]
    weak = SeasonalNaive(season="1D")
    params = {**TINY, "max_epochs": 30, "learning_rate": 5e-3}
    model = ReferencedHopfieldForecaster(reference_model=weak, **params).fit(train)
    mine = np.abs(model.predict(horizon=12)["load"].to_numpy() - test["load"].to_numpy()).mean()
    theirs = np.abs(model.reference_model_.predict(horizon=12)["load"] - test["load"]).mean()
    assert mine < theirs


def test_without_a_reference_it_is_the_hopfield_forecaster():
    df = load_series()
    mine = ReferencedHopfieldForecaster(**TINY).fit(df)
    plain = HopfieldForecaster(**TINY).fit(df)
    assert mine.reference_model_ is None
    np.testing.assert_array_equal(mine.predict(horizon=12), plain.predict(horizon=12))


def test_save_load_and_clone_keep_the_model(tmp_path):
    model = fitted(reference_input=True, n_ensemble=2)
    save(model, tmp_path / "m")
    back = load(tmp_path / "m")
    assert isinstance(back.reference_model_, LinearLagForecaster)
    np.testing.assert_allclose(back.predict(horizon=12), model.predict(horizon=12), rtol=1e-6)
    twin = clone(model)
    assert twin.reference_model is not model.reference_model
    assert twin.get_params()["reference_model"].get_params() == reference().get_params()
    assert not hasattr(twin, "reference_model_")
    np.testing.assert_allclose(
        twin.fit(load_series()).predict(horizon=12), model.predict(horizon=12)
    )


def test_registered_names():
    assert get_estimator("referenced-hopfield") is ReferencedHopfieldForecaster
    assert get_estimator("referenced-transformer") is ReferencedTransformerForecaster


def test_transformer_family_takes_a_reference_too():
    params = {k: v for k, v in TINY.items() if k != "n_heads"}
    model = ReferencedTransformerForecaster(reference_model=reference(), n_heads=2, **params)
    assert model.fit(load_series()).predict(horizon=6).shape == (6, 1)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"reference_model": "linear"}, "reference_model must be a forecaster"),
        ({"reference_model": LinearLagForecaster(future_covariates=["x"])}, "no covariates"),
    ],
)
def test_bad_references_are_named(params, message):
    df = load_series().assign(x=1.0)
    with pytest.raises(ValueError, match=message):
        ReferencedHopfieldForecaster(**TINY, **params).fit(
            df if "future" in str(params) else df[["load"]]
        )


def test_no_roll_out_beyond_the_head():
    with pytest.raises(ValueError, match="does not roll out"):
        fitted().predict(horizon=13)


def test_cross_fitted_windows_read_a_reference_fitted_without_their_block():
    df = load_series()
    model = fitted(reference_folds=2)
    assert not hasattr(model, "_fold_models")  # kept for the training windows only
    series = model._to_arrays({None: df}, horizon=0, future=None)
    n = len(df)
    # by hand: the clone for block 0 learns from the second half, the one for block 1 from the first
    halves = [reference().fit({0: df.iloc[n // 2 :]}), reference().fit({0: df.iloc[: n // 2]})]
    model._fold_models = halves
    train, _ = model._training_data(series, None, [])
    del model._fold_models
    mean, scale = model.scaler_.mean_[0], model.scaler_.scale_[0]
    for i in (0, len(train) - 1):
        last = int(train.starts[i]) + model.context_length - 1
        block = min((last + 1) * 2 // n, 1)
        by_hand = halves[block].predict(history=df.iloc[: last + 1], horizon=12)["load"]
        got = train[i].future[:, -1].numpy()
        np.testing.assert_allclose(got, (by_hand.to_numpy() - mean) / scale, rtol=1e-5, atol=1e-5)
    assert {min((int(s) + model.context_length) * 2 // n, 1) for s in train.starts} == {0, 1}
    in_sample = fitted()._training_data(series, None, [])[0]
    assert not np.allclose(in_sample.reference.numpy(), train.reference.numpy())


def test_without_the_base_the_reference_is_only_read():
    torch.manual_seed(0)
    encoder = HopfieldPooling(3, hidden_size=8, n_heads=2)
    head = PointHead(8, horizon=5, n_outputs=1, n_future=3)
    net = ForecastNet(encoder, head, n_targets=1, normalize=False, context=16)
    x, future = torch.randn(2, 16, 3), torch.randn(2, 5, 3)
    out, _ = ReferencedNet(net, reference_input=True, base=False)(x, future)
    torch.testing.assert_close(out, net(x, future)[0])  # without normalisation: read as given
    with pytest.raises(ValueError, match="needs reference_input"):
        ReferencedNet(net, base=False)
    with pytest.raises(ValueError, match="reference_base=False needs reference_input"):
        fitted(reference_base=False)


def test_windows_without_the_history_the_reference_needs_are_left_out():
    weekly = LinearLagForecaster(lags=24, seasonal_lags=("7D",), horizon=12, calendar=False)
    model = ReferencedHopfieldForecaster(reference_model=weekly, **TINY).fit(load_series())
    series = model._to_arrays({None: load_series()}, horizon=0, future=None)
    plain = HopfieldForecaster(**TINY).fit(load_series())._training_data(series, None, [])[0]
    train = model._training_data(series, None, [])[0]
    first_end = int(train.starts.min()) + model.context_length
    assert first_end >= 168 and len(train) < len(plain)
    assert set(train.starts.tolist()) <= set(plain.starts.tolist())
    assert model.predict(horizon=12).shape == (12, 1)


def test_the_day_ahead_preset_builds_and_fits():
    from forecast.models import DAY_AHEAD_LOAD

    index = pd.date_range("2022-09-01", periods=24 * 50, freq="h", tz="Europe/Berlin")
    df = load_series(days=50).set_axis(index)  # across the October clock change
    model = ReferencedHopfieldForecaster(
        **{**DAY_AHEAD_LOAD, "n_ensemble": 2}, max_epochs=1, random_state=0
    )
    assert model.get_params()["reference_model"] is DAY_AHEAD_LOAD["reference_model"]
    model.fit(df)
    assert len(model.module_.members) == 2
    assert model.reference_model_ is not DAY_AHEAD_LOAD["reference_model"]
    assert not hasattr(DAY_AHEAD_LOAD["reference_model"], "coef_")  # the preset stays unfitted
    assert model.predict(horizon=37).shape == (37, 1)
