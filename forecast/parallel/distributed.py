"""Distributed data-parallel training of one neural estimator on Ray Train.

:func:`fit_distributed` runs the estimator's own ``fit`` (the same training loop) in
``num_workers`` processes under Ray Train's ``TorchTrainer``: gloo on CPU, NCCL on GPUs.
Inside a process group the loop wraps the network in ``DistributedDataParallel`` and each
process trains on its share of every epoch's batches (:func:`forecast.training.loop.data_parallel`),
so one epoch takes ``1/num_workers`` of the steps, each on ``num_workers`` batches. Rank 0
saves the fitted estimator in the usual format and the caller loads it with the safe loader:
the result is the same class and saves and loads as usual.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import torch
from sklearn.base import clone

from forecast.parallel.engine import ray_session
from forecast.persistence.format import load

__all__ = ["fit_distributed"]


def _train_loop(config: dict[str, Any]) -> None:
    """Ray Train worker: fit a clone; rank 0 reports it as a checkpoint folder."""
    import ray.train  # optional: the extra forecast-toolkit[ray]

    torch.set_num_threads(config["threads"])
    estimator = clone(config["estimator"]).fit(config["data"])
    context = ray.train.get_context()
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = None
        if context.get_world_rank() == 0:
            estimator.save(Path(folder) / "model")
            checkpoint = ray.train.Checkpoint.from_directory(folder)
        ray.train.report({"n_epochs": estimator.n_epochs_}, checkpoint=checkpoint)


def fit_distributed(
    estimator: Any,
    data: Any,
    *,
    num_workers: int = 2,
    use_gpu: bool = False,
    threads_per_worker: int = 1,
    address: str | None = None,
    num_cpus: int | None = None,
    storage_path: str | None = None,
) -> Any:
    """Fit a neural estimator with DistributedDataParallel over Ray Train workers.

    Parameters
    ----------
    estimator : neural forecaster
        Unfitted template (cloned in every worker; never changed). It needs
        ``windowing="sliding"``; ``device="auto"`` picks each worker's GPU with ``use_gpu``.
    data : DataFrame, long DataFrame or dict of DataFrames
        As accepted by ``fit``.
    num_workers : int
        Training processes.
    use_gpu : bool
        One GPU per worker and the NCCL backend (else CPU and gloo).
    threads_per_worker : int
        torch threads of each worker.
    address, num_cpus : optional
        Ray cluster address or CPUs of a local Ray (see
        :func:`forecast.parallel.ray_session`).
    storage_path : str, optional
        Folder for Ray Train's run and checkpoint (default: a temporary folder).

    Returns
    -------
    BaseForecaster
        The estimator fitted by rank 0 (all ranks hold the same weights), loaded with
        :func:`forecast.load`; ``history_`` holds the per-epoch losses (``train_loss`` is
        the mean over all workers' batches).
    """
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 1:
        raise ValueError(f"num_workers must be a positive int, got {num_workers!r}")
    if getattr(estimator, "windowing", "sliding") != "sliding":
        raise ValueError("fit_distributed needs windowing='sliding' (TBPTT streams are stateful)")
    with ray_session(address, num_cpus), tempfile.TemporaryDirectory() as scratch:
        from ray.train import RunConfig, ScalingConfig  # optional: the extra forecast-toolkit[ray]
        from ray.train.torch import TorchConfig, TorchTrainer  # optional: as above

        trainer = TorchTrainer(
            _train_loop,
            train_loop_config={
                "estimator": estimator,
                "data": data,
                "threads": threads_per_worker,
            },
            torch_config=TorchConfig(backend="nccl" if use_gpu else "gloo"),
            scaling_config=ScalingConfig(num_workers=num_workers, use_gpu=use_gpu),
            run_config=RunConfig(storage_path=storage_path or scratch, name="fit_distributed"),
        )
        result = trainer.fit()
        assert result.checkpoint is not None  # rank 0 reports the fitted model as one
        with result.checkpoint.as_directory() as folder:
            return load(Path(folder) / "model")
