"""Write a folder of files all at once: complete or not at all, never half-replaced.

The files go into a temporary sibling folder (created with ``os.mkdir``, so its mode and
the files' modes follow the umask like any other file the user writes) that is then renamed
into place. An existing folder is swapped with the new one in a single ``renameat2``
``RENAME_EXCHANGE`` call on Linux (readers see the old or the new folder, never neither);
elsewhere it is moved aside and back on failure. The old folder and every temporary entry
are removed, also when writing fails.

Temporaries are named as the file writer names its own
(``.forecast-tmp-<target name>-<pid>-<random>``, :func:`forecast.frames.io.temporary_prefix`),
so the ones a killed process left are removed by the next write of the same target
(:func:`forecast.frames.io.remove_stale_temporaries`); errors name the target, never a
temporary.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from forecast.frames.io import about_target, remove_stale_temporaries, temporary_prefix

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """Rename with ``renameat2`` flags; False when the platform or filesystem lacks it."""
    if not sys.platform.startswith("linux"):
        return False
    func = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if func is None:
        return False
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if func(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(dst))


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _swap(new: Path, target: Path) -> Path:
    """Put ``new`` at ``target``; return where the old ``target`` now lies."""
    if _renameat2(new, target, _RENAME_EXCHANGE):
        return new
    old = target.with_name(f"{temporary_prefix(target)}{secrets.token_hex(6)}")
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    return old


def _place(new: Path, target: Path) -> None:
    """Rename ``new`` to ``target``, failing if ``target`` appeared in the meantime."""
    if _renameat2(new, target, _RENAME_NOREPLACE):
        return
    if target.exists() or target.is_symlink():
        raise FileExistsError(errno.EEXIST, "appeared while saving", str(target))
    os.rename(new, target)


def _write_files(folder: Path, files: Mapping[str, Any]) -> None:
    for name, data in files.items():
        if isinstance(data, Mapping):
            os.mkdir(folder / name)
            _write_files(folder / name, data)
            continue
        with open(folder / name, "xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())


def write_folder(
    target: Path,
    files: Mapping[str, bytes],
    replace: Callable[[Path], None] | None = None,
    check: Callable[[Path], None] | None = None,
) -> None:
    """Write ``files`` (name to content) as the folder ``target``.

    Parameters
    ----------
    target : Path
        Folder to create.
    files : mapping
        File names and their content; a mapping as content is a subfolder written the same
        way (its own files and subfolders).
    replace : callable, optional
        Called with ``target`` when it exists; it raises if ``target`` must not be replaced.
        Without it an existing ``target`` raises ``FileExistsError``.
    check : callable, optional
        Called with the complete temporary folder before it is put in place (the reader's
        own check of what was written); whatever it raises propagates, the temporary is
        removed and ``target`` is left as it was, byte for byte.
    """
    exists = target.exists() or target.is_symlink()
    if exists:
        if replace is None:
            raise FileExistsError(f"{target} exists")
        replace(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    tmp = target.with_name(f"{temporary_prefix(target)}{secrets.token_hex(6)}")
    try:
        os.mkdir(tmp)  # mode 0o777 minus the umask
        _write_files(tmp, files)
        if check is not None:
            check(tmp)
        if exists:
            old = _swap(tmp, target)
            _remove(old)
        else:
            _place(tmp, target)
    except OSError as err:
        raise about_target(err, tmp, target) from err
    finally:
        if tmp.exists() or tmp.is_symlink():
            _remove(tmp)
