"""Read and write time-indexed frames as CSV or Parquet (chosen by file suffix).

Timestamps with UTC offsets keep them: a file in one offset (``...+01:00`` throughout) is
read in that fixed offset, a tz-aware Parquet column in its zone. Local time across a
daylight-saving change has *two* offsets (``+02:00`` then ``+01:00``); such a file is read in
the zone passed as ``timezone`` (the instants are exact; the zone only sets the wall clock),
else in UTC, or it is refused with :class:`MixedOffsetsError` when asked to. Naive stamps read
with a ``timezone`` are local times there (the one rule of
:func:`forecast.frames.timezones.localize_naive`).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from forecast.frames.tables import read_csv_table, read_parquet_table
from forecast.frames.timezones import check_timezone, localize_naive
from forecast.frames.writes import refuse_foreign, same_columns

TIME_CANDIDATES = ("timestamp", "time", "datetime", "date", "timestamp_utc", "utc_timestamp")
MIXED_OFFSETS = ("utc", "raise")
# Temporaries of atomic writes (files here, folders in forecast.persistence.atomic):
# .forecast-tmp-<target name>-<pid>-<random>, recognised and removed by the next write.
TEMPORARY_PREFIX = ".forecast-tmp-"
STALE_AFTER_S = 30 * 60  # a temporary this old is stale even if its pid is alive (reused)

# the UTC offset at the end of an ISO-8601 timestamp with a time part
_OFFSET = r"\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)$"


class MixedOffsetsError(ValueError):
    """Timestamps with several UTC offsets (local time across DST) and no zone to read them in.

    Attributes
    ----------
    where : str
        What was read (file and column).
    detail : str
        The offsets found and the first change, such as ``"2 different UTC offsets (...)"``.
    """

    def __init__(self, where: str, detail: str):
        self.where, self.detail = where, detail
        super().__init__(
            f"{where} has {detail}, as local time has across a daylight-saving change: pass "
            "timezone= (CLI --timezone), e.g. 'Europe/Berlin', to read them in that zone"
        )


def read_frame(
    path: str | os.PathLike[str],
    time_column: str | None = None,
    *,
    timezone: str | None = None,
    mixed_offsets: str = "utc",
) -> pd.DataFrame:
    """Read a CSV or Parquet file into a frame indexed by its time column.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` (optionally ``.gz``) or ``.parquet`` file.
    time_column : str, optional
        Column holding the timestamps; by default the first of ``timestamp``, ``time``,
        ``datetime``, ``date``, ``timestamp_utc``, ``utc_timestamp`` present, or the
        Parquet file's own DatetimeIndex.
    timezone : str, optional
        Zone to read the timestamps in, such as ``"Europe/Berlin"``: stamps with UTC
        offsets (one or several) and tz-aware columns are converted to it; timestamps
        without an offset are read as local times there, and one that does not exist
        there or occurs twice (at a daylight-saving change) raises a ValueError naming it.
    mixed_offsets : {"utc", "raise"}, default="utc"
        Without ``timezone``, stamps with several UTC offsets are read in UTC (``"utc"``)
        or refused with :class:`MixedOffsetsError` (``"raise"``).

    Returns
    -------
    DataFrame
        Indexed by a DatetimeIndex: tz-aware when the stamps carry an offset (in
        ``timezone`` when given), naive otherwise.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        If the file cannot be read (empty, not UTF-8, unterminated quote, a row with more
        fields than the header, damaged Parquet or gzip), has no time column or a value
        that is not a timestamp. The message names the file and, where known, the line.
    """
    if mixed_offsets not in MIXED_OFFSETS:
        raise ValueError(f"mixed_offsets must be one of {MIXED_OFFSETS}, got {mixed_offsets!r}")
    if timezone is not None:
        check_timezone(timezone)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"input file {path} does not exist")
    suffixes = [s.lower() for s in path.suffixes]
    if ".parquet" in suffixes or ".pq" in suffixes:
        frame = read_parquet_table(path)
    elif ".csv" in suffixes:
        frame = read_csv_table(path)
    else:
        raise ValueError(f"{path}: unknown file type {path.suffix!r}; expected .csv or .parquet")
    if isinstance(frame.index, pd.DatetimeIndex) and time_column is None:
        index = _in_zone(frame.index, timezone, f"{path}: the index")
        return frame if index is frame.index else frame.set_axis(index, axis=0)
    column = time_column or next((c for c in TIME_CANDIDATES if c in frame.columns), None)
    if column is None or column not in frame.columns:
        raise ValueError(
            f"{path}: no time column; pass time_column= one of {list(frame.columns)} "
            f"(looked for {list(TIME_CANDIDATES) if time_column is None else [time_column]})"
        )
    stamps = parse_timestamps(
        frame[column], timezone, mixed_offsets, where=f"{path}: column {column!r}"
    )
    return frame.drop(columns=column).set_index(stamps.rename(column))


def parse_timestamps(
    values: pd.Series,
    timezone: str | None = None,
    mixed_offsets: str = "utc",
    where: str = "timestamps",
) -> pd.DatetimeIndex:
    """Parse ISO-8601 strings (or datetimes) into a DatetimeIndex, keeping UTC offsets.

    Parameters
    ----------
    values : Series
        Strings such as ``2023-10-29T02:00+01:00`` or a datetime column.
    timezone : str, optional
        Zone to convert the parsed stamps to (see :func:`read_frame`).
    mixed_offsets : {"utc", "raise"}, default="utc"
        What to do with several offsets and no ``timezone`` (see :func:`read_frame`).
    where : str
        What ``values`` are, for messages (such as ``"in.csv: column 'timestamp'"``).

    Returns
    -------
    DatetimeIndex
    """
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return _in_zone(pd.DatetimeIndex(values), timezone, where)
    try:
        stamps = pd.to_datetime(values, format="ISO8601")  # naive, or one offset
    except (ValueError, TypeError):
        try:
            stamps = pd.to_datetime(values, utc=True, format="ISO8601")
        except (ValueError, TypeError):
            bad = _unparsable(values)
            raise ValueError(f"{where} has a value that is not a timestamp: {bad}") from None
        offsets = values.astype(str).str.strip().str.extract(_OFFSET)[0]
        naive = offsets.isna() & values.notna()
        if naive.any():  # utc=True would read the stamps without offset as UTC
            row = int(naive.to_numpy().argmax())
            raise ValueError(
                f"{where} mixes timestamps with and without a UTC offset, the first without "
                f"at row {row}: {values.iloc[row]!r}"
            ) from None
        if timezone is None and mixed_offsets == "raise":
            raise _mixed_offsets(values, offsets, where) from None
    return _in_zone(pd.DatetimeIndex(stamps), timezone, where)


def _mixed_offsets(values: pd.Series, offsets: pd.Series, where: str) -> MixedOffsetsError:
    known = offsets.notna().to_numpy().nonzero()[0]  # positions of stamps with an offset
    found = offsets.iloc[known].str.upper().to_numpy()
    first = ""
    change = (found != found[0]).nonzero()[0]
    if len(change):
        before, after = known[change[0] - 1], known[change[0]]
        first = f"; {values.iloc[before]!r} is followed by {values.iloc[after]!r}"
    distinct = list(dict.fromkeys(found))
    return MixedOffsetsError(
        where, f"{len(distinct)} different UTC offsets ({', '.join(distinct)}{first})"
    )


def _in_zone(stamps: pd.DatetimeIndex, timezone: str | None, where: str) -> pd.DatetimeIndex:
    if timezone is None:
        return stamps
    return localize_naive(stamps, timezone, where)  # naive stamps are local times there


def _unparsable(values: pd.Series) -> str:
    """Return the first value that is not an ISO-8601 timestamp and its row (from 0)."""
    parsed = pd.to_datetime(values, format="ISO8601", errors="coerce", utc=True)
    bad = (parsed.isna() & values.notna()).to_numpy()
    if not bad.any():
        return "a mix of values pandas cannot read together"
    row = int(bad.argmax())
    return f"{values.iloc[row]!r} at row {row}"


def write_frame(
    frame: pd.DataFrame, path: str | os.PathLike[str], index_label: str = "timestamp"
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


def write_table(table: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write ``table`` (its index dropped) to CSV or Parquet, atomically and deterministically.

    The file is written to a temporary file in the target folder
    (``.forecast-tmp-<name>-<pid>-<random>``, see :func:`remove_stale_temporaries`), synced,
    and moved into place with ``os.replace``: a crash never leaves a half-written file at
    ``path``, and the temporary a killed process left is removed by the next write of
    ``path``. Errors name ``path``, never the temporary file. Parquet
    is written with pyarrow without time-dependent metadata, CSV with pandas' default float
    formatting and timestamps in ISO 8601 with their UTC offset
    (``2023-03-26T03:00:00+02:00``), so equal tables give byte-identical files.

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

    Raises
    ------
    forecast.frames.writes.WriteRefused
        ``path`` exists and is not a table of the same columns (a file of someone else's).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ValueError(f"{path}: unknown output type {suffix!r}; expected .csv or .parquet")
    columns = [str(c) for c in table.columns]  # replace a table of ours (same columns) only
    refuse_foreign(path, lambda old: same_columns(old, columns), "a table of the same columns")
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    prefix = temporary_prefix(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            if suffix == ".parquet":
                with warnings.catch_warnings():  # pyarrow reads tz-aware columns via an
                    warnings.filterwarnings("ignore", "Series.values")  # API pandas 3.1 deprecates
                    try:
                        arrow = pa.Table.from_pandas(table, preserve_index=False)
                    except pa.ArrowException as err:  # names the column, not the file
                        kind = TypeError if isinstance(err, TypeError) else ValueError
                        raise kind(f"{path}: cannot write as Parquet: {err}") from err
                pq.write_table(arrow, fh)
            else:
                fh.write(csv_text(table).encode())
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise about_target(err, path.parent / prefix, path) from err
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
    return path


def temporary_prefix(target: Path) -> str:
    """Return this process's name prefix for temporaries of ``target`` (``TEMPORARY_PREFIX``)."""
    return f"{TEMPORARY_PREFIX}{target.name}-{os.getpid()}-"


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporaries of ``target`` left by writes that died (killed, power loss).

    Stale: its process (the pid in its name) is gone, or it is older than ``STALE_AFTER_S``
    (a reused pid). A live writer's temporary is kept. The pid test holds on one machine;
    on a folder shared between machines only the age tells. Returns what was removed.
    """
    prefix = f"{TEMPORARY_PREFIX}{target.name}-"
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        owner = re.fullmatch(r"(\d+)-\w+", entry.name.removeprefix(prefix))
        if not entry.name.startswith(prefix) or owner is None:
            continue
        try:
            age = time.time() - entry.stat(follow_symlinks=False).st_mtime
        except OSError:  # removed meanwhile
            continue
        if _alive(int(owner[1])) and age < STALE_AFTER_S:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            Path(entry.path).unlink(missing_ok=True)
        removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid() or os.name != "posix":  # elsewhere os.kill(pid, 0) terminates
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, another user's
        return True
    return True


def about_target(err: OSError, temporary: Path, target: Path) -> OSError:
    """Return ``err`` (same type and errno) naming ``target`` instead of a temporary.

    A file name starting with ``temporary`` (a temporary or its name prefix) has that
    component replaced with ``target``; an error naming no file gets ``target``.
    """
    name = os.fspath(err.filename) if err.filename is not None else os.fspath(target)
    if name.startswith(os.fspath(temporary)):
        rest = name[len(os.fspath(temporary)) :]
        name = os.fspath(target) + (rest[rest.find(os.sep) :] if os.sep in rest else "")
    return type(err)(err.errno, err.strerror or str(err), name)


def csv_text(table: pd.DataFrame) -> str:
    """Return ``table`` as CSV text: no index, Unix line ends, ISO-8601 timestamps.

    Parameters
    ----------
    table : DataFrame
        Rows and columns to write; datetime columns become ``2023-03-26T03:00:00+02:00``.

    Returns
    -------
    str
    """
    return _iso_timestamps(table).to_csv(index=False, lineterminator="\n")


def _iso_timestamps(table: pd.DataFrame) -> pd.DataFrame:
    """Return ``table`` with its datetime columns as ISO-8601 text (``T``, ``+01:00``)."""
    columns = [c for c in table.columns if pd.api.types.is_datetime64_any_dtype(table[c].dtype)]
    if not columns:
        return table
    out = table.copy()
    for column in columns:
        stamps = table[column]
        if ((stamps.dt.microsecond != 0) | (stamps.dt.nanosecond != 0)).any():
            out[column] = stamps.map(lambda t: None if pd.isna(t) else t.isoformat())
            continue
        text = stamps.dt.strftime("%Y-%m-%dT%H:%M:%S")
        if stamps.dt.tz is not None:
            offset = stamps.dt.strftime("%z")  # +0100
            text = text + offset.str[:3] + ":" + offset.str[3:]
        out[column] = text
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
