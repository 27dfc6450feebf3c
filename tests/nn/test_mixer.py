"""DCT-space mixers: LTD's graph blocks and siMLPe's temporal blocks (forecast.nn.mixer)."""

import numpy as np
import pytest
import torch

from forecast.nn.mixer import DCTMixerNet, GraphConv, GraphMixer, TemporalMixer


def test_graph_conv_by_hand():
    conv = GraphConv(2, 3, 1)
    with torch.no_grad():
        conv.weight.copy_(torch.tensor([[1.0], [0.0], [2.0]]))  # features -> 1
        conv.att.copy_(torch.tensor([[0.0, 1.0], [1.0, 1.0]]))  # node 0 reads node 1
        conv.bias.fill_(0.5)
    x = torch.tensor([[[1.0, 5.0, 1.0], [2.0, 7.0, 3.0]]])  # (1, 2 nodes, 3 features)
    # x @ W: node 0 -> 1 + 2 = 3, node 1 -> 2 + 6 = 8; att: [8, 3 + 8]; + 0.5
    np.testing.assert_allclose(conv(x)[0, :, 0].detach().numpy(), [8.5, 11.5])


def test_ltd_network_has_ltd_size():
    # 64 angle channels, 35 coefficients, width 256, 12 blocks: about 2.5 million parameters
    net = DCTMixerNet(64, 64, 0, context=10, horizon=25)
    assert sum(p.numel() for p in net.parameters()) == 2_522_915
    assert len(net.mixer.blocks) == 12


def test_all_coefficients_and_no_correction_repeat_the_last_step():
    # with every coefficient the DCT is a change of basis: zero correction gives back the
    # context followed by the last step repeated
    net = DCTMixerNet(2, 2, 0, context=4, horizon=3, mixer="mlp")
    x = torch.randn(5, 4, 2)
    with torch.no_grad():
        net.mixer.channels_out.weight.zero_()
        window, _ = net(x, window=True)
        forecast, _ = net(x)
    np.testing.assert_allclose(window[:, :4].numpy(), x.numpy(), atol=1e-5)
    np.testing.assert_allclose(forecast.numpy(), x[:, -1:].expand(-1, 3, -1).numpy(), atol=1e-5)


def test_fewer_coefficients_smooth_a_constant_window_stays_constant():
    net = DCTMixerNet(1, 1, 0, context=6, horizon=4, n_coefficients=3, mixer="mlp")
    with torch.no_grad():
        net.mixer.channels_out.weight.zero_()
        out, _ = net(torch.full((2, 6, 1), 1.7))
    np.testing.assert_allclose(out.numpy(), 1.7, rtol=1e-5)


def test_future_covariates_fill_the_padded_steps_and_reach_the_forecast():
    net = DCTMixerNet(3, 1, 1, context=5, horizon=2)
    x = torch.randn(1, 5, 3)
    future = torch.tensor([[[4.0], [9.0]]])
    padded = net.padded(x, future)
    np.testing.assert_allclose(padded[0, 5:, 2].numpy(), [4.0, 9.0])  # known values
    np.testing.assert_allclose(padded[0, 5:, :2].numpy(), x[0, [-1, -1], :2].numpy())  # last
    net.eval()
    with torch.no_grad():
        a = net(x, future)[0]
        b = net(x, future * 2)[0]
    assert not torch.allclose(a, b)


def test_the_forecast_reads_its_window_only():
    # causality: changing the context changes the forecast; nothing else is read
    torch.manual_seed(0)
    net = DCTMixerNet(2, 2, 0, context=8, horizon=3, hidden_size=8, num_layers=1).eval()
    x = torch.randn(4, 8, 2)
    with torch.no_grad():
        same = net(x.clone())[0]
        first = net(x)[0]
        x[1, 0, 0] += 1.0  # another window's value moves that window's forecast only
        moved = net(x)[0]
    np.testing.assert_allclose(same.numpy(), first.numpy())
    np.testing.assert_allclose(moved[[0, 2, 3]].numpy(), first[[0, 2, 3]].numpy(), atol=1e-6)
    assert not torch.allclose(moved[1], first[1])


def test_window_normalisation_is_undone():
    # with normalisation, shifting and scaling a window's targets moves its output alike
    torch.manual_seed(0)
    net = DCTMixerNet(1, 1, 0, context=6, horizon=2, hidden_size=8, num_layers=1, normalize=True)
    net.eval()
    x = torch.randn(3, 6, 1)
    with torch.no_grad():
        base = net(x, window=True)[0]
        moved = net(3 * x + 5, window=True)[0]
    np.testing.assert_allclose(moved.numpy(), (3 * base + 5).numpy(), rtol=1e-4, atol=1e-4)


def test_both_mixers_give_a_correction_per_output_level():
    c = torch.randn(2, 5, 7)  # (B, nodes, k)
    assert GraphMixer(5, 7, 16, 2, 0.1)(c).shape == (2, 5, 1, 7)
    assert TemporalMixer(5, 7, 16, 3, n_out=3)(c).shape == (2, 5, 3, 7)


def test_quantile_levels_do_not_cross_and_the_middle_one_is_the_residual_forecast():
    torch.manual_seed(0)
    net = DCTMixerNet(2, 2, 0, context=6, horizon=3, mixer="mlp", n_quantiles=3, middle=1)
    x = torch.randn(4, 6, 2)
    with torch.no_grad():
        out, _ = net(x)  # (4, 3, 2, 3)
        assert out.shape == (4, 3, 2, 3)
        assert bool((out[..., 1:] > out[..., :-1]).all())
        net.mixer.channels_out.weight.zero_()  # no correction: the middle repeats the last step
        np.testing.assert_allclose(
            net(x)[0][..., 1].numpy(), x[:, -1:].expand(-1, 3, -1).numpy(), atol=1e-5
        )


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="mixer must be one of"):
        DCTMixerNet(2, 2, 0, context=4, horizon=2, mixer="conv")
    with pytest.raises(ValueError, match="3 inputs cannot hold 2 targets and 2 future"):
        DCTMixerNet(3, 2, 2, context=4, horizon=2)
    with pytest.raises(ValueError, match="windows of 4 steps, got 5"):
        DCTMixerNet(2, 2, 0, context=4, horizon=2)(torch.zeros(1, 5, 2))
