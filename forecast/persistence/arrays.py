"""Reading ``fitted.npz`` with every member checked before it is inflated.

``np.load`` trusts the zip: a member may be compressed (a few kilobytes inflating to
gigabytes) and its ``.npy`` header may declare any shape. Here the zip's end record is
checked first (member count, where the directory lies), then every member: stored
uncompressed (so it is never larger than the file, already checked against the manifest),
named like the arrays :func:`forecast.persistence.serialize.encode` writes, and its header
declaring a plain dtype and a shape whose bytes are exactly the member's. Only then is the
member read. :class:`TrackedArrays` records which arrays the fitted tree referred to, so
that a member nothing refers to is refused.
"""

from __future__ import annotations

import io
import math
import re
import struct
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, Literal, cast

import numpy as np

from forecast.persistence.errors import ModelFormatError

__all__ = ["MAX_MEMBERS", "LazyArrays", "check_npz_tail", "read_npz"]

MAX_MEMBERS = 100_000  # each costs a ZipInfo (~0.5 kB) before anything is read
_KINDS = "biufcmMU"  # as serialize._ARRAY_KINDS: numbers, booleans, datetimes, strings
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\.npy")
_END = b"PK\x05\x06"
_END_SIZE = 22  # numpy writes no zip comment
_MAX_HEADER = 10_000  # numpy's own default cap on an .npy header
# a member: its zip entry, shape, Fortran order, dtype and the offset of its data
_REFUSED_FLAGS = 0x01 | 0x20 | 0x40  # encrypted, patched data, strong encryption
_Member = tuple[zipfile.ZipInfo, tuple[int, ...], bool, np.dtype[Any], int]


class LazyArrays(Mapping[str, np.ndarray]):
    """The checked members of ``fitted.npz``; a member is read when first looked up.

    Every member's header was checked when the archive was opened; a member the fitted
    tree never refers to is never inflated (:meth:`unused` names them).
    """

    def __init__(self, archive: zipfile.ZipFile, members: dict[str, _Member], where: Path) -> None:
        self._archive, self._members, self._where = archive, members, where
        self._arrays: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._arrays:
            info, shape, fortran, dtype, offset = self._members[key]
            nbytes = math.prod(shape) * dtype.itemsize
            buffer = bytearray(nbytes)
            try:
                with self._archive.open(info) as member:
                    fh = cast(io.BufferedIOBase, member)  # a ZipExtFile; typeshed says IO[bytes]
                    fh.seek(offset)
                    if fh.readinto(buffer) != nbytes:
                        raise ValueError(f"member {info.filename!r} is truncated")
            except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as err:
                raise ModelFormatError(f"{self._where}: not a readable npz file ({err})") from err
            order: Literal["F", "C"] = "F" if fortran else "C"
            self._arrays[key] = np.ndarray(shape, dtype, buffer=buffer, order=order)
        return self._arrays[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def unused(self) -> list[str]:
        """Return the names of the members never looked up."""
        return sorted(set(self._members) - set(self._arrays))


def check_npz_tail(tail: bytes, size: int, where: Path) -> None:
    """Check the zip end record (the last bytes of a file of ``size`` bytes) cheaply.

    A file that is not a zip written by numpy (no end record where it must be, a directory
    outside the file, too many members) is refused before it is read whole.
    """
    if len(tail) != _END_SIZE or not tail.startswith(_END):
        raise ModelFormatError(f"{where}: not an npz file written by numpy (no zip end record)")
    count, dir_size, dir_offset = struct.unpack("<10xHIIxx", tail)
    if count == 0xFFFF or dir_offset == 0xFFFFFFFF:
        return  # zip64: checked member by member by read_npz
    if count > MAX_MEMBERS:
        raise ModelFormatError(f"{where}: {count} members, more than the {MAX_MEMBERS} allowed")
    if dir_offset + dir_size + _END_SIZE != size:
        raise ModelFormatError(f"{where}: the zip directory does not end the file")


def _member_header(fh: IO[bytes], where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh, _MAX_HEADER)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh, _MAX_HEADER)
    else:
        raise ValueError(f"{where}: .npy version {version} is not supported")
    if dtype.hasobject:
        raise ValueError(f"{where}: object arrays are refused (allow_pickle=False)")
    if dtype.kind not in _KINDS or dtype.names or dtype.shape:
        raise ValueError(f"{where}: dtype {dtype} is not one a saved model holds")
    if len(shape) > 32 or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"{where}: shape {shape} is not valid")
    return shape, fortran, dtype


def read_npz(data: bytes, where: Path) -> LazyArrays:
    """Open ``fitted.npz`` and check every member's header; arrays are read on lookup.

    Parameters
    ----------
    data : bytes
        The verified file.
    where : Path
        The file named in error messages.

    Returns
    -------
    LazyArrays
        Member name (without ``.npy``) to array.

    Raises
    ------
    ModelFormatError
        Not a zip, too many members, a compressed or encrypted member, a duplicate or odd
        name, an unsupported dtype, or a declared shape that does not fit the member.
    """
    check_npz_tail(data[-_END_SIZE:], len(data), where)
    if data.count(b"PK\x01\x02") > MAX_MEMBERS:  # bounds the directory entries parsed
        raise ModelFormatError(f"{where}: more than {MAX_MEMBERS} members")
    members: dict[str, _Member] = {}
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        for info in archive.infolist():
            name = info.filename
            if not _NAME.fullmatch(name) or name[:-4] in members:
                raise ValueError(f"member {name!r} is not an array name or a duplicate")
            if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & _REFUSED_FLAGS:
                raise ValueError(f"member {name!r} is compressed or encrypted")
            if info.file_size != info.compress_size or info.file_size > len(data):
                raise ValueError(f"member {name!r} declares {info.file_size} bytes")
            with archive.open(info) as fh:
                shape, fortran, dtype = _member_header(fh, f"member {name!r}")
                offset = fh.tell()
            if offset + math.prod(shape) * dtype.itemsize != info.file_size:
                raise ValueError(
                    f"member {name!r}: shape {shape} of {dtype} does not fit its "
                    f"{info.file_size} bytes"
                )
            members[name[:-4]] = (info, shape, fortran, dtype, offset)
    except (
        zipfile.BadZipFile,
        ValueError,
        OSError,
        EOFError,
        struct.error,
        NotImplementedError,
    ) as err:
        raise ModelFormatError(f"{where}: not a readable npz file ({err})") from err
    return LazyArrays(archive, members, where)
