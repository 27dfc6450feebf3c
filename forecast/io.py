"""Read and write time-indexed frames as CSV or Parquet (chosen by file suffix)."""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

import pandas as pd

TIME_CANDIDATES = ("timestamp", "time", "datetime", "date", "timestamp_utc", "utc_timestamp")


def read_frame(path: str | os.PathLike, time_column: str | None = None) -> pd.DataFrame:
    """Read a CSV or Parquet file into a frame indexed by its time column.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` (optionally ``.gz``) or ``.parquet`` file.
    time_column : str, optional
        Column holding the timestamps; by default the first of ``timestamp``, ``time``,
        ``datetime``, ``date``, ``timestamp_utc``, ``utc_timestamp`` present, or the
        Parquet file's own DatetimeIndex.

    Returns
    -------
    DataFrame
        Indexed by a DatetimeIndex (tz-aware when the stamps carry an offset).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"input file {path} does not exist")
    suffixes = [s.lower() for s in path.suffixes]
    if ".parquet" in suffixes or ".pq" in suffixes:
        frame = pd.read_parquet(path)
    elif ".csv" in suffixes:
        frame = pd.read_csv(path)
    else:
        raise ValueError(f"{path}: unknown file type {path.suffix!r}; expected .csv or .parquet")
    if isinstance(frame.index, pd.DatetimeIndex) and time_column is None:
        return frame
    column = time_column or next((c for c in TIME_CANDIDATES if c in frame.columns), None)
    if column is None or column not in frame.columns:
        raise ValueError(
            f"{path}: no time column; pass time_column= one of {list(frame.columns)} "
            f"(looked for {list(TIME_CANDIDATES) if time_column is None else [time_column]})"
        )
    try:
        stamps = pd.to_datetime(frame[column], format="ISO8601")
    except (ValueError, TypeError):
        try:
            stamps = pd.to_datetime(frame[column], utc=True, format="ISO8601")
        except (ValueError, TypeError) as err:
            bad = _first_unparsable(frame[column])
            raise ValueError(
                f"{path}: column {column!r} has a value that is not a timestamp: {bad!r}"
            ) from err
    return frame.drop(columns=column).set_index(pd.DatetimeIndex(stamps, name=column))


def _first_unparsable(values: pd.Series) -> object:
    for value in values:
        try:
            pd.Timestamp(value)
        except (ValueError, TypeError):
            return value
    return None


def write_frame(
    frame: pd.DataFrame, path: str | os.PathLike, index_label: str = "timestamp"
) -> Path:
    """Write ``frame`` to CSV or Parquet atomically (see :func:`write_table`).

    Parameters
    ----------
    frame : DataFrame
        Frame to write; a DatetimeIndex is written as the column ``index_label``, any
        other index is dropped (long frames carry their time as a column).
    path : str or path-like
        Target file, ``.csv`` or ``.parquet``.
    index_label : str
        Column name of the index in the file.

    Returns
    -------
    Path
        The written file.
    """
    table = frame
    if isinstance(frame.index, pd.DatetimeIndex):
        table = frame.rename_axis(index_label).reset_index()
    return write_table(table.reset_index(drop=True), path)


def write_table(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``table`` (its index dropped) to CSV or Parquet, atomically and deterministically.

    The file is written to a temporary file in the target folder, synced, and moved into
    place with ``os.replace``: a crash never leaves a half-written file at ``path``. Parquet
    is written with pyarrow without time-dependent metadata, CSV with pandas' default float
    formatting, so equal tables give byte-identical files.

    Parameters
    ----------
    table : DataFrame
        The rows and columns to write.
    path : str or path-like
        Target file, ``.csv`` or ``.parquet``.

    Returns
    -------
    Path
        The written file.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ValueError(f"{path}: unknown output type {suffix!r}; expected .csv or .parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if suffix == ".parquet":
                import pyarrow as pa
                import pyarrow.parquet as pq

                with warnings.catch_warnings():  # pyarrow reads tz-aware columns via an
                    warnings.filterwarnings("ignore", "Series.values")  # API pandas 3.1 deprecates
                    arrow = pa.Table.from_pandas(table, preserve_index=False)
                pq.write_table(arrow, fh)
            else:
                fh.write(table.to_csv(index=False, lineterminator="\n").encode())
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
