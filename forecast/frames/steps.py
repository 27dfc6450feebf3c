"""Times in steps of the data: durations as step counts, training origins as step masks."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.frames.series import SeriesArrays


def steps(value: object, name: str, freq: pd.DateOffset, *, round_up: bool = False) -> int:
    """Turn an int or a duration into a whole number of steps of ``freq``.

    The one conversion of a duration parameter (``"7D"``, ``"90min"``) to steps: estimators
    call it in ``fit`` with the data's frequency.

    Parameters
    ----------
    value : int, str, Timedelta or DateOffset
        Steps (an int >= 1) or a duration such as ``"7D"`` or ``"1 day"`` (a string pandas
        reads as a Timedelta or as a fixed offset alias such as ``"h"``), a whole multiple of
        ``freq`` unless ``round_up``.
    name : str
        Parameter name used in error messages.
    freq : DateOffset
        Frequency of the data.
    round_up : bool, default=False
        Round a duration up to whole steps instead of requiring a whole multiple.

    Returns
    -------
    int
        At least 1.

    Raises
    ------
    TypeError
        If ``value`` is a bool.
    ValueError
        If ``value`` is no positive number of steps, no duration, or (unless ``round_up``) not
        a whole multiple of ``freq``; or if ``freq`` has no fixed length.
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int number of steps or a duration, got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"{name} must be a positive number of steps, got {value}")
        return int(value)
    span = duration(value)
    if span is None:
        raise ValueError(
            f"{name}={value!r} is neither an int number of steps nor a fixed time span such as '7D'"
        )
    try:
        # pandas-stubs take only Tick offsets; a calendar one raises ValueError, caught below
        step = pd.Timedelta(freq)  # type: ignore[arg-type]
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"{name}={value!r} is a time span, but the data frequency {freq.freqstr} has no fixed "
            "length; give it as an int number of steps"
        ) from err
    if round_up:
        if span <= pd.Timedelta(0):
            raise ValueError(f"{name} must be a positive time span, got {value!r}")
        return int(-(-span.value // step.value))
    ratio = span / step
    if span <= pd.Timedelta(0) or ratio != int(ratio):
        raise ValueError(
            f"{name}={value!r} is not a positive whole multiple of the data frequency "
            f"{freq.freqstr} ({ratio:g} steps)"
        )
    return int(ratio)


def duration(value: object) -> pd.Timedelta | None:
    """Read ``value`` as a time span; None if it is none.

    Parameters
    ----------
    value : object
        A string pandas reads as a Timedelta (``"7D"``, ``"1 day"``, ``"1W"``) or as a fixed
        offset alias (``"h"``), a Timedelta, or a fixed-length DateOffset.

    Returns
    -------
    Timedelta or None
    """
    if isinstance(value, str):
        try:
            return pd.Timedelta(value)  # "7D", "1 day", "1W"
        except ValueError:
            pass  # a bare offset alias ("D", "h") is read below
    try:
        # to_offset raises TypeError or ValueError on anything else; so does a calendar offset
        span = pd.Timedelta(to_offset(value))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return None if pd.isna(span) else span  # to_offset(None) is None, a NaT span


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
