"""The schedule of a backtest: which origins it issues and which steps it scores.

Everything here works on positions in the (union) index of the data. A :class:`Plan`
holds, per forecast, the position of its origin (the last observed timestamp) and of the
first and last scored step; :func:`make_plan` builds it from the user's settings (a regular
schedule, a list of origins, or the day-ahead market protocol). :func:`refit_chunks` groups
the origins into folds that share one fitted model, and :func:`train_bounds` gives each
fold's training window.

Timestamps label the start of their interval, so the origin of a forecast issued at 12:00
from hourly data is 11:00: the last step whose interval has ended by the issue time. A local
day starts at its first existing local time (:func:`local_day_starts`): midnight, or 01:00
where daylight saving time begins at midnight (America/Santiago, America/Havana, Asia/Beirut).
"""

from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.timezones import from_local, local_day_starts, to_local


class BeyondDataWarning(UserWarning):
    """The test period asked for reaches past the data; only the covered part is scored."""


@dataclass
class Plan:
    """Positions in the data index: the origin and the first/last scored step per forecast."""

    origin_pos: np.ndarray
    first_pos: np.ndarray
    last_pos: np.ndarray
    horizon: int | None
    lead: int | None


def day_ahead_plan(
    index: pd.DatetimeIndex,
    start: str | pd.Timestamp,
    end: str | pd.Timestamp | None = None,
    timezone: str = "Europe/Berlin",
) -> pd.DataFrame:
    """Issue times, origins and scored steps of the day-ahead protocol on ``index``.

    For each local day D of ``[start, end]`` fully covered by ``index``, the forecast is
    issued at 12:00 local time on D-1; its origin is the last step whose interval has ended
    by then (11:00 for hourly data labelled by interval start), and it is scored on every
    step of D in local time (23 or 25 hours on DST days). D starts at its first existing
    local time: midnight, or the end of the DST gap where the clocks jump at midnight.

    Parameters
    ----------
    index : DatetimeIndex
        Regular timestamps (interval starts); a naive index is taken as local time.
    start, end : str or Timestamp
        First and last day of the test period (local time, pandas partial-string rules).
    timezone : str
        Local time zone of the market.

    Returns
    -------
    DataFrame
        One row per day: ``day`` (the local day's start: midnight, or 01:00 where DST begins
        at midnight), ``issue``, ``origin``, ``first`` and
        ``last`` (first and last scored timestamp, in the index's time zone) and
        ``n_steps`` (steps scored).
    """
    plan = _day_ahead_positions(
        index, fixed_step(validation.infer_freq(index)), start, end, timezone
    )
    first = index[plan.first_pos]
    days = to_local(first, timezone)  # complete days begin with their first step
    issue = _localize(_wall(days).normalize() - pd.Timedelta("12h"), days.tz)
    return pd.DataFrame(
        {
            "day": days,
            "issue": issue,
            "origin": index[plan.origin_pos],
            "first": first,
            "last": index[plan.last_pos],
            "n_steps": plan.last_pos - plan.first_pos + 1,
        }
    )


def make_plan(
    index: pd.DatetimeIndex,
    *,
    protocol: str | None,
    horizon: int | None,
    origins: Any,
    start: Any,
    end: Any,
    lead: int,
    timezone: str,
) -> Plan:
    """Validate the schedule settings of :func:`forecast.backtest` and place them."""
    freq = validation.infer_freq(index)
    if protocol == "day-ahead":
        fixed = {"horizon": horizon, "origins": origins, "lead": lead or None}
        given = [k for k, v in fixed.items() if v is not None]
        if given:
            raise ValueError(f"protocol='day-ahead' sets {given} itself; do not pass them")
        return _day_ahead_positions(index, fixed_step(freq), start, end, timezone)
    if protocol is not None:
        raise ValueError(f"protocol must be None or 'day-ahead', got {protocol!r}")
    if horizon is None:
        raise ValueError("horizon is required unless protocol='day-ahead' sets it")
    horizon = validation.check_horizon(horizon)
    if isinstance(lead, bool) or not isinstance(lead, int | np.integer) or lead < 0:
        raise ValueError(f"lead must be a non-negative int, got {lead!r}")
    n = len(index)
    if origins is not None and not isinstance(origins, str | pd.DateOffset | pd.Timedelta):
        if start is not None or end is not None:
            raise ValueError("give either a list of origins or start/end, not both")
        stamps = pd.DatetimeIndex(origins)
        pos = index.get_indexer(stamps)
        if (pos < 0).any():
            raise ValueError(
                f"origin {stamps[int(np.argmax(pos < 0))]} is not a timestamp of the data"
            )
        beyond = pos + lead + horizon >= n
        if beyond.any():
            raise ValueError(
                f"origin {stamps[int(np.argmax(beyond))]}: lead {lead} + horizon {horizon} steps "
                f"run past the end of the data at {index[-1]}"
            )
        pos = np.unique(pos)
    else:
        if start is None:
            raise ValueError("start (the beginning of the test period) is required")
        lo, hi = _period(index, start, end, timezone)
        pos = _scheduled(index, freq, origins, lo, hi, lead, timezone, horizon)
        pos = np.unique(pos[(pos >= 0) & (pos + lead + 1 >= lo) & (pos + lead + horizon <= hi)])
        if len(pos) == 0:
            raise ValueError(
                f"no forecast of lead {lead} + horizon {horizon} steps fits in the test period "
                f"{index[lo]} .. {index[hi]} with origins={origins!r}"
            )
    return Plan(pos, pos + lead + 1, pos + lead + horizon, horizon, lead)


def _scheduled(
    index: pd.DatetimeIndex,
    freq: pd.DateOffset,
    origins: Any,
    lo: int,
    hi: int,
    lead: int,
    timezone: str,
    horizon: int,
) -> np.ndarray:
    """Candidate origin positions of a schedule (filtered to the test period by the caller)."""
    if origins is None:
        return np.arange(lo - lead - 1, hi + 1, horizon)
    step = fixed_step(freq)
    if isinstance(origins, str) and re.fullmatch(r"\d{1,2}:\d{2}", origins):
        local = to_local(index, timezone)
        wall = _wall(local[[0, hi]]).normalize()
        days = pd.date_range(wall[0], wall[1], freq="D")
        issues = _localize(days + pd.Timedelta(f"{origins}:00"), local.tz).dropna()
        return _last_complete(index, step, issues)
    try:
        every = pd.tseries.frequencies.to_offset(origins)
    except ValueError as err:
        raise ValueError(
            f"origins must be None, 'HH:MM', an offset alias like '7D' or a list of timestamps; "
            f"got {origins!r}"
        ) from err
    stamps = pd.date_range(index[max(lo - lead - 1, 0)], index[hi], freq=every)
    return index.searchsorted(stamps, side="right") - 1


def _day_ahead_positions(
    index: pd.DatetimeIndex, step: pd.Timedelta, start: Any, end: Any, timezone: str
) -> Plan:
    if start is None:
        raise ValueError("start (the first day of the test period) is required for 'day-ahead'")
    lo, hi = _period(index, start, end, timezone)
    local = to_local(index[lo : hi + 1], timezone)
    days = pd.DatetimeIndex(_wall(local).normalize().unique())
    starts = local_day_starts(days, local.tz)
    ends = local_day_starts(days + pd.Timedelta("1D"), local.tz)
    issues = _localize(days - pd.Timedelta("12h"), local.tz)
    first = index.searchsorted(starts)
    last = index.searchsorted(ends) - 1
    origin = _last_complete(index, step, issues)
    expected = np.asarray((ends - starts) / step).round().astype(int)
    complete = (last - first + 1 == expected) & (origin >= 0)
    complete &= index[np.minimum(first, len(index) - 1)] == starts
    if not complete.any():
        raise ValueError(
            f"no complete local day in the test period {index[lo]} .. {index[hi]} with 12:00 "
            f"of the day before inside the data (data start {index[0]})"
        )
    return Plan(origin[complete], first[complete], last[complete], None, None)


def _last_complete(
    index: pd.DatetimeIndex, step: pd.Timedelta, issues: pd.DatetimeIndex
) -> np.ndarray:
    """Position of the last step whose interval has ended at each issue time (-1 if none)."""
    return (index + step).searchsorted(issues, side="right") - 1


# ------------------------------------------------------------------------------ folds
def refit_chunks(n_origins: int, refit_every: int | None) -> list[np.ndarray]:
    """Origin numbers of each fold: consecutive groups of ``refit_every`` (None: one fold)."""
    if refit_every is None:
        return [np.arange(n_origins)]
    if isinstance(refit_every, bool) or not isinstance(refit_every, int) or refit_every < 1:
        raise ValueError(f"refit_every must be None or a positive int, got {refit_every!r}")
    return [np.arange(i, min(i + refit_every, n_origins)) for i in range(0, n_origins, refit_every)]


def check_window(window: str, train_size: Any) -> None:
    """Validate the training-window settings (``window`` and ``train_size``)."""
    if window == "expanding":
        if train_size is not None:
            raise ValueError("train_size is only used with window='sliding'")
        return
    if window != "sliding":
        raise ValueError(f"window must be 'expanding' or 'sliding', got {window!r}")
    if train_size is None:
        raise ValueError("window='sliding' needs train_size (rows as int, or a duration, '365D')")
    is_int = isinstance(train_size, int | np.integer)
    if isinstance(train_size, bool) or (is_int and train_size < 1):
        raise ValueError(f"train_size must be a positive int or a duration, got {train_size!r}")
    if not isinstance(train_size, int | np.integer):
        pd.Timedelta(train_size)  # raises on a malformed duration


def train_bounds(
    index: pd.DatetimeIndex, first_pos: int, window: str, train_size: Any
) -> tuple[pd.Timestamp, pd.Timestamp]:
    """First and last timestamp of the training window of a fold whose first origin is given."""
    hi = index[first_pos]
    if window == "expanding":
        return index[0], hi
    if isinstance(train_size, int | np.integer):
        return index[max(0, first_pos - int(train_size) + 1)], hi
    return index[int(index.searchsorted(hi - pd.Timedelta(train_size), side="right"))], hi


# ------------------------------------------------------------------------------- time
def _wall(local: pd.DatetimeIndex) -> pd.DatetimeIndex:
    """Wall-clock times of a local index, naive (``normalize`` then never meets a DST gap)."""
    return local.tz_localize(None) if local.tz is not None else local


def _period(index: pd.DatetimeIndex, start: Any, end: Any, timezone: str) -> tuple[int, int]:
    """Positions of the first and last timestamp of the test period [start, end].

    Bounds are compared with local wall-clock time (strings by pandas' partial-string
    resolution, ``"2023-09-03"`` being the whole day), so a bound on a day that starts with
    a DST gap needs no local midnight. Raises when the period holds no timestamp of the
    data; warns (:class:`BeyondDataWarning`) when ``end`` reaches past the data's last step.
    """
    local = to_local(index, timezone)
    inside = np.ones(len(index), dtype=bool)
    if start is not None:
        inside &= _within(local, start, upper=False)
    if end is not None:
        inside &= _within(local, end, upper=True)
    pos = np.flatnonzero(inside)
    if len(pos) == 0:
        if start is not None and not _within(local[-1:], start, upper=False).any():
            raise ValueError(
                f"test period start={start!r} holds no timestamp of the data: it lies beyond "
                f"the data's last timestamp {index[-1]}, nothing to score"
            )
        raise ValueError(
            f"test period start={start!r} end={end!r} holds no timestamp of the data "
            f"({index[0]} .. {index[-1]})"
        )
    if end is not None and len(local) > 1:
        after = local[-1:] + (local[-1] - local[-2])  # the end of the data's last interval
        if _within(after, end, upper=True).any():
            warnings.warn(
                f"test period end={end!r} lies beyond the data's last timestamp {index[-1]}: "
                f"only the period up to {index[pos[-1]]} is scored",
                BeyondDataWarning,
                stacklevel=_user_level(),
            )
    return int(pos[0]), int(pos[-1])


def _user_level() -> int:
    """``stacklevel`` of the first caller outside the package, for warnings of ``_period``."""
    package = str(Path(__file__).resolve().parents[1])
    frame: FrameType | None = sys._getframe(2)  # frame 1 is _period, which warns
    level = 2
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _within(local: pd.DatetimeIndex, bound: Any, upper: bool) -> np.ndarray:
    """Whether each stamp is at or after (``upper=False``) / at or before a period bound."""
    lo, hi = _span(bound)
    stamps = _wall(local) if lo.tz is None else local  # a naive bound is wall-clock time
    return np.asarray(stamps <= hi if upper else stamps >= lo)


def _span(bound: Any) -> tuple[pd.Timestamp, pd.Timestamp]:
    """First and last instant a bound stands for: ``"2023-09"`` is all of September."""
    stamp = pd.Timestamp(bound)
    if not isinstance(bound, str) or stamp.tz is not None:
        return stamp, stamp
    try:
        period = pd.Period(bound)
    except ValueError:
        return stamp, stamp
    return period.start_time, period.end_time


def _localize(naive: pd.DatetimeIndex, tz: tzinfo | str | None) -> pd.DatetimeIndex:
    if tz is None:
        return naive
    return from_local(naive, tz)


def fixed_step(freq: pd.DateOffset) -> pd.Timedelta:
    """Length of one step of ``freq``; raises for calendar frequencies (months, ...)."""
    try:
        # pandas-stubs take only Tick offsets; a calendar one raises ValueError, caught below
        return pd.Timedelta(freq)  # type: ignore[arg-type]
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"this schedule needs a fixed frequency (hours, minutes, days); the data are {freq}"
        ) from err
