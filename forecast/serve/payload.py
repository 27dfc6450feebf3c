"""A ``POST /forecast`` body (parsed JSON) turned into the arguments of ``estimator.predict``.

The body is an object::

    {"history": [{"timestamp": "2023-03-25T00:00:00+01:00", "load": 51234.0}, ...],
     "horizon": 24, "quantiles": "0.1,0.9", "future": [...]}

``history`` is a list of rows (objects) or an object of equally long columns (lists), with a
``timestamp`` field, one field per fitted target and past covariate (and ``id`` for several
series). Timestamps are ISO 8601 strings, read by :func:`forecast.frames.io.parse_timestamps`
and put into the model's zone by :func:`forecast.frames.requests.to_history`, the rule the
MLflow pyfunc model and ``forecast batch`` follow. ``horizon`` is a whole number of steps or
``"day-ahead"`` (up to the end of the next whole local day: 23, 24 or 25 hours); without it the
model's default (:func:`forecast.frames.requests.default_horizon`). ``quantiles``: ``"all"``,
levels as text or a list, or ``true``. ``future``: rows of the forecast steps with the future
covariates, for a model that reads some (they may instead follow the history's rows with empty
targets, as in a pyfunc request). ``vintages``: instead of ``future``, rows with an
``issue_time`` and a ``timestamp`` (the valid time) and the covariates; each step reads the
latest value issued at or before the last observed row (:mod:`forecast.frames.vintages`).

A body that is not of this shape raises :class:`PayloadError` (a ``ValueError``) with one
line naming the field, the row and the value; a request that does not fit the model (no row
with one of its targets) raises a plain ``ValueError``; what else the model refuses is raised
later, by ``predict`` (too little history says how many rows it needs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.batch.localtime import DAY_AHEAD, day_ahead_steps
from forecast.frames import validation
from forecast.frames.io import parse_timestamps
from forecast.frames.quantiles import parse_levels
from forecast.frames.requests import TIMESTAMP_COLUMN, default_horizon, split_future, to_history
from forecast.frames.vintages import ISSUE_COLUMN, VALID_COLUMN

FIELDS = ("history", "horizon", "quantiles", "future", "vintages")


class PayloadError(ValueError):
    """The request body is not a forecast request; the message names the field."""


def request_shape() -> str:
    """Return what a request body is, for messages: ``a JSON object with history, ...``."""
    return f"a JSON object with {', '.join(FIELDS)}"


@dataclass
class ForecastRequest:
    """What one request asks of the model: the arguments of ``estimator.predict``.

    Attributes
    ----------
    history : DataFrame
        Observed rows, in the model's zone (a long frame with ``id`` for several series).
    horizon : int
        Steps to forecast.
    quantiles : bool, tuple of float or None
        As ``predict(quantiles=...)`` takes them.
    future : DataFrame or None
        Future covariates (None for a model without them).
    """

    history: pd.DataFrame
    horizon: int
    quantiles: bool | tuple[float, ...] | None
    future: pd.DataFrame | None


def parse_request(body: Any, estimator: Any) -> ForecastRequest:
    """Check a parsed JSON body and turn it into a :class:`ForecastRequest`.

    Parameters
    ----------
    body : object
        The parsed JSON (see the module docstring for its shape).
    estimator : BaseForecaster
        The served, fitted estimator (its zone, columns and covariates are used).

    Returns
    -------
    ForecastRequest

    Raises
    ------
    PayloadError
        The body is not an object, lacks ``history``, has an unknown field, a row without a
        timestamp, a value that is not a number, or a bad ``horizon`` / ``quantiles``.
    """
    if not isinstance(body, dict):
        raise PayloadError(f"the request body must be {request_shape()}, got {_json_type(body)}")
    unknown = [key for key in body if key not in FIELDS]
    if unknown:
        raise PayloadError(
            f"unknown field {_show(unknown[0])} in the request; expected {', '.join(FIELDS)}"
        )
    if "history" not in body:
        raise PayloadError("the request has no 'history' field (the rows to forecast from)")
    frame = rows_frame(body["history"], "history")
    _check_model_columns(frame, estimator)
    if body.get("future") is not None:
        if not getattr(estimator, "future_covariates_", None):
            raise PayloadError(
                "field 'future': the model reads no future covariates; leave the field out"
            )
        frame = pd.concat([frame, rows_frame(body["future"], "future")], ignore_index=True)
    history, future = split_future(to_history(frame, estimator), estimator)
    if body.get("vintages") is not None:
        future = _vintages(body, estimator)
    try:
        quantiles = parse_levels(body.get("quantiles"))
    except (TypeError, ValueError) as err:
        raise PayloadError(f"field 'quantiles': {err}") from None
    horizon = _horizon(body.get("horizon"), history, estimator)
    return ForecastRequest(history, horizon, quantiles, future)


def _check_model_columns(frame: pd.DataFrame, estimator: Any) -> None:
    """Refuse history rows none of which has a target or past covariate of the model."""
    targets = [str(c) for c in getattr(estimator, "columns_", ())]
    past = [str(c) for c in getattr(estimator, "past_covariates_", ())]
    missing = [c for c in targets + past if c not in frame.columns]
    if missing:
        kind = "target" if missing[0] in targets else "past covariate"
        raise ValueError(  # the request does not fit this model: 422, not 400
            f"field 'history': no row has the {kind} {missing[0]!r} (the model reads "
            f"{', '.join(targets + past)}; found {_show(list(frame.columns), 120)}); GET /health "
            "lists the columns"
        )


def _vintages(body: dict[str, Any], estimator: Any) -> pd.DataFrame:
    """Return the ``vintages`` field as a vintage frame (issue time, valid time, covariates)."""
    if not getattr(estimator, "future_covariates_", None):
        raise PayloadError("field 'vintages': the model reads no future covariates")
    if body.get("future") is not None:
        raise PayloadError("give the future covariates as 'future' or as 'vintages', not both")
    given = body["vintages"]
    rows = [dict(row) for row in given if isinstance(row, dict)] if isinstance(given, list) else []
    issued = [row.pop(ISSUE_COLUMN, None) for row in rows]  # copies: the body stays as sent
    if not rows or len(rows) != len(given) or any(value is None for value in issued):
        raise PayloadError(
            f"field 'vintages' must be a list of rows, each with an {ISSUE_COLUMN!r} (when the "
            "values were issued) and a 'timestamp' (when they are valid)"
        )
    bad = next((i for i, value in enumerate(issued) if not isinstance(value, str)), None)
    if bad is not None:
        raise PayloadError(
            f"field 'vintages': {ISSUE_COLUMN!r} at row {bad} is {_json_type(issued[bad])}, "
            "expected an ISO-8601 string such as '2023-03-25T06:00:00+01:00'"
        )
    try:  # read here only to name a malformed one; the vintage reader places them in time
        parse_timestamps(pd.Series(issued), where=f"field 'vintages': {ISSUE_COLUMN!r}")
    except ValueError as err:
        raise PayloadError(str(err)) from None
    frame = rows_frame(rows, "vintages")
    return frame.rename(columns={TIMESTAMP_COLUMN: VALID_COLUMN}).assign(**{ISSUE_COLUMN: issued})


def rows_frame(rows: Any, field: str) -> pd.DataFrame:
    """Return the rows of ``field`` (a list of objects or an object of lists) as a frame.

    The ``timestamp`` field is parsed (offsets kept, naive stamps left naive), ``id`` is
    kept as text, every other field must hold numbers or null (NaN).

    Parameters
    ----------
    rows : list of dict or dict of list
        The field's JSON value.
    field : str
        Its name, for messages.

    Returns
    -------
    DataFrame
        A ``timestamp`` column of datetimes and the other fields, on a RangeIndex.
    """
    if isinstance(rows, list):
        bad = next((i for i, row in enumerate(rows) if not isinstance(row, dict)), None)
        if bad is not None:
            raise PayloadError(
                f"field {field!r}: row {bad} is {_json_type(rows[bad])}, expected an object "
                f'such as {{"{TIMESTAMP_COLUMN}": "2023-03-01T00:00:00+01:00", "load": 1.0}}'
            )
        if not rows:
            raise PayloadError(f"field {field!r} has no rows")
        frame = pd.DataFrame.from_records(rows)
    elif isinstance(rows, dict):
        lengths = {k: len(v) if isinstance(v, list) else None for k, v in rows.items()}
        if any(n is None for n in lengths.values()) or len(set(lengths.values())) > 1:
            raise PayloadError(
                f"field {field!r}: as an object it must map each field to a list, all of one "
                f"length; got lengths {_show(lengths, 120)}"
            )
        frame = pd.DataFrame(rows)
        if frame.empty:
            raise PayloadError(f"field {field!r} has no rows")
    else:
        raise PayloadError(
            f"field {field!r} must be a list of rows (objects), got {_json_type(rows)}"
        )
    if TIMESTAMP_COLUMN not in frame.columns:
        raise PayloadError(f"field {field!r}: the rows have no {TIMESTAMP_COLUMN!r} field")
    raw = frame[TIMESTAMP_COLUMN]
    missing = raw.isna().to_numpy()
    if missing.any():
        raise PayloadError(
            f"field {field!r}: row {int(missing.argmax())} has no {TIMESTAMP_COLUMN!r} value"
        )
    if not all(isinstance(v, str) for v in raw):
        row = next(i for i, v in enumerate(raw) if not isinstance(v, str))
        raise PayloadError(
            f"field {field!r}: {TIMESTAMP_COLUMN!r} at row {row} is {_json_type(raw.iloc[row])}, "
            "expected an ISO-8601 string such as '2023-03-26T03:00:00+02:00'"
        )
    where = f"field {field!r}: {TIMESTAMP_COLUMN!r}"
    try:
        stamps = parse_timestamps(raw.astype(str), where=where)
    except ValueError as err:  # not ISO 8601, or offsets on some stamps only: malformed
        raise PayloadError(str(err)) from None
    if stamps.hasnans:  # '' and 'NaT' parse as missing: a row needs its time
        row = int(stamps.isna().argmax())
        raise PayloadError(
            f"{where} has a value that is not a timestamp: {_show(raw.iloc[row])} at row {row}"
        )
    out: dict[Any, pd.Series] = {TIMESTAMP_COLUMN: pd.Series(stamps, index=frame.index)}
    for column in frame.columns:
        if column == TIMESTAMP_COLUMN:
            continue
        if column == validation.ID_COLUMN:
            out[column] = _ids(frame[column], f"field {field!r}: column {column!r}")
            continue
        out[column] = _numbers(frame[column], f"field {field!r}: column {_show(column)}")
    return pd.DataFrame(out, index=frame.index)


def _numbers(values: pd.Series, where: str) -> pd.Series:
    """Return ``values`` as float64; null is NaN; anything but a finite number is refused."""
    bad = [i for i, v in enumerate(values) if not (v is None or _is_number(v))]
    if bad:
        raise PayloadError(
            f"{where} holds a value that is not a number at row {bad[0]}: "
            f"{_show(values.iloc[bad[0]])}"
        )
    try:
        floats = values.astype("float64")
    except OverflowError:  # an integer past float64's range
        floats = pd.Series([_float(v) for v in values], index=values.index, dtype="float64")
    huge = np.isinf(floats.to_numpy())
    if huge.any():
        row = int(huge.argmax())
        raise PayloadError(
            f"{where} holds a number too large for a float64 (over 1.8e308) at row {row}"
        )
    return floats


def _float(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _ids(values: pd.Series, where: str) -> pd.Series:
    """Return series ids as text; each must be a string or a whole number."""
    bad = [i for i, v in enumerate(values) if not isinstance(v, str | int) or isinstance(v, bool)]
    if bad:
        raise PayloadError(
            f"{where} holds {_json_type(values.iloc[bad[0]])} at row {bad[0]}, expected a "
            "series id (a string or a whole number)"
        )
    return values.astype(str)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _horizon(value: Any, history: pd.DataFrame, estimator: Any) -> int:
    """Return the steps a request asks for (see the module docstring)."""
    if value is None:
        return default_horizon(estimator)
    if value == DAY_AHEAD:
        if validation.TIME_COLUMN in history.columns:
            last = pd.Timestamp(history[validation.TIME_COLUMN].max())
        else:
            last = history.index[-1]
        return day_ahead_steps(last, estimator.freq_)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PayloadError(
            f"field 'horizon' must be a whole number >= 1 or {DAY_AHEAD!r}, got {_show(value)}"
        )
    if value > validation.MAX_HORIZON:
        raise PayloadError(
            f"field 'horizon' is at most {validation.MAX_HORIZON} steps, got {_show(value)}"
        )
    return value


def _show(value: Any, most: int = 60) -> str:
    """``repr(value)``, cut to ``most`` characters: a message quotes, it does not echo."""
    text = repr(value)
    return text if len(text) <= most else f"{text[: most - 5]}...{text[-2:]}"


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return "a number" if _is_number(value) else type(value).__name__
