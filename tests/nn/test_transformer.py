import math

import pytest
import torch

from forecast.nn.transformer import PositionalEncoding, TransformerEncoder, sinusoidal_encoding


def test_sinusoidal_encoding_hand_values():
    pe = sinusoidal_encoding(5, 6)
    assert pe.shape == (5, 6)
    torch.testing.assert_close(pe[:, 0], torch.sin(torch.arange(5.0)))
    torch.testing.assert_close(pe[:, 1], torch.cos(torch.arange(5.0)))
    torch.testing.assert_close(pe[3, 2], torch.tensor(math.sin(3 / 10000 ** (2 / 6))))
    torch.testing.assert_close(pe[3, 5], torch.tensor(math.cos(3 / 10000 ** (4 / 6))))
    assert sinusoidal_encoding(4, 5).shape == (4, 5)  # odd width


def test_positional_encoding_kinds():
    fixed = PositionalEncoding(8)
    torch.testing.assert_close(fixed(600)[:7], sinusoidal_encoding(7, 8))  # grows past 512
    assert fixed(600).shape == (600, 8) and not list(fixed.parameters())
    learned = PositionalEncoding(8, "learned", max_len=10)
    assert learned(10).shape == (10, 8) and learned(10).requires_grad
    with pytest.raises(ValueError, match="longer than the learned positional table"):
        learned(11)
    with pytest.raises(ValueError, match="needs max_len"):
        PositionalEncoding(8, "learned")
    with pytest.raises(ValueError, match="positional must be one of"):
        PositionalEncoding(8, "rotary")


def test_shapes_and_contract(seed):
    enc = TransformerEncoder(3, d_model=8, num_layers=2, n_heads=2)
    y, state = enc(torch.randn(4, 11, 3))
    assert y.shape == (4, 11, 8) and state is None
    assert enc.output_size == 8 and enc.recurrent is False
    assert enc.blocks[0].ff[0].out_features == 32  # default ff_size = 4 * d_model
    with pytest.raises(ValueError, match="divisible by n_heads"):
        TransformerEncoder(3, d_model=6, n_heads=4)


@pytest.mark.parametrize("causal", [True, False])
def test_causal_mask_hides_the_future(seed, causal):
    enc = TransformerEncoder(2, d_model=8, num_layers=2, n_heads=2, causal=causal).eval()
    x = torch.randn(3, 10, 2)
    changed = x.clone()
    changed[:, 6:] += torch.randn(3, 4, 2)  # alter steps 6..9 only
    y, _ = enc(x)
    y2, _ = enc(changed)
    past_moved = (y[:, :6] - y2[:, :6]).abs().max()
    if causal:
        assert past_moved < 1e-5  # steps 0..5 do not see steps 6..9
    else:
        assert past_moved > 1e-3
    assert (y[:, 6:] - y2[:, 6:]).abs().max() > 1e-3


@pytest.mark.parametrize("causal", [True, False])
def test_explicit_attention_weights_match_the_fused_kernel(seed, causal):
    enc = TransformerEncoder(2, d_model=8, num_layers=3, n_heads=4, causal=causal).eval()
    x = torch.randn(2, 9, 2)
    fused, _ = enc(x)
    explicit, _ = enc._run(x, need_weights=True)
    torch.testing.assert_close(explicit, fused, atol=1e-5, rtol=1e-4)
    w = enc.attention_weights(x)
    assert w.shape == (2, 3, 4, 9, 9)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, 4, 9))
    above = torch.ones(9, 9, dtype=torch.bool).triu(1)
    if causal:
        assert float(w[..., above].abs().max()) == 0.0
    else:
        assert float(w[..., above].min()) > 0.0


def test_learned_positions_and_dropout_train_mode(seed):
    enc = TransformerEncoder(2, d_model=8, n_heads=2, dropout=0.5, positional="learned", max_len=12)
    x = torch.randn(2, 12, 2)
    a, _ = enc.train()(x)
    b, _ = enc(x)
    assert not torch.allclose(a, b)  # dropout active in training
    c, _ = enc.eval()(x)
    d, _ = enc(x)
    torch.testing.assert_close(c, d)
    with pytest.raises(ValueError, match="max_len=12"):
        enc(torch.randn(1, 13, 2))
