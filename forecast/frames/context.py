"""Context windows of clean series arrays and the block roll-out, in numpy only.

The input of a neural network at step ``t`` is ``[targets_t, past_t, future_t]`` (scaled
targets, past covariates, future-known covariates); it forecasts ``head_horizon`` steps at
once from the last ``context`` steps. A longer horizon is rolled out in blocks, each block's
forecast fed back as the next inputs. These functions are the one definition of both, shared
by the torch estimators (:mod:`forecast.models._batching`) and the torch-free ONNX runtime
(:mod:`forecast.onnx.runtime`), which differ only in the ``forward`` they pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from forecast.frames.series import SeriesArrays

Forward = Callable[[np.ndarray, np.ndarray | None], np.ndarray]
"""``forward(x (B, L, I) float32, future (B, head_horizon, F) float32 or None)``, returning
``(B, head_horizon, C)`` or ``(B, head_horizon, C, Q)`` float32."""


def step_inputs(s: SeriesArrays, start: int, stop: int) -> np.ndarray:
    """Return the encoder inputs of steps ``start:stop`` of one series, ``(stop - start, I)``."""
    blocks = [s.y[start:stop]]
    if s.past is not None:
        blocks.append(s.past[start:stop])
    if s.future is not None:
        blocks.append(s.future[start:stop])
    return np.concatenate(blocks, axis=1) if len(blocks) > 1 else blocks[0]


def context_windows(
    series: Sequence[SeriesArrays], context: int, horizon: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Cut the last ``context`` input steps of each series and its horizon's covariates.

    Returns
    -------
    x : ndarray of shape (N, L, I), float32
    future : ndarray of shape (N, horizon, F), float32, or None
    """
    x = np.stack([step_inputs(s, len(s.y) - context, len(s.y)) for s in series]).astype(np.float32)
    if series[0].future is None:
        return x, None
    steps = [s.future_steps(horizon) for s in series]  # all arrays: the series share an encoder
    return x, np.stack(cast(list[np.ndarray], steps)).astype(np.float32)


def pad_steps(f: np.ndarray, steps: int) -> np.ndarray:
    """Return covariates ``(N, h', F)`` as ``(N, steps, F)``, repeating the last step.

    Heads read step ``j`` for output ``j`` only, so the padding never changes a forecast.
    """
    if f.shape[1] >= steps:
        return f[:, :steps]
    return np.concatenate([f, np.repeat(f[:, -1:], steps - f.shape[1], axis=1)], axis=1)


def roll_out(
    forward: Forward,
    x: np.ndarray,
    future: np.ndarray | None,
    horizon: int,
    head_horizon: int,
    parts: Sequence[slice] | None = None,
    point: int | None = None,
) -> np.ndarray:
    """Forecast ``horizon`` steps in blocks of ``head_horizon``, feeding forecasts back.

    Parameters
    ----------
    forward : callable
        One pass of the network (see :data:`Forward`).
    x : ndarray of shape (N, L, I), float32
        Windows whose inputs are ``[targets, future]`` per step (no past covariates: they
        are unknown after the data), except when one block suffices.
    future : ndarray of shape (N, horizon, F), float32, or None
        Future-known covariates of the forecast steps.
    horizon, head_horizon : int
        Steps wanted, and steps one pass forecasts.
    parts : sequence of slice, optional
        Windows passed to ``forward`` at once (default: all of them).
    point : int, optional
        With a quantile network (outputs ``(B, h, C, Q)``), the level fed back (the
        median); every level of the later blocks is conditioned on it.

    Returns
    -------
    ndarray of shape (N, horizon, C), or (N, horizon, C, Q) for a quantile network, float64
    """
    context = x.shape[1]
    out = []
    for part in parts if parts is not None else [slice(0, len(x))]:
        xb = x[part]  # (B, L, I)
        fb = None if future is None else future[part]
        blocks, done = [], 0
        while done < horizon:
            f = None if fb is None else pad_steps(fb[:, done:], head_horizon)  # (B, h_head, F)
            pred = np.asarray(forward(xb, f))  # (B, h_head, C) or (B, h_head, C, Q)
            take = min(head_horizon, horizon - done)
            blocks.append(pred[:, :take])
            done += take
            if done < horizon:
                fed = pred[:, :take] if pred.ndim == 3 else pred[:, :take, :, point]
                if fb is not None:
                    fed = np.concatenate([fed, fb[:, done - take : done]], axis=-1)  # (B, take, I)
                xb = np.concatenate([xb, fed.astype(xb.dtype)], axis=1)[:, -context:]
        out.append(np.concatenate(blocks, axis=1))
    return np.concatenate(out).astype(np.float64)
