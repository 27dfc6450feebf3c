"""PGBIG's stages: the separable convolution, the stage targets, every stage's loss."""

import pytest
import torch

from forecast.nn.mixer import DCTMixerNet
from forecast.nn.progressive import ProgressiveMixer, SeparableGraphConv, progressive_targets
from forecast.training.accumulate import accumulate_batch
from forecast.training.windows import Batch


def test_separable_convolution_maps_joints_channels_and_coefficients():
    torch.manual_seed(0)
    conv = SeparableGraphConv(n_nodes=4, in_channels=3, out_channels=5, length=6)
    x = torch.randn(2, 3, 4, 6)
    want = torch.einsum("ij,bcjl,cd,lm->bdim", conv.att, x, conv.weight, conv.mix) + conv.bias
    torch.testing.assert_close(conv(x), want)


def test_stage_targets_smooth_the_forecast_steps_by_a_running_mean():
    window = torch.tensor([0.0, 1.0, 2.0, 4.0, 6.0])[None, :, None]  # 2 observed, 3 ahead
    targets = progressive_targets(window, context=2, n_stages=3)
    assert targets.shape == (1, 3, 5, 1)
    # the last stage sees the truth, the one before the running mean of 2, 4, 6, the first
    # the running mean of that (2, 3, 4): 2, 2.5, 3; the observed steps are kept
    want = torch.tensor([[0, 1, 2, 2.5, 3], [0, 1, 2, 3, 4], [0, 1, 2, 4, 6]])
    torch.testing.assert_close(targets[0, :, :, 0], want)
    assert progressive_targets(window, context=2, n_stages=1).shape == (1, 1, 5, 1)


def test_the_mixer_reads_triples_and_returns_each_stages_guess():
    torch.manual_seed(0)
    mixer = ProgressiveMixer(n_nodes=6, k=5, hidden_size=4, num_layers=3, dropout=0.0).eval()
    c = torch.randn(2, 6, 5)
    every = mixer(c, every_stage=True)
    assert every.shape == (2, 6, 3, 5)
    torch.testing.assert_close(mixer(c)[:, :, 0], every[:, :, -1])
    with pytest.raises(ValueError, match="5 input channels are not a multiple of 3"):
        ProgressiveMixer(n_nodes=5, k=5, hidden_size=4, num_layers=2, dropout=0.0)


def test_the_network_refuses_quantiles_and_returns_every_stage_on_request():
    with pytest.raises(ValueError, match="a point, not quantiles"):
        DCTMixerNet(6, 6, 0, context=4, horizon=3, mixer="pgbig", n_quantiles=3, middle=1)
    torch.manual_seed(0)
    net = DCTMixerNet(6, 6, 0, context=4, horizon=3, hidden_size=4, num_layers=2,
                      mixer="pgbig", normalize=True).eval()  # fmt: skip
    x = torch.randn(5, 4, 6)
    stages, _ = net(x, window=True, every_stage=True)
    assert stages.shape == (5, 2, 7, 6) and net.n_stages == 2
    torch.testing.assert_close(stages[:, -1], net(x, window=True)[0])
    torch.testing.assert_close(net(x, every_stage=True)[0], stages[:, :, 4:])
    assert net(x)[0].shape == (5, 3, 6)


@pytest.mark.parametrize("observed_loss", [True, False])
def test_training_scores_every_stage_against_its_own_target(observed_loss):
    torch.manual_seed(0)
    net = DCTMixerNet(3, 3, 0, context=4, horizon=3, hidden_size=4, num_layers=3,
                      mixer="pgbig", observed_loss=observed_loss)  # fmt: skip
    x, y = torch.randn(5, 4, 3), torch.randn(5, 3, 3)
    batch = Batch(x=x, y=y, future=None, mask=None, reset=False)

    def mae(pred, target, mask=None):
        return (pred - target).abs().mean()

    torch.manual_seed(1)  # dropout draws alike in both passes
    loss, n, _ = accumulate_batch(net, batch, mae)
    torch.manual_seed(1)
    stages = net(x, window=True, every_stage=True)[0]  # (5, 3, 7, 3)
    targets = progressive_targets(torch.cat([x, y], dim=1), 4, 3)
    if not observed_loss:
        stages, targets = stages[:, :, 4:], targets[:, :, 4:]
    by_hand = sum((stages[:, s] - targets[:, s]).abs().mean() for s in range(3)).detach() / 3
    assert n == 5
    assert float(loss) == pytest.approx(float(by_hand), rel=1e-6)
    assert net.mixer.stages[0].encoder.conv_in.conv.att.grad is not None  # the first stage learns
