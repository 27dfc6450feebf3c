"""Read a CSV or Parquet file into a frame; a file that cannot be read gets a ValueError.

pandas and pyarrow report a broken file in their own terms (``EmptyDataError``, a
``UnicodeDecodeError`` with an offset into some buffer, ``Error tokenizing data``) and often
without its name, and pandas silently shifts a row with too many fields into the index.
:func:`read_csv_table` and :func:`read_parquet_table` instead raise a ValueError that names
the file and, where known, the line and column at fault. The diagnosis re-reads the file
only after pandas has failed, so good files are parsed once.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import re
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Literal

import pandas as pd
import pyarrow as pa

from forecast.frames.messages import first_line

_EOF_IN_QUOTE = "EOF inside string"
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_UTF8_HINT = "save it as UTF-8 (in Excel: CSV UTF-8)"


def read_csv_table(path: Path) -> pd.DataFrame:
    """Read the CSV file ``path`` (plain or compressed) with a default RangeIndex.

    Parameters
    ----------
    path : Path
        The file; gzip, bz2 and xz are recognised by their content (a gzip file named
        ``.csv`` is read), else pandas infers a compression from the suffix (``.gz``,
        ``.bz2``, ``.xz`` are diagnosed line by line, ``.zip``, ``.zst``, ``.tar`` only by
        pandas' message).

    Returns
    -------
    DataFrame
        One column per header field, a RangeIndex.

    Raises
    ------
    ValueError
        If the file is empty, not UTF-8 text, not validly compressed, a zip archive (by its
        content, whatever its name), has an unterminated quote, a row with more fields than
        the header or a column name twice in the header; the message names the file and,
        where known, the line (and column).
    """
    compression = _sniff(path)
    try:
        frame = pd.read_csv(path, compression=compression)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        if path.suffix.lower() in _OPAQUE:
            raise ValueError(f"{path}: not a readable CSV file ({first_line(err)})") from None
        if isinstance(err, UnicodeDecodeError):
            raise ValueError(f"{path}: {_not_utf8(path)}") from None
        raise ValueError(f"{path}: {_parser_problem(path, err)}") from None
    except pd.errors.EmptyDataError:
        raise ValueError(
            f"{path}: no header line: the file is empty or holds only blank lines"
        ) from None
    except (gzip.BadGzipFile, EOFError, zlib.error, lzma.LZMAError) as err:
        raise ValueError(f"{path}: not a readable compressed file ({err})") from None
    if not isinstance(frame.index, pd.RangeIndex):  # pandas moved surplus fields into the index
        known = path.suffix.lower() not in _OPAQUE
        problem = (known and _too_many_fields(path)) or "rows have more fields than the header"
        raise ValueError(f"{path}: {problem}")
    _check_unique_header(path, frame)
    return frame


def read_parquet_table(path: Path) -> pd.DataFrame:
    """Read the Parquet file ``path``; a damaged file raises a ValueError naming it.

    Parameters
    ----------
    path : Path
        The file.

    Returns
    -------
    DataFrame
        As written, with its own index.
    """
    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError) as err:  # pyarrow: OSError without errno on bad data
        if isinstance(err, OSError) and err.errno is not None:  # permissions and the like
            raise
        reason = re.sub(r"^Could not open Parquet input source '[^']*': ", "", first_line(err))
        raise ValueError(f"{path}: not a readable Parquet file ({reason})") from None


# ------------------------------------------------------------------- diagnosis

_Compression = Literal["gzip", "bz2", "xz", "infer"]
_Opener = Callable[..., IO[Any]]
_OPENERS: dict[str, _Opener] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_OPAQUE = (".zip", ".zst", ".tar", ".tgz")  # compressions pandas reads and we do not diagnose
# the first bytes of compressed files: (magic, pandas compression, opener)
_MAGIC: tuple[tuple[bytes, _Compression, _Opener], ...] = (
    (b"\x1f\x8b", "gzip", gzip.open),
    (b"BZh", "bz2", bz2.open),
    (b"\xfd7zXZ\x00", "xz", lzma.open),
)
_ZIP = b"PK\x03\x04"


def _magic(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(6)


def _sniff(path: Path) -> _Compression:
    """Return the compression of ``path`` by its content ("infer": by its suffix)."""
    head = _magic(path)
    for magic, name, _ in _MAGIC:
        if head.startswith(magic):
            return name
    if head.startswith(_ZIP) and path.suffix.lower() != ".zip":
        raise ValueError(
            f"{path}: a zip archive, not CSV text (its content starts with 'PK'): unzip it "
            "and read the CSV file inside, or name the archive .zip"
        )
    return "infer"


def _open_bytes(path: Path) -> IO[Any]:
    head = _magic(path)
    opener = next((o for magic, _, o in _MAGIC if head.startswith(magic)), None)
    return (opener or _OPENERS.get(path.suffix.lower(), open))(path, "rb")


def _check_unique_header(path: Path, frame: pd.DataFrame) -> None:
    """Raise if a column name occurs twice in the header (pandas renames the second ``x.1``)."""
    renamed = [c for c in frame.columns if isinstance(c, str) and re.fullmatch(r".+\.\d+", c)]
    if not any(c.rsplit(".", 1)[0] in frame.columns for c in renamed):
        return
    header: list[str] | None = None
    if path.suffix.lower() not in _OPAQUE:
        header = next((fields for _, fields in _rows(path) if fields), None)
    names = header if header is not None else [str(c) for c in frame.columns]
    seen: set[str] = set()
    for position, name in enumerate(names, start=1):
        if name in seen or (header is None and name.rsplit(".", 1)[0] in seen):
            raise ValueError(
                f"{path}: column {name if header else name.rsplit('.', 1)[0]!r} appears twice "
                f"in the header (again as field {position}); every column needs a unique name"
            )
        seen.add(name)


def _not_utf8(path: Path) -> str:
    """Say where the first byte that is not UTF-8 lies (line and column, 1-based)."""
    with _open_bytes(path) as fh:
        data = fh.read()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return f"not UTF-8 text: it starts with a UTF-16 byte-order mark; {_UTF8_HINT}"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        start = data.rfind(b"\n", 0, err.start) + 1
        line = data.count(b"\n", 0, err.start) + 1
        column = len(data[start : err.start].decode("utf-8")) + 1
        return (
            f"not UTF-8 text: byte 0x{data[err.start]:02x} at line {line}, column {column} "
            f"cannot be decoded; {_UTF8_HINT}"
        )
    return f"not UTF-8 text; {_UTF8_HINT}"


def _rows(path: Path) -> Iterator[tuple[int, list[str] | None]]:
    """Yield ``(first line, fields)`` of every CSV record, as pandas splits them.

    Lines count from 1; a blank line gives ``[]``. A record the ``csv`` module cannot split
    (a field over its size limit, as an unclosed quote makes) gives ``None`` and ends it.
    """
    with _open_bytes(path) as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="") as text:
        reader = csv.reader(text)
        last = 0
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error:
                yield last + 1, None
                return
            yield last + 1, fields
            last = reader.line_num


def _parser_problem(path: Path, err: Exception) -> str:
    """Turn pandas' tokenizer error into what is wrong, and on which line."""
    message = str(err).strip()
    if _EOF_IN_QUOTE in message:
        start = None
        for first, fields in _rows(path):
            start = first if fields != [] else start
        where = f"the row starting on line {start}" if start else "a row"
        return (
            f"a quoted field in {where} is never closed (a '\"' without its closing '\"'), so "
            "the rest of the file would be read as one value"
        )
    match = _FIELDS.search(message)
    if match:
        found = _too_many_fields(path)
        if found:
            return found
        header, line, seen = match.groups()
        return f"line {line} has {seen} fields, but the header has {header}"
    return f"not a readable CSV file ({first_line(err)})"


def _too_many_fields(path: Path) -> str | None:
    """Name the first row with more fields than the header, if any."""
    header = None
    for first, fields in _rows(path):
        if fields is None:
            return None
        if not fields:  # a blank line
            continue
        if header is None:
            header = (first, len(fields))
        elif len(fields) > header[1]:
            return (
                f"line {first} has {len(fields)} fields, but the header (line {header[0]}) has "
                f"{header[1]}: a surplus delimiter, or an unquoted value containing one"
            )
    return None
