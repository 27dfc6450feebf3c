"""The one model-agnostic training loop, and what it is made of.

:mod:`~forecast.training.loop` (epochs, early stopping, checkpoints), windows and truncated-
BPTT streams (:mod:`~forecast.training.windows`), early-stopping splits
(:mod:`~forecast.training.splits`), losses, optimizers by name incl. the Stiefel/Cayley
update (:mod:`~forecast.training.optim`), micro-batch accumulation, data-parallel training,
the device resolver, progress reports and fit callbacks. The names of the loop are also
importable from this package, as they were from the module ``forecast.training`` of 0.1.0.
"""

import importlib as _importlib
from typing import TYPE_CHECKING
from typing import Any as _Any

if TYPE_CHECKING:  # the lazy names, for type checkers (a test keeps them equal to _HOMES)
    from forecast.training.device import resolve_device
    from forecast.training.loop import (
        CHECKPOINT_FILE,
        SCHEDULERS,
        TrainConfig,
        TrainResult,
        build_scheduler,
        clip_and_step,
        evaluate,
        optimizer_step,
        run_epoch,
        seeded,
        train,
    )
    from forecast.training.resume import save_checkpoint

_LOOP = "forecast.training.loop"
_HOMES = {  # loaded on first use: the command line imports threads and progress without torch
    "CHECKPOINT_FILE": _LOOP,
    "SCHEDULERS": _LOOP,
    "TrainConfig": _LOOP,
    "TrainResult": _LOOP,
    "build_scheduler": _LOOP,
    "clip_and_step": _LOOP,
    "evaluate": _LOOP,
    "optimizer_step": _LOOP,
    "resolve_device": "forecast.training.device",
    "run_epoch": _LOOP,
    "save_checkpoint": "forecast.training.resume",
    "seeded": _LOOP,
    "train": _LOOP,
}

__all__ = [
    "CHECKPOINT_FILE",
    "SCHEDULERS",
    "TrainConfig",
    "TrainResult",
    "build_scheduler",
    "clip_and_step",
    "evaluate",
    "optimizer_step",
    "resolve_device",
    "run_epoch",
    "save_checkpoint",
    "seeded",
    "train",
]


def _lazy(name: str) -> _Any:
    """Return ``name``, imported from its home on first use (PEP 562)."""
    if name in _HOMES:
        value = getattr(_importlib.import_module(_HOMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'forecast.training' has no attribute {name!r}")


if not TYPE_CHECKING:  # type checkers read the imports above: a catch-all would type typos Any
    __getattr__ = _lazy


def __dir__() -> list[str]:
    return sorted(__all__)
