"""Slices of the series of a fit, and the actual values a forecast frame is scored on.

Shared by the meta-estimators (conformal calibration, ensembles) that fit inner estimators
on parts of the caller's series.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation


def union_index(frames: dict[Any, pd.DataFrame]) -> pd.DatetimeIndex:
    """Union of the series' timestamps (each index checked)."""
    index = None
    for key, frame in frames.items():
        validation.check_index(frame, key)
        index = frame.index if index is None else index.union(frame.index)
    assert isinstance(index, pd.DatetimeIndex)  # check_index passed; a fit has a series
    return index


def slice_series(
    frames: dict[Any, pd.DataFrame], kind: str, lo: pd.Timestamp, hi: pd.Timestamp
) -> pd.DataFrame | dict[object, pd.DataFrame]:
    """Rows ``lo <= time <= hi`` of every series, in the container the data came in."""
    parts = {key: frame.loc[lo:hi] for key, frame in frames.items()}
    if kind == "frame":
        return parts[None]
    return parts if kind == "dict" else validation.join_series(parts, "long")


def series_index(pred: pd.DataFrame, kind: str, keys: list[Any]) -> np.ndarray:
    """Position in ``keys`` of the series of every row of a ``predict_origins`` frame."""
    if kind == "frame" or validation.ID_COLUMN not in pred:
        return np.zeros(len(pred), dtype=np.int64)
    lookup = {key: i for i, key in enumerate(keys)}
    missing = set(pred[validation.ID_COLUMN]) - set(lookup)
    if missing:
        raise ValueError(f"series {sorted(missing, key=str)} were not calibrated")
    return pred[validation.ID_COLUMN].map(lookup).to_numpy(dtype=np.int64)


def actuals(
    pred: pd.DataFrame, frames: dict[Any, pd.DataFrame], kind: str, columns: list[str]
) -> np.ndarray:
    """Actual values ``(rows, columns)`` at the forecast timestamps (NaN where missing)."""
    truth = np.full((len(pred), len(columns)), np.nan)
    times = pd.DatetimeIndex(pred[validation.TIME_COLUMN])
    for key, frame in frames.items():
        rows = (
            np.arange(len(pred))
            if kind == "frame"
            else np.flatnonzero(pred[validation.ID_COLUMN] == key)
        )
        frame = frame.set_axis(
            validation.align_tz(
                frame.index, None if times.tz is None else str(times.tz), key, "data"
            )
        )
        truth[rows] = frame[columns].reindex(times[rows]).to_numpy(dtype=float)
    return truth


def block_bounds(n: int, block: int, folds: int) -> tuple[int, int]:
    """Positions ``[lo, hi)`` of block ``block`` when ``n`` steps are cut into ``folds`` blocks."""
    return block * n // folds, (block + 1) * n // folds


def without_block(frames: dict[Any, Any], block: int, folds: int) -> dict[int, Any]:
    """Return the parts of each frame before and after its block ``block`` of ``folds``.

    Each frame is cut into ``folds`` contiguous blocks of (nearly) equal length; the parts
    either side of the left-out block become separate series (keys 0, 1, ...), so that no
    window of a model fitted on them spans the gap.
    """
    parts: dict[int, Any] = {}
    for frame in frames.values():
        lo, hi = block_bounds(len(frame), block, folds)
        for piece in (frame.iloc[:lo], frame.iloc[hi:]):
            if len(piece):
                parts[len(parts)] = piece
    return parts
