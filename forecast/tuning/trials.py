"""What a trial tells Ray Tune, how ASHA reads it, and the table of trials.

A trial reports once per training epoch (``epoch`` = epochs run so far, ``val_loss``,
``train_loss``) and once more when its backtest is done (the validation metrics, the last
``val_loss`` and ``epochs``, the epochs it ran). ASHA measures time in ``epoch``, which the
final report does not carry, so the scheduler decides on epochs only: the final report is
never taken for one more epoch (which had let ASHA stop a trial that had already finished,
and made ``epochs`` one too many).

ASHA is asynchronous: a trial reaching a rung is compared with the trials that reached it
before. With ``max_concurrent = 1`` the trials run one after another in the order the
seeded search samples them, so the same spec stops the same trials on any machine; with
several trials at once the order in which results arrive, and so which trials are stopped,
depends on timing (CPUs, load, a cluster versus a laptop).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.specs.tune import TuneSettings, to_ray
from forecast.training.callbacks import Callback

__all__ = ["EpochReporter", "final_report", "make_scheduler", "make_tuner", "trials_table"]

TIME_ATTR = "epoch"  # ASHA's clock: only per-epoch reports carry it
SCHEDULER_METRIC = "val_loss"


class EpochReporter(Callback):
    """Report each epoch's losses to Ray Tune (for ASHA) and to a trial's run.

    Parameters
    ----------
    log : callable, optional
        ``log(metrics, step)``, e.g. :meth:`forecast.tuning.runs.TrialRun.log`.

    Attributes
    ----------
    epochs : int
        Epochs reported so far (over every fit of the trial's backtest).
    val_loss : float
        The last one's validation loss (its training loss without validation data).
    """

    def __init__(self, log: Any = None) -> None:
        self.log = log
        self.epochs = 0
        self.val_loss = math.nan

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        """Report the epoch: ``{"epoch", "val_loss", "train_loss"}``."""
        from ray import tune as ray_tune  # optional: the extra forecast-toolkit[ray]

        self.epochs += 1
        self.val_loss = float(logs.get("val_loss", logs["train_loss"]))
        if self.log is not None:
            self.log({k: logs[k] for k in ("train_loss", "val_loss") if k in logs}, self.epochs)
        ray_tune.report(
            {
                TIME_ATTR: self.epochs,
                SCHEDULER_METRIC: self.val_loss,
                "train_loss": float(logs["train_loss"]),
            }
        )


def final_report(metrics: dict[str, float], reporter: EpochReporter) -> dict[str, float]:
    """Return a trial's last report: ``metrics``, ``val_loss`` and ``epochs``, no ``epoch``.

    ``val_loss`` is NaN for a model without epochs (Tune wants the scheduler's metric in
    every report).
    """
    return {**metrics, SCHEDULER_METRIC: reporter.val_loss, "epochs": reporter.epochs}


def make_scheduler(settings: TuneSettings) -> Any:
    """ASHA on ``val_loss`` over epochs, with the spec's grace period and reduction factor."""
    from ray.tune.schedulers import ASHAScheduler  # optional: the extra forecast-toolkit[ray]

    return ASHAScheduler(
        time_attr=TIME_ATTR,
        metric=SCHEDULER_METRIC,
        mode="min",
        max_t=10_000,
        grace_period=settings.grace_period,
        reduction_factor=settings.reduction_factor,
    )


def make_tuner(trainable: Any, settings: TuneSettings, folder: Path) -> Any:
    """Build the sweep's Ray Tune ``Tuner``: seeded sampling, ASHA, state in ``folder/sweep``.

    Parameters
    ----------
    trainable : callable
        The trial function (``config -> None``, reporting through ``ray.tune.report``).
    settings : TuneSettings
        The checked ``[tune]`` table: space, samples, seed, ``max_concurrent``, ASHA.
    folder : Path
        The sweep folder.

    Returns
    -------
    ray.tune.Tuner
    """
    from ray import tune as ray_tune  # optional: the extra forecast-toolkit[ray]
    from ray.tune.search import BasicVariantGenerator  # optional: as above

    return ray_tune.Tuner(
        trainable,
        param_space=to_ray(settings.space),
        tune_config=ray_tune.TuneConfig(
            num_samples=settings.num_samples,
            scheduler=make_scheduler(settings),
            search_alg=BasicVariantGenerator(
                random_state=settings.seed, max_concurrent=settings.max_concurrent or 0
            ),
        ),
        run_config=ray_tune.RunConfig(
            name="sweep",
            storage_path=str(folder),
            failure_config=ray_tune.FailureConfig(max_failures=0, fail_fast=False),
            verbose=0,
        ),
    )


def trials_table(grid: Any, settings: TuneSettings) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """One row per trial of a Tune result grid, and each trial's sampled parameters.

    Parameters
    ----------
    grid : ray.tune.ResultGrid
        The sweep's results.
    settings : TuneSettings
        The checked ``[tune]`` table.

    Returns
    -------
    DataFrame
        Columns ``trial_id``, the tuned parameters, ``status`` (``FINISHED``, ``STOPPED``
        by ASHA, ``FAILED``), ``epochs`` (epochs the trial ran), the validation metric,
        ``val_loss`` and ``error`` (first line, for failed trials).
    list of dict
        The sampled parameters of each row.
    """
    rows, configs = [], []
    for result in grid:
        metrics = result.metrics or {}
        config = result.config or {}
        if result.error is not None:
            status = "FAILED"
        elif settings.metric in metrics:
            status = "FINISHED"
        else:
            status = "STOPPED"
        error = None if result.error is None else _first_error_line(result.error)
        configs.append({k: _plain(config.get(k)) for k in settings.space})
        rows.append(
            {
                "trial_id": metrics.get("trial_id") or Path(result.path).name,
                **{k: _plain(config.get(k)) for k in settings.space},
                "status": status,
                # the final report says; a stopped or failed trial's last epoch report
                "epochs": int(metrics.get("epochs", metrics.get(TIME_ATTR, 0))),
                settings.metric: metrics.get(settings.metric, math.nan),
                "val_loss": metrics.get(SCHEDULER_METRIC, math.nan),
                "error": error,
            }
        )
    return pd.DataFrame(rows), configs


def _first_error_line(error: BaseException) -> str:
    cause = getattr(error, "cause", None) or error
    text = f"{type(cause).__name__}: {cause}"
    return text.strip().splitlines()[0]


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value
