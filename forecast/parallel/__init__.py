"""Scaling out on Ray (the optional extra ``pip install "forecast-toolkit[ray]"``).

* :func:`fit_many`: one model per series (local models), fitted as Ray tasks.
* :func:`forecast.parallel.distributed.fit_distributed`: one neural model trained with
  DistributedDataParallel over Ray Train workers.
* ``compare(..., engine="ray")``: one Ray task per model of a comparison.
* ``forecast batch --input DIR --engine ray``: many input partitions on Ray Data, the model
  loaded once per actor (``forecast.batch.ray_data``).
* :func:`forecast.tune` and ``forecast tune spec.toml``: hyperparameter sweeps with Ray Tune
  (:mod:`forecast.tuning`, a layer above this one; ``forecast.parallel.tune`` is its
  deprecated old name).

``engine="sequential"`` paths run without Ray; importing this package never imports Ray.
Every ``engine="ray"`` call uses the Ray the caller initialised, else connects to
``address`` (or ``RAY_ADDRESS``), else starts a local Ray with ``num_cpus`` and shuts it
down when done. A cluster with Ray's token authentication needs ``RAY_AUTH_MODE=token``
and its token on this side; a refused connection fails at once, in one line carrying Ray's
hint (:mod:`forecast.parallel.cluster`, ``docs/ray.md``).
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the lazy names, for type checkers (a test keeps them equal to _HOMES)
    from forecast.parallel.engine import ENGINES, ray_session
    from forecast.parallel.many import fit_many

_HOMES = {  # loaded on first use: the engine checks need neither scikit-learn nor torch
    "ENGINES": "forecast.parallel.engine",
    "fit_many": "forecast.parallel.many",
    "ray_session": "forecast.parallel.engine",
}

__all__ = ["ENGINES", "fit_many", "ray_session"]


def _lazy(name: str) -> Any:
    """Return ``name``, imported from its home on first use (PEP 562)."""
    if name in _HOMES:
        value = getattr(_importlib.import_module(_HOMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'forecast.parallel' has no attribute {name!r}")


if not TYPE_CHECKING:  # type checkers read the imports above: a catch-all would type typos Any
    __getattr__ = _lazy


def __dir__() -> list[str]:
    return sorted(__all__)
