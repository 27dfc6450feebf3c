"""Input checks for time-indexed frames (the index checks are in :mod:`~forecast.frames.timeindex`).

Every check raises before any training starts and names what is wrong and where: the
series, the column and the first offending timestamp. Checks never mutate the caller's
frame; functions that change data return a new frame.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any, overload

import numpy as np
import pandas as pd

from forecast.frames.options import NAN_POLICIES
from forecast.frames.timeindex import (  # noqa: F401 (checks of the index, public here)
    _where,
    check_grid_size,
    check_index,
    check_regular,
    future_index,
    infer_freq,
)
from forecast.frames.timezones import localize_naive

ID_COLUMN = "id"
TIME_COLUMN = "time"


MAX_HORIZON = 10_000
"""Default limit of ``predict``'s horizon in steps; pass ``max_horizon=`` to raise or lift it."""


def check_horizon(horizon: object, max_horizon: int | None = None) -> int:
    """Return ``horizon`` as an int, or raise if it is not a positive integer.

    Parameters
    ----------
    horizon : int
        Steps to forecast.
    max_horizon : int or None
        Largest horizon accepted (None: no limit). The limit guards against a typo such as
        ``10**7`` that would run for minutes and fill the memory without feedback.

    Returns
    -------
    int
    """
    if isinstance(horizon, bool) or not isinstance(horizon, numbers.Integral):
        raise TypeError(
            f"horizon must be a positive int, got {horizon!r} ({type(horizon).__name__})"
        )
    if horizon < 1:
        raise ValueError(f"horizon must be a positive int, got {horizon}")
    if max_horizon is not None:
        if isinstance(max_horizon, bool) or not isinstance(max_horizon, numbers.Integral):
            raise TypeError(f"max_horizon must be a positive int or None, got {max_horizon!r}")
        if horizon > max_horizon:
            raise ValueError(
                f"horizon={horizon} exceeds the limit max_horizon={max_horizon} steps (a horizon "
                f"that long takes minutes and much memory); pass max_horizon={horizon} (or None "
                "for no limit) to allow it"
            )
    return int(horizon)


def split_series(data: object, what: str = "data") -> tuple[dict[object, pd.DataFrame], str]:
    """Turn a frame, a long frame or a dict of frames into ``{id: frame}``.

    Returns the dict and the container kind (``"frame"``, ``"long"`` or ``"dict"``) so that
    forecasts can be returned in the shape they came in. Raises on empty frames, duplicated
    column names, missing ids or times of a long frame, and on series of a dict whose time
    zones differ (naive and aware, or two zones).
    """
    if isinstance(data, Mapping):
        if not data:
            raise ValueError(f"{what} is an empty dict: expected at least one series")
        for key, frame in data.items():
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(
                    f"{what}[{key!r}] must be a pandas DataFrame, got {type(frame).__name__}"
                )
            check_frame(frame, f"{what}[{key!r}]")
        check_same_tz(data, what)
        return dict(data), "dict"
    if isinstance(data, pd.Series):
        raise TypeError(f"{what} must be a pandas DataFrame, got a Series: use series.to_frame()")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"{what} must be a pandas DataFrame or a dict of DataFrames, got {type(data).__name__}"
        )
    check_frame(data, what)
    if ID_COLUMN not in data.columns:
        return {None: data}, "frame"
    frame = _long_frame(data, what)
    groups: dict[object, pd.DataFrame] = {
        key: part.drop(columns=ID_COLUMN) for key, part in frame.groupby(ID_COLUMN, sort=True)
    }
    return groups, "long"


def check_frame(frame: pd.DataFrame, what: str = "data") -> None:
    """Raise if ``frame`` is empty or has duplicated column names or names not str or int.

    A column name is a ``str`` or an ``int`` (not a bool): what a saved folder keeps as
    ``columns_`` and ``load`` accepts, so a model fitted on a frame can always be saved and
    loaded (a tuple of a MultiIndex, None, NaN, a float or True is refused here, by name).
    """
    odd = [c for c in frame.columns if not isinstance(c, str | int) or isinstance(c, bool)]
    if odd or isinstance(frame.columns, pd.MultiIndex):
        name = odd[0] if odd else frame.columns[0]
        raise TypeError(
            f"{what} has the column name {name!r} ({type(name).__name__}): column names must "
            "be str (or int); rename the columns, e.g. frame.columns = [str(c) for c in "
            "frame.columns]"
        )
    if frame.shape[1] == 0:
        rows = "no rows and " if len(frame) == 0 else f"{len(frame)} rows but "
        raise ValueError(f"{what} is empty: {rows}no columns")
    if len(frame) == 0:
        raise ValueError(f"{what} is empty: no rows (columns {list(frame.columns)})")
    duplicated = list(dict.fromkeys(frame.columns[frame.columns.duplicated()]))
    if duplicated:
        raise ValueError(
            f"{what} has duplicated column name(s) {duplicated}: every column needs a unique name"
        )


def _long_frame(data: pd.DataFrame, what: str) -> pd.DataFrame:
    """Check the id and time columns of a long frame; return it indexed by time."""
    times = data[TIME_COLUMN] if TIME_COLUMN in data.columns else None
    if times is None and not isinstance(data.index, pd.DatetimeIndex):
        raise TypeError(
            f"{what} is a long frame (it has an {ID_COLUMN!r} column) but has neither a "
            f"{TIME_COLUMN!r} column nor a DatetimeIndex; found columns {list(data.columns)} "
            f"and a {type(data.index).__name__}"
        )
    stamps = data.index if times is None else times
    if times is not None and not pd.api.types.is_datetime64_any_dtype(times.dtype):
        raise TypeError(
            f"{what}: column {TIME_COLUMN!r} has dtype {times.dtype}, not datetimes "
            f"(convert it with pd.to_datetime(df[{TIME_COLUMN!r}]))"
        )
    for name, values in ((ID_COLUMN, data[ID_COLUMN]), (TIME_COLUMN, pd.Series(stamps))):
        missing = np.asarray(values.isna())
        if missing.any():
            row = int(np.argmax(missing))
            at = (
                f"time {stamps[row]}"
                if name == ID_COLUMN and not pd.isna(stamps[row])
                else f"{ID_COLUMN} {data[ID_COLUMN].iloc[row]!r}"
            )
            raise ValueError(
                f"{what}: column {name!r} has {int(missing.sum())} missing value(s), first at "
                f"row {row} ({at})"
            )
    return data if times is None else data.set_index(TIME_COLUMN)


def check_same_tz(frames: Mapping[Any, pd.DataFrame], what: str = "data") -> None:
    """Raise if the DatetimeIndexes of ``frames`` are not all naive or all in one time zone."""
    seen = None
    for key, frame in frames.items():
        if not isinstance(frame.index, pd.DatetimeIndex):
            continue  # check_index names the non-datetime index later
        zone = _zone(frame.index)
        if seen is None:
            seen = (key, zone)
        elif zone != seen[1]:
            raise ValueError(
                f"{what}: series {key!r} has {_zone_text(zone)} but series {seen[0]!r} has "
                f"{_zone_text(seen[1])}: give every series in one time zone "
                "(frame.tz_localize / frame.tz_convert)"
            )


def _zone(index: pd.DatetimeIndex) -> str | None:
    return None if index.tz is None else str(index.tz)


def _zone_text(zone: str | None) -> str:
    return "naive timestamps" if zone is None else f"timestamps in time zone {zone}"


@overload
def align_tz(
    index: pd.DatetimeIndex, zone: str | None, series_id: object = ..., what: str = ...
) -> pd.DatetimeIndex: ...
@overload
def align_tz(
    index: pd.Index, zone: str | None, series_id: object = ..., what: str = ...
) -> pd.Index: ...
def align_tz(
    index: pd.Index, zone: str | None, series_id: object = None, what: str = "history"
) -> pd.Index:
    """Return ``index`` in the time zone ``zone`` of the fitted data.

    Naive timestamps given to a model fitted in a zone are local times there
    (:func:`forecast.frames.timezones.localize_naive`: nonexistent and repeated local times
    are refused, named); aware timestamps in another zone are converted to ``zone`` (the
    same instants); aware timestamps given to a model fitted on naive ones raise, since the
    model has no zone to read them in.
    """
    if not isinstance(index, pd.DatetimeIndex):
        return index  # check_index names the non-datetime index
    have = _zone(index)
    if have is None and zone is not None:
        return localize_naive(index, zone, f"{_where(series_id)}{what}")
    if have is not None and zone is None:
        raise ValueError(
            f"{_where(series_id)}{what} has {_zone_text(have)} but the model was fitted on "
            f"{_zone_text(zone)}: pass naive timestamps in the clock of the training data, "
            "e.g. frame.tz_localize(None)"
        )
    return index if have == zone else index.tz_convert(zone)


def join_series(
    frames: dict[object, pd.DataFrame], kind: str
) -> pd.DataFrame | dict[object, pd.DataFrame]:
    """Inverse of :func:`split_series` for forecast frames."""
    if kind == "frame":
        return next(iter(frames.values()))
    if kind == "dict":
        return frames
    parts = []
    for key, frame in frames.items():
        part = frame.rename_axis(TIME_COLUMN).reset_index()
        part.insert(0, ID_COLUMN, key)  # type: ignore[arg-type]  # keys: any hashable, stubs: Scalar
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def check_numeric(frame: pd.DataFrame, columns: list[str], series_id: object = None) -> None:
    """Raise a TypeError naming the first column that is not real numbers.

    Accepted: integer and float dtypes (nullable ones included). Refused: bool, object,
    strings, datetimes, categories and complex numbers (converting them to float would drop
    the imaginary part silently).
    """
    for column in columns:
        dtype = frame[column].dtype
        if pd.api.types.is_complex_dtype(dtype):
            raise TypeError(
                f"{_where(series_id)}column {column!r} has complex dtype {dtype}; every target "
                "and covariate column must hold real numbers (take .real or abs() first)"
            )
        real = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        if not real:
            raise TypeError(
                f"{_where(series_id)}column {column!r} has non-numeric dtype {dtype}; "
                "every target and covariate column must be numeric"
            )


def check_finite(
    frame: pd.DataFrame,
    columns: list[str],
    policy: str,
    series_id: object = None,
    role: str = "target",
    hint: str = "pass nan_policy='interpolate' to fill them",
) -> pd.DataFrame:
    """Apply the NaN policy to ``columns``: raise on NaN/inf, or interpolate them in time.

    ``hint`` ends the message raised under ``policy="raise"``: what the caller can do.
    """
    if policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {policy!r}")
    values = frame[columns].to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if not bad.any():
        return frame
    row, col = np.argwhere(bad)[0]
    column, stamp, value = columns[col], frame.index[row], values[row, col]
    if policy == "raise":
        raise ValueError(
            f"{_where(series_id)}{role} column {column!r} has {int(bad.sum())} "
            "non-finite value(s), "
            f"the first ({value}) at {stamp} ({hint})"
        )
    out = frame.copy()
    filled = out[columns].replace([np.inf, -np.inf], np.nan)
    filled = filled.interpolate(method="time", limit_direction="both")
    if filled.isna().any().any():
        empty = filled.columns[filled.isna().any()][0]
        raise ValueError(
            f"{_where(series_id)}{role} column {empty!r} has no finite value to interpolate from"
        )
    out[columns] = filled
    return out


MAX_MAGNITUDE = 1e150
"""Largest absolute value accepted: squares of larger values overflow float64 (scaling, ridge)."""


def check_magnitude(
    frame: pd.DataFrame, columns: list[str], series_id: object = None, role: str = "target"
) -> None:
    """Raise a ValueError naming the first column with a value beyond ``MAX_MAGNITUDE``."""
    values = np.abs(frame[columns].to_numpy(dtype=float))
    huge = values > MAX_MAGNITUDE  # NaN compares False; inf is refused by check_finite
    if not huge.any():
        return
    row, col = np.argwhere(huge)[0]
    raise ValueError(
        f"{_where(series_id)}{role} column {columns[col]!r} has a value of magnitude "
        f"{values[row, col]:.3g} at {frame.index[row]}, beyond {MAX_MAGNITUDE:.0e}: its square "
        "overflows float64 and the forecasts would be NaN; rescale the column (e.g. divide "
        "by 1e150 or use its logarithm)"
    )


def check_columns(
    frame: pd.DataFrame, expected: list[str], series_id: object = None, what: str = "data"
) -> None:
    """Raise if any of ``expected`` is not a column of ``frame``."""
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{_where(series_id)}{what} lacks column(s) {missing}; found {list(frame.columns)}"
        )


def check_no_extra_columns(
    frame: pd.DataFrame,
    targets: list[str],
    covariates: list[str],
    series_id: object = None,
    what: str = "data",
) -> None:
    """Raise if ``frame`` has columns that are neither ``targets`` nor ``covariates``."""
    known = set(targets) | set(covariates)
    extra = [c for c in frame.columns if c not in known]
    if extra:
        raise ValueError(
            f"{_where(series_id)}{what} has unknown column(s) {extra}: neither targets "
            f"{list(targets)} nor declared covariates {list(covariates)} (drop them, or declare "
            "them as covariates and refit)"
        )


def check_length(n_rows: int, needed: int, series_id: object = None, why: str = "") -> None:
    """Raise if a series is shorter than ``needed`` rows."""
    if n_rows < needed:
        raise ValueError(
            f"{_where(series_id)}too little history: {n_rows} rows, but at least {needed} are "
            f"needed{' (' + why + ')' if why else ''}"
        )
