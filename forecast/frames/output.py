"""Forecast arrays as frames: columns (points, then quantiles), per-series and long layouts.

The estimator base forecasts arrays ``(n, horizon, columns)``; these functions name their
columns, stack the point forecast and the asked quantile levels, and lay them out as one
frame per series indexed by the forecast timestamps (``predict``) or as the long frame of
``predict_origins`` (``origin``, ``id``, ``time``, then the forecast columns).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.cleaning import check_local_clock
from forecast.frames.quantiles import point_level, quantile_column


def output_columns(columns: list[str], levels: tuple[float, ...]) -> list[str]:
    """Target columns, then ``<column>_q<level>`` for each target and level."""
    columns = list(columns)
    return columns + [quantile_column(c, q) for c in columns for q in levels]


def points_and_levels(
    full: np.ndarray, fitted: tuple[float, ...], levels: tuple[float, ...]
) -> np.ndarray:
    """Flatten quantile forecasts to ``(n, horizon, C * (1 + len(levels)))``.

    Parameters
    ----------
    full : ndarray of shape (n, horizon, C, Q)
        Forecasts at every ``fitted`` level.
    fitted : tuple of float
        The ``Q`` levels of ``full``; the one nearest 0.5 gives the point forecast.
    levels : tuple of float
        Levels to return after the points, target by target.
    """
    point = full[..., point_level(fitted)]
    chosen = full[..., [fitted.index(q) for q in levels]]  # (n, h, C, q)
    n, h, c, q = chosen.shape
    return np.concatenate([point, chosen.reshape(n, h, c * q)], axis=-1)


def forecast_frames(
    frames: dict[Any, pd.DataFrame],
    pred: np.ndarray,
    horizon: int,
    freq: pd.offsets.BaseOffset,
    columns: list[str],
    index_name: object = None,
    local_zone: str | None = None,
) -> dict[object, pd.DataFrame]:
    """One frame per series: ``pred[i]`` indexed by the ``horizon`` steps after series ``i``.

    ``local_zone``: the zone a naive index is the local clock of; a forecast step that clock
    skips or repeats raises (:func:`forecast.frames.cleaning.check_local_clock`).
    """
    out: dict[object, pd.DataFrame] = {}
    for i, (key, frame) in enumerate(frames.items()):
        index = validation.future_index(frame.index[-1], freq, horizon, index_name)
        check_local_clock(index, local_zone, key, "forecast")
        out[key] = pd.DataFrame(pred[i], index=index, columns=columns)
    return out


def origin_frame(
    meta: list[tuple[object, pd.Timestamp]],
    pred: np.ndarray,
    horizon: int,
    kind: str,
    columns: list[str],
    freq: pd.DateOffset,
) -> pd.DataFrame:
    """Lay out forecasts ``pred`` issued at the ``(key, origin)`` pairs ``meta`` as a long frame.

    Columns ``origin``, ``id`` (unless ``kind`` is a single frame), ``time`` and
    ``columns``; ``horizon`` rows per origin.
    """
    n = len(meta)
    starts = pd.DatetimeIndex([origin for _, origin in meta])
    try:
        # pandas-stubs: Timedelta takes Tick offsets only; calendar ones raise, caught below
        step = pd.Timedelta(freq)  # type: ignore[arg-type]
        times: pd.Index = starts.repeat(horizon) + np.tile(np.arange(1, horizon + 1) * step, n)
    except (TypeError, ValueError):  # calendar frequencies (months, business days)
        times = starts[:0].append([validation.future_index(o, freq, horizon) for o in starts])
    out = pd.DataFrame(pred.reshape(n * horizon, -1), columns=columns)
    out.insert(0, validation.TIME_COLUMN, times)
    if kind != "frame":
        keys = np.array([key for key, _ in meta], dtype=object)
        out.insert(0, validation.ID_COLUMN, np.repeat(keys, horizon))
    out.insert(0, "origin", starts.repeat(horizon))
    return out
