"""Weights of an ensemble: one per member, or one row of them per hour of day or forecast step.

:func:`check_weights` turns the ``weights``/``weights_by`` parameters of
:class:`forecast.EnsembleForecaster` into the normalised ``weights_`` array (shape
``(n_members,)``, ``(24, n_members)`` or ``(n_steps, n_members)``), with messages naming the
row and member at fault; :func:`target_hours` reads the clock hour of each row of a forecast
frame and :func:`target_steps` its step ahead of the origin, the row of weights that
combines it.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence, Sized
from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation as V

HOURS = 24
WEIGHTS_BY = (None, "hour", "step")


def check_weights(weights: object, weights_by: object, names: list[str]) -> np.ndarray:
    """Normalised weights: ``(n,)``, ``(24, n)`` (``"hour"``) or ``(K, n)`` (``"step"``).

    Row ``k`` of step weights combines the forecast step ``k + 1``.
    """
    if not (weights_by is None or (isinstance(weights_by, str) and weights_by in WEIGHTS_BY)):
        raise ValueError(
            "weights_by must be None (one weight per member), 'hour' (one row of weights "
            "per hour of day 0-23) or 'step' (one row per forecast step 1, 2, ...), got "
            f"{weights_by!r}"
        )
    if weights_by is None:
        return _flat(weights, len(names))
    if weights_by == "hour":
        return _hourly(weights, names)
    return _stepwise(weights, names)


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
    rows = _rows(weights, names, shape, list(range(HOURS)))
    if len(rows) != HOURS:
        raise ValueError(f"{shape}; found {len(rows)} row(s)")
    return _checked_rows(rows, names, shape, [f"hour {h}" for h in range(HOURS)], "hour")


def _stepwise(weights: object, names: list[str]) -> np.ndarray:
    n = len(names)
    shape = (
        f"weights_by='step': weights must be K x {n} (row k for forecast step k + 1, as many "
        f"rows as the longest horizon, each one weight per member {names})"
    )
    if weights is None:
        raise ValueError(f"{shape}; found None (equal weights need no weights_by)")
    rows = _rows(weights, names, shape, list(range(1, _n_rows(weights) + 1)))
    if not rows:
        raise ValueError(f"{shape}; found no row")
    labels = [f"step {k + 1}" for k in range(len(rows))]
    return _checked_rows(rows, names, shape, labels, "step")


def _n_rows(weights: object) -> int:
    return len(weights) if isinstance(weights, Sized) else 0


def _checked_rows(
    rows: list[Any], names: list[str], shape: str, labels: list[str], unit: str
) -> np.ndarray:
    """Rows of numbers, one per member, each non-negative, not all zero, normalised."""
    n = len(names)
    out = np.empty((len(rows), n))
    for r, row in enumerate(rows):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence | np.ndarray):
            raise TypeError(f"{shape}; found weights[{r}] = {row!r}, not a row of numbers")
        if len(row) != n:
            raise ValueError(f"{shape}; found {len(row)} value(s) in weights[{r}] ({labels[r]})")
        for i, value in enumerate(row):
            where = f"weights[{r}][{i}] ({labels[r]}, member {names[i]!r})"
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{where} must be a number, got {value!r}")
            if not np.isfinite(value) or value < 0:  # type: ignore[call-overload]  # as above
                raise ValueError(f"{where} = {value!r}: weights must be finite and >= 0")
            out[r, i] = float(value)
        total = out[r].sum()
        if total == 0:
            raise ValueError(
                f"weights[{r}] ({labels[r]}) is all zero: at least one member needs a "
                f"positive weight in every {unit}"
            )
        out[r] /= total
    return out


def _rows(weights: object, names: list[str], shape: str, labels: list[int]) -> list[Any]:
    """Return the rows of a list of lists, a 2-D array or a DataFrame (rows x members).

    A DataFrame's index must hold ``labels`` (the hours 0-23, or the steps 1-K), in any order.
    """
    if isinstance(weights, pd.DataFrame):
        columns = list(weights.columns)
        if len(columns) != len(names) or set(columns) != set(names):
            raise ValueError(
                f"weights: a DataFrame needs one column per member {names}, found columns {columns}"
            )
        index = list(weights.index)
        integral = all(isinstance(h, numbers.Integral) and not isinstance(h, bool) for h in index)
        if not integral or sorted(int(h) for h in index) != labels:
            raise ValueError(
                f"{shape}; a DataFrame needs the {_span(labels)} as its index, found "
                f"{len(index)} row(s) labelled {index[:5]}{' ...' if len(index) > 5 else ''}"
            )
        ordered = weights.loc[labels, names]
        return [list(ordered.iloc[r]) for r in range(len(labels))]
    if isinstance(weights, np.ndarray):
        if weights.ndim != 2:
            raise ValueError(f"{shape}; found an array of shape {weights.shape}")
        return weights.tolist()
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence):
        raise TypeError(f"{shape}; found {weights!r}")
    return list(weights)


def _span(labels: list[int]) -> str:
    return "hours 0-23" if labels and labels[0] == 0 else f"steps 1-{len(labels)}"


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


def target_steps(forecast: pd.DataFrame, long: bool, keys: list[str]) -> np.ndarray:
    """Step ahead of its origin (1, 2, ...) of each row of a forecast frame.

    A wide forecast (``long=False``) holds one origin's steps in order; a long one
    (``predict_origins``) is ranked by ``time`` within each origin (and series) of ``keys``.
    """
    if not long:
        return np.arange(1, len(forecast) + 1)
    groups = [k for k in keys if k != V.TIME_COLUMN]
    times = forecast[V.TIME_COLUMN]
    if not groups:
        return np.asarray(times.rank(method="first"), dtype=int)
    ranks = forecast.groupby(groups, sort=False)[V.TIME_COLUMN].rank(method="first")
    return np.asarray(ranks, dtype=int)
