import pytest
import torch

from forecast.nn.ensemble import EnsembleNet
from forecast.nn.heads import PointHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import build_recurrent
from forecast.nn.reference import reference_positions, seasonal_reference, window_stats


def test_reference_positions_by_hand():
    # L = 10, m = 4: step j=1 -> T+1-4 = 6, j=4 -> 9, j=5 -> T+5-8 = 6, j=8 -> 9, j=9 -> 6
    assert reference_positions(10, 9, 4).tolist() == [6, 7, 8, 9, 6, 7, 8, 9, 6]
    # m = L: the whole context is the last season
    assert reference_positions(5, 3, 5).tolist() == [0, 1, 2]
    # m = 1: naive forecast, the last value every step
    assert reference_positions(5, 3, 1).tolist() == [4, 4, 4]
    with pytest.raises(ValueError, match="context_length >= 7"):
        reference_positions(5, 3, 7)


def test_seasonal_reference_is_the_seasonal_naive_forecast():
    target = torch.arange(24.0).view(1, 12, 2)  # (B, L, C): step t holds (2t, 2t + 1)
    ref = seasonal_reference(target, horizon=5, season=3)
    # T = 11; steps 12, 13, 14 look back 3 (9, 10, 11), steps 15, 16 look back 6 (9, 10)
    expected = torch.tensor([[[18.0, 19], [20, 21], [22, 23], [18, 19], [20, 21]]])
    torch.testing.assert_close(ref, expected)


def test_window_stats_by_hand():
    level, scale = window_stats(torch.tensor([[[1.0], [3.0]]]))
    assert level.item() == pytest.approx(2.0)
    assert scale.item() == pytest.approx((1.0 + 1e-5) ** 0.5)


def _net(normalize, season=None, n_future=0):
    torch.manual_seed(0)
    return ForecastNet(
        build_recurrent("gru", 2 + n_future, 6),
        PointHead(6, 5, 2, n_future),
        n_targets=2,
        normalize=normalize,
        season=season,
    ).eval()


def test_window_normalisation_makes_forecasts_follow_level_and_scale():
    net = _net(normalize=True, n_future=1)
    x = torch.randn(3, 8, 3)  # two targets, one covariate
    f = torch.randn(3, 5, 1)
    base, _ = net(x, f)
    shift = torch.tensor([5.0, -2.0])
    moved = x.clone()
    moved[..., :2] = 4.0 * x[..., :2] + shift  # rescale and shift the targets only
    out, _ = net(moved, f)
    torch.testing.assert_close(out, 4.0 * base + shift, rtol=1e-4, atol=1e-4)
    plain = _net(normalize=False, n_future=1)
    out, _ = plain(moved, f)
    assert not torch.allclose(out, 4.0 * plain(x, f)[0] + shift, atol=1e-2)


def test_zero_head_forecasts_exactly_the_seasonal_reference():
    net = _net(normalize=True, season=4)
    for p in net.head.parameters():
        torch.nn.init.zeros_(p)
    x = torch.randn(2, 8, 2)
    out, _ = net(x)
    torch.testing.assert_close(out, seasonal_reference(x, 5, 4), rtol=1e-5, atol=1e-5)


def test_streams_refuse_window_options():
    net = _net(normalize=True)
    with pytest.raises(ValueError, match="windowing='sliding'"):
        net.forward_steps(torch.randn(2, 4, 2))


def test_ensemble_averages_its_members():
    a, b = _net(False), _net(False, season=2)
    ens = EnsembleNet([a, b]).eval()
    x = torch.randn(4, 8, 2)
    out, state = ens(x)
    assert state is None
    torch.testing.assert_close(out, (a(x)[0] + b(x)[0]) / 2)
    assert ens.encoder is a.encoder and ens.recurrent
    with pytest.raises(ValueError, match="at least one member"):
        EnsembleNet([])


def test_linear_skip_starts_at_zero_and_reads_the_normalised_context():
    torch.manual_seed(0)
    head = PointHead(6, 5, 2)
    net = ForecastNet(build_recurrent("gru", 2, 6), head, n_targets=2, normalize=True, context=8)
    x = torch.randn(3, 8, 2)
    plain = ForecastNet(net.encoder, head, n_targets=2, normalize=True).eval()
    torch.testing.assert_close(net.eval()(x)[0], plain(x)[0])  # zero-initialised skip
    with torch.no_grad():
        net.skip.weight.zero_()
        net.skip.weight[:, -1] = 1.0  # every step = the last normalised value
        for p in head.parameters():
            p.zero_()
    out, _ = net(x)
    torch.testing.assert_close(out, x[:, -1:].expand(-1, 5, -1), rtol=1e-5, atol=1e-5)
