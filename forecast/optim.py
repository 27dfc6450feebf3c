"""Optimizers, chosen by name in one place.

A module may declare parameter groups through a ``param_groups()`` method returning a list
of dicts (``{"params": [...], ...}``); otherwise all its parameters form one group.
"""

from __future__ import annotations

import torch

OPTIMIZERS = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "rmsprop": torch.optim.RMSprop,
    "sgd": torch.optim.SGD,
}


def param_groups(module: torch.nn.Module) -> list[dict]:
    """The parameter groups a module declares, or one group with all its parameters."""
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
        The network to optimise.
    name : {"adam", "adamw", "rmsprop", "sgd"}
        Optimizer name.
    lr : float
        Learning rate.
    weight_decay : float
        L2 penalty (decoupled for ``adamw``).

    Returns
    -------
    torch.optim.Optimizer
    """
    key = name.lower()
    if key not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {name!r}")
    return OPTIMIZERS[key](param_groups(module), lr=lr, weight_decay=weight_decay)
