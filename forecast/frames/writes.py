"""The one rule for every path the toolkit writes: never an input, never a file it did not write.

Every writer (``forecast batch``'s ``--output``, ``--lock`` and the lock's owner file,
``save`` (its folder check in ``forecast/persistence/overwrite.py``), ``to_onnx``, training
checkpoints, the ``--output`` of ``predict`` and ``backtest``) checks its target here before
any work:

- :func:`refuse_inputs`: the target is not the file of any input of the same call, after
  following links and ``..`` and across hard links (:func:`same_file`);
- :func:`refuse_foreign`: an existing target is replaced only when it is recognisably the
  toolkit's own (a saved model folder, an export folder holding only the export's files, a
  checkpoint that loads as one, an owner line in the lock's format, a table file with the
  columns of the table about to be written: the previous forecast of the same job,
  :func:`same_columns`); anything else stays untouched and the call fails with one line
  naming it.

Both raise :class:`WriteRefused`, a ``FileExistsError`` (callers with their own error types,
such as ``forecast batch``, turn it into theirs).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

__all__ = [
    "WriteRefused",
    "file_identity",
    "refuse_foreign",
    "refuse_inputs",
    "same_columns",
    "same_file",
]

PathLike = str | os.PathLike[str]


class WriteRefused(FileExistsError):
    """A write that would replace an input or a file the toolkit did not write; nothing was done."""


def file_identity(path: Path) -> tuple[int, int] | None:
    """Return ``(st_dev, st_ino)`` of the file at ``path`` (links followed), None if absent."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether ``a`` and ``b`` name the same file: equal resolved paths, or the same inode.

    Parameters
    ----------
    a, b : str or path-like
        Paths; either may not exist (then only the resolved paths are compared).

    Returns
    -------
    bool
    """
    left, right = Path(a), Path(b)
    if left.resolve() == right.resolve():
        return True
    first, second = file_identity(left), file_identity(right)
    return first is not None and first == second


def refuse_inputs(
    output: PathLike, inputs: Mapping[str, PathLike | None], output_name: str
) -> None:
    """Raise :class:`WriteRefused` when ``output`` is the file of one of ``inputs``.

    Parameters
    ----------
    output : str or path-like
        The path about to be written.
    inputs : mapping of str to path or None
        The call's inputs by the name the message gives them (``"--input"``, ``"--future"``);
        None entries are skipped.
    output_name : str
        How the message names ``output`` (``"--output"``, ``"--lock"``).

    Raises
    ------
    WriteRefused
        Naming both options and paths.
    """
    for name, path in inputs.items():
        if path is not None and same_file(output, path):
            raise WriteRefused(
                f"{output_name} {os.fspath(output)} is the {name} file {os.fspath(path)}: "
                f"give {output_name} another path; nothing was done"
            )


def refuse_foreign(path: PathLike, ours: Callable[[Path], bool], what: str) -> None:
    """Raise :class:`WriteRefused` when ``path`` exists and is not the toolkit's own ``what``.

    Parameters
    ----------
    path : str or path-like
        The file or folder about to be replaced.
    ours : callable
        ``ours(path) -> bool``: whether the existing entry is one the toolkit wrote. Called
        only when ``path`` exists (or is a link); a link is never ours.
    what : str
        What the toolkit would have written there (``"a lock owner file"``), for the message.

    Raises
    ------
    WriteRefused
        Naming the path; the entry is left as it was.
    """
    target = Path(path)
    if not (target.exists() or target.is_symlink()):
        return
    if target.is_symlink() or not ours(target):
        raise WriteRefused(
            f"{os.fspath(target)} exists and is not {what} written by forecast: not "
            "replacing it; move it away or choose another path; nothing was done"
        )


_MAX_HEADER_BYTES = 1 << 20


def same_columns(path: Path, columns: Sequence[str]) -> bool:
    """Whether the CSV or Parquet file at ``path`` has exactly the column names ``columns``.

    Parameters
    ----------
    path : Path
        An existing ``.csv`` or ``.parquet`` file.
    columns : sequence of str
        The header of the table about to be written there.

    Returns
    -------
    bool
        False for anything that cannot be read as such a table (another format, no header).
    """
    try:
        if not path.is_file():
            return False
        if path.suffix.lower() == ".parquet":
            import pyarrow.parquet as pq  # only where a Parquet file is replaced

            return list(pq.read_schema(path).names) == list(columns)
        with path.open(newline="", encoding="utf-8") as fh:
            first = fh.readline(_MAX_HEADER_BYTES)
        return next(csv.reader([first]), []) == list(columns)
    except (OSError, UnicodeDecodeError, csv.Error, ValueError):
        return False
