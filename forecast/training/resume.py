"""Resuming a training run from its checkpoint (see :func:`forecast.training.loop.train`).

A checkpoint holds, besides the network, optimizer and scheduler states and the run's
history, the random states (torch's, the CUDA device's and the data order's), so that a
resumed run draws the same numbers as one that was never interrupted.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn


def rng_state(rng: np.random.Generator, device: str) -> dict[str, Any]:
    """Return the random states to checkpoint: torch's, the CUDA device's and ``rng``'s."""
    cuda = torch.cuda.get_rng_state(device) if device.startswith("cuda") else None
    return {"torch": torch.get_rng_state(), "cuda": cuda, "numpy": rng.bit_generator.state}


def set_rng_state(rng: np.random.Generator, state: dict[str, Any], device: str) -> None:
    """Restore the random states saved by :func:`rng_state`."""
    torch.set_rng_state(state["torch"].cpu())
    if state["cuda"] is not None and device.startswith("cuda"):
        torch.cuda.set_rng_state(state["cuda"].cpu(), device)
    rng.bit_generator.state = state["numpy"]


def resume(
    path: Path,
    signature: str,
    net: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler | None,
    rng: np.random.Generator,
    device: str,
) -> dict[str, Any] | None:
    """Load the checkpoint at ``path`` into the run, or return None if it is someone else's."""
    saved = torch.load(path, map_location=device, weights_only=True)
    if saved["signature"] != signature:
        warnings.warn(
            f"checkpoint {path} was written for other parameters or data; starting afresh and "
            "overwriting it",
            stacklevel=3,
        )
        return None
    net.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    if scheduler is not None and saved["scheduler"] is not None:
        scheduler.load_state_dict(saved["scheduler"])
    set_rng_state(rng, saved["rng"], device)
    return saved
