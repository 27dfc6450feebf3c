"""Arrays of the neural forecasters: training samples, prediction windows, roll-out.

The input of the encoder at step ``t`` is ``[targets_t, past_t, future_t]`` (scaled targets,
past covariates, future-known covariates); the head reads the future-known covariates of
the forecast steps. Everything here is batched over series and origins.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

import numpy as np
import torch
from torch import nn

from forecast.base import SeriesArrays
from forecast.frames.context import (  # noqa: F401 (context_windows: imported from here)
    context_windows,
    roll_out,
    step_inputs,
)
from forecast.training.threads import torch_threads
from forecast.training.windows import (
    SeriesTriple,
    StreamChunks,
    WindowDataset,
    even_slices,
    validation_start,
)

# Windows per forward pass at prediction time: the activations of a pass grow with it
# (Hopfield, hidden 64, context 168: ~45 MB per tensor for 1,024 windows).
PREDICT_CHUNK = 256

_T = TypeVar("_T")


def series_triple(s: SeriesArrays) -> SeriesTriple:
    """Return ``(inputs (T, I), targets (T, C), future (T, F) or None)`` of a series."""
    n = len(s.y)
    return step_inputs(s, 0, n), s.y, None if s.future is None else s.future[:n]


def reversed_series(s: SeriesArrays, end: int) -> SeriesArrays:
    """Return the first ``end`` steps of ``s`` played backwards (a time-reversed copy).

    Targets and past covariates are reversed; the timestamps stay in order (they only place
    training origins). A series with future-known covariates has none: calendar features
    read backwards describe no real time.
    """
    if s.future is not None:
        raise ValueError("a time-reversed copy cannot keep future-known covariates")
    past = None if s.past is None else s.past[:end][::-1].copy()
    return replace(
        s, key=("reversed", s.key), y=s.y[:end][::-1].copy(), past=past, index=s.index[:end]
    )


def training_data(
    series: Sequence[SeriesArrays],
    *,
    context: int,
    horizon: int,
    windowing: str,
    tbptt_steps: int,
    batch_size: int,
    validation_fraction: float,
    validation_steps: int | None = None,
    origins: Sequence[np.ndarray] | None = None,
    held_out: Sequence[int] | None = None,
    untailed: Sequence[int] = (),
    time_reversal: bool = False,
) -> tuple[WindowDataset | StreamChunks, WindowDataset | None]:
    """Training samples and validation windows.

    The validation tail of each series (its last ``validation_steps`` steps, else its last
    ``validation_fraction``) holds no training target; validation windows have their targets
    inside it (their context may reach back). ``origins`` (a boolean mask per series) limits
    the steps that may end a window's context (for streams: the steps that carry a loss).
    With ``held_out`` (positions of series), those series give the validation windows, every
    window of them, and the others are trained on whole (no tail). Series at the positions
    ``untailed`` are trained on whole too (no tail, no validation window) while the others
    keep their tails. With ``time_reversal`` the training part of every series (never its
    tail, never a held-out series) is trained on a second time, played backwards
    (:func:`reversed_series`), as siMLPe augments motion; validation windows are unchanged.
    """
    val: WindowDataset | None  # the validation windows, if any
    if held_out is not None:
        held = set(held_out)
        keep = [i for i in range(len(series)) if i not in held]
        val_triples = [series_triple(series[i]) for i in sorted(held)]
        val = WindowDataset(val_triples, context, horizon, None, _pick(origins, sorted(held)))
        train = [series_triple(series[i]) for i in keep]
        masks = _pick(origins, keep)
        if time_reversal:
            train += [series_triple(reversed_series(series[i], len(series[i].y))) for i in keep]
            masks = None if masks is None else masks + [m[::-1] for m in masks]
        if windowing == "tbptt":
            ends = [len(t[0]) for t in train]
            return StreamChunks(train, horizon, tbptt_steps, batch_size, ends, masks), val
        return WindowDataset(train, context, horizon, None, masks), val
    triples = [series_triple(s) for s in series]
    if validation_steps is not None:
        ends = [len(s.y) - max(horizon, validation_steps) for s in series]
    else:
        ends = [validation_start(len(s.y), validation_fraction, horizon) for s in series]
    for i in untailed:
        ends[i] = len(series[i].y)
    val = None
    if validation_steps is not None or validation_fraction > 0:
        spans = [(end, len(s.y)) for end, s in zip(ends, series, strict=True)]
        val = WindowDataset(triples, context, horizon, spans, origins)
    if time_reversal:  # the training part of each series again, backwards
        triples += [
            series_triple(reversed_series(s, end)) for s, end in zip(series, ends, strict=True)
        ]
        if origins is not None:
            origins = list(origins) + [m[:end][::-1] for m, end in zip(origins, ends, strict=True)]
        ends = ends + ends
    if windowing == "tbptt":
        return StreamChunks(triples, horizon, tbptt_steps, batch_size, ends, origins), val
    return WindowDataset(triples, context, horizon, [(0, end) for end in ends], origins), val


def _pick(items: Sequence[_T] | None, positions: Sequence[int]) -> list[_T] | None:
    return None if items is None else [items[i] for i in positions]


def change_scale(series: Sequence[SeriesArrays]) -> np.ndarray:
    """Root mean square of the one-step changes of each target channel, ``(C,)``.

    Pooled over the steps of every training series (scaled units); a channel that never
    changes gets 1, so that dividing by the scale is always defined.
    """
    changes = np.concatenate([np.diff(s.y, axis=0) for s in series])  # (sum(T_i - 1), C)
    rms = np.sqrt(np.mean(changes**2, axis=0)) if len(changes) else np.zeros(series[0].y.shape[1])
    return np.where(rms > 0, rms, 1.0)


def data_fingerprint(series: Sequence[SeriesArrays]) -> str:
    """Hash the training arrays briefly (to recognise a checkpoint's data)."""
    digest = hashlib.sha1()
    for s in series:
        for a in (s.y, s.past, s.future):
            if a is not None:
                digest.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return digest.hexdigest()[:16]


@torch.no_grad()
@torch_threads()  # the thread policy for every prediction, from Python or a command
def rollout(
    net: nn.Module,
    x: np.ndarray,
    future: np.ndarray | None,
    horizon: int,
    head_horizon: int,
    chunk: int = PREDICT_CHUNK,
    point: int | None = None,
) -> np.ndarray:
    """Forecast ``horizon`` steps in blocks of ``head_horizon``, feeding forecasts back.

    The roll-out of :func:`forecast.frames.context.roll_out` (one definition, shared with
    the ONNX runtime) through ``net``, ``chunk`` windows per pass. ``x`` holds windows whose
    inputs are ``[targets, future]`` per step (no past covariates: they are unknown after
    the data), except when one block suffices. A quantile network (outputs
    ``(B, h, C, Q)``) is rolled out on its level ``point`` (the median).

    Returns
    -------
    ndarray of shape (N, horizon, C), or (N, horizon, C, Q) for a quantile network, float64
    """
    net.eval()
    device = next(net.parameters()).device

    def forward(xb: np.ndarray, fb: np.ndarray | None) -> np.ndarray:
        f = None if fb is None else torch.from_numpy(fb).to(device)
        pred, _ = net(torch.from_numpy(xb).to(device), f)  # (B, h_head, C) or (B, h_head, C, Q)
        return pred.cpu().numpy()

    parts = even_slices(len(x), chunk)
    return roll_out(forward, x, future, horizon, head_horizon, parts, point=point)
