"""``update`` of the neural estimators: training continues from the fitted weights.

The new rows, with the kept context (``train_tail_``: the last ``context_length`` rows seen)
in front, are scaled by the fitted scalers (never refitted, so the network reads the same
units) and cut into windows as in ``fit`` (the same ``train_origins_``, validation tail and
loss); every training target lies in the new rows. ``forecast.training.loop.train`` then
runs on the current weights with an optimizer rebuilt at the fitted ``learning_rate`` or the
update's own (its moments start from zero, a learning-rate schedule starts over), for ``epochs``
epochs
(default ``max_epochs``), stopping early when the validation tail stops improving, and keeps
the best weights. Each update draws its data order from ``seed_`` and the update's number,
so the same updates on the same data give the same weights.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from forecast.frames.steps import origin_masks
from forecast.models._batching import training_data
from forecast.models._params import check_option, floats
from forecast.nn.ensemble import EnsembleNet
from forecast.training.device import resolve_device
from forecast.training.loop import TrainConfig, seeded, train

if TYPE_CHECKING:
    from forecast.frames.series import SeriesArrays

__all__ = ["ContinueTraining"]

_UPDATE_SEED = 7919  # seeds of update n: seed_ + member + 7919 * n (apart from fit's)


class ContinueTraining:
    """Mixin of ``NeuralForecaster``: the ``continue`` rule."""

    _update_rule = "continue"

    def _update_frames(
        self,
        new: dict[Any, pd.DataFrame],
        notes: dict[Any, dict[str, Any]],
        history: Any,
        training: dict[str, Any],
        callbacks: list[Any] | None,
    ) -> dict[str, Any]:
        """Train on the new rows from the current weights; return the record's extras."""
        est: Any = self  # the estimator this mixin is part of
        epochs, rate = training.get("epochs"), training.get("learning_rate")
        patience = training.get("early_stopping_patience")
        # the options are the values of parameters for this update: their own checks
        if epochs is not None:
            check_option(est, "max_epochs", epochs, "epochs")
        if rate is not None:
            check_option(est, "learning_rate", rate)
        if patience is not None:
            check_option(est, "early_stopping_patience", patience)
        frames = {}
        for key, rows in new.items():
            if key not in est.train_tail_:
                raise ValueError(f"series {key!r} was not seen in fit")
            frames[key] = est._joined(est.train_tail_[key], rows, notes[key])
        series = est._to_arrays(frames, horizon=0, future=None)
        train_data, val_data = self._update_data(series)
        if len(train_data) == 0:
            counts = {str(k): len(f) for k, f in new.items()}
            raise ValueError(
                f"update data too short: {counts} new row(s) give no training window of "
                f"{est.context_length} context and {est.head_horizon_} target steps before the "
                "validation tail"
            )
        config = self._update_config(epochs, patience, rate)
        module = est.module_
        members = module.members if isinstance(module, EnsembleNet) else [module]
        est.device_ = device = resolve_device(est.device)
        number = int(getattr(est, "n_updates_", 0)) + 1
        results = []
        for i, member in enumerate(members):
            seed = est.seed_ + i + _UPDATE_SEED * number
            with seeded(seed, est.device_) as rng:
                results.append(
                    train(
                        member,
                        train_data,
                        val_data,
                        config,
                        list(callbacks or []),
                        rng,
                        est.device_,
                    )
                )
        module.to(device)
        keep = est._keep_history()
        est.train_tail_ = {
            **est.train_tail_,
            **{key: frame.iloc[-keep:] for key, frame in frames.items()},
        }
        history = results[0].history
        extra: dict[str, Any] = {"epochs": results[0].n_epochs, "best_epoch": results[0].best_epoch}
        extra["learning_rate"] = float(config.learning_rate)
        for name in ("train_loss", "val_loss"):
            if history.get(name):
                extra[name] = float(history[name][results[0].best_epoch])
        return extra

    def _update_data(self, series: list[SeriesArrays]) -> tuple[Any, Any]:
        """Training and validation windows of the joined series, as ``fit`` cuts them."""
        est: Any = self
        return training_data(
            series,
            context=est.context_length,
            horizon=est.head_horizon_,
            windowing=est.windowing,
            tbptt_steps=est.tbptt_steps_,
            batch_size=est.batch_size,
            validation_fraction=est.validation_fraction,
            validation_steps=est.validation_steps_,
            origins=origin_masks(est.train_origins_, series, est.freq_, est.timezone),
            time_reversal=est.time_reversal,
        )

    def _update_config(
        self, epochs: int | None, patience: int | None, rate: float | None
    ) -> TrainConfig:
        """Return the fit's training settings, with the update's epochs and patience."""
        est: Any = self
        steps = floats(est.change_scale_)
        config = TrainConfig(
            max_epochs=est.max_epochs,
            batch_size=est.batch_size,
            learning_rate=est.learning_rate,
            optimizer=est.optimizer,
            weight_decay=est.weight_decay,
            lr_scheduler=est.lr_scheduler,
            gradient_clip=est.gradient_clip,
            early_stopping_patience=est.early_stopping_patience,
            verbose=est.verbose,
            quantiles=est.quantiles_,
            micro_batch_size=est.micro_batch_size,
            loss=est.loss,
            step_scale=steps if est.difference_ else None,
            lead_weight=floats(est.horizon_weight_),
            velocity=None if steps is None else (est.velocity_weight, steps),
            channel_weight=floats(est.channel_weight_),
        )
        if epochs is not None:
            config = replace(config, max_epochs=int(epochs))
        if patience is not None:
            config = replace(config, early_stopping_patience=int(patience))
        if rate is not None:
            config = replace(config, learning_rate=float(rate))
        return config
