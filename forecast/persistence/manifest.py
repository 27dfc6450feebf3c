"""The manifest of a saved model folder (``meta.json``): format version and file checksums.

The manifest lists every other file of the folder with its size and SHA-256. Loading reads
the manifest first, checks the format version and that the folder holds exactly the listed
files with the listed content, and only then lets anything else be parsed; the bytes that
were checked are the bytes that get parsed (each file is read once).

The checksums catch corrupted, truncated, swapped, missing and extra files. They are not a
signature: someone who can write the folder can rewrite the manifest too. What keeps a
folder from running code is that nothing in it is ever unpickled or imported.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from pathlib import Path

MANIFEST = "meta.json"
FORMAT = (2, 0)  # major.minor: a new major breaks readers, a new minor only adds fields
_MAX_MANIFEST_BYTES = 1 << 20


class ModelFormatError(ValueError):
    """A saved model folder is malformed, tampered with, or of an unsupported format."""


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def build_manifest(files: dict[str, bytes], **fields) -> dict:
    """Return the manifest of ``files`` (name to content) with extra ``fields``."""
    return {
        "format": f"{FORMAT[0]}.{FORMAT[1]}",
        **fields,
        "files": {
            name: {"size": len(data), "sha256": sha256(data)}
            for name, data in sorted(files.items())
        },
    }


def manifest_bytes(manifest: dict) -> bytes:
    """Serialise a manifest as indented, strict JSON."""
    return (json.dumps(manifest, indent=2, allow_nan=False) + "\n").encode()


def _check_format(value, where: Path) -> tuple[int, int]:
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
            stacklevel=4,
        )
    elif minor > FORMAT[1]:
        warnings.warn(
            f"{where}: saved in the newer format {value}; this version reads format {current} "
            "and ignores fields it does not know",
            UserWarning,
            stacklevel=4,
        )
    return major, minor


def _is_pin(value) -> bool:
    """Tell whether ``value`` is a SHA-256 string or a non-empty list of them."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, str) for v in value)
    return isinstance(value, str)


def _check_subfolder(path: Path) -> None:
    if not path.is_dir() or path.is_symlink():
        raise ModelFormatError(f"{path}: nested model folder is missing")


def read_verified(
    path: Path, allowed: set[str], expected: str | None = None
) -> tuple[dict, dict[str, bytes]]:
    """Read a saved model folder and check it against its manifest.

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

    Returns
    -------
    manifest : dict
        The parsed manifest.
    files : dict
        Content of every listed file, by name; exactly these bytes were checked.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a folder or has no manifest.
    ModelFormatError
        If the manifest is unreadable or of an unsupported format, or a file is missing,
        unexpected, or differs in size or checksum.
    """
    where = path / MANIFEST
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not a saved model folder: no such folder")
    if not where.is_file():
        raise FileNotFoundError(f"{path} is not a saved model folder: {MANIFEST} is missing")
    raw = where.read_bytes()
    if len(raw) > _MAX_MANIFEST_BYTES:
        raise ModelFormatError(f"{where}: {len(raw)} bytes, too large for a manifest")
    if expected is not None and sha256(raw) != expected:
        raise ModelFormatError(
            f"{where}: SHA-256 differs from the parent folder's {MANIFEST}: the nested model "
            "is corrupted or was modified"
        )
    try:
        manifest = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelFormatError(f"{where}: not valid JSON ({err})") from err
    if not isinstance(manifest, dict) or "format" not in manifest:
        raise ModelFormatError(f"{where}: not a model manifest (no 'format' field)")
    _check_format(manifest["format"], where)
    listed = manifest.get("files")
    if not isinstance(listed, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("sha256"), str) and type(v.get("size")) is int
        for v in listed.values()
    ):
        raise ModelFormatError(f"{where}: 'files' must map file names to their size and sha256")
    nested = manifest.get("nested") or {}
    if not isinstance(nested, dict) or not all(
        isinstance(k, str) and re.fullmatch(r"[a-z][A-Za-z0-9_]*_", k) and _is_pin(v)
        for k, v in nested.items()
    ):
        raise ModelFormatError(
            f"{where}: 'nested' must map attribute names to sha256 strings or lists of them"
        )
    for name, pin in nested.items():
        _check_subfolder(path / name)
        if isinstance(pin, list):  # numbered subfolders 0, 1, ... and nothing else
            found = sorted(p.name for p in (path / name).iterdir())
            expected = sorted(str(i) for i in range(len(pin)))
            if found != expected:
                raise ModelFormatError(
                    f"{path / name}: holds {found}, {MANIFEST} lists the nested model folders "
                    f"{expected}"
                )
            for i in range(len(pin)):
                _check_subfolder(path / name / str(i))
    present = {p.name for p in path.iterdir()} - {MANIFEST} - set(nested)
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
    files = {}
    for name, entry in sorted(listed.items()):
        target = path / name
        if not target.is_file():
            raise ModelFormatError(f"{target}: not a regular file")
        data = target.read_bytes()
        if len(data) != entry["size"]:
            raise ModelFormatError(
                f"{target}: {len(data)} bytes, {MANIFEST} lists {entry['size']}: the file is "
                "truncated or was modified"
            )
        if sha256(data) != entry["sha256"]:
            raise ModelFormatError(
                f"{target}: SHA-256 differs from {MANIFEST}: the file is corrupted or was modified"
            )
        files[name] = data
    return manifest, files
