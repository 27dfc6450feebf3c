"""Checks of a frame's time index: sorted and unique stamps, the sampling frequency, the grid.

Part of the input checks of :mod:`forecast.frames.validation` (which re-exports these names):
every check names the series and the first offending timestamp, and an absurd grid is named
before it is built.
"""

from __future__ import annotations

import warnings
from typing import cast

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset


def _where(series_id: object) -> str:
    return "" if series_id is None else f"series {series_id!r}: "


def check_index(frame: pd.DataFrame, series_id: object = None) -> pd.DatetimeIndex:
    """Check that the index is a sorted DatetimeIndex without duplicates; return it."""
    where = _where(series_id)
    index = frame.index
    if not isinstance(index, pd.DatetimeIndex):
        raise TypeError(
            f"{where}index must be a pandas DatetimeIndex, got {type(index).__name__} "
            f"(set a datetime column as index, e.g. df.set_index('timestamp'))"
        )
    if len(index) == 0:
        raise ValueError(f"{where}frame is empty: no rows")
    if index.hasnans:
        raise ValueError(
            f"{where}index has a missing timestamp (NaT) at row {int(np.argmax(index.isna()))}"
        )
    if index.has_duplicates:
        first = index[index.duplicated()][0]
        raise ValueError(f"{where}duplicated timestamp {first} in the index")
    if not index.is_monotonic_increasing:
        pos = int(np.argmax(np.diff(index.asi8) < 0)) + 1
        raise ValueError(
            f"{where}index is not sorted: timestamp {index[pos]} comes after {index[pos - 1]} "
            "(sort with df.sort_index())"
        )
    return index


def infer_freq(index: pd.DatetimeIndex, series_id: object = None) -> pd.DateOffset:
    """Infer the sampling frequency of a sorted index, which may have gaps.

    Without gaps this is :func:`pandas.infer_freq`. With gaps, the candidates are the
    frequencies of a few runs of three stamps and the most common step; the coarsest of
    them whose grid holds every stamp wins (so daily data with a gap stays calendar-daily
    across a daylight-saving change, and weekdays only are business days). When none
    fits, the most common step is returned and :func:`check_regular` names the stamp off it.
    """
    where = _where(series_id)
    if len(index) < 3:
        raise ValueError(
            f"{where}need at least 3 timestamps to infer the frequency, got {len(index)}"
        )
    if index.freq is not None:
        return _date_offset(to_offset(index.freq))
    freq = _pandas_freq(index)
    if freq is not None:
        return _date_offset(freq)
    steps = pd.Series(index[1:] - index[:-1])
    common = to_offset(pd.Timedelta(steps.mode().iloc[0]))
    starts = np.unique(np.linspace(0, len(index) - 3, min(len(index) - 2, 25)).astype(int))
    candidates = [_pandas_freq(index[i : i + 3]) for i in starts] + [common]
    if common == to_offset(pd.Timedelta("1D")):
        candidates.append(to_offset("B"))  # no run of three business days spans a weekend
    check_grid_size(index, common, series_id)
    best, best_size = common, None
    for candidate in dict.fromkeys(c for c in candidates if c is not None):
        if _grid_steps(index, candidate) > _max_grid(index):
            continue  # a finer grid than the common step cannot hold fewer stamps
        grid = pd.date_range(index[0], index[-1], freq=candidate)
        if len(index.difference(grid)) == 0 and (best_size is None or len(grid) < best_size):
            best, best_size = candidate, len(grid)
    return _date_offset(best)


def _date_offset(freq: pd.offsets.BaseOffset) -> pd.DateOffset:
    # The package annotates frequencies as pd.DateOffset, pandas' documented name for all of
    # them; pandas-stubs type to_offset as returning their base class, BaseOffset.
    return cast(pd.DateOffset, freq)


def _grid_steps(index: pd.DatetimeIndex, freq: pd.offsets.BaseOffset) -> int:
    """Count the ``freq`` grid's steps from the first to the last stamp (0: not a fixed step)."""
    nanos = getattr(freq, "nanos", None) if isinstance(freq, pd.offsets.Tick) else None
    if not nanos:
        return 0  # calendar steps (months, business days) are at most a few per day
    return int((index[-1] - index[0]) // pd.Timedelta(nanos, unit="ns")) + 1


def _max_grid(index: pd.DatetimeIndex) -> int:
    return max(100 * len(index), 10_000_000)


def check_grid_size(
    index: pd.DatetimeIndex, freq: pd.offsets.BaseOffset, series_id: object = None
) -> None:
    """Raise before a regular ``freq`` grid over ``index`` would be absurdly large.

    Stamps a nanosecond apart next to stamps a month apart would ask for a grid of 10**15
    steps (petabytes); the message names the widest step and the common one instead.
    """
    steps = _grid_steps(index, freq)
    if steps <= _max_grid(index):
        return
    widest = int(np.argmax(np.diff(index.asi8))) + 1
    raise ValueError(
        f"{_where(series_id)}irregular timestamps: {index[widest - 1]} and {index[widest]} are "
        f"{index[widest] - index[widest - 1]} apart, but the most common step is "
        f"{freq.freqstr}; a regular {freq.freqstr} grid from {index[0]} to {index[-1]} would "
        f"have {steps} steps for {len(index)} rows: check the timestamps (their unit, stray "
        "stamps) or resample the data"
    )


def _pandas_freq(index: pd.DatetimeIndex) -> pd.offsets.BaseOffset | None:
    with warnings.catch_warnings():  # pandas 3 warns that the return type will change
        warnings.simplefilter("ignore")
        try:
            freq = pd.infer_freq(index)
        except (TypeError, ValueError):
            return None
    return None if freq is None else to_offset(freq)


def check_regular(
    frame: pd.DataFrame, freq: pd.offsets.BaseOffset, fill_gaps: bool, series_id: object = None
) -> pd.DataFrame:
    """Check that ``frame`` lies on a regular ``freq`` grid; insert NaN rows for gaps if asked."""
    where = _where(series_id)
    index = frame.index
    assert isinstance(index, pd.DatetimeIndex)  # check_index ran first
    check_grid_size(index, freq, series_id)
    grid = pd.date_range(index[0], index[-1], freq=freq, name=index.name)
    off_grid = index.difference(grid)
    if len(off_grid):
        raise ValueError(
            f"{where}irregular spacing: timestamp {off_grid[0]} is not on the {freq.freqstr} grid "
            f"starting at {index[0]}"
        )
    missing = grid.difference(index)
    if len(missing) == 0:
        return frame
    if not fill_gaps:
        raise ValueError(
            f"{where}{len(missing)} missing step(s) in the {freq.freqstr} grid, the first at "
            f"{missing[0]} (pass fill_gaps=True to insert and interpolate them)"
        )
    return frame.reindex(grid)


def future_index(
    last: pd.Timestamp, freq: pd.offsets.BaseOffset, horizon: int, name: object = None
) -> pd.DatetimeIndex:
    """Return the ``horizon`` timestamps after ``last`` on the grid of ``freq`` (time zone kept)."""
    return pd.date_range(last, periods=horizon + 1, freq=freq, name=name)[1:]
