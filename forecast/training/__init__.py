"""The one model-agnostic training loop, and what it is made of.

:mod:`~forecast.training.loop` (epochs, early stopping, checkpoints), windows and truncated-
BPTT streams (:mod:`~forecast.training.windows`), early-stopping splits
(:mod:`~forecast.training.splits`), losses, optimizers by name incl. the Stiefel/Cayley
update (:mod:`~forecast.training.optim`), micro-batch accumulation, the device resolver,
progress reports and fit callbacks.
"""

from forecast.training.device import resolve_device
from forecast.training.loop import TrainConfig, TrainResult, seeded, train

__all__ = ["TrainConfig", "TrainResult", "resolve_device", "seeded", "train"]
