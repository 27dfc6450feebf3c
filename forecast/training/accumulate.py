"""One batch's gradient, accumulated over slices of the batch (micro-batches).

The network reads a batch of ``B`` windows (or ``B`` truncated-BPTT streams) in even slices
of at most ``micro_batch_size`` rows and backpropagates each slice's loss weighted by its
share of the batch, so the gradients summed in ``.grad`` are those of the whole batch's
loss while only one slice's activations are alive at a time. The caller zeroes the
gradients before and clips and steps once after.

Shares: a slice of ``b`` windows weighs ``b / B`` (every window has the same number of loss
terms); with a mask (streams) a slice weighs its unmasked steps over the batch's, so the
weighted sum of the slices' masked means is the batch's masked mean.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import torch
from torch import Tensor, nn

from forecast.training.windows import Batch, even_slices


def detach_state(state: object) -> object:
    """Detach a hidden state (tensor, or nested tuple/list of tensors) from the graph."""
    if state is None:
        return None
    if isinstance(state, Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(detach_state(s) for s in state)
    raise TypeError(f"cannot detach a hidden state of type {type(state).__name__}")


def state_rows(state: object, rows: slice) -> object:
    """Streams ``rows`` of a hidden state (tensors ``(num_layers, B, H)``, or tuples of them).

    The batch is axis 1, as in the encoder contract of :mod:`forecast.nn.recurrent`.
    """
    if state is None:
        return None
    if isinstance(state, Tensor):
        return state[:, rows]
    if isinstance(state, (tuple, list)):
        return type(state)(state_rows(s, rows) for s in state)
    raise TypeError(f"cannot slice a hidden state of type {type(state).__name__}")


def cat_state_rows(states: list[Any]) -> object:
    """Join the hidden states of consecutive stream slices back into one (batch axis 1)."""
    first = states[0]
    if first is None:
        return None
    if isinstance(first, Tensor):
        return torch.cat(states, dim=1)
    return type(first)(cat_state_rows(list(parts)) for parts in zip(*states, strict=True))


def _forward(
    model: nn.Module, batch: Batch, rows: slice | None, state: object, stateful: bool
) -> tuple[Tensor, Tensor, Tensor | None, object]:
    """Forecasts of ``rows`` of ``batch`` (all rows when None) and the state they end in."""
    take = slice(None) if rows is None else rows
    x, y = batch.x[take], batch.y[take]
    future = None if batch.future is None else batch.future[take]
    mask = None if batch.mask is None else batch.mask[take]
    if stateful:
        # nn.Module's __getattr__ is typed Tensor | Module: forward_steps is a method here
        pred, state = model.forward_steps(x, future, state)  # type: ignore[operator]
        state = detach_state(state)  # carry the values, cut the gradient
    elif getattr(getattr(model, "module", model), "n_stages", 1) > 1:
        # every stage is scored, each against its own target (PGBIG), as rows of one batch
        net = getattr(model, "module", model)
        pred, _ = model(x, future, window=True, every_stage=True)  # (b, S, T + h, C)
        # nn.Module's __getattr__ is typed Tensor | Module: stage_targets is a method here
        window = torch.cat([x[..., : y.shape[-1]], y], dim=1)
        targets = net.stage_targets(window)  # type: ignore[operator]
        if not net.observed_loss:  # the forecast steps only
            pred, targets = pred[:, :, x.shape[1] :], targets[:, :, x.shape[1] :]
        pred, y = pred.flatten(0, 1), targets.flatten(0, 1)
    elif getattr(getattr(model, "module", model), "observed_loss", False):
        # the loss covers the context too: the network's reconstruction of its own inputs
        # (DistributedDataParallel keeps the network as .module)
        pred, _ = model(x, future, window=True)  # (b, T + h, C)
        y = torch.cat([x[..., : y.shape[-1]], y], dim=1)  # the context's targets, then y
    else:
        pred, _ = model(x, future)  # (b, h, C)
    return pred, y, mask, state


def accumulate_batch(
    model: nn.Module,
    batch: Batch,
    loss_fn: Callable[..., Tensor],
    micro_batch_size: int | None = None,
    state: object = None,
    stateful: bool = False,
) -> tuple[Tensor, Tensor | int, object]:
    """Add the gradient of ``batch``'s loss to ``.grad``, reading it in slices.

    Parameters
    ----------
    model : torch.nn.Module
        The network (or its DistributedDataParallel wrapper: gradients are then
        synchronised once, at the last slice).
    batch : Batch
        Windows, or one chunk of streams (``stateful``).
    loss_fn : callable
        ``loss_fn(pred, target, mask)``, a (masked) mean.
    micro_batch_size : int or None
        Rows per slice at most; None reads the batch at once (one forward, one backward).
    state : optional
        Streams' hidden state carried from the previous chunk (``stateful`` only).
    stateful : bool
        Whether ``batch`` is a chunk of truncated-BPTT streams.

    Returns
    -------
    loss : Tensor
        The batch's loss, detached.
    n : Tensor or int
        Its weight in the epoch mean: windows, or loss-bearing steps of streams.
    state
        The detached state to carry into the next chunk (None for windows).
    """
    n_rows = len(batch.x)
    n: Tensor | int = n_rows
    if stateful:
        assert batch.mask is not None  # a chunk of streams always carries its loss mask
        n = batch.mask.sum()  # a tensor: no device sync
    parts = even_slices(n_rows, micro_batch_size or n_rows)
    if len(parts) == 1:  # the whole batch at once, exactly as without slicing
        pred, y, mask, state = _forward(model, batch, None, state, stateful)
        loss = loss_fn(pred, y, mask)
        loss.backward()
        return loss.detach(), n, state
    total, states = None, []
    no_sync = getattr(model, "no_sync", None)  # DDP: all-reduce once, after the last slice
    for i, rows in enumerate(parts):
        last = i == len(parts) - 1
        with nullcontext() if last or no_sync is None else no_sync():  # forward and backward
            pred, y, mask, part_state = _forward(
                model, batch, rows, state_rows(state, rows), stateful
            )
            if stateful:
                assert mask is not None  # a chunk of streams always carries its loss mask
                share: Tensor | float = mask.sum() / n
            else:
                share = (rows.stop - rows.start) / n_rows
            loss = loss_fn(pred, y, mask) * share
            loss.backward()
        states.append(part_state)
        total = loss.detach() if total is None else total + loss.detach()
    assert total is not None  # several slices were read
    return total, n, cat_state_rows(states) if stateful else None
