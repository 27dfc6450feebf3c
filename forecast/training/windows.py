"""Training samples cut from series: sliding context windows and truncated-BPTT streams.

Every series enters as a triple of arrays on one time axis,
``inputs (T, I)`` (what the encoder reads at each step), ``targets (T, C)`` and optionally
``future (T, F)`` (the future-known covariates the head reads for the target steps).

* Sliding windows: sample ``s`` reads ``inputs[s : s + L]`` and predicts
  ``targets[s + L : s + L + h]``. All series are concatenated once and windows are strided
  views of that one array (``unfold``); a batch is the only copy made.
* Truncated BPTT: each series is cut into contiguous segments, one per parallel stream; the
  streams are padded to one length and read chunk by chunk. The prediction at step ``t``
  targets ``targets[t + 1 : t + 1 + h]``; steps whose targets would leave the series are
  masked out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset

SeriesTriple = tuple[np.ndarray, np.ndarray, np.ndarray | None]


@dataclass
class Batch:
    """One optimisation step's data.

    ``x`` is ``(B, L, I)`` for windows or ``(B, k, I)`` for a chunk; ``y`` and ``future``
    are ``(B, h, C)``/``(B, h, F)`` or ``(B, k, h, C)``/``(B, k, h, F)``; ``mask`` ``(B, k)``
    marks chunk steps that carry a loss; ``reset`` says the state starts from zeros.
    """

    x: Tensor
    y: Tensor
    future: Tensor | None = None
    mask: Tensor | None = None
    reset: bool = True


class BatchSource(Protocol):
    """What the training loop reads: windows, streams, or one process's shard of them."""

    stateful: bool

    def batches(
        self, batch_size: int, rng: np.random.Generator | None, *, min_last: int = 1
    ) -> Iterable[Batch]:
        """Batches of ``batch_size`` samples (random order with ``rng``; :func:`batch_slices`)."""


def n_windows(length: int, context: int, horizon: int) -> int:
    """Count the complete (context, horizon) windows in a series of ``length`` steps."""
    return max(0, length - context - horizon + 1)


def sliding_windows(a: np.ndarray | Tensor, size: int) -> np.ndarray | Tensor:
    """View ``a`` (T, D) as all its windows of ``size`` rows, (T - size + 1, size, D)."""
    if isinstance(a, Tensor):
        return a.unfold(0, size, 1).transpose(1, 2)  # (N, size, D)
    return np.lib.stride_tricks.sliding_window_view(a, size, axis=0).swapaxes(1, 2)


def even_slices(n: int, size: int) -> list[slice]:
    """Cut ``range(n)`` into the fewest consecutive slices of at most ``size`` items.

    The slices differ in length by at most one, so none is much shorter than the others
    (a lone remainder of one window would take other kernels than a batch and round
    differently); ``n <= size`` gives the single slice ``0:n``.
    """
    parts = max(1, math.ceil(n / max(1, int(size))))
    bounds = [i * n // parts for i in range(parts + 1)]
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def batch_slices(n: int, batch_size: int, min_last: int = 1) -> list[slice]:
    """Cut ``range(n)`` into consecutive batches of ``batch_size`` items, the last one shorter.

    A last batch of fewer than ``min_last`` items joins the batch before it, when there is
    one. The training loop asks for ``min_last=2`` when the network has batch-norm layers in
    training mode (they cannot normalise a batch of one sample); with the default 1 the
    batches are those of ``range(0, n, batch_size)``.
    """
    starts = list(range(0, n, max(1, int(batch_size))))
    if len(starts) > 1 and n - starts[-1] < min_last:
        starts.pop()
    ends = [*starts[1:], n] if starts else []
    return [slice(a, b) for a, b in zip(starts, ends, strict=True)]


def validation_start(length: int, fraction: float, horizon: int) -> int:
    """First step of the validation tail of a series (``length`` when there is none).

    The tail holds the last ``fraction`` of the steps, and at least ``horizon`` of them so
    that one complete validation target fits.
    """
    if fraction <= 0:
        return length
    return length - max(horizon, int(round(length * fraction)))


def _concat(series: Sequence[SeriesTriple]) -> tuple[Tensor, Tensor, Tensor | None, np.ndarray]:
    inputs = torch.from_numpy(np.concatenate([s[0] for s in series]).astype(np.float32))
    targets = torch.from_numpy(np.concatenate([s[1] for s in series]).astype(np.float32))
    future = None
    if series[0][2] is not None:
        future = torch.from_numpy(np.concatenate([s[2] for s in series]).astype(np.float32))
    offsets = np.cumsum([0] + [len(s[0]) for s in series[:-1]])
    return inputs, targets, future, offsets


class WindowDataset(Dataset[Batch]):
    """Sliding (context, horizon) windows over several series, as views of one array.

    Parameters
    ----------
    series : sequence of (inputs, targets, future)
        Per-series arrays on one time axis; ``future`` is None for every series or none.
    context : int
        Steps of input ``L``.
    horizon : int
        Steps of target ``h``.
    spans : sequence of (first, end), optional
        Per series, the steps its targets may occupy: ``first <= s + L`` and
        ``s + L + h <= end``. Defaults to the whole series.
    origins : sequence of boolean arrays, optional
        Per series, the steps allowed to be the last context step ``s + L - 1`` of a window.
    """

    stateful = False

    def __init__(
        self,
        series: Sequence[SeriesTriple],
        context: int,
        horizon: int,
        spans: Sequence[tuple[int, int]] | None = None,
        origins: Sequence[np.ndarray] | None = None,
    ) -> None:
        self.context, self.horizon = int(context), int(horizon)
        self.inputs, self.targets, self.future, offsets = _concat(series)
        spans = spans or [(0, len(s[0])) for s in series]
        starts = []
        for i, (offset, (first, end)) in enumerate(zip(offsets, spans, strict=True)):
            lo = max(0, first - self.context)
            hi = end - self.context - self.horizon  # last admissible start
            local = np.arange(lo, hi + 1, dtype=np.int64)
            if origins is not None:
                local = local[np.asarray(origins[i], bool)[local + self.context - 1]]
            starts.append(offset + local)
        self.starts = torch.from_numpy(np.concatenate(starts))

    def __len__(self) -> int:
        return len(self.starts)

    def to(self, device: str | torch.device) -> WindowDataset:
        """Move the underlying arrays to ``device`` (once; batches are then cut there)."""
        self.inputs, self.targets = self.inputs.to(device), self.targets.to(device)
        self.future = None if self.future is None else self.future.to(device)
        self.starts = self.starts.to(device)
        return self

    def __getitem__(self, idx: int | np.ndarray | Tensor) -> Batch:
        """Window ``idx`` (int) or the batch of windows ``idx`` (1-d integer array)."""
        single = isinstance(idx, (int, np.integer))
        idx = torch.as_tensor(np.atleast_1d(idx) if single else idx, device=self.starts.device)
        start = self.starts[idx]
        x = sliding_windows(self.inputs, self.context)[start]  # (B, L, I)
        y = sliding_windows(self.targets, self.horizon)[start + self.context]  # (B, h, C)
        f = None
        if self.future is not None:
            f = sliding_windows(self.future, self.horizon)[start + self.context]  # (B, h, F)
        if single:
            return Batch(x[0], y[0], None if f is None else f[0])
        return Batch(x, y, f)

    def batches(
        self, batch_size: int, rng: np.random.Generator | None = None, *, min_last: int = 1
    ) -> Iterator[Batch]:
        """Batches in random order (``rng``) or in order (``rng=None``).

        A last batch of fewer than ``min_last`` windows joins the one before it
        (:func:`batch_slices`).
        """
        n = len(self)
        order = np.arange(n) if rng is None else rng.permutation(n)
        for part in batch_slices(n, batch_size, min_last):
            yield self[order[part]]


def stream_segment_length(lengths: Sequence[int], steps: int, n_streams: int) -> int:
    """Shortest segment length (a multiple of ``steps``) that needs at most ``n_streams`` streams.

    When the series outnumber ``n_streams``, every series is one stream.
    """
    sizes = np.asarray(lengths)
    longest = int(math.ceil(sizes.max() / steps)) * steps
    seg = max(steps, int(math.ceil(sizes.sum() / n_streams / steps)) * steps)
    while seg < longest and np.ceil(sizes / seg).sum() > n_streams:
        seg += steps
    return min(seg, longest)


class StreamChunks:
    """Parallel streams of contiguous segments, read in chunks for truncated BPTT.

    Parameters
    ----------
    series : sequence of (inputs, targets, future)
        Per-series arrays on one time axis.
    horizon : int
        Steps of target after each step.
    steps : int
        Chunk length ``k``: the state is carried across chunks, gradients are not.
    n_streams : int
        Streams read in parallel (the batch size).
    ends : sequence of int, optional
        Per series, the end of the training part: no target at or after it is used.
    origins : sequence of boolean arrays, optional
        Per series, the steps that carry a loss (all others are read but not scored).
    """

    stateful = True

    def __init__(
        self,
        series: Sequence[SeriesTriple],
        horizon: int,
        steps: int,
        n_streams: int,
        ends: Sequence[int] | None = None,
        origins: Sequence[np.ndarray] | None = None,
    ) -> None:
        self.horizon, self.steps, self.n_streams = int(horizon), int(steps), int(n_streams)
        ends = ends or [len(s[0]) for s in series]
        usable = [end - self.horizon for end in ends]  # steps whose targets fit
        seg = stream_segment_length(usable, self.steps, self.n_streams)
        segments = [(i, a, min(a + seg, n)) for i, n in enumerate(usable) for a in range(0, n, seg)]
        n_in, n_out = series[0][0].shape[1], series[0][1].shape[1]
        first_future = series[0][2]
        x = np.zeros((len(segments), seg, n_in), np.float32)
        y = np.zeros((len(segments), seg + self.horizon, n_out), np.float32)
        f = (
            np.zeros((len(segments), seg + self.horizon, first_future.shape[1]), np.float32)
            if first_future is not None
            else None
        )
        mask = np.zeros((len(segments), seg), bool)
        for j, (i, a, b) in enumerate(segments):
            inputs, targets, future = series[i]
            x[j, : b - a] = inputs[a:b]
            y[j, : b - a + self.horizon] = targets[a : b + self.horizon]
            if f is not None:
                assert future is not None  # the series all have covariates or none has
                f[j, : b - a + self.horizon] = future[a : b + self.horizon]
            mask[j, : b - a] = True if origins is None else np.asarray(origins[i], bool)[a:b]
        self.segments = segments
        self.inputs, self.targets = torch.from_numpy(x), torch.from_numpy(y)
        self.future = None if f is None else torch.from_numpy(f)
        self.mask = torch.from_numpy(mask)

    def __len__(self) -> int:
        return len(self.segments)

    @property
    def segment_length(self) -> int:
        """Padded length of every stream."""
        return self.inputs.shape[1]

    def to(self, device: str | torch.device) -> StreamChunks:
        """Move the stream arrays to ``device``."""
        self.inputs, self.targets, self.mask = (
            self.inputs.to(device),
            self.targets.to(device),
            self.mask.to(device),
        )
        self.future = None if self.future is None else self.future.to(device)
        return self

    def _ahead(self, a: Tensor) -> Tensor:
        # (S, seg + h, D) -> (S, seg, h, D): row t holds steps t + 1 .. t + h, a view.
        return a.unfold(1, self.horizon, 1)[:, 1 : self.segment_length + 1].transpose(2, 3)

    def batches(
        self,
        batch_size: int | None = None,
        rng: np.random.Generator | None = None,
        *,
        min_last: int = 1,
    ) -> Iterator[Batch]:
        """Chunks of stream groups; groups in random order (``rng``), chunks in time order.

        A last group of fewer than ``min_last`` streams joins the one before it
        (:func:`batch_slices`).
        """
        size = batch_size or self.n_streams
        order = np.arange(len(self)) if rng is None else rng.permutation(len(self))
        targets = self._ahead(self.targets)  # (S, seg, h, C)
        future = None if self.future is None else self._ahead(self.future)  # (S, seg, h, F)
        for part in batch_slices(len(self), size, min_last):
            group = torch.as_tensor(np.sort(order[part]), device=self.inputs.device)
            for t0 in range(0, self.segment_length, self.steps):
                t = slice(t0, t0 + self.steps)
                mask = self.mask[group, t]  # (B, k)
                if not bool(mask.any()):
                    break
                yield Batch(
                    x=self.inputs[group, t],  # (B, k, I)
                    y=targets[group, t],  # (B, k, h, C)
                    future=None if future is None else future[group, t],  # (B, k, h, F)
                    mask=mask,
                    reset=t0 == 0,
                )
