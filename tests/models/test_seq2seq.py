"""strategy="seq2seq": a GRU decoder over the horizon fed its own forecasts."""

import numpy as np
import pandas as pd
import pytest
import torch

from forecast.base import BaseForecaster
from forecast.models.hopfield import HopfieldForecaster
from forecast.models.recurrent import GRUForecaster, LSTMForecaster
from forecast.nn.decoder import DecoderHead
from tests.conftest import make_series
from tests.models.test_residual import walk, zero_weights

TINY = dict(context_length=12, horizon=4, hidden_size=4, max_epochs=1, batch_size=32)


@torch.no_grad()
def test_decoder_integrates_its_changes_and_reads_its_own_forecasts():
    head = DecoderHead(3, horizon=3, n_outputs=2, residual=True)
    for p in head.parameters():
        p.zero_()
    head.out.bias.copy_(torch.tensor([1.0, -2.0]))
    start = torch.tensor([[5.0, 7.0]])
    out = head(torch.zeros(1, 3), None, start)  # offsets from start: 1, 2, 3 changes
    np.testing.assert_allclose(out[0].numpy(), [[1, -2], [2, -4], [3, -6]])
    # the first input is the last value, each later one the decoder's previous forecast
    torch.manual_seed(0)
    for p in head.parameters():
        p.normal_()
    summary = torch.randn(1, 3)
    state, value, expected = torch.tanh(head.init(summary)), start, []
    for _ in range(3):
        state = head.cell(value, state)
        value = value + head.out(state)
        expected.append(value - start)
    np.testing.assert_allclose(
        head(summary, None, start)[0].numpy(), torch.cat(expected).numpy(), rtol=1e-6
    )
    plain = DecoderHead(3, horizon=3, n_outputs=2, residual=False)
    for p in plain.parameters():
        p.zero_()
    plain.out.bias.copy_(torch.tensor([1.0, -2.0]))
    np.testing.assert_allclose(plain(torch.zeros(1, 3), None, start)[0].numpy(), [[1, -2]] * 3)


@pytest.mark.parametrize(("residual", "steps"), [(True, np.arange(1, 7)), (False, None)])
def test_zero_network_with_a_constant_change(residual, steps):
    """Output bias d (scaled units): residual, step k is last + k d sigma; else mean + d sigma."""
    df = walk()
    sigma, mean = df.to_numpy().std(axis=0), df.to_numpy().mean(axis=0)
    d = np.array([0.5, -0.25])
    model = GRUForecaster(
        **TINY, strategy="seq2seq", residual=residual, normalization=None, linear_skip=False
    )
    zero_weights(model.fit(df))
    with torch.no_grad():
        model.module_.head.out.bias.copy_(torch.tensor(d, dtype=torch.float32))
    fc = model.predict(horizon=6).to_numpy()  # 4 decoded, then 2 more from a second block
    if residual:
        expected = df.iloc[-1].to_numpy() + steps[:, None] * d * sigma
    else:
        expected = np.tile(mean + d * sigma, (6, 1))
    np.testing.assert_allclose(fc, expected, atol=1e-4)


@pytest.mark.parametrize("cls", [LSTMForecaster, HopfieldForecaster])
def test_fit_save_load_round_trip(cls, tmp_path):
    df = make_series(200, channels=2)
    extra = {"n_heads": 2} if cls is HopfieldForecaster else {}
    model = cls(
        **TINY, **extra, strategy="seq2seq", residual=True, calendar=True, random_state=0
    ).fit(df)
    assert model.head_horizon_ == 4
    fc = model.predict(horizon=10)
    assert fc.shape == (10, 2) and np.isfinite(fc.to_numpy()).all()
    model.save(tmp_path / "m")
    loaded = BaseForecaster.load(tmp_path / "m", device="cpu")
    pd.testing.assert_frame_equal(loaded.predict(horizon=10), fc)


def test_seq2seq_needs_windows_and_a_point_head():
    df = walk()
    with pytest.raises(ValueError, match="strategy='seq2seq' needs windowing='sliding'"):
        GRUForecaster(**TINY, strategy="seq2seq", windowing="tbptt").fit(df)
    with pytest.raises(ValueError, match="strategy='seq2seq' has a point decoder: quantiles"):
        GRUForecaster(**TINY, strategy="seq2seq", quantiles=(0.1, 0.5, 0.9)).fit(df)
