"""Series on a regular local wall-clock grid, so that "same time yesterday" is a fixed shift.

A tz-aware series sampled every ``step`` is regular in elapsed time, but its local clock
jumps at daylight-saving changes: in spring one wall-clock hour does not exist, in autumn
one occurs twice. On the wall-clock grid every local day has the same number of steps, so
the same local time one day (one week) earlier is always ``steps_per_day`` (seven times as
many) positions back. The grid is built as follows (both choices are documented on the
estimators that use it):

- a wall-clock time that occurs twice (the repeated autumn hour) holds the **mean** of its
  observations;
- a wall-clock time that does not exist (the skipped spring hour) is **interpolated**
  linearly between the grid values around it (for hourly data: the mean of 01:00 and 03:00).

Naive indexes, UTC and fixed offsets have no such jumps: their grid is the series itself.
So is a series whose frequency has no fixed length (months, business days).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.timezones import from_local

DAY_NS = 86_400 * 10**9


@dataclass
class Grid:
    """One series on its wall-clock grid.

    Attributes
    ----------
    values : ndarray of shape (G, C)
        History on the grid; the last row is the latest wall-clock time observed (the origin).
    times : ndarray of int64, shape (G,)
        Local wall-clock time of each grid position, nanoseconds since 1970 (naive).
    step : int or None
        Grid spacing in nanoseconds; None when the frequency has no fixed length.
    row_pos : ndarray of int, shape (T,)
        Grid position of each row of the original series.
    """

    values: np.ndarray
    times: np.ndarray
    step: int | None
    row_pos: np.ndarray

    @property
    def origin(self) -> int:
        return len(self.values) - 1


def fixed_step(freq: pd.DateOffset) -> int | None:
    """Length of one step in nanoseconds, or None for calendar frequencies."""
    try:
        # pandas-stubs take only Tick offsets; a calendar one raises ValueError, caught below
        return int(pd.Timedelta(freq).value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def local_times(index: pd.DatetimeIndex, timezone: str | None) -> np.ndarray:
    """Naive local wall-clock times (ns) of ``index``; a naive index is local already."""
    if index.tz is not None:
        index = index.tz_convert(timezone or index.tz).tz_localize(None)
    return index.as_unit("ns").asi8


def instants(times: np.ndarray, timezone: str | None, tz: str | None) -> pd.DatetimeIndex:
    """Timestamps, in the zone ``tz`` of the data, of local wall-clock times ``times`` (ns).

    The inverse of :func:`local_times`: a time skipped or repeated on the clock of
    ``timezone`` (default ``tz``) is NaT (:func:`forecast.frames.timezones.from_local`).
    """
    wall = pd.DatetimeIndex(np.asarray(times, dtype="datetime64[ns]"))
    if tz is None:
        return wall
    return from_local(wall, timezone or tz).tz_convert(tz)


def rows_to_grid(rows: np.ndarray, pos: np.ndarray, n: int) -> np.ndarray:
    """Place ``rows`` (T, K) at grid positions ``pos`` (T,) of a grid of ``n`` positions.

    Positions hit twice hold the mean; positions never hit are interpolated linearly.
    """
    counts = np.bincount(pos, minlength=n)  # (n,)
    sums = np.zeros((n, rows.shape[1]))
    np.add.at(sums, pos, rows)
    seen = counts > 0
    values = np.empty_like(sums)
    values[seen] = sums[seen] / counts[seen, None]
    if not seen.all():
        at = np.flatnonzero(seen)
        missing = np.flatnonzero(~seen)
        for c in range(values.shape[1]):
            values[missing, c] = np.interp(missing, at, values[seen, c])
    return values


def to_grid(y: np.ndarray, wall: np.ndarray, step: int | None) -> Grid:
    """Put rows ``y`` (T, C) with local times ``wall`` (T,) on their wall-clock grid."""
    y = np.asarray(y, dtype=float)
    wall = np.asarray(wall, dtype=np.int64)
    if step is None or len(wall) < 2:
        return Grid(y, wall, step, np.arange(len(y)))
    offset = wall - wall.min()
    if (offset % step).any():  # a clock change that is not a whole number of steps
        return Grid(y, wall, None, np.arange(len(y)))
    pos = offset // step
    if (np.diff(pos) == 1).all():  # no clock change: the grid is the series
        return Grid(y, wall, step, np.arange(len(y)))
    n = int(pos.max()) + 1
    times = wall.min() + np.arange(n, dtype=np.int64) * step
    return Grid(rows_to_grid(y, pos, n), times, step, pos)


def series_grid(
    y: np.ndarray, index: pd.DatetimeIndex, timezone: str | None, freq: pd.DateOffset
) -> Grid:
    """Build the wall-clock grid of one series (a tz-aware index: in the zone ``timezone``)."""
    wall = local_times(index, timezone)
    step = fixed_step(freq)
    if index.tz is None:
        return Grid(np.asarray(y, dtype=float), wall, step, np.arange(len(y)))
    return to_grid(y, wall, step)


def target_positions(
    grid: Grid,
    last: pd.Timestamp,
    freq: pd.DateOffset,
    horizon: int,
    timezone: str | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Grid positions and local times of the ``horizon`` timestamps after ``last``.

    Returns
    -------
    pos : ndarray of int, shape (horizon,)
        Grid position of each forecast timestamp (may repeat in autumn, skip in spring, and
        lie at or before the origin when the origin is inside a repeated hour).
    times : ndarray of int64, shape (max(pos) - origin,)
        Local times of the grid positions after the origin up to the last target.
    """
    future = validation.future_index(last, freq, horizon)
    wall = local_times(future, timezone)
    if grid.step is None:
        pos = grid.origin + np.arange(1, horizon + 1)
        return pos, wall
    pos = grid.origin + (wall - grid.times[-1]) // grid.step
    n_new = max(int(pos.max()) - grid.origin, 0)
    times = grid.times[-1] + np.arange(1, n_new + 1, dtype=np.int64) * grid.step
    return pos, times


def latest_same_phase(target: np.ndarray, origin: np.ndarray | int, period: int) -> np.ndarray:
    """Position ``target - m * period`` with the smallest ``m >= 1`` at or before ``origin``."""
    lead = np.asarray(target) - origin
    m = np.maximum(1, -(-lead // period))  # ceil(lead / period), at least one period back
    return target - m * period


def phase_of(times: np.ndarray, step: int | None, n_phases: int) -> np.ndarray:
    """Time-of-day slot (0 .. n_phases - 1) of local times ``times``."""
    if n_phases == 1:
        return np.zeros(len(times), dtype=np.int64)
    return (times % DAY_NS) // step


def steps_per_day(step: int | None) -> int:
    """Grid steps per local day for sub-daily data whose step divides a day, else 1."""
    if step is None or step >= DAY_NS or DAY_NS % step:
        return 1
    return DAY_NS // step
