"""The files of a batch forecast: reading the latest data, writing the forecast.

Writing is atomic (a temporary file in the target folder, then ``os.replace``) and
deterministic: equal forecasts give byte-identical CSV or Parquet files.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.frames import validation
from forecast.frames.io import MixedOffsetsError, read_frame, write_table
from forecast.frames.messages import first_line
from forecast.frames.writes import WriteRefused

OUTPUT_SUFFIXES = (".csv", ".parquet")


class BatchError(Exception):
    """A batch forecast failed; the message is the one line shown to the user."""


@dataclass
class BatchResult:
    """What a batch run wrote.

    Attributes
    ----------
    path : Path
        The forecast file.
    sha256 : str
        SHA-256 of its bytes.
    rows : int
        Forecast rows written.
    issue_date : str
        ``YYYY-MM-DD`` of the last input timestamp, in local time.
    input_sha256 : str
        Content fingerprint of the input history.
    run_id : str or None
        MLflow run of this batch (None with ``track=False`` or when logging failed).
    model_version : str or None
        For a registered model (``models:/name@alias`` or ``models:/name/N``): the version
        used.
    """

    path: Path
    sha256: str
    rows: int
    issue_date: str
    input_sha256: str
    run_id: str | None = None
    model_version: str | None = None


def read_input(
    path: str | os.PathLike[str], time_column: str | None = None, timezone: str | None = None
) -> pd.DataFrame:
    """Read the latest data: a CSV or Parquet file with timestamps, not empty.

    Parameters
    ----------
    path : str or path-like
        CSV or Parquet file.
    time_column : str, optional
        Name of the time column (default: detected, see :func:`forecast.frames.io.read_frame`).
    timezone : str, optional
        Zone to read the timestamps in; without it, stamps in several UTC offsets are
        refused.

    Returns
    -------
    DataFrame
        Indexed by the parsed timestamps (in ``timezone`` when given).
    """
    frame, mixed = read_latest(path, time_column, timezone)
    if mixed is not None:
        raise BatchError(mixed_offsets_message(path, mixed, None))
    return frame


def read_latest(
    path: str | os.PathLike[str], time_column: str | None, timezone: str | None
) -> tuple[pd.DataFrame, MixedOffsetsError | None]:
    """Read the input; stamps in several offsets without ``timezone`` are read in UTC.

    Returns
    -------
    frame : DataFrame
        Indexed by the parsed timestamps.
    mixed : forecast.frames.io.MixedOffsetsError or None
        Set when the stamps have several UTC offsets and no ``timezone`` was given (the
        frame is then in UTC, for the caller to convert or refuse).
    """
    mixed: MixedOffsetsError | None = None
    try:
        try:
            frame = read_frame(path, time_column, timezone=timezone, mixed_offsets="raise")
        except MixedOffsetsError as err:
            mixed = err
            frame = read_frame(path, time_column, timezone="UTC")
    except Exception as err:  # parser errors of pandas/pyarrow on corrupted files included
        raise BatchError(_about_input(path, err)) from err
    if frame.empty:
        raise BatchError(f"input {path} has no rows")
    return frame, mixed


def mixed_offsets_message(
    path: str | os.PathLike[str], err: MixedOffsetsError, model: str | None, estimator: Any = None
) -> str:
    """Return the one line refusing input in several UTC offsets when no zone is known.

    ``model`` names the model (None before one is loaded); ``estimator``, when given, tells
    a model without a ``timezone`` parameter from one whose ``timezone`` is unset.
    """
    where = err.where.removeprefix(f"{path}: ")
    why = ""
    if model:
        params = estimator.get_params(deep=False) if estimator is not None else {}
        has = (
            f"timezone={params['timezone']!r}" if "timezone" in params else "no timezone parameter"
        )
        why = f"; the model {model} has {has}"
    return (
        f"input {path}: {where} has {err.detail}, as local time has across a daylight-saving "
        f"change{why}: pass --timezone ZONE (e.g. Europe/Berlin) to read it in that zone; "
        "nothing was written"
    )


def select_history(
    frame: pd.DataFrame, estimator: Any, path: str | os.PathLike[str] = "input"
) -> pd.DataFrame:
    """Check the input against the model and keep its columns (float64).

    Parameters
    ----------
    frame : DataFrame
        From :func:`read_input`.
    estimator : BaseForecaster
        Fitted estimator whose target (and covariate) columns the input must hold. Future
        covariates come on the rows after the history too, with the targets left empty.
    path : str or path-like
        The input's name for messages.

    Returns
    -------
    DataFrame
        The model's columns (and ``id`` for several series), sorted timestamps checked.
    """
    future = list(getattr(estimator, "future_covariates_", None) or [])
    columns = list(estimator.columns_) + list(estimator.past_covariates_) + future
    try:
        validation.check_columns(frame, columns, None, "the file")
        if validation.ID_COLUMN in frame.columns:  # several series: each has its own timestamps
            for key, part in frame.groupby(validation.ID_COLUMN, sort=False):
                validation.check_index(part, key)
        else:
            validation.check_index(frame)
        validation.check_numeric(frame, columns)
    except (ValueError, TypeError) as err:
        raise BatchError(_about_input(path, err)) from err
    if validation.ID_COLUMN in frame.columns:
        columns = [validation.ID_COLUMN, *columns]
    return frame[columns].astype({c: "float64" for c in columns if c != validation.ID_COLUMN})


def _about_input(path: str | os.PathLike[str], err: BaseException) -> str:
    """One line naming the input file once, then the reason."""
    reason = first_line(err)
    for prefix in (f"input {path}: ", f"{path}: "):
        reason = reason.removeprefix(prefix)
    return f"input {path}: {reason}"


def issue_date(history: pd.DataFrame) -> str:
    """Return the issue date: ``YYYY-MM-DD`` of the last input timestamp, in its time zone.

    The batch converts the history to its local zone first (``--timezone`` or the model's
    ``timezone``), so this is the local calendar date.
    """
    return pd.Timestamp(history.index.max()).strftime("%Y-%m-%d")


def output_path(pattern: str | os.PathLike[str], date: str) -> Path:
    """Expand ``{date}`` in ``pattern`` and check the suffix (``.csv`` or ``.parquet``).

    Another ``{...}`` field (``{stem}`` names partitions, in a folder ``--input``) is refused
    rather than written literally into the file name.
    """
    text = os.fspath(pattern)
    unknown = sorted(set(re.findall(r"\{[^{}]*\}", text)) - {"{date}"})
    if unknown:
        raise BatchError(
            f"output {text}: {', '.join(unknown)} is not a field of a one-file run (only "
            "{date}; {stem} names the partitions of a folder --input); nothing was done"
        )
    suffix = Path(text.replace("{date}", "date")).suffix
    if suffix.lower() not in OUTPUT_SUFFIXES:
        raise BatchError(f"output {text}: unknown file type {suffix!r}; use .csv or .parquet")
    return Path(text.replace("{date}", date))


def forecast_table(forecast: pd.DataFrame) -> pd.DataFrame:
    """Return the forecast as the written table: a ``timestamp`` column, no duplicates."""
    if isinstance(forecast.index, pd.DatetimeIndex):
        forecast = forecast.rename_axis("timestamp").reset_index()
    keys = [
        c
        for c in (validation.ID_COLUMN, validation.TIME_COLUMN, "timestamp")
        if c in forecast.columns
    ]
    if forecast.duplicated(subset=keys).any():
        raise BatchError(f"forecast has duplicated rows for {keys}; nothing written")
    return forecast.reset_index(drop=True)


def write_atomic(table: pd.DataFrame, path: Path) -> str:
    """Write ``table`` to ``path`` deterministically and atomically; return its SHA-256.

    See :func:`forecast.frames.io.write_table`: equal tables give byte-identical files, a
    crash never leaves a half-written file, and an existing file is replaced only when it is
    a table of the same columns (an earlier forecast of the job), else :class:`BatchError`.
    """
    try:
        written = write_table(table, path)
    except WriteRefused as err:
        raise BatchError(f"output {err}") from None
    return hashlib.sha256(written.read_bytes()).hexdigest()


class StaleInputError(BatchError):
    """The input ends too long before the issue time (``--max-staleness``)."""


STALE_WARNING = pd.Timedelta(days=7)  # without max_staleness: warn, still forecast


def parse_duration(text: str) -> pd.Timedelta:
    """Parse a positive duration such as ``2D``, ``36h`` or ``90min``.

    Parameters
    ----------
    text : str
        A pandas Timedelta string (``D``, ``h``, ``min``, ``s`` units).

    Returns
    -------
    Timedelta
        The duration, greater than zero.
    """
    try:
        value = pd.Timedelta(text)
    except (TypeError, ValueError):
        value = None
    if value is None or pd.isna(value) or value <= pd.Timedelta(0):
        raise ValueError(f"expected a positive duration such as 2D, 36h or 90min, got {text!r}")
    return value


def input_age(last: pd.Timestamp, issue_time: pd.Timestamp | None) -> pd.Timedelta:
    """Return how long before ``issue_time`` (default: now) the input's last row lies.

    Naive stamps on either side are read as UTC.
    """
    issue = pd.Timestamp.now(tz="UTC") if issue_time is None else pd.Timestamp(issue_time)
    last = pd.Timestamp(last)
    last = last.tz_localize("UTC") if last.tzinfo is None else last
    issue = issue.tz_localize("UTC") if issue.tzinfo is None else issue
    return issue - last


def check_staleness(
    last: pd.Timestamp,
    path: str | os.PathLike[str],
    max_staleness: pd.Timedelta | None,
    issue_time: pd.Timestamp | None = None,
) -> pd.Timedelta:
    """Refuse input whose last observed row is more than ``max_staleness`` old.

    Parameters
    ----------
    last : Timestamp
        The last observed timestamp of the input.
    path : str or path-like
        The input's name for the message.
    max_staleness : Timedelta or None
        Largest age accepted; None accepts any age.
    issue_time : Timestamp, optional
        When the forecast is issued (default: now).

    Returns
    -------
    Timedelta
        The input's age at the issue time.

    Raises
    ------
    StaleInputError
        The input is older than ``max_staleness``; nothing is written.
    """
    age = input_age(last, issue_time)
    if max_staleness is not None and age > max_staleness:
        issue = "now" if issue_time is None else f"the issue time {pd.Timestamp(issue_time)}"
        raise StaleInputError(
            f"input {path}: last observation {pd.Timestamp(last)} is {_days(age)} before "
            f"{issue}, more than --max-staleness {_days(max_staleness)}: is the data feed "
            "stuck? nothing was written"
        )
    return age


def _days(delta: pd.Timedelta) -> str:
    """``3 days 04:00:00`` rounded to minutes, the way people read an age."""
    return str(pd.Timedelta(delta).round("min"))
