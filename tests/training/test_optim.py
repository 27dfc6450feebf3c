import copy

import pytest
import torch
from torch import nn

from forecast.nn.orthogonal import orthogonality_error
from forecast.training.optim import (
    StiefelOptimizer,
    build_optimizer,
    cayley_generator,
    cayley_step,
    reorthonormalize,
)


def orthogonal(n, dtype=torch.float64, seed=0, p=None):
    g = torch.Generator().manual_seed(seed)
    q, r = torch.linalg.qr(torch.randn(n, p or n, generator=g, dtype=torch.float64))
    return (q * torch.sign(torch.diagonal(r))).to(dtype)


class Toy(nn.Module):
    """One Stiefel matrix plus an ordinary linear layer."""

    def __init__(self, n=8, dtype=torch.float64, stiefel=None, p=None):
        super().__init__()
        self.w = nn.Parameter(orthogonal(n, dtype, p=p))
        self.lin = nn.Linear(3, 2).to(dtype)
        self.stiefel = {} if stiefel is None else stiefel

    def param_groups(self):
        return [
            {"params": [self.w], "stiefel": True, **self.stiefel},
            {"params": list(self.lin.parameters())},
        ]


def random_grads(module, gen):
    for p in module.parameters():
        p.grad = torch.randn(p.shape, generator=gen, dtype=p.dtype)


def test_generator_is_skew_symmetric_and_first_order_step_is_riemannian_gradient():
    w = orthogonal(6)
    g = torch.randn(6, 6, dtype=torch.float64)
    a = cayley_generator(w, g)
    torch.testing.assert_close(a, -a.T, rtol=0, atol=0)
    torch.testing.assert_close(a, g @ w.T - w @ g.T)
    lr = 1e-7  # W_new = W - lr A W + O(lr^2), and A W = G - W G^T W on O(n)
    step = (w - cayley_step(w, g, lr)) / lr
    torch.testing.assert_close(step, g - w @ g.T @ w, rtol=0, atol=1e-5)


def test_cayley_update_preserves_orthogonality_float64_without_correction():
    torch.manual_seed(0)
    net = Toy(16, torch.float64, stiefel={"lr": 0.05, "ortho_tol": 1.0})  # never corrects
    opt = build_optimizer(net, "sgd", lr=0.01)
    gen = torch.Generator().manual_seed(1)
    worst = 0.0
    for _ in range(300):
        random_grads(net, gen)
        opt.step()
        worst = max(worst, orthogonality_error(net.w))
    assert worst < 1e-12
    assert "corrections" not in opt.state[net.w]


def test_float32_drift_is_corrected_below_tolerance():
    # tolerance 3e-6 (default 1e-5) so that rounding drift reaches it within few steps
    net = Toy(32, torch.float32, stiefel={"lr": 1e-3, "ortho_tol": 3e-6})
    opt = build_optimizer(net, "adam")
    gen = torch.Generator().manual_seed(2)
    worst = 0.0
    for _ in range(150):
        random_grads(net, gen)
        opt.step()
        worst = max(worst, orthogonality_error(net.w))
    assert worst <= 1e-5
    assert opt.state[net.w]["corrections"] > 0  # float32 rounding did drift past the tolerance


def test_drift_past_tolerance_is_removed_in_the_next_step():
    net = Toy(12, torch.float32)
    with torch.no_grad():
        net.w.add_(1e-3 * torch.randn(12, 12))
    assert orthogonality_error(net.w) > 1e-4
    opt = build_optimizer(net, "adam")
    net.w.grad = torch.zeros(12, 12)
    opt.step()
    assert orthogonality_error(net.w) < 1e-5
    assert opt.state[net.w]["corrections"] == 1
    far = orthogonal(5, torch.float32) + 0.5  # large error: polar factor via SVD
    assert orthogonality_error(reorthonormalize(far)) < 1e-5


def test_steps_solve_a_procrustes_problem_on_the_manifold():
    # min ||W - M||_F^2 over orthogonal W; M in the same connected component (det) as W0
    w0, m = orthogonal(6, seed=3), orthogonal(6, seed=4)
    if torch.sign(torch.linalg.det(w0)) != torch.sign(torch.linalg.det(m)):
        m[:, 0] = -m[:, 0]
    w = nn.Parameter(w0.clone())
    opt = StiefelOptimizer([{"params": [w], "stiefel": True}], base=torch.optim.SGD, lr=0.1)
    losses = []
    for _ in range(200):
        loss = ((w - m) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        assert orthogonality_error(w) < 1e-10
    assert losses[1] < losses[0]
    assert all(b <= a + 1e-12 for a, b in zip(losses, losses[1:], strict=False))
    assert ((w - m) ** 2).sum().item() < 1e-6 * losses[0]


def test_rectangular_stiefel_matrices_keep_orthonormal_columns_and_rows():
    for p_shape in [(10, 4), (4, 10)]:
        w = nn.Parameter(orthogonal(max(p_shape), p=min(p_shape)))
        if p_shape[0] < p_shape[1]:
            w = nn.Parameter(w.detach().T.contiguous())
        opt = StiefelOptimizer([{"params": [w], "stiefel": True}], base=torch.optim.SGD, lr=0.1)
        for _ in range(20):
            w.grad = torch.randn_like(w)
            opt.step()
        assert w.shape == p_shape and orthogonality_error(w) < 1e-12


def test_non_stiefel_parameters_get_the_base_optimizer_update():
    net = Toy(8, torch.float64)
    twin = copy.deepcopy(net.lin)
    opt = build_optimizer(net, "adamw", lr=0.01, weight_decay=0.1)
    reference = torch.optim.AdamW(twin.parameters(), lr=0.01, weight_decay=0.1)
    gen = torch.Generator().manual_seed(5)
    for _ in range(5):
        random_grads(net, gen)
        for p, q in zip(net.lin.parameters(), twin.parameters(), strict=True):
            q.grad = p.grad.clone()
        opt.step()
        reference.step()
    for p, q in zip(net.lin.parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=0, atol=0)


def test_weight_decay_does_not_touch_stiefel_matrices():
    net = Toy(8, torch.float64)
    before = net.w.detach().clone()
    opt = build_optimizer(net, "sgd", lr=0.1, weight_decay=0.5)
    net.w.grad = torch.zeros_like(net.w)
    opt.step()
    torch.testing.assert_close(net.w.detach(), before, rtol=0, atol=0)


def test_rmsprop_scaling_changes_the_step_and_keeps_orthogonality():
    plain, scaled = Toy(8), Toy(8, stiefel={"rmsprop": True})
    g = torch.randn(8, 8, dtype=torch.float64) * torch.logspace(-3, 1, 8, dtype=torch.float64)
    for net in (plain, scaled):
        opt = build_optimizer(net, "sgd", lr=0.01)
        net.w.grad = g.clone()
        opt.step()
    assert not torch.allclose(plain.w, scaled.w)
    assert orthogonality_error(scaled.w) < 1e-12


def test_state_dict_round_trip_continues_identically():
    torch.manual_seed(0)
    a = Toy(8, torch.float32, stiefel={"rmsprop": True, "lr": 0.01})
    opt_a = build_optimizer(a, "adam", lr=0.01)
    gen = torch.Generator().manual_seed(6)
    for _ in range(3):
        random_grads(a, gen)
        opt_a.step()
    b = copy.deepcopy(a)
    opt_b = build_optimizer(b, "adam", lr=0.5)  # different lr: must come from the state dict
    opt_b.load_state_dict(copy.deepcopy(opt_a.state_dict()))
    assert [g["lr"] for g in opt_b.param_groups] == [g["lr"] for g in opt_a.param_groups]
    assert "square_avg" in opt_b.state[b.w] and "exp_avg" in opt_b.state[b.lin.weight]
    for _ in range(3):
        random_grads(a, gen)
        for p, q in zip(a.parameters(), b.parameters(), strict=True):
            q.grad = p.grad.clone()
        opt_a.step()
        opt_b.step()
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=0, atol=0)


def test_lr_scheduler_scales_the_stiefel_learning_rate_too():
    net = Toy(8, stiefel={"lr": 0.2})
    opt = build_optimizer(net, "adam", lr=0.01)
    assert isinstance(opt, torch.optim.Optimizer)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
    net.w.grad = torch.zeros_like(net.w)
    opt.step()
    sched.step()
    lrs = {bool(g.get("stiefel")): g["lr"] for g in opt.param_groups}
    assert lrs[True] == pytest.approx(0.02) and lrs[False] == pytest.approx(0.001)
    # the wrapped optimizer sees the same group dicts
    assert opt._base.param_groups[0]["lr"] == pytest.approx(0.001)


def test_plain_modules_get_the_plain_named_optimizer():
    net = nn.Linear(3, 2)
    opt = build_optimizer(net, "RMSprop", lr=0.3, weight_decay=0.1)
    assert type(opt) is torch.optim.RMSprop
    assert opt.param_groups[0]["lr"] == 0.3 and opt.param_groups[0]["weight_decay"] == 0.1
    with pytest.raises(ValueError, match="optimizer must be one of"):
        build_optimizer(net, "lbfgs")


def test_only_stiefel_parameters_and_bad_shapes():
    w = nn.Parameter(orthogonal(4))
    opt = StiefelOptimizer([{"params": [w], "stiefel": True}], base=torch.optim.Adam, lr=0.1)
    w.grad = torch.randn(4, 4, dtype=torch.float64)
    opt.step()
    opt.zero_grad()
    assert w.grad is None and orthogonality_error(w) < 1e-12
    with pytest.raises(ValueError, match="must be matrices"):
        StiefelOptimizer(
            [{"params": [nn.Parameter(torch.ones(3))], "stiefel": True}], torch.optim.Adam
        )


def test_groups_may_hold_generators():
    net = Toy(6)
    groups = [
        {"params": iter([net.w]), "stiefel": True},
        {"params": (p for p in net.lin.parameters())},
    ]
    opt = StiefelOptimizer(groups, base=torch.optim.SGD, lr=0.1)
    assert [len(g["params"]) for g in opt.param_groups] == [2, 1]
    assert len(opt._base.param_groups[0]["params"]) == 2
