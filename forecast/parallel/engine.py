"""The Ray session behind every ``engine="ray"`` call: connect, or start a local Ray.

Ray is an optional extra (``pip install "forecast-toolkit[ray]"``); nothing outside
:mod:`forecast.parallel` imports it, and this module only imports it inside functions.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from forecast.parallel.cluster import connect

ENGINES = ("sequential", "ray")
_INSTALL_HINT = 'pip install "forecast-toolkit[ray]"'


def check_engine(engine: str) -> str:
    """Return ``engine`` if it is ``"sequential"`` or ``"ray"`` and can run.

    Raises
    ------
    ValueError
        Another engine name.
    ImportError
        ``"ray"`` without Ray installed (checked without importing it), so a caller that
        checks first creates nothing before failing.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "ray":
        check_ray_installed()
    return engine


def check_ray_installed(feature: str = "engine='ray'") -> None:
    """Raise an ImportError saying how to install Ray if it is missing (Ray is not imported).

    Parameters
    ----------
    feature : str
        What needs Ray, for the message (``"forecast tune"``).
    """
    if importlib.util.find_spec("ray") is None:
        raise ImportError(f"{feature} needs Ray, which is not installed: {_INSTALL_HINT}")


def require_ray(feature: str = "engine='ray'") -> Any:
    """Import and return ``ray``, or raise an ImportError saying how to install it."""
    try:
        import ray  # optional: the extra forecast-toolkit[ray]
    except ImportError as err:
        message = f"{feature} needs Ray, which is not installed: {_INSTALL_HINT}"
        raise ImportError(message) from err
    return ray


def check_resources(address: str | None, num_cpus: int | None) -> None:
    """Refuse ``num_cpus`` for a cluster (it has its own) and non-positive CPU counts."""
    if num_cpus is not None:
        if isinstance(num_cpus, bool) or not isinstance(num_cpus, int) or num_cpus < 1:
            raise ValueError(f"num_cpus must be a positive int, got {num_cpus!r}")
        if address is not None:
            raise ValueError(
                f"num_cpus={num_cpus} only sizes a local Ray; the cluster at {address!r} "
                "has its own CPUs: pass one or the other"
            )


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """Yield ``ray``, connected: the running session, a cluster, or a new local Ray.

    A Ray that is already initialised (``ray.init()`` by the caller) is used as it is and
    left running. Otherwise ``address`` (or ``RAY_ADDRESS``) names a cluster to connect
    to (see :func:`forecast.parallel.cluster.connect`: a cluster with token
    authentication needs ``RAY_AUTH_MODE=token`` and its token here), and without one a
    local Ray with ``num_cpus`` CPUs (default: all) is started; the session this function
    opened is shut down on exit.

    Parameters
    ----------
    address : str, optional
        Cluster address: ``"host:port"`` of a head started with ``ray start --head``,
        ``"ray://head:10001"`` (Ray Client) or ``"auto"``.
    num_cpus : int, optional
        CPUs of a local Ray.

    Yields
    ------
    module
        The ``ray`` module.

    Raises
    ------
    ConnectionError
        The cluster at ``address`` cannot be reached or refused this client (one line,
        with Ray's reason and hint).
    """
    check_resources(address, num_cpus)
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is not None:
        connect(ray, address)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def ray_map(
    fn: Callable[[Any, Any], Any],
    shared: Any,
    jobs: list[Any],
    address: str | None = None,
    num_cpus: int | None = None,
) -> list[Any]:
    """Return ``[fn(shared, job) for job in jobs]``, each call a one-CPU Ray task.

    ``shared`` is put in the object store once and passed to every task; results come back
    in the order of ``jobs``.
    """
    with ray_session(address, num_cpus) as ray:
        task = ray.remote(num_cpus=1)(fn)
        ref = ray.put(shared)
        return ray.get([task.remote(ref, job) for job in jobs])


def cluster_cpus(ray: Any) -> int:
    """CPUs Ray can schedule tasks on (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def chunks(items: list[Any], n_chunks: int) -> list[list[Any]]:
    """Split ``items`` into at most ``n_chunks`` consecutive, nearly equal, non-empty lists."""
    n_chunks = max(1, min(n_chunks, len(items)))
    size, extra = divmod(len(items), n_chunks)
    out, start = [], 0
    for k in range(n_chunks):
        stop = start + size + (1 if k < extra else 0)
        out.append(items[start:stop])
        start = stop
    return out
