"""Covariates that are forecasts themselves: vintages with an issue time and a valid time.

A weather forecast or the grid operators' load forecast is issued again and again; each
issue (a *vintage*) gives values for many future timestamps. A vintage frame is a long
DataFrame with the columns ``issue_time`` (when the values became available), ``valid_time``
(the timestamp they are for), optionally ``id`` (the series), and the covariate columns.

The rule, used by ``predict(future=...)``, ``predict_origins``, ``backtest`` and the
batch and pyfunc paths: the forecast issued at origin ``t`` reads, for each of its steps,
the latest value issued at or before ``t`` (:func:`as_of`). A value issued later is never
read, so revising it cannot change that forecast. Publication delays belong in the issue
time: :func:`available_at` shifts them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.io import parse_timestamps
from forecast.frames.series import SeriesArrays, SeriesEncoder

ISSUE_COLUMN = "issue_time"
VALID_COLUMN = "valid_time"
# What a fit's windows read for the future covariates (``training_covariates_``): the columns
# of the fit data. Vintages are read where forecasts are issued (predict, predict_origins,
# backtest); for the years a model trains on, archives of forecasts rarely exist.
TRAINED_ON_OBSERVED = "observed: the future covariates' values in the fit data, not vintages"

__all__ = [
    "ISSUE_COLUMN",
    "TRAINED_ON_OBSERVED",
    "VALID_COLUMN",
    "as_of",
    "available_at",
    "check_vintages",
    "is_vintage_frame",
    "split_vintages",
    "future_by_series",
    "series_vintages",
    "split_vintage_rows",
    "vintage_futures",
    "with_vintage_steps",
]


def is_vintage_frame(obj: object) -> bool:
    """Return True if ``obj`` is a DataFrame with ``issue_time`` and ``valid_time`` columns."""
    return isinstance(obj, pd.DataFrame) and {ISSUE_COLUMN, VALID_COLUMN} <= set(obj.columns)


def _stamps(frame: pd.DataFrame, column: str, zone: str | None, where: str) -> pd.DatetimeIndex:
    """Column ``column`` as timestamps in the model's zone (the naive-timestamp rule)."""
    what = f"{where}: column {column!r}"
    if frame[column].isna().any():
        row = int(frame[column].isna().to_numpy().argmax())
        raise ValueError(f"{what} is empty in row {row}: every vintage row needs a {column}")
    stamps = parse_timestamps(frame[column], where=what)
    return validation.align_tz(stamps, zone, None, what)


def check_vintages(
    frame: pd.DataFrame, columns: list[str], zone: str | None, where: str = "future"
) -> pd.DataFrame:
    """Return the vintage frame ``frame`` checked, in the model's zone, sorted by issue time.

    Parameters
    ----------
    frame : DataFrame
        Columns ``issue_time``, ``valid_time``, the covariate ``columns`` and optionally
        ``id``; timestamps as datetimes or ISO-8601 strings. Naive timestamps are local
        times in ``zone`` (:func:`forecast.frames.timezones.localize_naive`).
    columns : list of str
        The covariates the model declared (other columns are ignored, and so are rows
        where all of these are empty: one frame may carry the issues of several
        covariates, such as weather and the operators' forecast, each in its own rows).
    zone : str or None
        The model's time zone (None: a naive model; aware stamps are then refused).
    where : str
        What the frame is, for messages.

    Returns
    -------
    DataFrame
        A new frame with tz-consistent ``issue_time`` and ``valid_time``, the ``id`` column
        if given and ``columns``, sorted by ``issue_time`` (stable); the input is unchanged.

    Raises
    ------
    ValueError
        If a column is missing, a timestamp is empty or not one instant, a value is not a
        finite number, or an ``(id,) issue_time, valid_time`` pair occurs twice.
    """
    if not is_vintage_frame(frame):
        found = list(frame.columns) if isinstance(frame, pd.DataFrame) else type(frame).__name__
        raise ValueError(
            f"{where}: a vintage frame needs the columns {ISSUE_COLUMN!r} and {VALID_COLUMN!r}; "
            f"found {found}"
        )
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{where}: vintages lack the declared future covariate(s) {missing}; found "
            f"{list(frame.columns)}"
        )
    keys = [validation.ID_COLUMN] if validation.ID_COLUMN in frame.columns else []
    if columns:  # rows that hold none of these columns belong to other covariates' issues
        frame = frame[frame[columns].notna().any(axis=1)]
    out = pd.DataFrame(
        {
            **{k: frame[k].to_numpy() for k in keys},
            ISSUE_COLUMN: _stamps(frame, ISSUE_COLUMN, zone, where),
            VALID_COLUMN: _stamps(frame, VALID_COLUMN, zone, where),
        }
    )
    for column in columns:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(bad.argmax())
            value = frame[column].iloc[row]
            shown = repr(value) if isinstance(value, str) else str(float(value))
            raise ValueError(
                f"{where}: column {column!r} is not a finite number for valid time "
                f"{out[VALID_COLUMN].iloc[row]} issued {out[ISSUE_COLUMN].iloc[row]}: {shown}"
            )
        out[column] = values
    twice = out.duplicated(keys + [ISSUE_COLUMN, VALID_COLUMN])
    if twice.any():
        first = out[twice].iloc[0]
        key = f"series {first[validation.ID_COLUMN]!r}: " if keys else ""
        raise ValueError(
            f"{where}: {key}valid time {first[VALID_COLUMN]} has two values issued at "
            f"{first[ISSUE_COLUMN]}: one issue gives one value per valid time"
        )
    return out.sort_values(ISSUE_COLUMN, kind="stable", ignore_index=True)


def split_vintages(vintages: pd.DataFrame, keys: list[Any]) -> dict[Any, pd.DataFrame]:
    """Vintages per series ``key`` (all rows for every key when there is no ``id`` column)."""
    if validation.ID_COLUMN not in vintages.columns:
        return {key: vintages for key in keys}
    groups = {k: g for k, g in vintages.groupby(validation.ID_COLUMN, sort=False)}
    return {key: groups.get(key, vintages.iloc[:0]) for key in keys}


def as_of(
    vintages: pd.DataFrame,
    origin: pd.Timestamp,
    index: pd.DatetimeIndex,
    columns: list[str],
    *,
    key: object = None,
    issues: bool = False,
) -> pd.DataFrame:
    """Values of ``columns`` at the timestamps ``index`` as they were known at ``origin``.

    For each timestamp, the value of the latest vintage issued at or before ``origin``;
    vintages issued after it are never read.

    Parameters
    ----------
    vintages : DataFrame
        Checked vintages of one series (:func:`check_vintages`, :func:`split_vintages`).
    origin : Timestamp
        The forecast's origin (its last observed step), in the zone of ``vintages``.
    index : DatetimeIndex
        The timestamps to read (the forecast steps).
    columns : list of str
        Covariate columns.
    key : object, optional
        Series id, named in messages.
    issues : bool, default=False
        Add a column ``issue_time``: the issue each step read.

    Returns
    -------
    DataFrame
        Indexed by ``index``, the ``columns`` (then ``issue_time`` if asked).

    Raises
    ------
    ValueError
        If a timestamp of ``index`` has no value issued at or before ``origin``.
    """
    known = vintages[vintages[ISSUE_COLUMN] <= origin]
    known = known[known[VALID_COLUMN].isin(index)]
    latest = known.drop_duplicates(VALID_COLUMN, keep="last").set_index(VALID_COLUMN)
    missing = index.difference(pd.DatetimeIndex(latest.index))
    if len(missing):
        later = vintages.loc[vintages[VALID_COLUMN] == missing[0], ISSUE_COLUMN]
        first = f"; its first vintage was issued at {later.min()}" if len(later) else ""
        raise ValueError(
            f"{validation._where(key)}no vintage of the future covariates issued at or before the "
            f"origin {origin} has valid time {missing[0]} ({len(missing)} step(s) lack one)"
            f"{first}"
        )
    keep = list(columns) + ([ISSUE_COLUMN] if issues else [])
    out = latest.loc[index, keep]
    out.index = index
    return out


def available_at(vintages: pd.DataFrame, delay: str | pd.Timedelta) -> pd.DataFrame:
    """Return a copy of ``vintages`` whose issue times are later by ``delay``.

    Use it when a forecast is stamped with its model run but reaches you later (a
    weather model run at 00 UTC published at 05 UTC: ``delay="5h"``): every rule on
    vintages reads ``issue_time`` as the time the values became available.

    Parameters
    ----------
    vintages : DataFrame
        A vintage frame.
    delay : str or Timedelta
        Non-negative availability delay, e.g. ``"2h"``.

    Returns
    -------
    DataFrame
        A new frame; the input is unchanged.
    """
    step = pd.Timedelta(delay)
    if step < pd.Timedelta(0):
        raise ValueError(f"delay must be >= 0 (values cannot be read before issue); got {delay}")
    out = vintages.copy()
    out[ISSUE_COLUMN] = pd.to_datetime(out[ISSUE_COLUMN]) + step
    return out


def vintage_futures(
    vintages: pd.DataFrame,
    frames: dict[Any, pd.DataFrame],
    horizon: int,
    freq: pd.offsets.BaseOffset,
    columns: list[str],
    zone: str | None,
) -> dict[Any, pd.DataFrame]:
    """``predict(future=vintages)``: each series' future covariates as known at its origin.

    The origin of series ``key`` is the last timestamp of ``frames[key]``; the result maps
    each key to the values of ``columns`` at its ``horizon`` forecast steps, each the latest
    issued at or before that origin (:func:`as_of`).
    """
    checked = check_vintages(vintages, columns, zone)
    per_series = split_vintages(checked, list(frames))
    out = {}
    for key, frame in frames.items():
        origin = frame.index[-1]
        steps = validation.future_index(origin, freq, horizon)
        out[key] = as_of(per_series[key], origin, steps, columns, key=key)
    return out


def with_vintage_steps(
    arrays: SeriesArrays,
    vintages: pd.DataFrame,
    horizon: int,
    encoder: SeriesEncoder,
) -> SeriesArrays:
    """``arrays`` of one origin with its forecast steps' future covariates read from vintages.

    ``arrays`` is what the forecast issued at its last row may read (history plus the
    ``horizon`` steps of the future-known block, whose first columns are the declared future
    covariates, scaled). Those columns of the forecast steps are replaced by the values
    known at the origin (:func:`as_of`), scaled the same way; the history rows keep the
    observed values. The input arrays are not changed.
    """
    assert arrays.future is not None  # the estimator declares future covariates
    origin = arrays.index[-1]
    steps = validation.future_index(origin, encoder.freq, horizon)
    known = as_of(vintages, origin, steps, encoder.future, key=arrays.key)
    future = arrays.future.copy()
    n = len(arrays.y)
    future[n : n + horizon, : len(encoder.future)] = encoder.scale_covariates(known, encoder.future)
    return SeriesArrays(arrays.key, arrays.y, arrays.index, arrays.past, future)


def future_by_series(
    future: Any,
    frames: dict[Any, pd.DataFrame],
    kind: str,
    horizon: int,
    freq: pd.offsets.BaseOffset,
    columns: list[str],
    zone: str | None,
) -> dict[Any, pd.DataFrame] | None:
    """Return what ``predict(future=...)`` gives each series of ``frames``: its covariates.

    ``future`` is None, one-value-per-timestamp frames (a frame, a long frame or a dict, as
    :func:`forecast.frames.validation.split_series` reads them; for a single series,
    ``kind == "frame"``, its one frame) or a vintage frame, resolved at each series' origin
    (:func:`vintage_futures`; ignored by a model without future covariates).
    """
    if future is None:
        return None
    if is_vintage_frame(future):
        return vintage_futures(future, frames, horizon, freq, columns, zone) if columns else None
    fut = validation.split_series(future, "future")[0]
    if kind == "frame":  # a single series: its one future frame
        fut = {k: next(iter(fut.values())) for k in frames}
    return fut


def series_vintages(
    future: pd.DataFrame | None, keys: list[Any], columns: list[str], zone: str | None
) -> dict[Any, pd.DataFrame]:
    """Return checked vintages per series for ``predict_origins(future=...)`` ({} for none)."""
    if future is None or not columns:
        return {}
    if not is_vintage_frame(future):
        raise ValueError(
            "predict_origins: future= takes vintages (columns 'issue_time', 'valid_time' and "
            f"the covariates {columns}); the values after each origin otherwise come from "
            f"data; found columns {list(getattr(future, 'columns', []))}"
        )
    return split_vintages(check_vintages(future, columns, zone), keys)


def split_vintage_rows(data: pd.DataFrame, time_column: str) -> tuple[pd.DataFrame, Any]:
    """Split a request frame into history rows and vintage rows (``issue_time`` set).

    A service or pyfunc request is one frame: the rows whose ``issue_time`` is empty are the
    history (with ``time_column`` or a DatetimeIndex as usual); the rows with an
    ``issue_time`` are vintages of the future covariates, valid at their ``time_column``
    timestamp (or index). Without an ``issue_time`` column: ``(data, None)``.
    """
    if ISSUE_COLUMN not in data.columns:
        return data, None
    issued = data[ISSUE_COLUMN].notna().to_numpy()
    history = data.loc[~issued].drop(columns=ISSUE_COLUMN)
    rows = data.loc[issued]
    if not issued.any():
        return history, None
    valid = rows[time_column] if time_column in rows.columns else pd.Series(rows.index)
    vintages = rows.drop(columns=[c for c in (time_column,) if c in rows.columns]).copy()
    vintages.insert(1, VALID_COLUMN, valid.to_numpy())
    return history, vintages.reset_index(drop=True)
