"""The schedule of a backtest: which origins it issues and which steps it scores.

Everything here works on positions in the (union) index of the data. A :class:`Plan`
holds, per forecast, the position of its origin (the last observed timestamp) and of the
first and last scored step; :func:`make_plan` builds it from the user's settings (a regular
schedule, a list of origins, or the day-ahead market protocol). :func:`refit_chunks` groups
the origins into folds that share one fitted model, and :func:`train_bounds` gives each
fold's training window.

Timestamps label the start of their interval, so the origin of a forecast issued at 12:00
from hourly data is 11:00: the last step whose interval has ended by the issue time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from forecast.frames import validation as V
from forecast.frames.timezones import to_local


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
    step of D in local time (23 or 25 hours on DST days).

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
        One row per day: ``day`` (local midnight), ``issue``, ``origin``, ``first`` and
        ``last`` (first and last scored timestamp, in the index's time zone) and
        ``n_steps`` (steps scored).
    """
    plan = _day_ahead_positions(index, fixed_step(V.infer_freq(index)), start, end, timezone)
    first = index[plan.first_pos]
    days = to_local(first, timezone).normalize()
    issue = _localize(days.tz_localize(None) - pd.Timedelta("12h"), days.tz)
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
    origins,
    start,
    end,
    lead: int,
    timezone: str,
) -> Plan:
    """Validate the schedule settings of :func:`forecast.backtest` and place them."""
    freq = V.infer_freq(index)
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
    horizon = V.check_horizon(horizon)
    if isinstance(lead, bool) or not isinstance(lead, int | np.integer) or lead < 0:
        raise ValueError(f"lead must be a non-negative int, got {lead!r}")
    n = len(index)
    if origins is not None and not isinstance(origins, str | pd.DateOffset | pd.Timedelta):
        if start is not None or end is not None:
            raise ValueError("give either a list of origins or start/end, not both")
        stamps = pd.DatetimeIndex(origins)
        pos = index.get_indexer(stamps)
        if (pos < 0).any():
            raise ValueError(f"origin {stamps[np.argmax(pos < 0)]} is not a timestamp of the data")
        beyond = pos + lead + horizon >= n
        if beyond.any():
            raise ValueError(
                f"origin {stamps[np.argmax(beyond)]}: lead {lead} + horizon {horizon} steps run "
                f"past the end of the data at {index[-1]}"
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


def _scheduled(index, freq, origins, lo, hi, lead, timezone, horizon) -> np.ndarray:
    """Candidate origin positions of a schedule (filtered to the test period by the caller)."""
    if origins is None:
        return np.arange(lo - lead - 1, hi + 1, horizon)
    step = fixed_step(freq)
    if isinstance(origins, str) and re.fullmatch(r"\d{1,2}:\d{2}", origins):
        local = to_local(index, timezone)
        days = pd.date_range(
            local[0].normalize().tz_localize(None),
            local[hi].normalize().tz_localize(None),
            freq="D",
        )
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


def _day_ahead_positions(index, step: pd.Timedelta, start, end, timezone) -> Plan:
    if start is None:
        raise ValueError("start (the first day of the test period) is required for 'day-ahead'")
    lo, hi = _period(index, start, end, timezone)
    local = to_local(index[lo : hi + 1], timezone)
    days = pd.DatetimeIndex(local.normalize().tz_localize(None).unique())
    starts = _localize(days, local.tz)
    ends = _localize(days + pd.Timedelta("1D"), local.tz)
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


def _last_complete(index: pd.DatetimeIndex, step: pd.Timedelta, issues) -> np.ndarray:
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


def check_window(window: str, train_size) -> None:
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


def train_bounds(index: pd.DatetimeIndex, first_pos: int, window: str, train_size) -> tuple:
    """First and last timestamp of the training window of a fold whose first origin is given."""
    hi = index[first_pos]
    if window == "expanding":
        return index[0], hi
    if isinstance(train_size, int | np.integer):
        return index[max(0, first_pos - int(train_size) + 1)], hi
    return index[index.searchsorted(hi - pd.Timedelta(train_size), side="right")], hi


# ------------------------------------------------------------------------------- time
def _period(index, start, end, timezone) -> tuple[int, int]:
    """Positions of the first and last timestamp of the test period [start, end]."""
    local = to_local(index, timezone)
    pos = pd.Series(np.arange(len(index)), index=local)
    sel = pos.loc[_bound(start, local.tz) : _bound(end, local.tz)]
    if sel.empty:
        raise ValueError(
            f"test period start={start!r} end={end!r} holds no timestamp of the data "
            f"({index[0]} .. {index[-1]})"
        )
    return int(sel.iloc[0]), int(sel.iloc[-1])


def _bound(value, tz):
    if value is None or isinstance(value, str):
        return value
    value = pd.Timestamp(value)
    if tz is not None and value.tz is None:
        return value.tz_localize(tz)
    return value


def _localize(naive: pd.DatetimeIndex, tz) -> pd.DatetimeIndex:
    if tz is None:
        return naive
    return naive.tz_localize(tz, ambiguous="NaT", nonexistent="NaT")


def fixed_step(freq) -> pd.Timedelta:
    """Length of one step of ``freq``; raises for calendar frequencies (months, ...)."""
    try:
        return pd.Timedelta(freq)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"this schedule needs a fixed frequency (hours, minutes, days); the data are {freq}"
        ) from err
