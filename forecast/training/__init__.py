"""The one model-agnostic training loop, and what it is made of.

:mod:`~forecast.training.loop` (epochs, early stopping, checkpoints), windows and truncated-
BPTT streams (:mod:`~forecast.training.windows`), early-stopping splits
(:mod:`~forecast.training.splits`), losses, optimizers by name incl. the Stiefel/Cayley
update (:mod:`~forecast.training.optim`), micro-batch accumulation, data-parallel training,
the device resolver, progress reports and fit callbacks. The names of the loop are also
importable from this package, as they were from the module ``forecast.training`` of 0.1.0.
"""

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
    save_checkpoint,
    seeded,
    train,
)

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
