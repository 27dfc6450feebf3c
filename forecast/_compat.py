"""Module paths of version 0.1.0 that moved in the restructure, importable until 0.3.0.

``import forecast.metrics`` or ``from forecast.spec import run_spec`` still work: the old
name is an alias of the module at its new home (the same module object), and importing it
warns with a :class:`DeprecationWarning` that names the new path and the version that
removes the old one (:data:`REMOVED_IN`). ``forecast.backtest`` and ``forecast.compare``
stay the public functions; their modules are ``forecast.evaluation.backtest`` and
``forecast.evaluation.compare``.

Saved folders name no module path (estimators are registered under short names, see
:mod:`forecast.persistence.registry`), so folders saved by 0.1.0 load without these aliases.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec

DEPRECATED_IN = "0.2.0"
"""The release that moved the modules (the first after 0.1.0)."""

REMOVED_IN = "0.3.0"
"""The release that removes the old paths of :data:`MOVED` and ``forecast.parallel.tune``.

``forecast.nn.heads.ForecastNet`` goes with them. From the first development release of this
version on (``0.3.0.dev0``), ``tests/test_compat.py`` fails while any of them remains.
"""

MOVED = {  # old public module path -> new home
    "forecast.backtest": "forecast.evaluation.backtest",
    "forecast.compare": "forecast.evaluation.compare",
    "forecast.metrics": "forecast.evaluation.metrics",
    "forecast.plots": "forecast.evaluation.plots",
    "forecast.motion_plots": "forecast.evaluation.motion_plots",
    "forecast.features": "forecast.frames.calendar",
    "forecast.io": "forecast.frames.io",
    "forecast.windows": "forecast.training.windows",
    "forecast.losses": "forecast.training.losses",
    "forecast.optim": "forecast.training.optim",
    "forecast.progress": "forecast.training.progress",
    "forecast.callbacks": "forecast.training.callbacks",
    "forecast.conformal": "forecast.probabilistic.conformal",
    "forecast.ensemble": "forecast.combine.ensemble",
    "forecast.blend": "forecast.combine.blend",
    "forecast.spec": "forecast.specs.spec",
    "forecast.demo": "forecast.specs.demo",
    "forecast.parallel.sweep": "forecast.tuning.sweep",
    "forecast.parallel.space": "forecast.specs.tune",
    "forecast.parallel.batch_data": "forecast.batch.ray_data",
    "forecast.parallel.backtests": "forecast.evaluation.ray_backtests",
    # the daily loop left forecast.batch for its own package (paths of the 0.2.0 development)
    "forecast.batch.score": "forecast.loop.score",
    "forecast.batch.score_cli": "forecast.loop.score_cli",
    "forecast.batch.score_tracking": "forecast.loop.score_tracking",
    "forecast.batch.versions": "forecast.loop.versions",
    "forecast.batch.promote": "forecast.loop.promote",
    "forecast.batch.promote_cli": "forecast.loop.promote_cli",
    "forecast.batch.update": "forecast.loop.update",
    "forecast.batch.update_cli": "forecast.loop.update_cli",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names of :data:`MOVED` and loads them as their new modules."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> types.ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} is deprecated in forecast {DEPRECATED_IN} and will be removed in "
            f"{REMOVED_IN}: the module moved to {new}; import it from there",
            DeprecationWarning,
            stacklevel=3,
        )
        return importlib.import_module(new)  # a fixed name from MOVED, never from input

    def exec_module(self, module: types.ModuleType) -> None:  # the new module is already executed
        pass


class Package(types.ModuleType):
    """The ``forecast`` package: a public function keeps its name when an alias is imported."""

    def __setattr__(self, name: str, value: object) -> None:
        current = self.__dict__.get(name)
        if isinstance(value, types.ModuleType) and isinstance(current, types.FunctionType):
            return  # ``import forecast.backtest`` leaves ``forecast.backtest`` the function
        super().__setattr__(name, value)


def _parallel_attribute(name: str) -> object:
    """``forecast.parallel.tune`` of 0.1.0: the sweep now lives a layer above, in tuning.

    Other names go to the package's own look-up (its names load on first use).
    """
    if name != "tune":
        homes = sys.modules["forecast.parallel"].__dict__.get("_HOMES", {})
        if name in homes:
            return getattr(importlib.import_module(homes[name]), name)  # fixed names only
        raise AttributeError(f"module 'forecast.parallel' has no attribute {name!r}")
    warnings.warn(
        f"forecast.parallel.tune is deprecated in forecast {DEPRECATED_IN} and will be removed "
        f"in {REMOVED_IN}: the function moved to forecast.tune; use forecast.tune",
        DeprecationWarning,
        stacklevel=2,
    )
    from forecast.tuning.sweep import tune  # deprecated alias: tuning sits above parallel

    return tune
