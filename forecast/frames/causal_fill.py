"""Causal filling of a gap that is still open at a backtest origin."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from forecast.frames.series import SeriesArrays


class CausalFill:
    """Fill the NaN run that is still open at a backtest origin from the past only.

    ``nan_policy="interpolate"`` interpolates the whole data once; a gap still open at an
    origin would then borrow values from after it. For such origins the open run is
    replaced by the last observed value (forward fill), so no forecast sees its future.
    """

    def __init__(self, raw: SeriesArrays) -> None:
        self.y = _forward_fill(raw.y)
        self.past: tuple[np.ndarray, np.ndarray] | None = None
        if raw.past is not None:
            self.past = _forward_fill(raw.past)

    def history(
        self, whole: SeriesArrays, pos: int, origin: object
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Targets and past covariates of ``whole`` up to ``pos``, open runs forward-filled."""
        y = _patch_open_run(whole.y, *self.y, pos, origin)
        past = None
        if whole.past is not None:
            assert self.past is not None  # ``raw`` and ``whole`` come from the same encoder
            past = _patch_open_run(whole.past, *self.past, pos, origin)
        return y, past


def _forward_fill(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward-filled copy of ``values`` (T, C) and, per cell, the last observed step."""
    steps = np.arange(len(values))[:, None]
    last = np.maximum.accumulate(np.where(np.isfinite(values), steps, -1), axis=0)  # (T, C)
    return np.take_along_axis(values, np.maximum(last, 0), axis=0), last


def _patch_open_run(
    filled: np.ndarray, ffilled: np.ndarray, last: np.ndarray, pos: int, origin: object
) -> np.ndarray:
    out = filled[:pos]
    last = last[pos - 1]  # (C,) last observed step per column
    open_run = last < pos - 1
    if not open_run.any():
        return out
    if (last < 0).any():
        raise ValueError(f"no observed value at or before origin {origin} to forecast from")
    out = out.copy()
    for col in np.flatnonzero(open_run):
        out[last[col] + 1 :, col] = ffilled[last[col] + 1 : pos, col]
    return out
