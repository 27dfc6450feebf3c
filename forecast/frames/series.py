"""One series as clean arrays (:class:`~forecast.frames.series.SeriesArrays`), made from frames.

:class:`SeriesEncoder` turns a clean frame of one series (see :mod:`forecast.frames.cleaning`)
into the arrays an estimator's ``_fit``/``_predict`` read: scaled targets, scaled past
covariates, and the future-known block (scaled future covariates, then calendar features)
over the history and the forecast steps. The scaling and the calendar are given as
functions, so an estimator can replace them (an external forecast is read unscaled).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.covariates import known_future


@dataclass
class SeriesArrays:
    """One series as clean arrays, the input of ``_fit`` and ``_predict``.

    Attributes
    ----------
    key : object
        Series id (``None`` for a single series).
    y : ndarray of shape (T, C)
        Targets (scaled if the estimator scales), float64.
    index : DatetimeIndex of length T
        Timestamps of ``y``.
    past : ndarray of shape (T, P) or None
        Past-only covariates (scaled), observed up to the last row of ``y``.
    future : ndarray of shape (T + H, F) or None
        Future-known covariates (scaled user columns, then calendar features) for the
        history and, at prediction time, the ``H`` forecast steps (``H = 0`` in ``fit``).
    """

    key: object
    y: np.ndarray
    index: pd.DatetimeIndex
    past: np.ndarray | None = None
    future: np.ndarray | None = None

    def future_steps(self, horizon: int) -> np.ndarray | None:
        """Future-known covariates of the ``horizon`` steps after ``y`` (``(H, F)``), if any."""
        n = len(self.y)
        return None if self.future is None else self.future[n : n + horizon]


@dataclass(frozen=True)
class SeriesEncoder:
    """Convert clean frames of a fitted estimator's data into :class:`SeriesArrays`.

    Attributes
    ----------
    targets, past, future : list of str
        Target columns, past covariates and future covariates (fitted).
    freq : DateOffset
        Fitted frequency (the grid of the forecast steps).
    zone : str or None
        Fitted time zone (``future=`` frames are converted to it).
    scale : callable
        ``(T, C)`` targets to scaled targets.
    scale_covariates : callable
        ``(frame, columns)`` to the scaled values ``(T, len(columns))``.
    calendar : callable
        A DatetimeIndex to calendar features ``(len(index), F)``, or None for none.
    """

    targets: list[str]
    past: list[str]
    future: list[str]
    freq: pd.offsets.BaseOffset
    zone: str | None
    scale: Callable[[np.ndarray], np.ndarray]
    scale_covariates: Callable[[pd.DataFrame, list[str]], np.ndarray]
    calendar: Callable[[pd.DatetimeIndex], np.ndarray | None]

    def encode(
        self,
        key: object,
        frame: pd.DataFrame,
        horizon: int = 0,
        future: pd.DataFrame | None = None,
    ) -> SeriesArrays:
        """Arrays of series ``key``, with the future-known block for ``horizon`` more steps.

        ``future`` (a frame of the future covariates, or None) is read for the forecast
        steps only, and checked by :func:`forecast.frames.covariates.known_future`.
        """
        y = self.scale(frame[self.targets].to_numpy(dtype=float))
        past = self.scale_covariates(frame, self.past) if self.past else None
        index = frame.index
        assert isinstance(index, pd.DatetimeIndex)  # the frames of a fit are checked first
        full_index = index
        if horizon:  # stubs: DatetimeIndex.append gives an Index
            full_index = pd.DatetimeIndex(
                index.append(validation.future_index(index[-1], self.freq, horizon))
            )
        blocks = []
        if self.future:
            known = frame[self.future]
            if horizon:
                steps = known_future(future, full_index[-horizon:], key, self.future, self.zone)
                known = pd.concat([known, steps])
            blocks.append(self.scale_covariates(known, self.future))
        cal = self.calendar(full_index)
        if cal is not None:
            blocks.append(cal)
        fut = np.concatenate(blocks, axis=1) if blocks else None
        return SeriesArrays(key=key, y=y, index=index, past=past, future=fut)

    def encode_all(
        self,
        frames: dict[Any, pd.DataFrame],
        horizon: int = 0,
        future: dict[Any, pd.DataFrame] | None = None,
    ) -> list[SeriesArrays]:
        """Arrays of every series of ``frames`` (``future``: series id to frame, or None)."""
        return [
            self.encode(key, frame, horizon, None if future is None else future.get(key))
            for key, frame in frames.items()
        ]
