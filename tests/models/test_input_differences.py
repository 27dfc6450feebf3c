"""input_differences: residual networks also read each step's change (on by default)."""

import numpy as np
import pandas as pd
import pytest
import torch

from forecast.models.hopfield import HopfieldForecaster
from forecast.models.orthogonal import OrthogonalRNNForecaster
from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
from forecast.models.transformer import TransformerForecaster

TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=1, batch_size=32)


def walk(n=120, seed=0):
    rng = np.random.default_rng(seed)
    index = pd.date_range("2024-01-01", periods=n, freq="h")
    steps = rng.standard_normal((n, 2)) * [1.0, 3.0]
    return pd.DataFrame(np.cumsum(steps, axis=0), index=index, columns=["a", "b"])


def test_the_scale_is_the_rms_of_the_scaled_one_step_changes():
    df = walk()
    model = GRUForecaster(**TINY, residual=True, random_state=0).fit(df)
    values = df.to_numpy()
    scaled = (values - values.mean(axis=0)) / values.std(axis=0)  # the StandardScaler
    expected = np.sqrt(np.mean(np.diff(scaled, axis=0) ** 2, axis=0))
    np.testing.assert_allclose(model.change_scale_, expected, rtol=1e-12)
    gru = next(m for m in model.module_.modules() if isinstance(m, torch.nn.GRU))
    assert gru.input_size == 4  # two values and two changes per step


@pytest.mark.parametrize(
    ("params", "on"),
    [
        ({"residual": True}, True),
        ({"residual": True, "windowing": "tbptt"}, False),  # streams have no window
        ({"residual": False}, False),
        ({"residual": False, "input_differences": True}, True),
        ({"residual": True, "input_differences": False}, False),
    ],
)
def test_auto_reads_changes_for_residual_windows_only(params, on):
    model = GRUForecaster(**TINY, **params, random_state=0).fit(walk())
    assert (model.change_scale_ is not None) is on
    gru = next(m for m in model.module_.modules() if isinstance(m, torch.nn.GRU))
    assert gru.input_size == (4 if on else 2)


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"input_differences": "yes"}, "input_differences must be 'auto', True or False"),
        (
            {"input_differences": True, "windowing": "tbptt"},
            "with windowing='tbptt' use input_differences=False",
        ),
    ],
)
def test_bad_input_differences(params, fragment):
    with pytest.raises(ValueError, match=fragment):
        GRUForecaster(**TINY, **params).fit(walk())


@pytest.mark.parametrize(
    ("cls", "extra"),
    [
        (ElmanForecaster, {}),
        (LSTMForecaster, {}),
        (GRUForecaster, {}),
        (OrthogonalRNNForecaster, {}),
        (TransformerForecaster, {"n_heads": 2}),
        (HopfieldForecaster, {"n_heads": 2}),
    ],
)
@pytest.mark.parametrize("strategy", ["direct", "recursive"])
def test_every_family_reads_changes_and_rolls_out(cls, extra, strategy):
    df = walk()
    model = cls(**TINY, **extra, residual=True, strategy=strategy, random_state=0).fit(df)
    assert model.get_params()["input_differences"] == "auto"
    assert model.change_scale_ is not None
    fc = model.predict(horizon=6)  # longer than the head: forecasts fed back, changes re-read
    assert fc.shape == (6, 2) and np.isfinite(fc.to_numpy()).all()
    again = model.predict(horizon=6, history=df)
    pd.testing.assert_frame_equal(fc, again)
    weights = {
        TransformerForecaster: "attention_weights",
        HopfieldForecaster: "association_weights",
    }
    if cls in weights:  # they read what the encoder reads: values, covariates and changes
        assert np.isfinite(getattr(model, weights[cls])()).all()
