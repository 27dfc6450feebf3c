"""One model-agnostic training loop for every neural forecaster.

It knows devices, batches, truncated BPTT (carry the state, detach it at each chunk
boundary), gradient clipping, learning-rate schedules, early stopping with best-weights
restore, checkpoints and callbacks; it knows nothing of pandas or of a network's insides
beyond ``net(x, future) -> (forecast, state)`` and ``net.forward_steps`` for chunks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from forecast.training.accumulate import accumulate_batch
from forecast.training.accumulate import detach_state as detach_state  # public here since ever
from forecast.training.data_parallel import all_mean, data_parallel
from forecast.training.losses import (  # noqa: F401  (public here before forecast.training.losses)
    LOSSES,
    PinballLoss,
    StepChangeLoss,
    masked_mae,
    masked_mean,
    masked_mse,
    training_loss,
)
from forecast.training.optim import build_optimizer
from forecast.training.progress import epoch_progress
from forecast.training.resume import resume, rng_state
from forecast.training.resume import save_checkpoint as save_checkpoint  # public here too
from forecast.training.threads import torch_threads
from forecast.training.windows import BatchSource, StreamChunks, WindowDataset, even_slices

SCHEDULERS = (None, "cosine", "plateau", "step", "exponential", "tenfold")
EXPONENTIAL_GAMMA = 0.96**0.5  # LTD's decay, 0.96 every two epochs, spread evenly
CHECKPOINT_FILE = "checkpoint.pt"


@contextmanager
def seeded(seed: int, device: str) -> Iterator[np.random.Generator]:
    """Seed torch's RNG inside a fork (the global state is restored on exit).

    Yields the numpy Generator derived from the same seed, for data order.
    """
    devices = list(range(torch.cuda.device_count())) if device.startswith("cuda") else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield np.random.default_rng(seed)


def optimizer_step(
    net: nn.Module, optimizer: torch.optim.Optimizer, loss: Tensor, clip: float | None
) -> None:
    """Backpropagate ``loss``, clip the gradient norm over all parameters, step."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    clip_and_step(net, optimizer, clip)


def clip_and_step(net: nn.Module, optimizer: torch.optim.Optimizer, clip: float | None) -> None:
    """Clip the gradient norm over all parameters (unless ``clip`` is falsy), then step."""
    if clip:
        nn.utils.clip_grad_norm_(net.parameters(), clip)
    optimizer.step()


def has_batch_norm(net: nn.Module) -> bool:
    """Whether ``net`` holds batch-norm layers in training mode (they refuse one sample)."""
    kinds = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)
    return any(isinstance(m, kinds) and m.training for m in net.modules())


def run_epoch(
    net: nn.Module,
    data: BatchSource,
    optimizer: torch.optim.Optimizer,
    batch_size: int,
    clip: float | None,
    rng: np.random.Generator | None,
    loss_fn: Callable[..., Tensor] = masked_mse,
    micro_batch_size: int | None = None,
) -> float:
    """One pass over ``data``; returns the mean training loss (``loss_fn``).

    Each batch is one optimisation step. With ``micro_batch_size`` the network reads it in
    even slices of at most that many windows (streams) and the slices' gradients add up to
    the batch's (:func:`forecast.training.accumulate.accumulate_batch`) before one clip and step.
    With batch-norm layers a last batch of one window joins the one before it (``batch_slices``).
    """
    net.train()
    total, state = None, None
    count: Tensor | int = 0
    min_last = 2 if has_batch_norm(net) else 1  # a batch norm cannot normalise one sample
    for batch in data.batches(batch_size, rng, min_last=min_last):
        if data.stateful and batch.reset:
            state = None
        optimizer.zero_grad(set_to_none=True)
        loss, n, state = accumulate_batch(
            net, batch, loss_fn, micro_batch_size, state, stateful=data.stateful
        )
        clip_and_step(net, optimizer, clip)
        total = loss * n if total is None else total + loss * n
        count += n
    return float(total / count) if total is not None else math.nan


@torch.no_grad()
def evaluate(
    net: nn.Module,
    data: WindowDataset,
    batch_size: int,
    loss_fn: Callable[..., Tensor] = masked_mse,
    chunk: int | None = None,
) -> float:
    """Mean loss (``loss_fn``, default squared error) of ``net`` on sliding windows.

    The loss is averaged over batches of ``batch_size`` windows; the network reads each
    batch in slices of at most ``chunk`` windows (all at once when None), so the
    activations held at a time are those of ``chunk`` windows while the loss, reduced over
    the same batches, stays the same.
    """
    net.eval()
    total, count = 0.0, 0
    for batch in data.batches(batch_size):
        parts = even_slices(len(batch.x), chunk or len(batch.x))
        pred = torch.cat(
            [net(batch.x[s], None if batch.future is None else batch.future[s])[0] for s in parts]
        )  # (B, h, C) or (B, h, C, Q)
        total += float(loss_fn(pred, batch.y)) * len(batch.x)
        count += len(batch.x)
    return total / count if count else math.nan


def build_scheduler(
    name: str | None, optimizer: torch.optim.Optimizer, max_epochs: int, patience: int | None
) -> torch.optim.lr_scheduler.LRScheduler | None:
    """Learning-rate schedule stepped once per epoch: None, cosine, plateau, step or exponential.

    ``"exponential"`` multiplies the rate by ``0.96 ** 0.5`` after every epoch (LTD's 0.96
    every two epochs, spread evenly); ``"tenfold"`` by ``0.1 ** (1 / max_epochs)``, so the
    rate falls tenfold over the run (PGBIG's decay).
    """
    if name is None:
        return None
    if name == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, max_epochs))
    if name == "plateau":
        wait = max(1, (patience or 4) // 2)
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=wait)
    if name == "step":
        return torch.optim.lr_scheduler.StepLR(
            optimizer, step_size=max(1, max_epochs // 3), gamma=0.1
        )
    if name == "exponential":
        return torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=EXPONENTIAL_GAMMA)
    if name == "tenfold":
        gamma = 0.1 ** (1.0 / max(1, max_epochs))
        return torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=gamma)
    raise ValueError(f"lr_scheduler must be one of {SCHEDULERS}, got {name!r}")


@dataclass
class TrainConfig:
    """Settings of :func:`train`, taken from the estimator's parameters."""

    max_epochs: int = 30
    batch_size: int = 64
    learning_rate: float = 1e-3
    optimizer: str = "adam"
    weight_decay: float = 0.0
    lr_scheduler: str | None = None
    gradient_clip: float | None = 1.0
    early_stopping_patience: int | None = 5
    verbose: int = 0
    checkpoint_dir: str | None = None
    signature: str = ""
    quantiles: tuple[float, ...] | None = None  # train the pinball loss of these (else `loss`)
    loss: str = "mse"  # point loss, a key of LOSSES
    step_scale: tuple[float, ...] | None = None  # score step changes in these units (per channel)
    lead_weight: tuple[float, ...] | None = None  # weigh the loss of each forecast lead (mean 1)
    velocity: tuple[float, tuple[float, ...]] | None = None  # weight and per-channel step scale
    channel_weight: tuple[float, ...] | None = None  # weigh the loss of each channel (mean 1)
    micro_batch_size: int | None = None  # windows (streams) per forward/backward at most

    def loss_function(self) -> Callable[..., Tensor]:
        """Return the training loss these settings describe (:func:`training_loss`)."""
        return training_loss(
            self.quantiles,
            self.loss,
            self.step_scale,
            self.lead_weight,
            self.velocity,
            self.channel_weight,
        )

    @property
    def slice_size(self) -> int:
        """Windows the network reads at once: ``batch_size``, or fewer with micro-batches."""
        return min(self.batch_size, self.micro_batch_size or self.batch_size)


@dataclass
class TrainResult:
    """What :func:`train` reports: per-epoch history, epochs run and the best epoch."""

    history: dict[str, list[float]] = field(default_factory=dict)
    n_epochs: int = 0
    best_epoch: int = -1


@torch_threads()  # never more threads than free cores (forecast.training.threads)
def train(
    net: nn.Module,
    train_data: WindowDataset | StreamChunks,
    val_data: WindowDataset | None,
    config: TrainConfig,
    callbacks: list[Any],
    rng: np.random.Generator,
    device: str,
) -> TrainResult:
    """Train ``net`` in place; leave it holding the best weights seen.

    Parameters
    ----------
    net : torch.nn.Module
        A :class:`forecast.nn.net.ForecastNet` or anything with the same calls.
    train_data : WindowDataset or StreamChunks
        Training samples (sliding windows, or streams for truncated BPTT).
    val_data : WindowDataset or None
        Validation windows; early stopping watches their loss (else the training loss).
    config : TrainConfig
        Optimisation settings.
    callbacks : list
        Objects with ``on_epoch_end(epoch, logs)``.
    rng : numpy.random.Generator
        Data order; its state is checkpointed with torch's.
    device : str
        Where the network and the data live during training.

    Returns
    -------
    TrainResult
    """
    net.to(device)
    train_data.to(device)
    if val_data is not None and len(val_data) == 0:
        val_data = None
    if val_data is not None:
        val_data.to(device)
    optimizer = build_optimizer(net, config.optimizer, config.learning_rate, config.weight_decay)
    scheduler = build_scheduler(
        config.lr_scheduler, optimizer, config.max_epochs, config.early_stopping_patience
    )
    path = Path(config.checkpoint_dir) / CHECKPOINT_FILE if config.checkpoint_dir else None
    run: dict[str, Any] = {"history": {}, "epoch": -1, "rng": None}  # values of several types
    run["best"] = {"loss": math.inf, "epoch": -1, "state": None, "bad": 0, "stopped": False}
    if path is not None and path.exists():
        run = resume(path, config.signature, net, optimizer, scheduler, rng, device) or run
    history, best = run["history"], run["best"]
    model, data = data_parallel(net, train_data)
    bar = epoch_progress(config.max_epochs, run["epoch"] + 1, config.verbose)
    for epoch in range(run["epoch"] + 1, config.max_epochs):
        if best["stopped"]:
            break
        logs = _epoch(net, model, data, val_data, optimizer, config, rng, epoch)
        for key, value in logs.items():
            history.setdefault(key, []).append(value)
        monitored = logs.get("val_loss", logs["train_loss"])
        if monitored < best["loss"]:
            state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            best.update(loss=monitored, epoch=epoch, state=state, bad=0)
        else:
            best["bad"] += 1
        patience = config.early_stopping_patience
        best["stopped"] = patience is not None and best["bad"] >= patience
        if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            scheduler.step(monitored)
        elif scheduler is not None:
            scheduler.step()
        if path is not None:
            save_checkpoint(
                path,
                {
                    "signature": config.signature,
                    "epoch": epoch,
                    "model": net.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": None if scheduler is None else scheduler.state_dict(),
                    "history": history,
                    "best": best,
                    "rng": rng_state(rng, device),
                },
            )
        for callback in callbacks:
            callback.on_epoch_end(epoch, dict(logs))
        bar.epoch_end(epoch, logs)
    bar.close()
    if best["state"] is not None:
        net.load_state_dict(best["state"])
    if history:  # a resumed run that had nothing left to do keeps what it saved
        check_final(net, data, val_data, config, best["state"] is not None)
    n_epochs = len(history.get("train_loss", []))
    return TrainResult(history=history, n_epochs=n_epochs, best_epoch=best["epoch"])


_DIVERGED_FIX = "lower learning_rate, set gradient_clip (e.g. 1.0) or check the data's scale"


@torch.no_grad()
def check_final(
    net: nn.Module,
    train_data: object,
    val_data: WindowDataset | None,
    config: TrainConfig,
    improved: bool,
) -> None:
    """Raise a RuntimeError if the weights training leaves diverged (NaN/inf, or forecasts).

    Divergence in the last batch of an epoch hides behind a finite epoch loss. Checked: finite
    parameters, a finite monitored loss in some epoch and, without validation windows, a finite
    loss of the final weights on the first training batch (streams: parameters only).

    Parameters
    ----------
    net : torch.nn.Module
        The trained network, holding its final weights.
    train_data, val_data : WindowDataset or StreamChunks, WindowDataset or None
        Training samples and validation windows.
    config : TrainConfig
        The settings (loss, batch size).
    improved : bool
        Whether any epoch had a finite monitored loss (the best weights were kept).
    """
    bad = next((n for n, p in net.named_parameters() if not torch.isfinite(p).all()), None)
    if bad is not None:
        raise RuntimeError(f"training diverged: parameter {bad!r} holds NaN/inf; {_DIVERGED_FIX}")
    what = "validation" if val_data is not None else "training"
    if not improved:
        raise RuntimeError(f"training diverged: no epoch had a finite {what} loss; {_DIVERGED_FIX}")
    data = train_data  # with validation, the kept weights had a finite validation loss
    if val_data is not None or not isinstance(data, WindowDataset) or len(data) == 0:
        return
    net.eval()
    batch = next(iter(data.batches(min(config.slice_size, len(data)))))  # in order, no RNG
    pred = net(batch.x, batch.future)[0]  # (B, h, C) or (B, h, C, Q)
    loss_fn = config.loss_function()
    loss = float(loss_fn(pred, batch.y))
    if not (math.isfinite(loss) and bool(torch.isfinite(pred).all())):
        raise RuntimeError(
            f"training diverged: the final weights give a {what} loss of {loss} (forecasts "
            f"up to {float(pred.abs().max())}); {_DIVERGED_FIX}"
        )


def _epoch(
    net: nn.Module,
    model: nn.Module,
    train_data: BatchSource,
    val_data: WindowDataset | None,
    optimizer: torch.optim.Optimizer,
    config: TrainConfig,
    rng: np.random.Generator,
    epoch: int,
) -> dict[str, float]:
    """Train one epoch and return its logs: losses, learning rate, the network's extras.

    ``model`` is ``net`` itself, or its DistributedDataParallel wrapper (see
    :func:`data_parallel`): it takes the training steps, ``net`` evaluates.
    """
    lr = float(optimizer.param_groups[0]["lr"])
    loss_fn = config.loss_function()
    loss = run_epoch(
        model,
        train_data,
        optimizer,
        config.batch_size,
        config.gradient_clip,
        rng,
        loss_fn,
        config.micro_batch_size,
    )
    if model is not net:  # the mean training loss over every process's batches
        loss = all_mean(loss)
    if not math.isfinite(loss):
        raise RuntimeError(f"training diverged: loss {loss} at epoch {epoch}; {_DIVERGED_FIX}")
    logs = {"train_loss": loss}
    if val_data is not None:
        # Loss over batches of 1024 windows (as ever), forward in training-sized slices:
        # the activations of 1024 windows at once were the peak memory of a fit.
        batches = max(config.batch_size, 1024)
        logs["val_loss"] = evaluate(net, val_data, batches, loss_fn, chunk=config.slice_size)
    logs["lr"] = lr
    report = getattr(net, "epoch_metrics", None)
    logs.update({k: float(v) for k, v in (report() if callable(report) else {}).items()})
    return logs
