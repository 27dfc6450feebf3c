"""Optimizers, chosen by name in one place, and the Cayley update on the Stiefel manifold.

A module may declare parameter groups through a ``param_groups()`` method returning a list
of dicts (``{"params": [...], ...}``); otherwise all its parameters form one group. A group
with ``"stiefel": True`` holds matrices with orthonormal columns (``W^T W = I``) that must stay
on the Stiefel manifold. :func:`build_optimizer` hands such groups to the Cayley update of
Wisdom et al. (2016) and every other parameter to the named standard optimizer, inside one
:class:`StiefelOptimizer` that LR schedulers and checkpoints treat like any optimizer.

Cayley update (Wisdom et al., 2016, eq. 15-16): with Euclidean gradient ``G`` of ``W``,

    A = G W^T - W G^T                      (skew-symmetric)
    W <- (I + lr/2 A)^{-1} (I - lr/2 A) W

The Cayley transform of a skew-symmetric matrix is orthogonal, so ``W^T W`` is preserved up to
rounding. Rounding drift (float32) is measured after each step and, past ``ortho_tol``,
removed by Newton-Schulz steps towards the polar factor, ``W <- W (3 I - W^T W) / 2``, each
of which squares the error (an SVD polar projection is the fallback for large errors).

Keys of a Stiefel group (all optional but ``params`` and ``stiefel``):

``lr``
    Learning rate of the Cayley step (default: the ``lr`` given to :func:`build_optimizer`);
    LR schedulers scale it like any group's.
``rmsprop``
    Scale ``G`` elementwise by ``1 / (sqrt(v) + eps)`` with ``v`` a running mean of ``G**2``
    (decay ``alpha``) before forming ``A``, as Wisdom et al. do (default False).
``alpha``, ``eps``
    RMSprop decay and denominator offset (0.99, 1e-8).
``ortho_tol``
    Largest tolerated ``max |W^T W - I|`` before re-orthonormalisation (1e-5).

Weight decay never applies to Stiefel matrices (their norm is fixed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

import torch

from forecast.nn.orthogonal import orthogonality_error  # noqa: F401 (public here in 0.1.0)

OPTIMIZERS = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "rmsprop": torch.optim.RMSprop,
    "sgd": torch.optim.SGD,
}

STIEFEL_DEFAULTS = {"rmsprop": False, "alpha": 0.99, "eps": 1e-8, "ortho_tol": 1e-5}


def param_groups(module: torch.nn.Module) -> list[dict[str, Any]]:
    """Return the parameter groups a module declares, or one group with all its parameters."""
    declare = getattr(module, "param_groups", None)
    if callable(declare):
        return declare()
    return [{"params": [p for p in module.parameters() if p.requires_grad]}]


def build_optimizer(
    module: torch.nn.Module, name: str = "adam", lr: float = 1e-3, weight_decay: float = 0.0
) -> torch.optim.Optimizer:
    """Build the optimizer called ``name`` over the parameter groups of ``module``.

    Parameters
    ----------
    module : torch.nn.Module
        The network to optimise. Groups it declares with ``"stiefel": True`` are updated with
        the Cayley transform; the others with the named optimizer.
    name : {"adam", "adamw", "rmsprop", "sgd"}
        Optimizer name.
    lr : float
        Learning rate (default learning rate of the Stiefel groups too).
    weight_decay : float
        L2 penalty (decoupled for ``adamw``); not applied to Stiefel groups.

    Returns
    -------
    torch.optim.Optimizer
        The named optimizer, or a :class:`StiefelOptimizer` wrapping it when the module has
        Stiefel groups.
    """
    key = name.lower()
    if key not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {name!r}")
    groups = param_groups(module)
    if not any(g.get("stiefel", False) for g in groups):
        return OPTIMIZERS[key](groups, lr=lr, weight_decay=weight_decay)
    return StiefelOptimizer(groups, base=OPTIMIZERS[key], lr=lr, weight_decay=weight_decay)


def cayley_generator(weight: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    """Return the skew-symmetric ``A = G W^T - W G^T`` (n, n) of ``weight`` and ``grad`` (n, p)."""
    gw = grad @ weight.T  # (n, n)
    return gw - gw.T


def cayley_step(weight: torch.Tensor, grad: torch.Tensor, lr: float) -> torch.Tensor:
    """One Cayley step of ``weight`` (n, p), n >= p, along the Euclidean gradient ``grad``.

    Returns the new matrix ``(I + lr/2 A)^{-1} (I - lr/2 A) W`` with ``A = G W^T - W G^T``,
    obtained by solving a linear system (no explicit inverse).
    """
    a = cayley_generator(weight, grad)  # (n, n), skew-symmetric
    half = 0.5 * lr * a
    eye = torch.eye(a.shape[0], dtype=a.dtype, device=a.device)
    rhs = weight - half @ weight  # (I - lr/2 A) W, (n, p)
    return torch.linalg.solve(eye + half, rhs)


def reorthonormalize(
    weight: torch.Tensor, gram_error: torch.Tensor | None = None, tol: float = 1e-6
) -> torch.Tensor:
    """Move ``weight`` (n, p), n >= p, back onto the Stiefel manifold.

    Newton-Schulz steps ``W <- W (I - E / 2)`` with ``E = W^T W - I`` towards the polar factor
    while the error is small (each step squares it; at most four steps, stopping once
    ``max |E| <= tol``), otherwise the polar factor ``U V^T`` from an SVD.
    """
    if gram_error is None:
        gram_error = weight.T @ weight
        gram_error.diagonal().sub_(1.0)
    if float(gram_error.abs().max()) >= 0.1:
        u, _, vh = torch.linalg.svd(weight, full_matrices=False)
        return u @ vh
    for _ in range(4):
        weight = weight - 0.5 * weight @ gram_error
        gram_error = weight.T @ weight
        gram_error.diagonal().sub_(1.0)
        if float(gram_error.abs().max()) <= tol:
            break
    return weight


class StiefelOptimizer(torch.optim.Optimizer):
    """Cayley updates for Stiefel groups plus a standard optimizer for every other group.

    The non-Stiefel group dicts and the per-parameter state are shared with the wrapped
    optimizer, so ``param_groups`` lists every group once (LR schedulers change the Stiefel
    learning rate too) and ``state_dict``/``load_state_dict`` cover both parts.

    Parameters
    ----------
    params : list of dict
        Parameter groups; those with ``"stiefel": True`` are kept on the Stiefel manifold
        (see the module docstring for their keys).
    base : type of torch.optim.Optimizer
        Optimizer class for the other groups.
    lr : float
        Default learning rate of every group.
    **base_kwargs
        Further defaults of ``base`` (for example ``weight_decay``).
    """

    def __init__(
        self,
        params: list[dict[str, Any]],
        base: Callable[..., torch.optim.Optimizer],
        lr: float = 1e-3,
        **base_kwargs: Any,
    ) -> None:
        groups = [dict(g) if isinstance(g, dict) else {"params": [g]} for g in params]
        for g in groups:  # materialise generators once (they are read several times)
            ps = g["params"]
            g["params"] = [ps] if isinstance(ps, torch.Tensor) else list(ps)
        other = [
            {k: v for k, v in g.items() if k != "stiefel"} for g in groups if not g.get("stiefel")
        ]
        stiefel = [{"lr": lr, **STIEFEL_DEFAULTS, **g} for g in groups if g.get("stiefel")]
        for group in stiefel:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Stiefel parameters must be matrices, got shape {tuple(p.shape)}"
                    )
        other = [g for g in other if g["params"]]
        self._base = base(other, lr=lr, **base_kwargs) if other else None
        shared = self._base.param_groups if self._base is not None else []
        super().__init__(shared + stiefel, {"lr": lr})
        if self._base is not None:
            self._base.state = self.state

    def _relink(self) -> None:
        if self._base is None:
            return
        other = [g for g in self.param_groups if not g.get("stiefel")]
        self._base.__setstate__({"state": self.state, "param_groups": other})
        self._base.state = self.state
        self._base.param_groups = other

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load state saved by :meth:`state_dict` (both the Stiefel and the base part)."""
        super().load_state_dict(state_dict)
        self._relink()

    @overload
    def step(self, closure: None = None) -> None: ...

    @overload
    def step(self, closure: Callable[[], float]) -> float: ...

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """Update every parameter once.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss.

        Returns
        -------
        float or None
            The closure's loss.
        """
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if self._base is not None:
            self._base.step()
        for group in self.param_groups:
            if not group.get("stiefel"):
                continue
            for p in group["params"]:
                if p.grad is not None:
                    self._stiefel_update(p, group)
        return loss

    def _stiefel_update(self, p: torch.Tensor, group: dict[str, Any]) -> None:
        transpose = p.shape[0] < p.shape[1]
        w = p.T if transpose else p  # (n, k), n >= k
        grad = p.grad
        assert grad is not None  # step() updates only the parameters that have a gradient
        g = grad.T if transpose else grad
        state = self.state[p]
        if group["rmsprop"]:
            if "square_avg" not in state:
                state["square_avg"] = torch.zeros_like(g)
            v = state["square_avg"]
            v.mul_(group["alpha"]).addcmul_(g, g, value=1.0 - group["alpha"])
            g = g / (v.sqrt() + group["eps"])
        new = cayley_step(w, g, group["lr"])
        gram = new.T @ new  # (k, k)
        gram.diagonal().sub_(1.0)
        error = gram.abs().max()
        if float(error) > group["ortho_tol"]:
            new = reorthonormalize(new, gram, 0.1 * group["ortho_tol"])
            state["corrections"] = state.get("corrections", 0) + 1
        w.copy_(new)
