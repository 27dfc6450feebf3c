"""Times in steps of the data: durations as step counts, training origins as step masks."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from forecast.frames.series import SeriesArrays


def steps(value: object, name: str, freq: pd.DateOffset) -> int:
    """Turn an int or a duration string into a whole number of steps of ``freq``.

    Parameters
    ----------
    value : int or str
        Steps (an int >= 1) or a duration such as ``"7D"``, a whole multiple of ``freq``.
    name : str
        Parameter name used in error messages.
    freq : DateOffset
        Frequency of the data.

    Returns
    -------
    int
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 1:
        return int(value)
    message = (
        f"{name}={value!r} must be an int >= 1 or a duration such as '7D' that is a whole "
        f"multiple of the data frequency {freq.freqstr}"
    )
    if isinstance(value, str):
        try:
            # pandas-stubs: Timedelta takes Tick offsets only; calendar ones raise, caught below
            span, step = pd.Timedelta(value), pd.Timedelta(freq)  # type: ignore[arg-type]
        except (TypeError, ValueError) as err:
            raise ValueError(message) from err
        if span > pd.Timedelta(0) and span % step == pd.Timedelta(0):
            return int(span // step)
    raise ValueError(message)


def origin_masks(
    origins: int | tuple[str, ...] | None,
    series: Sequence[SeriesArrays],
    freq: pd.DateOffset,
    timezone: str | None,
) -> list[np.ndarray] | None:
    """Per series, which steps may be the origin of a training window (None: every step).

    Parameters
    ----------
    origins : int, tuple of str or None
        Resolved ``train_origins`` (``train_origins_``): every ``k``-th step of each series,
        the steps that end at these local clock times ``"HH:MM"``, or None (every step).
    series : sequence of SeriesArrays
        The training series.
    freq : DateOffset
        Frequency of the data.
    timezone : str or None
        Zone of the clock times (None: the index's zone).

    Returns
    -------
    list of ndarray of bool, one per series, or None
    """
    if origins is None:
        return None
    if isinstance(origins, int | numbers.Integral):  # int: mypy does not see it as Integral
        k = int(origins)
        return [np.arange(len(s.y)) % k == k - 1 for s in series]
    wanted = [pd.Timedelta(f"{t}:00") for t in origins]
    masks = []
    for s in series:
        # the step ending then is the origin (mypy: pandas-stubs' Timedelta takes no DateOffset)
        ends = s.index + pd.Timedelta(freq)  # type: ignore[arg-type]
        if timezone is not None and ends.tz is not None:
            ends = ends.tz_convert(timezone)
        clock = ends - ends.normalize()
        masks.append(np.asarray(clock.isin(wanted)))
    return masks
