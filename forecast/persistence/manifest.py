"""The manifest of a saved model folder (``meta.json``): format version and file checksums.

The manifest lists every other file of the folder with its size and SHA-256. Loading reads
the manifest first (a regular file of at most 1 MiB, strict JSON), checks the format version
and that the folder holds exactly the listed files, no links, each of the listed size (by
``lstat``, before reading) and under its cap; a file is then read when it is first needed and
its SHA-256 checked before it is parsed: the bytes that were checked are the bytes that get
parsed (each file is read once; see :mod:`forecast.persistence.files`).

The checksums catch corrupted, truncated, swapped, missing and extra files. They are not a
signature: someone who can write the folder can rewrite the manifest too. What keeps a
folder from running code is that nothing in it is ever unpickled or imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from forecast.persistence.errors import ModelFormatError  # re-exported: its historic home
from forecast.persistence.files import entries, lstat_entry, read_range, read_regular, strict_json

__all__ = [
    "MANIFEST",
    "ModelFormatError",
    "VerifiedFiles",
    "check_runtime",
    "parse_manifest",
    "read_verified",
]

MANIFEST = "meta.json"
FORMAT = (2, 0)  # major.minor: a new major breaks readers, a new minor only adds fields
_MAX_MANIFEST_BYTES = 1 << 20
_MAX_FILE_BYTES = 1 << 40  # files without a cap of their own: structure is checked instead
_ATTRIBUTE = re.compile(r"[a-z][A-Za-z0-9_]*_")


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def build_manifest(files: dict[str, bytes], **fields: Any) -> dict[str, Any]:
    """Return the manifest of ``files`` (name to content) with extra ``fields``."""
    return {
        "format": f"{FORMAT[0]}.{FORMAT[1]}",
        **fields,
        "files": {
            name: {"size": len(data), "sha256": sha256(data)}
            for name, data in sorted(files.items())
        },
    }


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """Serialise a manifest as indented, strict JSON."""
    return (json.dumps(manifest, indent=2, allow_nan=False) + "\n").encode()


def _check_format(value: object, where: Path, stacklevel: int) -> tuple[int, int]:
    if value == 1:
        raise ModelFormatError(
            f"{where}: format 1 folders keep fitted state in a pickle (fitted.pkl), which can run "
            "code when loaded; this version does not load them. Refit and save again (or, only "
            "for a folder you trust, load it with forecast 0.1.0 and save it again)"
        )
    match = re.fullmatch(r"(\d+)\.(\d+)", value) if isinstance(value, str) else None
    if match is None:
        raise ModelFormatError(f"{where}: unknown format {value!r}; expected 'MAJOR.MINOR'")
    major, minor = int(match[1]), int(match[2])
    current = f"{FORMAT[0]}.{FORMAT[1]}"
    if major > FORMAT[0]:
        raise ModelFormatError(
            f"{where}: format {value} is newer than this version of forecast reads "
            f"({current}); upgrade forecast to load it"
        )
    if major < FORMAT[0]:
        raise ModelFormatError(f"{where}: format {value} is no longer supported ({current})")
    if minor < FORMAT[1]:
        warnings.warn(
            f"{where}: saved in the older format {value}, which this version (format "
            f"{current}) still reads; save the model again to upgrade it",
            UserWarning,
            stacklevel=stacklevel,
        )
    elif minor > FORMAT[1]:
        warnings.warn(
            f"{where}: saved in the newer format {value}; this version reads format {current} "
            "and ignores fields it does not know",
            UserWarning,
            stacklevel=stacklevel,
        )
    return major, minor


def _is_pin(value: object) -> bool:
    """Tell whether ``value`` is a SHA-256 string or a non-empty list of them."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, str) for v in value)
    return isinstance(value, str)


def read_manifest(path: Path, expected: str | None = None, stacklevel: int = 6) -> dict[str, Any]:
    """Read and check the manifest of the folder ``path`` (no link, capped, strict JSON).

    Parameters
    ----------
    path : Path
        The folder.
    expected : str, optional
        SHA-256 the manifest must have (a nested folder pinned by its parent).
    stacklevel : int
        Of the warning about an older or newer minor format.

    Returns
    -------
    dict
        The manifest, its ``files`` and ``nested`` fields checked.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a folder or has no manifest.
    ModelFormatError
        If the folder or its manifest is a link, or the manifest is too large, not strict
        JSON or not a manifest of ours.
    """
    where = path / MANIFEST
    mlflow_hint = (
        ": for a model logged to MLflow use forecast.tracking.load_artifact, which checks "
        "its MLmodel file and loads the folder inside without running any of its code"
    )
    text = os.fspath(path)
    if "://" in text or text.startswith(("models:/", "runs:/")):
        raise FileNotFoundError(f"{text} is a model URI, not a saved model folder{mlflow_hint}")
    if path.is_symlink():
        raise ModelFormatError(
            f"{path}: is a symbolic link; load the saved model folder it points to by its own "
            "path (a model folder and its entries are never links)"
        )
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not a saved model folder: no such folder")
    if not os.path.lexists(where):
        if os.path.lexists(path / "MLmodel"):
            raise FileNotFoundError(
                f"{path} is an MLflow model, not a saved model folder{mlflow_hint}"
            )
        raise FileNotFoundError(f"{path} is not a saved model folder: {MANIFEST} is missing")
    st = lstat_entry(where)
    if st.st_size > _MAX_MANIFEST_BYTES:
        raise ModelFormatError(f"{where}: {st.st_size} bytes, too large for a manifest")
    raw = read_regular(where, st.st_size, _MAX_MANIFEST_BYTES)
    if expected is not None and sha256(raw) != expected:
        raise ModelFormatError(
            f"{where}: SHA-256 differs from the parent folder's {MANIFEST}: the nested model "
            "is corrupted or was modified"
        )
    return parse_manifest(raw, where, stacklevel)


def parse_manifest(raw: bytes, where: Path, stacklevel: int = 2) -> dict[str, Any]:
    """Parse the bytes of a manifest and check its format, ``files`` and ``nested``."""
    manifest = strict_json(raw, where)
    if not isinstance(manifest, dict) or "format" not in manifest:
        raise ModelFormatError(f"{where}: not a model manifest (no 'format' field)")
    _check_format(manifest["format"], where, stacklevel)
    listed = manifest.get("files")
    if not isinstance(listed, dict) or not all(
        isinstance(v, dict)
        and isinstance(v.get("sha256"), str)
        and type(v.get("size")) is int
        and v["size"] >= 0
        for v in listed.values()
    ):
        raise ModelFormatError(f"{where}: 'files' must map file names to their size and sha256")
    nested = manifest.get("nested") or {}
    if not isinstance(nested, dict) or not all(
        isinstance(k, str) and _ATTRIBUTE.fullmatch(k) and _is_pin(v) for k, v in nested.items()
    ):
        raise ModelFormatError(
            f"{where}: 'nested' must map attribute names to sha256 strings or lists of them"
        )
    if set(nested) & set(listed):
        raise ModelFormatError(f"{where}: 'nested' names files of the folder")
    return manifest


def subfolders(path: Path, nested: dict[str, Any]) -> list[Path]:
    """Return the nested model folders ``nested`` pins, each checked: a folder, not a link."""
    out = []
    for name, pin in nested.items():
        lstat_entry(path / name, "folder")
        if isinstance(pin, list):  # numbered subfolders 0, 1, ... and nothing else
            found = sorted(entries(path / name))
            expected = sorted(str(i) for i in range(len(pin)))
            if found != expected:
                raise ModelFormatError(
                    f"{path / name}: holds {found}, {MANIFEST} lists the nested model folders "
                    f"{expected}"
                )
            for i in range(len(pin)):
                lstat_entry(path / name / str(i), "folder")
                out.append(path / name / str(i))
        else:
            out.append(path / name)
    return out


class VerifiedFiles(Mapping[str, bytes]):
    """The listed files of a checked folder; each read and checked when first looked up."""

    def __init__(self, path: Path, listed: dict[str, Any], caps: Mapping[str, int]) -> None:
        self.path, self.listed, self.caps = path, listed, caps
        self._data: dict[str, bytes] = {}

    def __getitem__(self, name: str) -> bytes:
        if name not in self._data:
            entry, target = self.listed[name], self.path / name
            data = read_regular(target, entry["size"], self.caps.get(name, _MAX_FILE_BYTES))
            if sha256(data) != entry["sha256"]:
                raise ModelFormatError(
                    f"{target}: SHA-256 differs from {MANIFEST}: the file is corrupted or was "
                    "modified"
                )
            self._data[name] = data
        return self._data[name]

    def head(self, name: str, length: int) -> bytes:
        """Return the first ``length`` bytes of ``name``, unverified (structure checks)."""
        return read_range(self.path / name, self.listed[name]["size"], 0, length)

    def tail(self, name: str, length: int) -> bytes:
        """Return the last ``length`` bytes of ``name``, unverified (structure checks)."""
        size = self.listed[name]["size"]
        return read_range(self.path / name, size, max(0, size - length), length)

    def __iter__(self) -> Iterator[str]:
        return iter(self.listed)

    def __len__(self) -> int:
        return len(self.listed)


def check_runtime(manifest: dict[str, Any], where: Path, runtime: str | None) -> None:
    """Refuse a folder whose network runs elsewhere than the loader's ``runtime``.

    A saved folder's network is torch modules (no ``"runtime"`` field) or, for an ONNX
    export, an ONNX graph (``"runtime": "onnx"``); each loader reads its own kind and names
    the other's loader in one line.
    """
    found = manifest.get("runtime")
    if found == runtime:
        return
    if found == "onnx":
        raise ModelFormatError(
            f"{where}: an ONNX export, whose network runs in onnxruntime: load it with "
            "forecast.onnx.runtime.OnnxForecaster.load (forecast batch and forecast serve take "
            "the folder as it is)"
        )
    if found is None:
        raise ModelFormatError(
            f"{where}: a saved model folder of torch modules, not an ONNX export: load it with "
            "forecast.load, or export it with estimator.to_onnx(path)"
        )
    raise ModelFormatError(f"{where}: unknown runtime {found!r} (this version knows 'onnx')")


def read_verified(
    path: Path,
    allowed: set[str],
    expected: str | None = None,
    caps: Mapping[str, int] | None = None,
    runtime: str | None = None,
) -> tuple[dict[str, Any], VerifiedFiles]:
    """Check a saved model folder against its manifest, reading no file yet.

    Parameters
    ----------
    path : Path
        The folder.
    allowed : set of str
        The file names a folder may hold besides the manifest.
    expected : str, optional
        SHA-256 the manifest itself must have (a nested folder, pinned by its parent's
        manifest). The subfolders the manifest lists under ``"nested"`` are allowed
        besides the files and must be folders; the caller verifies their content.
    caps : mapping, optional
        The most bytes each file may have, by name; checked before it is read.
    runtime : str, optional
        The manifest's ``"runtime"``: None for torch modules, ``"onnx"`` for an export.

    Returns
    -------
    manifest : dict
        The parsed manifest.
    files : VerifiedFiles
        Every listed file by name: read on first lookup, after its size was checked by
        ``lstat`` and before its checksum is compared; exactly these bytes are parsed.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a folder or has no manifest.
    ModelFormatError
        If the manifest is unreadable or of an unsupported format, or an entry is a link,
        missing, unexpected, over its cap, or differs in size (checksums: on lookup).
    """
    caps = caps or {}
    manifest = read_manifest(path, expected)
    check_runtime(manifest, path / MANIFEST, runtime)
    listed, nested = manifest["files"], manifest.get("nested") or {}
    subfolders(path, nested)
    found = entries(path)
    present = set(found) - {MANIFEST} - set(nested)
    extra = sorted((present | set(listed)) - allowed)
    if extra:
        raise ModelFormatError(
            f"{path / extra[0]}: not a file of a saved model folder (expected only "
            f"{sorted(allowed | {MANIFEST})}); unexpected: {extra}"
        )
    extra = sorted(present - set(listed))
    if extra:
        raise ModelFormatError(
            f"{path / extra[0]}: unexpected file in the saved model folder (not in {MANIFEST}); "
            f"unexpected: {extra}"
        )
    missing = sorted(set(listed) - present)
    if missing:
        raise ModelFormatError(f"{path / missing[0]}: file listed in {MANIFEST} is missing")
    for name, entry in sorted(listed.items()):
        target, st = path / name, found[name]
        if not stat.S_ISREG(st.st_mode):
            raise ModelFormatError(f"{target}: not a regular file")
        if st.st_size != entry["size"]:
            raise ModelFormatError(
                f"{target}: {st.st_size} bytes, {MANIFEST} lists {entry['size']}: the file is "
                "truncated or was modified"
            )
        cap = caps.get(name, _MAX_FILE_BYTES)
        if entry["size"] > cap:
            raise ModelFormatError(f"{target}: {entry['size']} bytes, more than the {cap} allowed")
    return manifest, VerifiedFiles(path, listed, caps)
