import pytest
import torch
from torch import nn

from forecast.nn.peephole import PeepholeLSTM, _PeepholeLSTMFunction

B, T, N_IN, H = 3, 7, 2, 5


def reference(model, x, state=None):
    """Step-by-step peephole LSTM straight from the lecture equations (autograd does backward)."""
    L = model.num_layers
    if state is None:
        zeros = x.new_zeros(L, x.shape[0], model.hidden_size)
        state = (zeros, zeros)
    seq, h_out, c_out = x, [], []
    for k in range(L):
        W, R, b, p = model.layer_parameters(k)
        W_i, W_f, W_z, W_o = W.chunk(4)
        R_i, R_f, R_z, R_o = R.chunk(4)
        b_i, b_f, b_z, b_o = b.chunk(4)
        p_i, p_f, p_o = p
        h, c = state[0][k], state[1][k]
        ys = []
        for t in range(seq.shape[1]):
            x_t = seq[:, t]
            z = torch.tanh(x_t @ W_z.T + h @ R_z.T + b_z)
            i = torch.sigmoid(x_t @ W_i.T + h @ R_i.T + p_i * c + b_i)
            f = torch.sigmoid(x_t @ W_f.T + h @ R_f.T + p_f * c + b_f)
            c = z * i + c * f
            o = torch.sigmoid(x_t @ W_o.T + h @ R_o.T + p_o * c + b_o)
            h = torch.tanh(c) * o
            ys.append(h)
        seq = torch.stack(ys, dim=1)
        h_out.append(h)
        c_out.append(c)
    return seq, (torch.stack(h_out), torch.stack(c_out))


def randomized(model, scale=0.5):
    """Random weights everywhere, peepholes included, so every term of the equations matters."""
    with torch.no_grad():
        for param in model.parameters():
            param.normal_(0.0, scale)
    return model


def random_state(L, dtype=torch.float64):
    return (
        torch.randn(L, B, H, dtype=dtype, requires_grad=True),
        torch.randn(L, B, H, dtype=dtype, requires_grad=True),
    )


@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("loss_on", ["all", "last_output"])
def test_matches_reference_outputs_and_gradients(seed, num_layers, loss_on):
    model = randomized(PeepholeLSTM(N_IN, H, num_layers=num_layers).double())
    x = torch.randn(B, T, N_IN, dtype=torch.float64, requires_grad=True)
    state = random_state(num_layers)
    inputs = [x, *state, *model.parameters()]

    grads = []
    outputs = []
    for fn in (model, lambda x, s: reference(model, x, s)):
        y, (h, c) = fn(x, state)
        outputs.append((y, h, c))
        if loss_on == "all":
            loss = (
                (y**2).sum() + (h * torch.linspace(-1, 1, H, dtype=h.dtype)).sum() + c.pow(3).sum()
            )
        else:
            loss = y[:, -1].sin().sum()
        grads.append(torch.autograd.grad(loss, inputs))

    for got, want in zip(outputs[0], outputs[1], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads[0], grads[1], strict=True):
        assert got.abs().sum() > 0 or want.abs().sum() == 0
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_backward_passes_gradcheck(seed):
    model = randomized(PeepholeLSTM(N_IN, H).double())
    W, R, b, p = (t.detach().clone().requires_grad_() for t in model.layer_parameters(0))
    x = torch.randn(4, 2, N_IN, dtype=torch.float64, requires_grad=True)  # (T, B, I) time-major
    h0 = torch.randn(2, H, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(2, H, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(_PeepholeLSTMFunction.apply, (x, W, R, b, p, h0, c0))


def test_shapes_and_attributes_two_layers(seed):
    model = PeepholeLSTM(N_IN, H, num_layers=2, dropout=0.3)
    y, (h, c) = model(torch.randn(B, T, N_IN))
    assert y.shape == (B, T, H)
    assert h.shape == c.shape == (2, B, H)
    assert model.output_size == H and model.recurrent is True
    assert model.weight_ih_l1.shape == (4 * H, H) and model.weight_peephole_l1.shape == (3, H)
    # the last layer's output at the last step is the top layer's final hidden state
    torch.testing.assert_close(y[:, -1], h[-1])


def test_none_state_equals_zero_state(seed):
    model = PeepholeLSTM(N_IN, H, num_layers=2)
    x = torch.randn(B, T, N_IN)
    y0, (h0, c0) = model(x)
    zeros = torch.zeros(2, B, H)
    y1, (h1, c1) = model(x, (zeros, zeros))
    torch.testing.assert_close(y0, y1, rtol=0, atol=0)
    torch.testing.assert_close(h0, h1, rtol=0, atol=0)
    torch.testing.assert_close(c0, c1, rtol=0, atol=0)


def test_state_carry_over_two_halves_equals_one_pass(seed):
    model = randomized(PeepholeLSTM(N_IN, H, num_layers=2).double())
    x = torch.randn(B, 2 * T, N_IN, dtype=torch.float64)
    y, (h, c) = model(x)
    y_a, state_a = model(x[:, :T])
    y_b, (h_b, c_b) = model(x[:, T:], state_a)
    torch.testing.assert_close(torch.cat((y_a, y_b), dim=1), y, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(h_b, h, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(c_b, c, rtol=1e-12, atol=1e-12)


def test_zero_peepholes_reduce_to_torch_lstm(seed):
    model = randomized(PeepholeLSTM(N_IN, H, num_layers=2).double())
    lstm = nn.LSTM(N_IN, H, num_layers=2, batch_first=True).double()
    with torch.no_grad():
        for k in range(2):
            W, R, b, p = model.layer_parameters(k)
            p.zero_()
            getattr(lstm, f"weight_ih_l{k}").copy_(W)
            getattr(lstm, f"weight_hh_l{k}").copy_(R)
            getattr(lstm, f"bias_ih_l{k}").copy_(b)
            getattr(lstm, f"bias_hh_l{k}").zero_()
    x = torch.randn(B, T, N_IN, dtype=torch.float64)
    state = random_state(2)
    y, (h, c) = model(x, state)
    y_ref, (h_ref, c_ref) = lstm(x, state)
    torch.testing.assert_close(y, y_ref)
    torch.testing.assert_close(h, h_ref)
    torch.testing.assert_close(c, c_ref)


@pytest.mark.parametrize("row", [0, 1, 2], ids=["p_i", "p_f", "p_o"])
def test_each_peephole_changes_the_output(seed, row):
    model = randomized(PeepholeLSTM(N_IN, H).double())
    x = torch.randn(B, T, N_IN, dtype=torch.float64)
    y_with, _ = model(x)
    with torch.no_grad():
        model.weight_peephole_l0[row] = 0.0
    y_without, _ = model(x)
    assert (y_with - y_without).abs().max() > 1e-3


def test_gradient_reaches_every_peephole(seed):
    model = PeepholeLSTM(N_IN, H, num_layers=2)
    y, _ = model(torch.randn(B, T, N_IN))
    y[:, -1].sum().backward()
    for k in range(2):
        grad = getattr(model, f"weight_peephole_l{k}").grad
        assert grad is not None
        for row in range(3):  # p_i, p_f, p_o: every unit gets a gradient
            assert (grad[row] != 0).all()


def test_dropout_between_layers_only_in_training(seed):
    model = PeepholeLSTM(N_IN, H, num_layers=2, dropout=1.0)
    x1, x2 = torch.randn(B, T, N_IN), torch.randn(B, T, N_IN)
    # dropout 1 zeroes the second layer's input in training: the output forgets x
    torch.testing.assert_close(model(x1)[0], model(x2)[0])
    model.eval()
    assert (model(x1)[0] - model(x2)[0]).abs().max() > 1e-4


def test_init_is_uniform_with_forget_bias(seed):
    model = PeepholeLSTM(N_IN, 16, forget_bias=1.0)
    bound = 1 / 16**0.5
    for name, param in model.named_parameters():
        values = param.detach().clone()
        if name == "bias_l0":
            values[16:32] -= 1.0
        assert values.abs().max() <= bound, name
    assert model.bias_l0[16:32].min() >= 1 - bound


def test_float32_training_step_reduces_loss(seed):
    model = PeepholeLSTM(1, 8)
    head = nn.Linear(8, 1)
    x = torch.randn(16, 12, 1)
    target = x.sum(dim=1)  # (16, 1)
    opt = torch.optim.Adam([*model.parameters(), *head.parameters()], lr=0.05)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = nn.functional.mse_loss(head(model(x)[0][:, -1]), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_bad_shapes_raise():
    model = PeepholeLSTM(N_IN, H, num_layers=2)
    with pytest.raises(ValueError, match=r"\(batch, time >= 1, 2\).*\(3, 7\)"):
        model(torch.randn(3, 7))
    with pytest.raises(ValueError, match="input"):
        model(torch.randn(B, T, N_IN + 1))
    with pytest.raises(ValueError, match=r"state.*\(2, 3, 5\)"):
        model(torch.randn(B, T, N_IN), (torch.zeros(1, B, H), torch.zeros(1, B, H)))


def test_runs_under_cpu_autocast(seed):
    model = PeepholeLSTM(N_IN, H)
    head = nn.Linear(H, 1)
    x = torch.randn(B, T, N_IN)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y, (h, c) = model(x.to(torch.bfloat16))
        loss = head(y[:, -1]).float().pow(2).mean()
        loss.backward()  # backward inside the autocast region too
    assert y.dtype == torch.float32 and h.dtype == c.dtype == torch.float32
    torch.testing.assert_close(y, model(x)[0], rtol=1e-2, atol=1e-2)
    assert model.weight_peephole_l0.grad is not None
