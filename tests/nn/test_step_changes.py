"""Step changes as extra encoder inputs (``ForecastNet(change_scale=...)``)."""

import pytest
import torch
from torch import nn

from forecast.nn.heads import PointHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import build_recurrent
from forecast.nn.reference import step_changes, window_stats


def test_step_changes_by_hand():
    target = torch.tensor([[[0.0, 5.0], [1.0, 5.0], [3.0, 4.0], [6.0, 4.0]]])  # (1, 4, 2)
    out = step_changes(target, torch.tensor([2.0, 0.5]))
    expected = torch.tensor([[[0.0, 0.0], [0.5, 0.0], [1.0, -2.0], [1.5, 0.0]]])
    torch.testing.assert_close(out, expected)


class Recording(nn.Module):
    """A GRU encoder that keeps what it was given."""

    def __init__(self, inputs: int) -> None:
        super().__init__()
        self.inner = build_recurrent("gru", inputs, 6)
        self.output_size, self.recurrent, self.seen = 6, True, None

    def forward(self, x, state=None):
        self.seen = x
        return self.inner(x, state)


def _net(scale=(2.0, 0.5), normalize=True, residual=True):
    torch.manual_seed(0)
    return ForecastNet(
        Recording(2 + 1 + 2),  # two targets, one covariate, two changes
        PointHead(6, 5, 2),
        n_targets=2,
        normalize=normalize,
        season=1 if residual else None,
        change_scale=torch.tensor(scale),
    ).eval()


def test_the_encoder_reads_normalised_values_covariates_then_scaled_changes():
    net = _net()
    x = torch.randn(3, 8, 3)
    net(x)
    level, scale = window_stats(x[..., :2])
    changes = step_changes(x[..., :2], torch.tensor([2.0, 0.5]))
    expected = torch.cat([(x[..., :2] - level) / scale, x[..., 2:], changes], dim=-1)
    torch.testing.assert_close(net.encoder.seen, expected)
    torch.testing.assert_close(net.encoder_input(x), expected)
    assert "change_scale" not in net.state_dict()  # rebuilt from the fitted scale, not loaded


def test_a_level_shift_moves_the_residual_forecast_by_the_same_amount():
    """Changes ignore the level and window normalisation removes it: out(x + s) = out(x) + s."""
    net = _net()
    x = torch.randn(2, 8, 3)
    shift = torch.tensor([3.0, -1.0, 0.0])  # targets only
    torch.testing.assert_close(net(x + shift)[0], net(x)[0] + shift[:2], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("scale", [(1.0, 2.0, 3.0), (1.0, 0.0)])
def test_bad_change_scale(scale):
    with pytest.raises(ValueError, match="change_scale needs 2 positive values"):
        _net(scale=scale)


def test_streams_refuse_step_changes():
    net = _net(normalize=False)
    with pytest.raises(ValueError, match="step changes and decoders need context windows"):
        net.forward_steps(torch.randn(2, 4, 3))
