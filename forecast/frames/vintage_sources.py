"""Vintage frames from what you have: a daily publication schedule, or simulated forecasts.

:func:`daily_vintages` states when a stored forecast column was published (the grid
operators' day-ahead load forecast for day D: by 10:00 on D-1). :func:`simulate_vintages`
turns an observed series (reanalysis temperature) into *simulated* forecast vintages with an
error that grows with the lead time, for when no archive of real forecasts exists; its
output says so in ``DataFrame.attrs`` and every report of its numbers must too.
:func:`perfect_vintages` is the labelled upper bound: the observed values as if forecast.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.vintages import ISSUE_COLUMN, VALID_COLUMN

__all__ = [
    "SIMULATED_T2M_SKILL",
    "daily_vintages",
    "parse_schedule",
    "perfect_vintages",
    "publication_times",
    "simulate_vintages",
]

# Error standard deviation (K) of simulated 2 m temperature forecasts: (at lead 0, growth per
# day of lead), at the level published for single stations (docs/guide/vintages.md: MAE 1.5-2.1
# degC over leads 0-72 h, Kendzierski et al. 2018; about 1.6 K at 48 h in Germany from the
# post-processed CRPS of Rasp and Lerch 2018; growth about 0.33 K per day, WeatherBench IFS
# T850). An area mean of many cities errs less, so these overstate its error.
SIMULATED_T2M_SKILL = (1.5, 0.33)


def parse_schedule(schedule: str) -> tuple[str, int]:
    """``"10:00 D-1"`` -> ``("10:00", 1)``: a daily publication time and the days before D."""
    parts = str(schedule).split()
    try:
        time, day = parts if len(parts) == 2 else (parts[0], "D-0")
        hours, minutes = (int(p) for p in time.split(":"))
        days = int(day.upper().removeprefix("D")) if day.upper() != "D" else 0
        valid = len(parts) in (1, 2) and 0 <= hours < 24 and 0 <= minutes < 60 and days <= 0
    except (ValueError, IndexError):
        valid = False
    if not valid:
        raise ValueError(
            f"publication schedule {schedule!r}: expected 'HH:MM D-k' (values for local day D "
            "published at HH:MM on day D-k), e.g. '10:00 D-1'"
        )
    return f"{hours:02d}:{minutes:02d}", -days


def publication_times(
    index: pd.DatetimeIndex, time: str, days_before: int, timezone: str | None = None
) -> pd.DatetimeIndex:
    """When the values at ``index`` were published: at local ``time`` on day D-``days_before``.

    The one rule for daily publications (the grid operators' day-ahead load forecast:
    ``"10:00"``, 1 day before). Local days and ``time`` are in ``timezone`` (default: the
    index's zone; naive: as is). A publication time the zone skips moves forward to the
    first existing instant. The result is in the index's zone.
    """
    zone = timezone or (str(index.tz) if index.tz is not None else None)
    local = index if zone is None or index.tz is None else index.tz_convert(zone)
    days = pd.DatetimeIndex(local.tz_localize(None).normalize())
    hours, minutes = (int(p) for p in time.split(":"))
    issue = days - pd.Timedelta(days=days_before) + pd.Timedelta(hours=hours, minutes=minutes)
    if zone is not None:
        issue = issue.tz_localize(zone, nonexistent="shift_forward", ambiguous=False)
        if index.tz is not None:
            issue = issue.tz_convert(index.tz)
        else:
            issue = issue.tz_localize(None)
    return issue


def daily_vintages(
    frame: pd.DataFrame,
    columns: Sequence[str],
    *,
    time: str = "10:00",
    days_before: int = 1,
    timezone: str | None = None,
) -> pd.DataFrame:
    """One vintage per local day: the values for day D were issued at ``time`` on D-``days_before``.

    Parameters
    ----------
    frame : DataFrame
        One value per timestamp (DatetimeIndex), e.g. the stored operators' forecast.
    columns : sequence of str
        Columns to turn into vintages.
    time : str, default="10:00"
        Local publication time ``"HH:MM"``.
    days_before : int, default=1
        Days between publication and the day the values are for.
    timezone : str, optional
        Zone of the local days and of ``time``; default: the index's zone (naive: as is).

    Returns
    -------
    DataFrame
        Vintage frame: ``issue_time``, ``valid_time`` and ``columns``, one row per
        timestamp of ``frame`` (rows with a NaN in ``columns`` are dropped).
    """
    validation.check_index(frame, None)
    index = pd.DatetimeIndex(frame.index)
    issue = publication_times(index, time, days_before, timezone)
    out = pd.DataFrame({ISSUE_COLUMN: issue, VALID_COLUMN: index})
    for column in columns:
        out[column] = frame[column].to_numpy(dtype=float)
    return out.dropna(subset=list(columns)).reset_index(drop=True)


def perfect_vintages(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Return the observed values as if forecast long before: an UPPER BOUND, never a default.

    One vintage, issued a day before the first timestamp, holds every observed value, so
    each origin reads the truth. Nobody can forecast with these in operation; report results
    with them as "perfect forecast (observed values)". ``attrs["vintages"]`` says so.

    Parameters
    ----------
    frame : DataFrame
        Observed values, one per timestamp (DatetimeIndex).
    columns : sequence of str
        Columns to turn into vintages.

    Returns
    -------
    DataFrame
        Vintage frame: ``issue_time``, ``valid_time`` and ``columns``.
    """
    out = daily_vintages(frame, columns, time="00:00", days_before=0)
    out[ISSUE_COLUMN] = pd.DatetimeIndex(out[VALID_COLUMN]).min() - pd.Timedelta("1D")
    out.attrs["vintages"] = "perfect (observed values; an upper bound)"
    return out


def simulate_vintages(
    observed: pd.Series,
    issue_times: pd.DatetimeIndex,
    max_lead: str = "48h",
    *,
    error_sd: tuple[float, float] = SIMULATED_T2M_SKILL,
    hourly_correlation: float = 0.97,
    random_state: int = 0,
) -> pd.DataFrame:
    """Simulate forecast vintages of ``observed``: its values plus a lead-dependent error.

    Each issue at ``t`` gives values for the timestamps in ``(t, t + max_lead]``: the
    observation plus an error whose standard deviation is ``a + b * lead_in_days``
    (``error_sd = (a, b)``) and which is smooth along the lead (AR(1) with correlation
    ``hourly_correlation`` per hour); issues draw independent errors.

    Parameters
    ----------
    observed : Series
        Observed values on a regular DatetimeIndex (e.g. reanalysis 2 m temperature).
    issue_times : DatetimeIndex
        When each simulated forecast is issued (same zone as ``observed``).
    max_lead : str, default="48h"
        Longest lead of each issue.
    error_sd : tuple of float, default=SIMULATED_T2M_SKILL
        ``(a, b)``: error standard deviation at lead 0 and its growth per day of lead, in
        the unit of ``observed``.
    hourly_correlation : float, default=0.97
        Correlation of the errors of one issue one hour apart.
    random_state : int, default=0
        Seed.

    Returns
    -------
    DataFrame
        Vintage frame (``issue_time``, ``valid_time``, the series' name), labelled
        ``attrs["vintages"] = "simulated ..."``.
    """
    if not isinstance(observed.index, pd.DatetimeIndex) or len(observed) < 2:
        raise ValueError("observed needs a DatetimeIndex of at least two regular steps")
    name = str(observed.name or "value")
    step = observed.index[1] - observed.index[0]
    leads = int(pd.Timedelta(max_lead) / step)
    rng = np.random.default_rng(random_state)
    a, b = error_sd
    lead_days = np.arange(1, leads + 1) * (step / pd.Timedelta("1D"))
    sd = a + b * lead_days
    rho = hourly_correlation ** (step / pd.Timedelta("1h"))
    values = observed.to_numpy(dtype=float)
    position = observed.index.get_indexer(issue_times, method="pad")
    parts = []
    for issue, at in zip(issue_times, position, strict=True):
        pos = int(at)
        z = np.empty(leads)  # drawn for every issue, so the seed fixes each issue's errors
        z[0] = rng.standard_normal()
        for i in range(1, leads):  # AR(1) with unit variance
            z[i] = rho * z[i - 1] + np.sqrt(1 - rho**2) * rng.standard_normal()
        n = int(min(leads, len(values) - pos - 1))  # the observations end: a shorter issue
        if pos < 0 or n <= 0:
            continue
        valid = observed.index[pos + 1 : pos + 1 + n]
        parts.append(
            pd.DataFrame(
                {
                    ISSUE_COLUMN: issue,
                    VALID_COLUMN: valid,
                    name: values[pos + 1 : pos + 1 + n] + sd[:n] * z[:n],
                }
            )
        )
    if not parts:
        raise ValueError(f"no issue time of {len(issue_times)} falls inside observed's span")
    out = pd.concat(parts, ignore_index=True)
    out.attrs["vintages"] = (
        f"simulated: observed + error sd {a} + {b} per day of lead, AR(1) {hourly_correlation}/h"
    )
    return out
