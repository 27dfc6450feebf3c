"""Resuming a training run from its checkpoint (see :func:`forecast.training.loop.train`).

A checkpoint holds, besides the network, optimizer and scheduler states and the run's
history, the random states (torch's, the CUDA device's and the data order's), so that a
resumed run draws the same numbers as one that was never interrupted.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from forecast.frames.io import TEMPORARY_PREFIX
from forecast.frames.writes import refuse_foreign


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
    """Load the checkpoint at ``path`` into the run, or return None if another run's.

    A file at ``path`` that does not load as a checkpoint of ours (another program's file, a
    link) raises :class:`forecast.frames.writes.WriteRefused` and is left as it was.
    """
    loaded: dict[str, Any] = {}

    def ours(found: Path) -> bool:
        try:
            loaded["saved"] = torch.load(found, map_location=device, weights_only=True)
        except Exception:  # any unreadable file is someone else's
            return False
        return isinstance(loaded["saved"], dict) and "signature" in loaded["saved"]

    refuse_foreign(path, ours, "a training checkpoint")
    saved = loaded["saved"]
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


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` atomically: to a temporary file of its own, then rename over ``path``.

    The temporary is a new file (``.forecast-tmp-<name>-<pid>-<random>``), so no file of
    anyone else's is overwritten on the way; it is removed if the write fails.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(
        prefix=f"{TEMPORARY_PREFIX}{path.name}-{os.getpid()}-", dir=path.parent
    )
    os.close(handle)
    try:
        torch.save(payload, name)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
