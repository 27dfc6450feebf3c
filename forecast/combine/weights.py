"""Weights of an ensemble: one per member, or one row of them per hour of day.

:func:`check_weights` turns the ``weights``/``weights_by`` parameters of
:class:`forecast.EnsembleForecaster` into the normalised ``weights_`` array (shape
``(n_members,)`` or ``(24, n_members)``), with messages naming the row and member at fault;
:func:`target_hours` reads the clock hour of each row of a forecast frame, the row of
weights that combines it.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation as V

HOURS = 24
WEIGHTS_BY = (None, "hour")


def check_weights(weights: object, weights_by: object, names: list[str]) -> np.ndarray:
    """Normalised weights: ``(n,)`` for ``weights_by=None``, ``(24, n)`` for ``"hour"``."""
    if not (weights_by is None or (isinstance(weights_by, str) and weights_by == "hour")):
        raise ValueError(
            "weights_by must be None (one weight per member) or 'hour' (one row of weights "
            f"per hour of day 0-23), got {weights_by!r}"
        )
    if weights_by is None:
        return _flat(weights, len(names))
    return _hourly(weights, names)


def _flat(weights: object, n: int) -> np.ndarray:
    if weights is None:
        return np.full(n, 1.0 / n)
    w = weights
    if isinstance(w, str | bytes) or not isinstance(w, Sequence | np.ndarray):
        raise TypeError(f"weights must be a sequence of {n} numbers or None, got {w!r}")
    for i, value in enumerate(w):
        if isinstance(value, Sequence | np.ndarray) and not isinstance(value, str):
            raise TypeError(
                f"weights[{i}] must be a number, got {value!r} (for one row of weights per "
                "hour of day, pass weights_by='hour')"
            )
    if len(w) != n:
        raise ValueError(f"weights has {len(w)} value(s) for {n} estimators: give one each")
    for i, value in enumerate(w):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"weights[{i}] must be a number, got {value!r}")
        # numpy's stubs take float, not numbers.Real; np.isfinite decides what is accepted
        if not np.isfinite(value) or value < 0:  # type: ignore[call-overload]
            raise ValueError(f"weights[{i}] = {value!r}: weights must be finite and >= 0")
    total = float(sum(float(v) for v in w))
    if total == 0:
        raise ValueError(f"weights {list(w)} are all zero: at least one must be positive")
    return np.array([float(v) / total for v in w])


def _hourly(weights: object, names: list[str]) -> np.ndarray:
    n = len(names)
    if weights is None:
        return np.full((HOURS, n), 1.0 / n)
    shape = (
        f"weights_by='hour': weights must be {HOURS} x {n} ({HOURS} rows for the hours 0-23, "
        f"each one weight per member {names})"
    )
    rows = _rows(weights, names, shape)
    if len(rows) != HOURS:
        raise ValueError(f"{shape}; found {len(rows)} row(s)")
    out = np.empty((HOURS, n))
    for hour, row in enumerate(rows):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence | np.ndarray):
            raise TypeError(f"{shape}; found weights[{hour}] = {row!r}, not a row of numbers")
        if len(row) != n:
            raise ValueError(f"{shape}; found {len(row)} value(s) in weights[{hour}] (hour {hour})")
        for i, value in enumerate(row):
            where = f"weights[{hour}][{i}] (hour {hour}, member {names[i]!r})"
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{where} must be a number, got {value!r}")
            if not np.isfinite(value) or value < 0:  # type: ignore[call-overload]  # as above
                raise ValueError(f"{where} = {value!r}: weights must be finite and >= 0")
            out[hour, i] = float(value)
        total = out[hour].sum()
        if total == 0:
            raise ValueError(
                f"weights[{hour}] (hour {hour}) is all zero: at least one member needs a "
                "positive weight in every hour"
            )
        out[hour] /= total
    return out


def _rows(weights: object, names: list[str], shape: str) -> list[Any]:
    """Return the rows of a list of lists, a 2-D array or a DataFrame (hours x members)."""
    if isinstance(weights, pd.DataFrame):
        columns = list(weights.columns)
        if len(columns) != len(names) or set(columns) != set(names):
            raise ValueError(
                f"weights: a DataFrame needs one column per member {names}, found columns {columns}"
            )
        hours = list(weights.index)
        integral = all(isinstance(h, numbers.Integral) and not isinstance(h, bool) for h in hours)
        if not integral or sorted(int(h) for h in hours) != list(range(HOURS)):
            raise ValueError(
                f"{shape}; a DataFrame needs the hours 0-23 as its index, found "
                f"{len(hours)} row(s) labelled {hours[:5]}{' ...' if len(hours) > 5 else ''}"
            )
        ordered = weights.loc[list(range(HOURS)), names]
        return [list(ordered.iloc[h]) for h in range(HOURS)]
    if isinstance(weights, np.ndarray):
        if weights.ndim != 2:
            raise ValueError(f"{shape}; found an array of shape {weights.shape}")
        return weights.tolist()
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence):
        raise TypeError(f"{shape}; found {weights!r}")
    return list(weights)


def check_hourly_data(frames: dict[Any, pd.DataFrame], weights_by: object) -> None:
    """Refuse data sampled more coarsely than hourly when weights vary by hour."""
    if weights_by != "hour":
        return
    for key, frame in frames.items():
        index = frame.index
        if not isinstance(index, pd.DatetimeIndex) or len(index) < 2:
            continue  # the members' validation names what is wrong
        steps = index[1:] - index[:-1]  # TimedeltaIndex, in the index's unit
        step = steps.min()
        if step > pd.Timedelta(hours=1):
            raise ValueError(
                f"{V._where(key)}weights_by='hour' needs data sampled at least hourly, but the "
                f"shortest step is {step} (after {index[int(steps.argmin())]}): use "
                "weights_by=None"
            )


def target_hours(forecast: pd.DataFrame, long: bool) -> np.ndarray:
    """Clock hour (0-23) of each row's target time (the ``time`` column if ``long``).

    Forecast times are in the fitted time zone, so this is the local hour; a sub-hourly
    step gets the hour it lies in.
    """
    times = forecast[V.TIME_COLUMN] if long else forecast.index
    return np.asarray(pd.DatetimeIndex(times).hour, dtype=int)
