"""Peak resident memory of the process around a piece of work (one model's backtest).

On Linux, writing ``5`` to ``/proc/self/clear_refs`` resets the process's peak resident set
size (``VmHWM`` in ``/proc/self/status``) to its current size, so reading ``VmHWM`` after the
work gives the peak while it ran. It is the peak of the whole process (the data and
everything already loaded count too), not the memory the work itself allocated.

Where the reset is not possible (other systems, a kernel refusing it), only the peak since
the process started is known (``resource.getrusage``); :class:`PeakRSS` then says so with
``per_block = False``, and the comparison names its column ``process_peak_rss_mb``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_CLEAR_REFS = Path("/proc/self/clear_refs")
_STATUS = Path("/proc/self/status")


def _reset_peak() -> bool:
    """Reset the process's peak RSS to its current RSS; False where that is not possible."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return _vm_hwm_mb() is not None


def _vm_hwm_mb() -> float | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        return None
    return None


def _process_peak_mb() -> float:
    import resource  # Unix only: imported where used

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, else kB


class PeakRSS:
    """Measure the peak RSS of the process during successive blocks of work.

    Call :meth:`start` before each block and :meth:`peak_mb` after it.

    Attributes
    ----------
    per_block : bool
        True when the peak is reset at each :meth:`start` (Linux); False when
        :meth:`peak_mb` is the peak since the process started.
    """

    def __init__(self) -> None:
        self.per_block = _reset_peak()

    def start(self) -> None:
        """Reset the peak to the current RSS (no-op where that is not possible)."""
        if self.per_block:
            _reset_peak()

    def peak_mb(self) -> float:
        """Peak RSS in MiB since :meth:`start` (or since the process started)."""
        value = _vm_hwm_mb() if self.per_block else None
        return value if value is not None else _process_peak_mb()
