import pytest
import torch

from forecast.nn.orthogonal import OrthogonalRNN, orthogonality_error, random_orthogonal
from forecast.training.optim import StiefelOptimizer, build_optimizer


def reference_recurrence(rnn: OrthogonalRNN, x, act):
    """h_t = f(W_h h_{t-1} + W_x x_t + b), written out step by step (one layer)."""
    w_h = rnn.rnn.weight_hh_l0
    w_x, b = rnn.rnn.weight_ih_l0, rnn.rnn.bias_ih_l0
    h = torch.zeros(x.shape[0], w_h.shape[0])
    out = []
    for t in range(x.shape[1]):
        h = act(h @ w_h.T + x[:, t] @ w_x.T + b)
        out.append(h)
    return torch.stack(out, dim=1)


def test_random_orthogonal_is_orthogonal_and_differs_per_draw():
    g = torch.Generator().manual_seed(0)
    q1, q2 = random_orthogonal(12, g), random_orthogonal(12, g)
    assert q1.shape == (12, 12) and orthogonality_error(q1) < 1e-6
    assert not torch.allclose(q1, q2)
    moduli = torch.linalg.eigvals(q1.double()).abs()
    torch.testing.assert_close(moduli, torch.ones(12, dtype=torch.float64), atol=1e-6, rtol=0)


@pytest.mark.parametrize("nonlinearity", ["relu", "tanh"])
def test_forward_is_the_recurrence_of_the_equation(seed, nonlinearity):
    rnn = OrthogonalRNN(3, 5, nonlinearity=nonlinearity)
    with torch.no_grad():
        rnn.rnn.bias_ih_l0.normal_()  # a non-zero b
    x = torch.randn(2, 7, 3)
    y, state = rnn(x)
    act = torch.relu if nonlinearity == "relu" else torch.tanh
    expected = reference_recurrence(rnn, x, act)
    torch.testing.assert_close(y, expected, atol=1e-6, rtol=1e-5)
    assert state.shape == (1, 2, 5)
    torch.testing.assert_close(state[0], y[:, -1])
    assert rnn.output_size == 5 and rnn.recurrent


def test_state_carries_across_chunks(seed):
    rnn = OrthogonalRNN(2, 6, num_layers=2)
    x = torch.randn(3, 10, 2)
    whole, _ = rnn(x)
    first, state = rnn(x[:, :4])
    second, _ = rnn(x[:, 4:], state)
    torch.testing.assert_close(torch.cat([first, second], dim=1), whole, atol=1e-6, rtol=1e-5)


def test_initial_recurrent_matrices_and_parameter_groups(seed):
    rnn = OrthogonalRNN(2, 6, num_layers=2, init="identity", stiefel_lr=0.05, stiefel_rmsprop=True)
    for w in rnn.recurrent_weights():
        torch.testing.assert_close(w.detach(), torch.eye(6))
    stiefel, rest = rnn.param_groups()
    assert stiefel["stiefel"] and stiefel["lr"] == 0.05 and stiefel["rmsprop"]
    assert [id(p) for p in stiefel["params"]] == [id(w) for w in rnn.recurrent_weights()]
    trainable = {id(p) for p in rnn.parameters() if p.requires_grad}
    assert {id(p) for p in stiefel["params"] + rest["params"]} == trainable
    assert not rnn.rnn.bias_hh_l0.requires_grad and float(rnn.rnn.bias_hh_l0.abs().sum()) == 0
    assert "lr" not in OrthogonalRNN(2, 6).param_groups()[0]  # optimizer's lr by default
    with pytest.raises(ValueError, match="nonlinearity"):
        OrthogonalRNN(2, 6, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="init"):
        OrthogonalRNN(2, 6, init="zeros")


def test_training_keeps_w_h_orthogonal_and_lowers_the_loss(seed):
    rnn = OrthogonalRNN(2, 8, nonlinearity="tanh", stiefel_lr=0.01)
    head = torch.nn.Linear(8, 1)
    net = torch.nn.ModuleDict({"rnn": rnn, "head": head})
    groups = rnn.param_groups()
    groups[1]["params"] += list(head.parameters())
    opt = StiefelOptimizer(groups, base=torch.optim.Adam, lr=0.01)
    w0 = rnn.recurrent_weights()[0].detach().clone()
    x = torch.randn(16, 20, 2)
    target = x[:, :3, 0].sum(1, keepdim=True)  # needs memory of the first steps
    losses = []
    for _ in range(40):
        loss = ((head(rnn(x)[0][:, -1]) - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]
    w = rnn.recurrent_weights()[0]
    assert not torch.allclose(w, w0)  # W_h did move
    assert rnn.orthogonality_error() < 1e-5
    assert rnn.epoch_metrics() == {"orthogonality_error": rnn.orthogonality_error()}
    assert isinstance(build_optimizer(net["rnn"], "adam"), StiefelOptimizer)
