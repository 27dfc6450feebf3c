"""Weather features for load forecasting: heating and cooling degrees, local-day means.

Load answers temperature in a V: heating below about 15 degC, cooling above about 22 degC,
little in between. A linear model reads that through the two *degree* columns; the mean
temperature of the local calendar day carries the slower response (buildings' thermal
mass). The functions work row by row on a frame with one value per timestamp and on a
vintage frame (:mod:`forecast.frames.vintages`) alike, where the day mean is taken within each
issue, so a feature never mixes vintages.
"""

from __future__ import annotations

import pandas as pd

from forecast.frames.vintages import ISSUE_COLUMN, VALID_COLUMN, is_vintage_frame

__all__ = ["weather_features"]


def weather_features(
    frame: pd.DataFrame,
    column: str = "temperature_2m",
    *,
    heating_base: float = 15.0,
    cooling_base: float = 22.0,
    day_mean: bool = True,
    timezone: str | None = None,
) -> pd.DataFrame:
    """Return ``frame`` with heating/cooling degree columns and the local-day mean added.

    Parameters
    ----------
    frame : DataFrame
        A frame on a DatetimeIndex, or a vintage frame (``issue_time``, ``valid_time``).
    column : str, default="temperature_2m"
        The temperature column (degC).
    heating_base, cooling_base : float, default=15.0, 22.0
        ``heating_degrees = max(heating_base - T, 0)``, ``cooling_degrees = max(T -
        cooling_base, 0)`` (degree hours on hourly data).
    day_mean : bool, default=True
        Add ``<column>_day_mean``: the mean of ``column`` over the local calendar day of each
        timestamp (within one issue for vintages).
    timezone : str, optional
        Zone of the local days (default: the timestamps' own zone).

    Returns
    -------
    DataFrame
        A new frame (the input is unchanged) with the added columns.

    Raises
    ------
    ValueError
        If ``column`` is missing.
    """
    if column not in frame.columns:
        raise ValueError(f"weather_features: no column {column!r}; found {list(frame.columns)}")
    t = frame[column].astype(float)
    out = frame.assign(
        heating_degrees=(heating_base - t).clip(lower=0.0),
        cooling_degrees=(t - cooling_base).clip(lower=0.0),
    )
    if day_mean:
        vintage = is_vintage_frame(frame)
        stamps = pd.DatetimeIndex(frame[VALID_COLUMN] if vintage else frame.index)
        if timezone is not None and stamps.tz is not None:
            stamps = stamps.tz_convert(timezone)
        days = pd.Series(stamps.tz_localize(None).normalize(), index=frame.index)
        keys = [frame[ISSUE_COLUMN], days] if vintage else [days]
        out[f"{column}_day_mean"] = t.groupby(keys).transform("mean")
    return out
