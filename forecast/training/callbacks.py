"""Callbacks: hooks into fitting that are attached per call, not hyperparameters.

``BaseForecaster.fit(df, callbacks=[...])`` calls ``on_fit_start`` and ``on_fit_end`` for every
estimator; the neural training loop also calls ``on_epoch_end`` once per epoch.
"""

from __future__ import annotations

from typing import Any


class Callback:
    """Base class with no-op hooks; override the ones you need."""

    def on_fit_start(self, estimator: Any) -> None:
        """Call before training, after the data were validated (fitted metadata is set)."""

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        """Call after each epoch with ``train_loss``, ``val_loss`` (if any), ``lr`` and extras."""

    def on_fit_end(self, estimator: Any) -> None:
        """Call after training, when the estimator is fitted."""


class EpochsOnly:
    """Forward a callback's epoch reports, not the inner fit's start and end."""

    def __init__(self, callback: Any) -> None:
        self.callback = callback

    def on_fit_start(self, estimator: Any) -> None:
        """Do nothing: the wrapper reports its own fit."""

    def on_fit_end(self, estimator: Any) -> None:
        """Do nothing: the wrapper reports its own fit."""

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        """Pass the epoch's report on to the wrapped callback."""
        self.callback.on_epoch_end(epoch, logs)
