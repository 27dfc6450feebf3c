"""How many torch threads a fit or a prediction uses: never more than the free cores.

A torch operation split over ``n`` threads waits for the slowest of them. On a machine
whose cores are busy with other jobs, some of those threads wait for a core, and the others
spin while they wait for them: training then runs many times slower than with one thread.
The policy here picks the number of threads each time work starts:

``"auto"`` (the default)
    ``min(torch's setting, free cores)``, at least 1. Free cores are the cores this process
    may run on (``os.sched_getaffinity``) minus those other processes keep busy, estimated
    as the smaller of the 1-minute load average and the busy share of those cores over
    50 ms read from ``/proc/stat`` (Linux; elsewhere the load average alone). When
    ``OMP_NUM_THREADS`` is set, torch's setting is taken as the user's choice and kept.
an integer ``n``
    exactly ``n`` threads.
``None``
    leave torch's setting alone (the behaviour before the policy existed).

:func:`set_threads` chooses the policy for a block (``forecast.set_threads(1)``);
:func:`torch_threads` applies it around a fit or a prediction and restores torch's previous
setting afterwards. OpenMP's idle threads spin for a while before they sleep unless
``OMP_WAIT_POLICY=PASSIVE`` is set before torch starts its OpenMP runtime; ``import
forecast`` sets it when the user has not and torch is not imported yet (see
``docs/threads.md``).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import EllipsisType

__all__ = [
    "busy_cores",
    "choose_threads",
    "process_cpus",
    "resolve_threads",
    "set_threads",
    "torch_threads",
]

AUTO = "auto"
SAMPLE_SECONDS = 0.05  # how long /proc/stat is watched
CACHE_SECONDS = 5.0  # a backtest predicts hundreds of times: measure at most this often
PROC_STAT = "/proc/stat"

_SETTING: ContextVar[int | str | None] = ContextVar("forecast_threads", default=AUTO)
_CAP: ContextVar[int | None] = ContextVar("forecast_threads_cap", default=None)  # torch's own
_cache: dict[str, float] = {}


def _check(setting: int | str | None) -> int | str | None:
    if setting is None or setting == AUTO:
        return setting
    if isinstance(setting, bool) or not isinstance(setting, int) or setting < 1:
        raise ValueError(f"threads must be 'auto', None or an int >= 1, got {setting!r}")
    return setting


def choose_threads(
    setting: int | str | None, *, current: int, cpus: int, busy: float, env_set: bool = False
) -> int:
    """Return the number of torch threads for ``setting`` (a pure function of its inputs).

    Parameters
    ----------
    setting : {"auto"}, int or None
        The policy: ``"auto"``, a fixed number, or None to keep ``current``.
    current : int
        Torch's setting now (``torch.get_num_threads()``).
    cpus : int
        Cores this process may run on.
    busy : float
        Cores kept busy by other processes (may be fractional).
    env_set : bool
        Whether ``OMP_NUM_THREADS`` is set: ``"auto"`` then keeps ``current``.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> choose_threads("auto", current=2, cpus=2, busy=2.0)
    1
    >>> choose_threads("auto", current=8, cpus=16, busy=3.4)
    8
    >>> choose_threads(3, current=8, cpus=2, busy=2.0)
    3
    """
    setting = _check(setting)
    if setting is None:
        return max(1, current)
    if isinstance(setting, int):  # _check let through None, AUTO or a count
        return setting
    if env_set:
        return max(1, current)
    free = math.floor(cpus - busy + 0.5)  # a core more than half busy counts as busy
    return max(1, min(current, free))


def process_cpus() -> int:
    """Return the number of cores this process may run on (its affinity, else all)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        return os.cpu_count() or 1


def _proc_stat(cpus: set[int]) -> tuple[float, float] | None:
    """Return (idle, total) jiffies summed over ``cpus`` from ``/proc/stat``, or None."""
    try:
        with open(PROC_STAT) as stat:
            lines = stat.read().splitlines()
    except OSError:
        return None
    idle = total = 0.0
    for line in lines:
        name, *fields = line.split() or [""]
        if not (name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus):
            continue
        values = [float(v) for v in fields[:8]]  # user nice system idle iowait irq softirq steal
        idle += values[3] + values[4]
        total += sum(values)
    return (idle, total) if total else None


def busy_cores(sample_seconds: float = SAMPLE_SECONDS) -> float:
    """Estimate how many of this process's cores other processes keep busy.

    The smaller of the 1-minute load average (which lags, and counts this process) and the
    busy share of the cores over ``sample_seconds`` read from ``/proc/stat`` while this
    thread sleeps (which catches bursts); 0 where neither is available.

    Parameters
    ----------
    sample_seconds : float
        How long to watch ``/proc/stat``.

    Returns
    -------
    float
    """
    estimates = []
    try:
        estimates.append(os.getloadavg()[0])
    except (AttributeError, OSError):  # Windows
        pass
    try:
        cpus = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        cpus = set()
    before = _proc_stat(cpus) if cpus else None
    if before is not None:
        time.sleep(sample_seconds)
        after = _proc_stat(cpus)
        if after is not None and after[1] > before[1]:
            idle_share = (after[0] - before[0]) / (after[1] - before[1])
            estimates.append(len(cpus) * (1.0 - idle_share))
    return max(0.0, min(estimates)) if estimates else 0.0


def _cached_busy() -> float:
    now = time.monotonic()
    if now - _cache.get("at", -math.inf) > CACHE_SECONDS:
        _cache.update(busy=busy_cores(), at=now)
    return _cache["busy"]


def resolve_threads(
    setting: int | str | None | EllipsisType = ..., current: int | None = None
) -> int:
    """Return the threads the policy gives now (``setting``: default the block's policy).

    Parameters
    ----------
    setting : {"auto"}, int or None, optional
        The policy; default: the one :func:`set_threads` chose for this block.
    current : int, optional
        Torch's setting now (default: ``torch.get_num_threads()``).

    Returns
    -------
    int
    """
    setting = _SETTING.get() if setting is ... else _check(setting)
    if current is None:
        import torch  # start-up: the command line imports this module without torch

        current = torch.get_num_threads()
    env_set = "OMP_NUM_THREADS" in os.environ
    # measured only when it matters: not for one thread already, a fixed number, or the env
    busy = _cached_busy() if setting == AUTO and current > 1 and not env_set else 0.0
    return choose_threads(setting, current=current, cpus=process_cpus(), busy=busy, env_set=env_set)


@contextmanager
def set_threads(threads: int | str | None = AUTO) -> Iterator[None]:
    """Choose the thread policy of the fits and predictions inside the block.

    Parameters
    ----------
    threads : {"auto"}, int or None
        ``"auto"``: never more than the free cores; ``n``: exactly ``n`` threads; None:
        torch's own setting (see the module docstring).

    Examples
    --------
    >>> import forecast
    >>> with forecast.set_threads(1):
    ...     pass  # fits here use one torch thread
    """
    token = _SETTING.set(_check(threads))
    try:
        yield
    finally:
        _SETTING.reset(token)


@contextmanager
def torch_threads(threads: int | str | None | EllipsisType = ...) -> Iterator[int]:
    """Run the block with the policy's number of torch threads, then restore torch's.

    Blocks nest: an inner block (a fit inside a command) decides afresh, capped by torch's
    setting outside the outermost block, not by what an outer block chose. Also a
    decorator: ``@torch_threads()``.

    Parameters
    ----------
    threads : {"auto"}, int or None, optional
        The policy (default: the one :func:`set_threads` chose for this block).

    Yields
    ------
    int
        The number of threads in use.
    """
    import torch  # start-up: the command line imports this module without torch

    before = torch.get_num_threads()
    cap = _CAP.get() or before
    n = resolve_threads(threads, current=cap)
    token = _CAP.set(cap)
    if n != before:
        torch.set_num_threads(n)
    try:
        yield n
    finally:
        _CAP.reset(token)
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
