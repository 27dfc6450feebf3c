"""Temporal DCT bases, DCT tokens, DCT heads and channel mixing (forecast.nn.dct)."""

import math

import numpy as np
import pytest
import torch

from forecast.nn.dct import ChannelMixing, dct_basis, dct_tokens, pad_last
from forecast.nn.heads import PointHead, QuantileHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import build_recurrent


def test_basis_of_two_steps_by_hand():
    r = 1 / math.sqrt(2)
    np.testing.assert_allclose(dct_basis(2).numpy(), [[r, r], [r, -r]], atol=1e-7)


def test_full_basis_is_orthonormal_and_truncation_keeps_the_lowest_rows():
    basis = dct_basis(25)
    np.testing.assert_allclose((basis @ basis.T).numpy(), np.eye(25), atol=1e-5)
    np.testing.assert_allclose(dct_basis(25, 4).numpy(), basis[:4].numpy())
    # row j of length n: sqrt(2/n) cos(pi (2t+1) j / 2n); t = 0, j = 1, n = 25
    assert float(basis[1, 0]) == pytest.approx(math.sqrt(2 / 25) * math.cos(math.pi / 50))
    with pytest.raises(ValueError, match="1 to 5 coefficients, asked for 6"):
        dct_basis(5, 6)


def test_tokens_pad_with_the_last_step_and_a_constant_window_has_one_coefficient():
    x = torch.tensor([[[1.0], [2.0]]])  # (1, 2, 1)
    np.testing.assert_allclose(pad_last(x, 2)[0, :, 0].numpy(), [1, 2, 2, 2])
    tokens = dct_tokens(x, dct_basis(4))  # coefficients of [1, 2, 2, 2]
    np.testing.assert_allclose(
        tokens[0, :, 0].numpy(), (dct_basis(4) @ torch.tensor([1.0, 2, 2, 2])).numpy()
    )
    flat = dct_tokens(torch.full((3, 5, 2), 3.0), dct_basis(8, 6))  # constant, padded to 8
    np.testing.assert_allclose(flat[:, 0].numpy(), 3.0 * math.sqrt(8), rtol=1e-6)
    np.testing.assert_allclose(flat[:, 1:].numpy(), 0.0, atol=1e-5)
    with pytest.raises(ValueError, match="cannot hold windows of 5"):
        dct_tokens(torch.zeros(1, 5, 1), dct_basis(4))


def test_dct_head_forecasts_lie_in_the_span_of_the_first_k_cosines():
    torch.manual_seed(0)
    head = PointHead(8, horizon=12, n_outputs=3, coefficients=4)
    out = head(torch.randn(5, 8))  # (5, 12, 3)
    assert out.shape == (5, 12, 3)
    basis = dct_basis(12, 4)
    projected = torch.einsum("kh,kj,bjc->bhc", basis, basis, out)  # onto the span
    np.testing.assert_allclose(projected.detach().numpy(), out.detach().numpy(), atol=1e-5)
    constant = PointHead(8, horizon=12, n_outputs=3, coefficients=1)(torch.randn(5, 8))
    np.testing.assert_allclose(
        constant.detach().numpy(), constant[:, :1].expand(-1, 12, -1).detach().numpy(), atol=1e-6
    )
    quantiles = QuantileHead(8, 12, 3, n_quantiles=3, middle=1, coefficients=4)(torch.randn(5, 8))
    assert quantiles.shape == (5, 12, 3, 3)
    assert bool((quantiles[..., 0] <= quantiles[..., 1]).all())


def test_channel_mixing_starts_as_the_identity_and_mixes_channels():
    mix = ChannelMixing(3)
    y = torch.randn(2, 4, 3)
    assert torch.equal(mix(y), y)
    with torch.no_grad():
        mix.weight[0, 2] = 1.0  # channel 2 gains channel 0
    expected = y.clone()
    expected[..., 2] += y[..., 0]
    np.testing.assert_allclose(mix(y).detach().numpy(), expected.numpy(), atol=1e-6)


def _net(**options):
    torch.manual_seed(0)
    encoder = build_recurrent("gru", 2, 8)
    return ForecastNet(encoder, PointHead(8, 6, 2), n_targets=2, **options)


def test_net_reads_dct_tokens_and_mixing_needs_the_skip_path():
    net = _net(dct_input=5, normalize=True)
    x = torch.randn(3, 10, 2)
    assert net.encoder_input(x).shape == (3, 5, 2)  # 5 coefficients of 10 + 6 steps
    assert net(x)[0].shape == (3, 6, 2)
    with pytest.raises(ValueError, match="needs context"):
        _net(mixing=True)
    with pytest.raises(ValueError, match="patch=1"):
        _net(dct_input=5, patch=2)
    mixed = _net(mixing=True, context=10)
    assert mixed(x)[0].shape == (3, 6, 2)


def test_forecast_net_under_its_old_module_warns_and_is_the_same_class():
    import forecast.nn.heads as heads

    with pytest.warns(DeprecationWarning, match="in forecast 0.2.0 .* moved to forecast.nn.net"):
        assert heads.ForecastNet is ForecastNet
