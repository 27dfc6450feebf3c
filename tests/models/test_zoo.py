import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.exceptions import NotFittedError

from forecast.models.hopfield import HopfieldForecaster
from forecast.models.orthogonal import OrthogonalRNNForecaster
from forecast.models.transformer import TransformerForecaster
from forecast.nn.orthogonal import orthogonality_error
from tests.conftest import make_series

TINY = dict(
    context_length=24, horizon=6, hidden_size=8, max_epochs=2, batch_size=32, random_state=0
)


def check_forecast(fc, df, horizon=6):
    assert isinstance(fc, pd.DataFrame) and list(fc.columns) == list(df.columns)
    expected = pd.date_range(df.index[-1], periods=horizon + 1, freq=df.index.freq)[1:]
    pd.testing.assert_index_equal(fc.index, expected, check_names=False)
    assert np.isfinite(fc.to_numpy()).all()


def test_orthogonal_rnn_stays_orthogonal_after_fitting():
    df = make_series(300, tz="Europe/Berlin")
    model = OrthogonalRNNForecaster(
        stiefel_lr=0.05, stiefel_rmsprop=True, lr_scheduler="step", learning_rate=0.01, **TINY
    )
    fc = model.fit(df).predict(horizon=6)
    check_forecast(fc, df)
    assert model.orthogonality_error_ < 1e-4
    errors = model.history_["orthogonality_error"]
    assert len(errors) == model.n_epochs_ == 2 and max(errors) < 1e-4
    w = model.module_.encoder.recurrent_weights()[0]
    assert orthogonality_error(w) == model.orthogonality_error_
    moduli = torch.linalg.eigvals(w.detach().double()).abs()
    assert float((moduli - 1).abs().max()) < 1e-4
    group = model.module_.param_groups()[0]
    assert group["stiefel"] and group["lr"] == 0.05 and group["rmsprop"]


def test_orthogonal_rnn_family_parameters_and_tbptt():
    df = make_series(200)
    model = OrthogonalRNNForecaster(
        nonlinearity="tanh",
        init="identity",
        num_layers=2,
        windowing="tbptt",
        tbptt_steps=12,
        **TINY,
    ).fit(df)
    assert model.module_.encoder.rnn.nonlinearity == "tanh"
    assert len(model.module_.encoder.recurrent_weights()) == 2
    assert model.orthogonality_error_ < 1e-4
    check_forecast(model.predict(horizon=6), df)
    with pytest.raises(ValueError, match="stiefel_lr"):
        OrthogonalRNNForecaster(stiefel_lr=0.0, **TINY).fit(df)


def test_orthogonal_rnn_resumes_from_a_checkpoint(tmp_path):
    df = make_series(200)
    params = dict(TINY, checkpoint_dir=str(tmp_path), stiefel_rmsprop=True)
    OrthogonalRNNForecaster(**{**params, "max_epochs": 1}).fit(df)
    resumed = OrthogonalRNNForecaster(**params).fit(df)  # loads the Stiefel optimizer's state
    straight = OrthogonalRNNForecaster(**{**params, "checkpoint_dir": None}).fit(df)
    assert resumed.n_epochs_ == 2
    pd.testing.assert_frame_equal(resumed.predict(horizon=3), straight.predict(horizon=3))


def test_transformer_forecasts_and_returns_attention_weights():
    df = make_series(300, channels=2)
    model = TransformerForecaster(n_heads=2, num_layers=2, causal=True, **TINY)
    with pytest.raises(NotFittedError):
        model.attention_weights()
    fc = model.fit(df).predict(horizon=6)
    check_forecast(fc, df)
    w = model.attention_weights()
    assert isinstance(w, np.ndarray) and w.shape == (2, 2, 24, 24)
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)
    assert np.abs(np.triu(w, 1)).max() == 0.0  # causal=True reached the network
    other = model.attention_weights(history=df.iloc[:100])
    assert other.shape == w.shape and not np.allclose(other, w)
    with pytest.raises(ValueError, match="history needed by the encoder"):
        model.attention_weights(history=df.iloc[:10])


def test_transformer_learned_positions_and_several_series():
    frames = {"a": make_series(200, seed=1), "b": make_series(200, seed=2)}
    model = TransformerForecaster(n_heads=2, positional="learned", ff_size=16, **TINY).fit(frames)
    enc = model.module_.encoder
    assert enc.position.kind == "learned" and enc.blocks[0].ff[0].out_features == 16
    weights = model.attention_weights()
    assert set(weights) == {"a", "b"} and weights["a"].shape == (1, 2, 24, 24)
    fc = model.predict(horizon=6)
    check_forecast(fc["a"], frames["a"])
    with pytest.raises(ValueError, match="tbptt"):
        TransformerForecaster(n_heads=2, windowing="tbptt", **TINY).fit(frames)


def test_hopfield_forecasts_and_returns_association_weights():
    df = make_series(300)
    model = HopfieldForecaster(n_heads=2, update_steps=2, beta=2.0, **TINY)
    fc = model.fit(df).predict(horizon=6)
    check_forecast(fc, df)
    assert model.module_.encoder.beta == 2.0 and model.module_.encoder.update_steps == 2
    w = model.association_weights()
    assert w.shape == (2, 2, 24)
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)
    assert (w >= 0).all()
    with pytest.raises(ValueError, match="beta"):
        HopfieldForecaster(beta=-1.0, **TINY).fit(df)


def test_same_seed_same_forecast():
    df = make_series(200)
    for cls, extra in [(HopfieldForecaster, {"n_heads": 2}), (OrthogonalRNNForecaster, {})]:
        a = cls(**extra, **TINY).fit(df).predict(horizon=4)
        b = cls(**extra, **TINY).fit(df).predict(horizon=4)
        pd.testing.assert_frame_equal(a, b)
