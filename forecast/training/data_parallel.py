"""Data-parallel training: the network wrapped in DDP, each process on its share of batches.

Used by the training loop when a torch.distributed process group of two or more runs (as
:func:`forecast.parallel.fit_distributed` starts one); otherwise everything passes through.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from forecast.training.windows import Batch, StreamChunks, WindowDataset


class _Shard:
    """Every ``world``-th batch of ``data``, from ``rank`` on; the same count on each rank.

    Every process draws the same batch order (same seed), so the shards are disjoint and
    together cover the epoch, up to ``n_batches % world`` batches left out so that all
    processes take the same number of steps (DDP synchronises each one).
    """

    stateful = False

    def __init__(self, data: WindowDataset, rank: int, world: int) -> None:
        self.data, self.rank, self.world = data, rank, world

    def __len__(self) -> int:
        return len(self.data)

    def to(self, device: str) -> None:
        self.data.to(device)

    def batches(
        self, batch_size: int, rng: np.random.Generator | None, *, min_last: int = 1
    ) -> list[Batch]:
        every = list(self.data.batches(batch_size, rng, min_last=min_last))
        usable = len(every) - len(every) % self.world
        return every[self.rank : usable : self.world]


def data_parallel(
    net: nn.Module, data: WindowDataset | StreamChunks
) -> tuple[nn.Module, WindowDataset | StreamChunks | _Shard]:
    """Wrap ``net`` in DistributedDataParallel and shard ``data`` when torch.distributed runs.

    Outside a process group of two or more (the usual case) both come back unchanged. In
    one (as started by :func:`forecast.parallel.fit_distributed`), gradients are averaged
    over the processes after each step, each of which trains on its share of the batches.
    """
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() < 2:
        return net, data
    if isinstance(data, StreamChunks):  # the stateful kind
        raise ValueError(
            "distributed training takes windowing='sliding'; truncated BPTT streams carry "
            "state from batch to batch and cannot be split over processes"
        )
    model = DistributedDataParallel(net)
    return model, _Shard(data, dist.get_rank(), dist.get_world_size())


def all_mean(value: float) -> float:
    """Mean of ``value`` over the processes of the running process group."""
    tensor = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(tensor)
    return float(tensor.item() / dist.get_world_size())
