"""Forecast frames as JSON: rows with ISO-8601 timestamps in the model's zone; errors in one line.

A forecast of one series is indexed by its timestamps; each becomes a row
``{"timestamp": "2023-03-26T03:00:00+02:00", "load": 51234.5, "load_q0.1": ...}`` (the
timestamp with the UTC offset of the model's zone at that step, so a spring DST day has 23
rows with ``+01:00`` then ``+02:00``). A long forecast of several series keeps its ``id``.
NaN becomes ``null``; floats keep every digit (JSON numbers round-trip float64 exactly).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from forecast.frames import validation
from forecast.frames.requests import TIMESTAMP_COLUMN


def forecast_rows(forecast: pd.DataFrame) -> list[dict[str, Any]]:
    """Return the rows of a forecast frame as JSON-ready dicts.

    Parameters
    ----------
    forecast : DataFrame
        What ``estimator.predict`` returned: indexed by timestamps, or a long frame with
        ``id`` and ``time`` columns.

    Returns
    -------
    list of dict
        One dict per row: ``timestamp`` (ISO 8601, with the offset when the model's zone is
        known), ``id`` for several series, then the forecast columns (float or None).
    """
    if isinstance(forecast.index, pd.DatetimeIndex):
        stamps = forecast.index
        table = forecast.reset_index(drop=True)
    else:
        stamps = pd.DatetimeIndex(forecast[validation.TIME_COLUMN])
        table = forecast.drop(columns=validation.TIME_COLUMN).reset_index(drop=True)
    texts = [stamp.isoformat() for stamp in stamps]
    columns = [str(c) for c in table.columns]
    values = table.to_numpy(dtype=object)
    rows = []
    for text, row in zip(texts, values, strict=True):
        item: dict[str, Any] = {TIMESTAMP_COLUMN: text}
        for name, value in zip(columns, row, strict=True):
            item[name] = _json_value(value)
        rows.append(item)
    return rows


def _json_value(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def forecast_body(forecast: pd.DataFrame, estimator: Any, horizon: int) -> dict[str, Any]:
    """Return the JSON body answering ``POST /forecast``.

    Parameters
    ----------
    forecast : DataFrame
        What ``estimator.predict`` returned.
    estimator : BaseForecaster
        The served estimator.
    horizon : int
        Steps forecast (per series).

    Returns
    -------
    dict
        ``model`` (class name), ``timezone`` (the fitted zone or None), ``horizon`` and
        ``forecast`` (:func:`forecast_rows`).
    """
    return {
        "model": type(estimator).__name__,
        "timezone": _zone(estimator),
        "horizon": int(horizon),
        "forecast": forecast_rows(forecast),
    }


def _zone(estimator: Any) -> str | None:
    tz = getattr(estimator, "tz_", None)
    return None if tz is None else str(tz)
