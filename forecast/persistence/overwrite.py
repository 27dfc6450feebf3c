"""Which existing folder ``save(..., overwrite=True)`` may replace: only a model folder of ours.

Replacing a folder deletes it whole, so a folder is replaced only when everything in it is
ours: it is not a link, its ``meta.json`` is a regular file that parses as a manifest of
this format (:func:`forecast.persistence.manifest.parse_manifest`, not merely a file of that
name written by another tool), and it holds nothing but the files that manifest lists and
the nested model folders it pins, each checked the same way. An empty folder is replaced
too. Anything else raises ``FileExistsError`` and nothing is touched.
"""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

from forecast.frames.writes import WriteRefused
from forecast.persistence.errors import ModelFormatError
from forecast.persistence.files import entries, lstat_entry, read_regular
from forecast.persistence.manifest import _MAX_MANIFEST_BYTES, MANIFEST, parse_manifest, subfolders

__all__ = ["check_replaceable"]


def check_replaceable(path: Path, allowed: set[str]) -> None:
    """Raise ``FileExistsError`` unless ``path`` is an empty folder or a model folder of ours.

    Parameters
    ----------
    path : Path
        The existing entry ``save`` would replace.
    allowed : set of str
        The file names a model folder may hold besides ``meta.json``.

    Raises
    ------
    forecast.frames.writes.WriteRefused
        A ``FileExistsError``: ``path`` is a link, a file, or a folder that is not wholly a
        saved model folder.
    """
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise WriteRefused(f"{path} is a symbolic link, not a saved model folder: not replaced")
    if not stat.S_ISDIR(st.st_mode):
        raise WriteRefused(f"{path} is a file, not a saved model folder: not overwriting it")
    try:
        if not entries(path):
            return
        _check_ours(path, allowed)
    except (ModelFormatError, OSError) as err:
        raise WriteRefused(
            f"{path} is a folder but not a saved model folder ({err}): not overwriting it"
        ) from err


def _check_ours(path: Path, allowed: set[str]) -> None:
    found = entries(path)
    if MANIFEST not in found:
        raise ModelFormatError(f"no {MANIFEST}")
    where = path / MANIFEST
    lstat_entry(where)
    raw = read_regular(where, None, _MAX_MANIFEST_BYTES)
    with warnings.catch_warnings():  # an older or newer minor format is still ours
        warnings.simplefilter("ignore")
        manifest = parse_manifest(raw, where)
    listed, nested = manifest["files"], manifest.get("nested") or {}
    if not isinstance(manifest.get("estimator"), str) or not set(listed) <= allowed:
        raise ModelFormatError(f"{where}: not a manifest of a saved model")
    others = sorted(set(found) - set(listed) - set(nested) - {MANIFEST})
    if others:
        raise ModelFormatError(f"{path / others[0]} is not listed in {MANIFEST}")
    for name in listed:
        if name in found and not stat.S_ISREG(found[name].st_mode):
            raise ModelFormatError(f"{path / name} is not a regular file")
    for folder in subfolders(path, nested):
        _check_ours(folder, allowed)
