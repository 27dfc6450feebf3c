"""Micro-batches: a batch read in slices gives the gradient and the step of the whole batch."""

import copy

import numpy as np
import pytest
import torch
from torch import nn

from forecast.nn.heads import PointHead, QuantileHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import build_recurrent
from forecast.training.accumulate import accumulate_batch, cat_state_rows, state_rows
from forecast.training.loop import PinballLoss, masked_mse, run_epoch
from forecast.training.optim import build_optimizer
from forecast.training.windows import Batch, StreamChunks, WindowDataset


def sine(n=120, period=12, phase=0.0):
    t = np.arange(n)
    y = np.sin(2 * np.pi * t / period + phase)[:, None]
    return y, y, None


def gru_net(quantiles=None, horizon=3, seed=0):
    torch.manual_seed(seed)
    encoder = build_recurrent("gru", 1, 6)
    if quantiles:
        head = QuantileHead(6, horizon, 1, n_quantiles=len(quantiles), middle=1)
    else:
        head = PointHead(6, horizon, 1)
    return ForecastNet(encoder, head)


def grads(net):
    return {name: p.grad.clone() for name, p in net.named_parameters() if p.grad is not None}


def assert_same_parameters(a, b):
    pairs = zip(a.named_parameters(), b.named_parameters(), strict=True)
    for (name, p), (_, q) in pairs:
        torch.testing.assert_close(q, p, rtol=1e-5, atol=1e-6, msg=name)


class Recording(nn.Module):
    """Forecasts the constant ``w``; records how many rows each forward read."""

    def __init__(self, w=0.0, horizon=2):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(float(w)))
        self.horizon, self.sizes = horizon, []

    def forward(self, x, future=None, state=None):
        self.sizes.append(len(x))
        return self.w.expand(x.shape[0], self.horizon, 1), None


def test_slices_are_even_and_the_gradient_is_the_hand_computed_one():
    # 12 windows whose 2-step targets are the constants 1 .. 12; the loss mean((w - y)^2)
    # has the gradient 2 * (w - mean(1..12)) = 2 * (1 - 6.5) = -11 at w = 1.
    y = torch.arange(1.0, 13.0).view(12, 1, 1).expand(12, 2, 1)
    batch = Batch(x=torch.zeros(12, 4, 1), y=y)
    net = Recording(w=1.0)
    loss, n, state = accumulate_batch(net, batch, masked_mse, micro_batch_size=5)
    assert net.sizes == [4, 4, 4] and n == 12 and state is None  # even, not 5, 5, 2
    assert net.w.grad.item() == pytest.approx(-11.0)
    assert loss.item() == pytest.approx(np.mean((1 - np.arange(1, 13.0)) ** 2))
    net.sizes.clear()
    accumulate_batch(net, batch, masked_mse, micro_batch_size=12)
    assert net.sizes == [12]


@pytest.mark.parametrize("quantiles", [None, (0.1, 0.5, 0.9)])
def test_one_step_in_micro_batches_equals_the_whole_batch(quantiles):
    data = WindowDataset([sine(120), sine(90, phase=1.0)], context=12, horizon=3)
    loss_fn = masked_mse if quantiles is None else PinballLoss(quantiles)
    batch = data[np.arange(0, 150, 7)]  # 22 windows: slices of 5, 5, 6, 6 or of 7, 7, 8
    whole = gru_net(quantiles)
    loss, n, _ = accumulate_batch(whole, batch, loss_fn)
    reference = grads(whole)
    assert n == 22 and len(reference) == len(list(whole.parameters()))
    for size in (6, 8, 1):
        net = gru_net(quantiles)
        part_loss, part_n, _ = accumulate_batch(net, batch, loss_fn, micro_batch_size=size)
        assert part_n == n
        assert part_loss.item() == pytest.approx(loss.item(), rel=1e-6)
        for name, g in grads(net).items():
            torch.testing.assert_close(g, reference[name], rtol=1e-5, atol=1e-6, msg=name)


def test_an_epoch_in_micro_batches_steps_like_whole_batches():
    data = WindowDataset([sine(200)], context=12, horizon=3)  # 186 windows: batches 40 .. 26
    nets, losses = [], []
    for micro in (None, 7):
        net = gru_net()
        opt = build_optimizer(net, "adam", lr=0.01)
        rng = np.random.default_rng(0)
        losses.append(run_epoch(net, data, opt, 40, 0.5, rng, micro_batch_size=micro))
        nets.append(net)
    assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    assert_same_parameters(*nets)
    assert not torch.equal(nets[0].head.direct.weight, gru_net().head.direct.weight)  # it moved


def test_streams_split_by_rows_carry_their_state_and_weigh_by_mask():
    # 5 streams (not a multiple of 2), chunks of 6 steps, only every 3rd step scored
    series = [sine(70, phase=p) for p in (0.0, 0.5, 1.0, 1.5, 2.0)]
    origins = [np.arange(70) % 3 == 0 for _ in series]
    streams = StreamChunks(series, horizon=3, steps=6, n_streams=5, origins=origins)
    assert len(streams) == 5 and streams.segment_length > 12  # several chunks per stream
    for quantiles in (None, (0.2, 0.5, 0.8)):
        loss_fn = masked_mse if quantiles is None else PinballLoss(quantiles)
        nets, losses = [], []
        for micro in (None, 2):
            net = gru_net(quantiles)
            opt = build_optimizer(net, "sgd", lr=0.05)
            losses.append(run_epoch(net, streams, opt, 5, 1.0, None, loss_fn, micro))
            nets.append(net)
        assert losses[1] == pytest.approx(losses[0], rel=1e-5)
        assert_same_parameters(*nets)


def test_stream_slices_get_their_own_rows_of_the_state_and_weights_of_the_mask():
    series = [sine(40, phase=p) for p in (0.0, 1.0, 2.0)]
    streams = StreamChunks(series, horizon=2, steps=5, n_streams=3)
    first, second = list(streams.batches(3))[:2]
    second.mask[0] = False  # stream 0 carries no loss in this chunk
    net = gru_net(horizon=2)
    _, _, state = accumulate_batch(net, first, masked_mse, 2, stateful=True)
    assert state.shape == (1, 3, 6) and state.grad_fn is None
    whole = copy.deepcopy(net)
    net.zero_grad(), whole.zero_grad()
    loss, n, after = accumulate_batch(net, second, masked_mse, 1, state, stateful=True)
    ref_loss, ref_n, ref_after = accumulate_batch(whole, second, masked_mse, None, state, True)
    assert int(n) == int(ref_n) == 10  # two streams x 5 steps
    assert loss.item() == pytest.approx(ref_loss.item(), rel=1e-6)
    torch.testing.assert_close(after, ref_after)
    for name, g in grads(net).items():
        torch.testing.assert_close(g, grads(whole)[name], rtol=1e-5, atol=1e-7, msg=name)


def test_state_rows_slice_and_join_the_batch_axis_of_nested_states():
    h, c = torch.arange(24.0).view(2, 4, 3), -torch.arange(24.0).view(2, 4, 3)
    part = state_rows((h, c), slice(1, 3))
    assert part[0].shape == (2, 2, 3) and torch.equal(part[1], c[:, 1:3])
    assert state_rows(None, slice(0, 1)) is None
    joined = cat_state_rows([state_rows((h, c), slice(0, 1)), state_rows((h, c), slice(1, 4))])
    assert isinstance(joined, tuple) and torch.equal(joined[0], h) and torch.equal(joined[1], c)
    with pytest.raises(TypeError, match="cannot slice a hidden state of type dict"):
        state_rows({"h": h}, slice(0, 1))
