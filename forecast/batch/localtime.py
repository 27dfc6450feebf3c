"""Local time in a batch forecast: the zone it runs in and the day-ahead horizon.

The zone is ``--timezone`` when given, else the model's ``timezone`` parameter when it has
one, else none: the input's own stamps are kept (naive, one fixed offset or a Parquet
column's zone). Input in several UTC offsets (local time across a daylight-saving change)
needs a zone; without one the batch refuses it rather than silently switching to UTC.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.batch.constants import DAY_AHEAD
from forecast.frames import validation
from forecast.frames.timezones import local_day_starts


def model_timezone(estimator: Any) -> str | None:
    """Return the model's local zone: its ``timezone`` parameter, else the zone it was fitted in.

    The zone a batch run reads input with several UTC offsets in, writes the forecast in and
    takes the issue date from; None for a model fitted on naive timestamps without a
    ``timezone`` (its input's own stamps are kept).
    """
    for zone in (getattr(estimator, "timezone", None), getattr(estimator, "tz_", None)):
        if isinstance(zone, str) and zone:
            return zone
    return None


def to_zone(frame: pd.DataFrame, zone: str | None) -> pd.DataFrame:
    """Return ``frame`` with its tz-aware timestamps converted to ``zone``.

    The DatetimeIndex and a ``time`` column (long frames of several series) are converted;
    naive timestamps and ``zone=None`` leave the frame as it is. The input is not mutated.

    Parameters
    ----------
    frame : DataFrame
        Input history or forecast.
    zone : str or None
        Target zone.

    Returns
    -------
    DataFrame
    """
    if zone is None:
        return frame
    out = frame
    if isinstance(frame.index, pd.DatetimeIndex) and frame.index.tz is not None:
        out = out.set_axis(frame.index.tz_convert(zone), axis=0)
    column = validation.TIME_COLUMN
    if column in frame.columns and isinstance(frame[column].dtype, pd.DatetimeTZDtype):
        out = out.assign(**{column: frame[column].dt.tz_convert(zone)})
    return out


def day_ahead_steps(last: pd.Timestamp, freq: Any) -> int:
    """Return the steps from ``last`` to the end of the next whole local day.

    The forecast starts one step after ``last`` and ends with the last step of the first
    local day that begins at or after its first step: data ending at 23:00 give the next
    day's 24 hours (23 on the spring DST day, 25 in autumn); data ending at 11:00 give the
    rest of today and all of tomorrow (36, 35 or 37 hours). Timestamps label the start of
    their interval; days are calendar days in the zone of ``last`` (naive: its own clock),
    each starting at its first existing local time: where daylight saving time begins at
    midnight (America/Santiago, America/Havana, Asia/Beirut) that day starts at 01:00.

    Parameters
    ----------
    last : Timestamp
        Last timestamp of the history.
    freq : DateOffset or str
        Step of the data; must be a fixed length (not months or business days).

    Returns
    -------
    int
        Number of steps to forecast.
    """
    try:
        step = pd.Timedelta(to_offset(freq))
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"--horizon {DAY_AHEAD} needs data with a fixed step (hours, minutes); the model's "
            f"frequency is {getattr(freq, 'freqstr', freq)}"
        ) from err
    first = last + step
    wall = first.tz_localize(None) if first.tz is not None else first
    days = pd.date_range(wall.normalize(), periods=3, freq="D")  # naive: no DST gap
    starts = local_day_starts(days, first.tz)
    end = starts[2] if starts[0] < first else starts[1]  # a calendar day: 23, 24 or 25 hours
    return int((end - last - pd.Timedelta(1)) // step)
