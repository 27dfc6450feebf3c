"""Reading a saved model folder cheaply and without following links.

Every entry of a model folder is checked with ``lstat`` before it is opened: symbolic
links (to files or folders) are refused, so a folder cannot borrow another model's weights
or disclose the size of a file elsewhere. A file's size is compared with what the manifest
lists, and with a cap, *before* any byte is read; it is then opened with ``O_NOFOLLOW``
where the platform has it, checked again with ``fstat`` (the same file, the same size) and
read exactly. JSON is parsed strictly (no ``NaN``/``Infinity`` tokens: our encoder tags
non-finite floats, see :mod:`forecast.persistence.serialize`; no key twice in one object)
under caps on its size, its
number of values and its nesting depth. Every failure is a
:class:`~forecast.persistence.errors.ModelFormatError` naming the file.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from forecast.persistence.errors import ModelFormatError

__all__ = ["entries", "lstat_entry", "read_range", "read_regular", "strict_json"]

MAX_JSON_DEPTH = 64  # our trees nest about 12 deep; decoding recurses once per level
MAX_JSON_VALUES = 1_000_000  # containers and items: bounds the Python objects of one file
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # absent on Windows, where lstat still checks
_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def lstat_entry(path: Path, kind: str = "file") -> os.stat_result:
    """Return ``lstat(path)``, refusing a link or an entry of another ``kind``.

    Parameters
    ----------
    path : Path
        An entry of a model folder.
    kind : {"file", "folder"}
        What the entry must be.

    Returns
    -------
    os.stat_result
        Its status, the link itself never followed.

    Raises
    ------
    ModelFormatError
        If it is a symbolic link, missing, or not a regular file (``"file"``) or folder.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError as err:
        raise ModelFormatError(f"{path}: missing from the saved model folder") from err
    except OSError as err:
        raise ModelFormatError(f"{path}: cannot be read ({err.strerror})") from err
    if stat.S_ISLNK(st.st_mode):
        raise ModelFormatError(
            f"{path}: is a symbolic link; a saved model folder holds no links, only its own files"
        )
    ok = stat.S_ISREG(st.st_mode) if kind == "file" else stat.S_ISDIR(st.st_mode)
    if not ok:
        raise ModelFormatError(f"{path}: not a regular {kind}")
    return st


def entries(folder: Path) -> dict[str, os.stat_result]:
    """Return the entries of ``folder`` by name with their ``lstat``; links are refused."""
    out = {}
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    raise ModelFormatError(
                        f"{folder / entry.name}: is a symbolic link; a saved model folder "
                        "holds no links, only its own files"
                    )
                out[entry.name] = st
    except OSError as err:
        raise ModelFormatError(f"{folder}: cannot be listed ({err.strerror})") from err
    return out


def _open(path: Path, size: int | None, cap: int) -> tuple[int, int]:
    """Open a regular file checked by lstat and fstat; return the descriptor and its size."""
    st = lstat_entry(path)
    if size is not None and st.st_size != size:
        raise ModelFormatError(
            f"{path}: {st.st_size} bytes, meta.json lists {size}: the file is truncated or "
            "was modified"
        )
    if st.st_size > cap:
        raise ModelFormatError(f"{path}: {st.st_size} bytes, more than the {cap} allowed")
    try:
        fd = os.open(path, _FLAGS)
    except OSError as err:  # ELOOP: replaced by a link after the lstat
        raise ModelFormatError(f"{path}: cannot be opened ({err.strerror})") from err
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino, now.st_size) != (st.st_dev, st.st_ino, st.st_size) or not (
        stat.S_ISREG(now.st_mode)
    ):
        os.close(fd)
        raise ModelFormatError(f"{path}: changed while it was being opened")
    return fd, st.st_size


def read_regular(path: Path, size: int | None, cap: int) -> bytes:
    """Read the regular file ``path`` of exactly ``size`` bytes (None: any up to ``cap``).

    Parameters
    ----------
    path : Path
        A file of a model folder.
    size : int or None
        The size the manifest lists; compared with ``lstat`` before reading.
    cap : int
        The most bytes this file may have.

    Returns
    -------
    bytes
        Its content.

    Raises
    ------
    ModelFormatError
        A link, not a regular file, another size, more than ``cap``, or a file that changed.
    """
    fd, n = _open(path, size, cap)
    with os.fdopen(fd, "rb") as fh:  # a buffered read of n bytes loops until n or the end
        data = fh.read(n)
        if len(data) != n or fh.read(1):
            raise ModelFormatError(f"{path}: changed size while it was being read")
    return data


def read_range(path: Path, size: int, offset: int, length: int) -> bytes:
    """Read ``length`` bytes at ``offset`` of ``path`` (of ``size`` bytes), unverified."""
    fd, _ = _open(path, size, size)
    with os.fdopen(fd, "rb") as fh:
        fh.seek(offset)
        return fh.read(length)


def _refuse_constant(token: str) -> Any:
    raise ValueError(f"bare {token} is not strict JSON (non-finite floats are tagged)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object, refusing a key given twice (``json`` would keep the last)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def strict_json(raw: bytes, where: Path, *, max_values: int = MAX_JSON_VALUES) -> Any:
    """Parse strict JSON under caps on values and depth.

    Parameters
    ----------
    raw : bytes
        UTF-8 JSON.
    where : Path
        The file named in error messages.
    max_values : int
        Most containers and separators (``[``, ``{``, ``,``), counted before parsing.

    Returns
    -------
    object
        The parsed value.

    Raises
    ------
    ModelFormatError
        Not UTF-8, not strict JSON (a key given twice in one object included: the files
        we write never repeat one), more values than ``max_values`` or deeper than
        ``MAX_JSON_DEPTH``.
    """
    count = raw.count(b"[") + raw.count(b"{") + raw.count(b",")
    if count > max_values:
        raise ModelFormatError(f"{where}: more than {max_values} JSON values; refusing to parse")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except RecursionError as err:
        raise ModelFormatError(f"{where}: JSON nested too deeply") from err
    except (UnicodeDecodeError, ValueError) as err:  # JSONDecodeError, long int literals
        raise ModelFormatError(f"{where}: not valid JSON ({err})") from err
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ModelFormatError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return value
