"""Pyfunc inputs: a request frame turned into the history (and future covariates) of a model.

A request reaches :class:`forecast.tracking.pyfunc.ForecastModel` (or ``forecast serve``) as one
frame. Its timestamps come as the index or as a ``timestamp`` column of datetimes or ISO-8601
strings; :func:`to_history` converts them to the model's time zone by the one rule of
:func:`forecast.frames.timezones.localize_naive`: stamps with a UTC offset (or aware ones) are
exact instants; naive ones are local times in the model's zone, and a local time that does not
exist there or occurs twice is refused, named (send offsets, as ``forecast batch`` writes them).
A model with future covariates reads them from the rows after the history, whose targets are
left empty (:func:`split_future`). A request that names no horizon gets :func:`default_horizon`.
The MLflow pyfunc model, ``forecast serve`` and ``forecast batch`` read requests the same way,
through this module.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.io import parse_timestamps
from forecast.frames.timezones import localize_naive

TIMESTAMP_COLUMN = "timestamp"
DEFAULT_HORIZON = 24


def default_horizon(estimator: Any) -> int:
    """Return the steps a request without a horizon gets.

    Parameters
    ----------
    estimator : BaseForecaster
        The fitted estimator.

    Returns
    -------
    int
        Its ``horizon`` parameter when that is a positive int, else ``DEFAULT_HORIZON`` (24).
    """
    value = getattr(estimator, "horizon", None)
    return int(value) if isinstance(value, int) and value > 0 else DEFAULT_HORIZON


def _to_model_tz(stamps: pd.DatetimeIndex, tz: str | None, where: str) -> pd.DatetimeIndex:
    if tz is None:
        if stamps.tz is not None:
            raise ValueError(
                f"{where} are time-zone aware ({stamps.tz}) but the model was fitted on naive "
                "timestamps: pass naive timestamps in the training data's clock"
            )
        return stamps
    return localize_naive(stamps, tz, where)  # naive: local times in the model's zone


def _fitted_unit(estimator: Any) -> Literal["s", "ms", "us", "ns"]:
    tails = getattr(estimator, "train_tail_", None) or {}
    for frame in tails.values():
        return frame.index.unit
    return "ns"


def to_history(data: pd.DataFrame, estimator: Any) -> pd.DataFrame:
    """Turn a pyfunc input frame into the history frame ``estimator.predict`` expects.

    Parameters
    ----------
    data : DataFrame
        History with a ``DatetimeIndex`` or a ``timestamp`` column (datetimes or ISO-8601
        strings), one column per fitted target (and past covariate); for several series
        also an ``id`` column.
    estimator : BaseForecaster
        The fitted estimator (its time zone and columns are used).

    Returns
    -------
    DataFrame
        Indexed by timestamps in the estimator's time zone (a long frame with an ``id``
        column for several series).
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"history must be a pandas DataFrame, got {type(data).__name__}")
    tz = getattr(estimator, "tz_", None)
    name = getattr(estimator, "index_name_", None)
    if TIMESTAMP_COLUMN in data.columns:
        raw = data[TIMESTAMP_COLUMN]
        where = f"the {TIMESTAMP_COLUMN!r} column's timestamps"
        if pd.api.types.is_datetime64_any_dtype(raw.dtype):
            stamps = pd.DatetimeIndex(raw)
        else:  # ISO-8601 strings, with UTC offsets (exact) or without (local times)
            stamps = parse_timestamps(raw.reset_index(drop=True), where=where)
        stamps = _to_model_tz(stamps, tz, where)
        stamps = stamps.as_unit(_fitted_unit(estimator))  # MLflow casts datetime columns to ns
        frame = data.drop(columns=TIMESTAMP_COLUMN)
        frame.index = stamps.rename(name)
    elif isinstance(data.index, pd.DatetimeIndex):
        frame = data.copy(deep=False)
        frame.index = _to_model_tz(data.index, tz, "the history index's timestamps").rename(name)
    else:
        raise ValueError(
            f"history has no timestamps: expected a DatetimeIndex or a {TIMESTAMP_COLUMN!r} "
            f"column, got a {type(data.index).__name__} and columns {list(data.columns)}"
        )
    if validation.ID_COLUMN in frame.columns:
        frame = frame.rename_axis(validation.TIME_COLUMN).reset_index()
    return frame


def split_future(history: pd.DataFrame, estimator: Any) -> tuple[pd.DataFrame, Any]:
    """Split a history (from :func:`to_history`) into observed rows and future covariates.

    The observed rows of a series end at its last row with a target value; the declared
    ``future_covariates`` are read from all its rows (the ones after carry the forecast
    steps' values). Without future covariates the history is returned whole, with None.

    Parameters
    ----------
    history : DataFrame
        A frame indexed by timestamps, or a long frame with an ``id`` column (and a time
        column or a ``DatetimeIndex``).
    estimator : BaseForecaster
        The fitted estimator (its target columns and future covariates are used).

    Returns
    -------
    history : DataFrame
        The observed rows of each series.
    future : DataFrame or None
        The future covariates of all rows (with ``id`` and time columns for a long frame).
    """
    future_cols = list(getattr(estimator, "future_covariates_", None) or [])
    if not future_cols:
        return history, None
    missing = [c for c in future_cols if c not in history.columns]
    if missing:
        raise ValueError(
            f"the model reads future covariates {future_cols}; the input lacks {missing}: give "
            "them on the history rows and on the rows of the forecast steps after it"
        )
    targets = list(estimator.columns_)
    long = validation.ID_COLUMN in history.columns
    groups = history.groupby(validation.ID_COLUMN, sort=False) if long else [(None, history)]
    observed = []
    for key, part in groups:
        seen = part[targets].notna().to_numpy().any(axis=1)
        if not seen.any():
            where = "" if key is None else f"series {key!r}: "
            raise ValueError(f"{where}no row of the input has a value of the targets {targets}")
        observed.append(part.iloc[: int(np.flatnonzero(seen)[-1]) + 1])
    past = pd.concat(observed) if long else observed[0]
    keys = [c for c in (validation.ID_COLUMN, validation.TIME_COLUMN) if c in history.columns]
    return past, history[keys + future_cols]
