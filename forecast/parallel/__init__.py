"""Scaling out on Ray (the optional extra ``pip install "forecast[ray]"``).

* :func:`fit_many`: one model per series (local models), fitted as Ray tasks.
* ``compare(..., engine="ray")``: one Ray task per model of a comparison.
* ``forecast batch --input DIR --engine ray``: many input partitions on Ray Data, the model
  loaded once per actor (:mod:`forecast.batch.ray_data`).
* :func:`tune` and ``forecast tune spec.toml``: hyperparameter sweeps with Ray Tune.

``engine="sequential"`` paths run without Ray; importing this package never imports Ray.
Every ``engine="ray"`` call uses the Ray the caller initialised, else connects to
``address`` (or ``RAY_ADDRESS``), else starts a local Ray with ``num_cpus`` and shuts it
down when done.
"""

from __future__ import annotations

from forecast.parallel.engine import ENGINES, ray_session
from forecast.parallel.many import fit_many

__all__ = ["ENGINES", "fit_many", "ray_session", "tune"]


def __getattr__(name: str):
    if name == "tune":
        from forecast.tuning.sweep import tune

        return tune
    raise AttributeError(f"module 'forecast.parallel' has no attribute {name!r}")
