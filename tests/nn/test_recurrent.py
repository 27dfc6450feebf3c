import importlib.util

import pytest
import torch
from torch import nn

from forecast.nn.heads import DirectHead, PointHead
from forecast.nn.net import ForecastNet
from forecast.nn.recurrent import (
    ElmanEncoder,
    GRUEncoder,
    LSTMEncoder,
    build_recurrent,
)
from forecast.training.loop import detach_state

CELLS = ["elman", "lstm", "gru"]


def make(cell, **kw):
    torch.manual_seed(0)
    return build_recurrent(cell, 3, 5, **kw)


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("num_layers", [1, 2])
def test_encoder_contract_shapes(cell, num_layers):
    enc = make(cell, num_layers=num_layers, dropout=0.1)
    assert enc.recurrent is True and enc.output_size == 5
    y, state = enc(torch.randn(4, 7, 3))
    assert y.shape == (4, 7, 5)
    hs = state if isinstance(state, tuple) else (state,)
    assert all(h.shape == (num_layers, 4, 5) for h in hs)


def test_factory_classes_and_errors():
    assert isinstance(make("elman"), ElmanEncoder)
    assert isinstance(make("lstm"), LSTMEncoder)
    assert isinstance(make("gru"), GRUEncoder)
    assert make("elman", nonlinearity="relu").rnn.nonlinearity == "relu"
    with pytest.raises(ValueError, match="cell must be one of"):
        build_recurrent("transformer", 3, 5)
    with pytest.raises(ValueError, match="peephole"):
        build_recurrent("gru", 3, 5, peephole=True)
    with pytest.raises(ValueError, match="nonlinearity"):
        build_recurrent("elman", 3, 5, nonlinearity="sigmoid")


def test_relu_elman_state_is_nonnegative():
    _, h = make("elman", nonlinearity="relu")(torch.randn(2, 6, 3))
    assert torch.all(h >= 0)


def test_one_layer_dropout_acts_on_the_output_only_in_training():
    enc = make("gru", dropout=0.5)
    x = torch.randn(2, 6, 3)
    enc.eval()
    a, _ = enc(x)
    b, _ = enc(x)
    torch.testing.assert_close(a, b)
    enc.train()
    c, _ = enc(x)
    assert (c == 0).any()


@pytest.mark.parametrize("cell", CELLS)
def test_chunked_run_carries_state_but_not_gradient(cell):
    enc = make(cell)
    x = torch.randn(2, 10, 3)
    full, full_state = enc(x)
    first = x[:, :6].clone().requires_grad_(True)
    y1, state = enc(first)
    y2, state2 = enc(x[:, 6:], detach_state(state))
    torch.testing.assert_close(torch.cat([y1, y2], 1), full)  # values cross the boundary
    for a, b in zip(
        state2 if isinstance(state2, tuple) else (state2,),
        full_state if isinstance(full_state, tuple) else (full_state,),
        strict=True,
    ):
        torch.testing.assert_close(a, b)
    y2.sum().backward()  # loss on the second chunk only
    assert first.grad is None  # the gradient stops at the boundary


def test_detach_state_nested_and_errors():
    h = torch.ones(1, 2, 3, requires_grad=True) * 2
    out = detach_state((h, [h]))
    assert isinstance(out, tuple) and isinstance(out[1], list)
    assert not out[0].requires_grad and not out[1][0].requires_grad
    assert detach_state(None) is None
    with pytest.raises(TypeError, match="hidden state"):
        detach_state("h")


@pytest.mark.skipif(
    importlib.util.find_spec("forecast.nn.peephole") is None, reason="peephole LSTM not written yet"
)
def test_factory_builds_the_peephole_lstm():
    from forecast.nn.peephole import PeepholeLSTM

    enc = make("lstm", peephole=True, num_layers=2)
    assert isinstance(enc, PeepholeLSTM) and enc.recurrent and enc.output_size == 5
    y, (h, c) = enc(torch.randn(4, 7, 3))
    assert y.shape == (4, 7, 5) and h.shape == c.shape == (2, 4, 5)


def test_point_head_shapes_with_and_without_covariates():
    head = PointHead(5, horizon=4, n_outputs=3)
    assert head(torch.randn(2, 5)).shape == (2, 4, 3)
    assert head(torch.randn(2, 7, 5)).shape == (2, 7, 4, 3)  # every step of a chunk
    head = PointHead(5, horizon=4, n_outputs=3, n_future=2)
    assert head(torch.randn(2, 5), torch.randn(2, 4, 2)).shape == (2, 4, 3)
    assert head(torch.randn(2, 7, 5), torch.randn(2, 7, 4, 2)).shape == (2, 7, 4, 3)
    with pytest.raises(ValueError, match="future covariates"):
        head(torch.randn(2, 5))


def test_direct_head_has_a_trailing_output_dimension():
    head = DirectHead(5, horizon=4, n_outputs=3, n_future=2, n_params=7)
    assert head(torch.randn(2, 5), torch.randn(2, 4, 2)).shape == (2, 4, 3, 7)


def test_head_step_j_reads_only_the_covariates_of_step_j():
    torch.manual_seed(0)
    head = PointHead(5, horizon=4, n_outputs=1, n_future=2)
    s, f = torch.randn(3, 5), torch.randn(3, 4, 2)
    g = f.clone()
    g[:, 2:] = 99.0  # change the covariates of steps 2 and 3
    a, b = head(s, f), head(s, g)
    torch.testing.assert_close(a[:, :2], b[:, :2])
    assert not torch.allclose(a[:, 2:], b[:, 2:])


def test_forecast_net_window_and_steps_agree_at_the_last_step():
    torch.manual_seed(0)
    net = ForecastNet(build_recurrent("lstm", 3, 6), PointHead(6, 4, 2, n_future=1))
    assert net.recurrent
    x, f = torch.randn(2, 9, 3), torch.randn(2, 9, 4, 1)
    window, _ = net(x, f[:, -1])
    steps, _ = net.forward_steps(x, f)
    assert window.shape == (2, 4, 2) and steps.shape == (2, 9, 4, 2)
    torch.testing.assert_close(steps[:, -1], window)


class GroupedEncoder(nn.Module):
    recurrent = False
    output_size = 4

    def __init__(self):
        super().__init__()
        self.special = nn.Linear(3, 4, bias=False)
        self.plain = nn.Linear(4, 4)

    def forward(self, x, state=None):
        return self.plain(self.special(x)), None

    def param_groups(self):
        return [{"params": [self.special.weight], "stiefel": True}]

    def epoch_metrics(self):
        return {"orthogonality_error": 0.5}


def test_forecast_net_merges_encoder_param_groups_and_metrics():
    net = ForecastNet(GroupedEncoder(), PointHead(4, 2, 1))
    groups = net.param_groups()
    assert groups[0]["stiefel"] and groups[0]["params"] == [net.encoder.special.weight]
    rest = {id(p) for p in groups[1]["params"]}
    everything = {id(p) for p in net.parameters()}
    assert rest == everything - {id(net.encoder.special.weight)}
    assert net.epoch_metrics() == {"orthogonality_error": 0.5}
    assert not net.recurrent
    plain = ForecastNet(make("gru"), PointHead(5, 2, 1))
    assert len(plain.param_groups()) == 1 and plain.epoch_metrics() == {}
