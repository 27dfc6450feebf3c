"""Ctrl+C and SIGTERM during long work: a KeyboardInterrupt that names its signal.

Python turns Ctrl+C (SIGINT) into a bare :class:`KeyboardInterrupt`, but SIGTERM (``kill``,
a scheduler's time limit, ``docker stop``) ends the process at once: no ``except`` or
``finally`` block runs, so an MLflow run the work opened stays RUNNING for good. Inside
:func:`interruptible`, both raise ``KeyboardInterrupt("SIGTERM")`` or
``KeyboardInterrupt("SIGINT")``: the tracking code closes its runs (with the signal in the
run's ``error`` tag) and the command line prints one line. A second signal while that
cleanup runs ends the process at once.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["interruptible"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _raise(signum: int, frame: object) -> None:
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextmanager
def interruptible() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into a ``KeyboardInterrupt`` naming the signal in the block.

    Signals are handled by the main thread only: in another thread the block runs as is.
    The previous handlers are restored on exit.

    Examples
    --------
    >>> with interruptible():
    ...     pass  # a long fit: SIGTERM now unwinds it like Ctrl+C
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise) for s in _SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
