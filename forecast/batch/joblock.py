"""One batch job at a time: an exclusive lock per job, taken for the whole run.

Two starts of the same job (a slow run still going when the next timer fires, cron and a
manual run) would write the same forecast and log duplicate MLflow runs. The job takes an
operating-system lock (``flock`` through :mod:`filelock`) on a file named after its output
pattern (:func:`default_lock_path`), or on ``--lock FILE``; a second start finds it held
and exits at once with :data:`EXIT_LOCKED` and a line naming the holder. The kernel drops
the lock when the holder exits, however it exits (even ``kill -9``), so a lock file left
behind never blocks the next run. A ``--lock`` that names a file of someone else's (one
that is not empty, or whose ``.owner`` neighbour holds anything but an owner line) is
refused before the lock is taken, and neither file is touched.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from forecast.batch.constants import EXIT_LOCKED
from forecast.batch.files import BatchError
from forecast.frames.writes import WriteRefused, refuse_foreign

__all__ = ["EXIT_LOCKED", "JobLocked", "default_lock_path", "job_lock"]


class JobLocked(BatchError):
    """Another run of the same job holds its lock."""


def default_lock_path(output: str | os.PathLike[str]) -> Path:
    """Return the lock file of the job writing ``output`` (a file or a pattern).

    The lock is named after the absolute output pattern and the user: runs of one user
    writing the same pattern share it; other jobs, and other users, do not. It lies in the
    temporary folder (``$TMPDIR``, else ``/tmp``), never next to the output, so a refused
    run leaves no file or folder in the output's place. Jobs run by different users, or a
    systemd service with ``PrivateTmp=yes`` next to runs from a shell, need an explicit
    shared ``--lock``.

    Parameters
    ----------
    output : str or path-like
        The ``--output`` as given.

    Returns
    -------
    Path
        ``<tmp>/forecast-batch-<uid>-<12 hex>.lock``.
    """
    pattern = os.path.abspath(os.fspath(output))
    key = hashlib.sha256(pattern.encode()).hexdigest()[:12]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"forecast-batch-{uid}-{key}.lock"


# the one line an owner file holds (written below); an existing file of another content is
# not ours, and is neither overwritten nor removed
_OWNER_LINE = re.compile(r"pid \d+ on \S* since \S+\n?")
_MAX_OWNER_BYTES = 4096


def _owner_file(lock: Path) -> Path:
    return lock.with_name(lock.name + ".owner")


def _is_empty_file(path: Path) -> bool:
    return path.is_file() and path.stat().st_size == 0


def _is_owner_file(path: Path) -> bool:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_OWNER_BYTES:
            return False
        return _OWNER_LINE.fullmatch(path.read_text()) is not None
    except (OSError, UnicodeDecodeError):
        return False


def _holder(lock: Path) -> str:
    try:
        text = _owner_file(lock).read_text().strip()
    except OSError:
        return "holder unknown"
    return f"held by {text}" if text else "holder unknown"


@contextmanager
def job_lock(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the job's lock for the ``with`` block; raise at once if another run holds it.

    While held, ``<lock>.owner`` names the holder (``pid 1234 on host since <time>``) for the
    message a second run prints; it is removed on release.

    Parameters
    ----------
    path : str or path-like
        The lock file (created with its folder when missing).

    Yields
    ------
    Path
        The lock file.

    Raises
    ------
    JobLocked
        Another process holds the lock; the message names the lock file and the holder.
    BatchError
        ``path`` exists and is not an empty file, or ``<path>.owner`` exists and is not an
        owner line of ours (:mod:`forecast.frames.writes`): neither is touched.
    """
    lock_path = Path(path)
    owner = _owner_file(lock_path)
    try:  # lock files are empty; the owner file holds one line of ours
        refuse_foreign(lock_path, _is_empty_file, "a lock file (an empty file)")
        refuse_foreign(owner, _is_owner_file, "a lock owner file")
    except WriteRefused as err:
        raise BatchError(f"--lock: {err}") from None
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BatchError(f"lock {lock_path}: cannot create its folder: {err}") from err
    lock = FileLock(lock_path, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise JobLocked(
            f"another run of this job is in progress ({_holder(lock_path)}; lock {lock_path}): "
            "this run did nothing"
        ) from None
    try:
        now = time.strftime("%Y-%m-%dT%H:%M:%S%z")  # local, with its offset, as the log lines
        owner.write_text(f"pid {os.getpid()} on {socket.gethostname()} since {now}\n")
        yield lock_path
    finally:
        owner.unlink(missing_ok=True)
        lock.release()
