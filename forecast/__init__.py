"""forecast: neural and statistical time-series forecasting with a scikit-learn-style API.

The public names are loaded when first used (PEP 562): ``import forecast`` and ``forecast
--help`` start without torch, pandas or MLflow, and ``from forecast import GRUForecaster``
imports what that class needs. Importing the package also asks OpenMP not to spin
(``OMP_WAIT_POLICY=PASSIVE``) unless the user chose a policy or torch is already imported:
see :mod:`forecast.training.threads`.
"""

import importlib as _importlib
import os as _os
import sys as _sys
from typing import TYPE_CHECKING
from typing import Any as _Any

from forecast import _compat
from forecast._version import __version__

if TYPE_CHECKING:  # the lazy names, for type checkers (a test keeps them equal to _HOMES)
    from forecast.attribution import explain
    from forecast.base import BaseForecaster
    from forecast.combine import AnalogDayForecaster, EnsembleForecaster, blend_weights
    from forecast.evaluation.backtest import BacktestResult, backtest
    from forecast.evaluation.compare import ComparisonResult, compare
    from forecast.frames.calendar import calendar_features
    from forecast.models import (
        DCTMixerForecaster,
        ElmanForecaster,
        GRUForecaster,
        HopfieldForecaster,
        LSTMForecaster,
        OrthogonalRNNForecaster,
        TransformerForecaster,
    )
    from forecast.models.baselines import (
        BoostedLagForecaster,
        ConstantVelocity,
        ETSForecaster,
        ExternalForecast,
        LinearLagForecaster,
        MSTLForecaster,
        Naive,
        SARIMAXForecaster,
        SeasonalNaive,
    )
    from forecast.persistence import ModelFormatError, load, register_estimator
    from forecast.probabilistic import ConformalForecaster
    from forecast.tracking import MLflowCallback, MLflowTracker, track_fit
    from forecast.training.threads import set_threads
    from forecast.tuning.sweep import tune

if "torch" not in _sys.modules:  # OpenMP reads it once, when torch loads it
    _os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_HOMES = {  # public name -> module that defines it; imported on first use
    "explain": "forecast.attribution",  # needs the extra forecast-toolkit[explain] when called
    "BaseForecaster": "forecast.base",
    "AnalogDayForecaster": "forecast.combine",
    "EnsembleForecaster": "forecast.combine",
    "blend_weights": "forecast.combine",
    "BacktestResult": "forecast.evaluation.backtest",
    "backtest": "forecast.evaluation.backtest",
    "ComparisonResult": "forecast.evaluation.compare",
    "compare": "forecast.evaluation.compare",
    "calendar_features": "forecast.frames.calendar",
    "DCTMixerForecaster": "forecast.models",
    "ElmanForecaster": "forecast.models",
    "GRUForecaster": "forecast.models",
    "HopfieldForecaster": "forecast.models",
    "LSTMForecaster": "forecast.models",
    "OrthogonalRNNForecaster": "forecast.models",
    "TransformerForecaster": "forecast.models",
    "BoostedLagForecaster": "forecast.models.baselines",
    "ConstantVelocity": "forecast.models.baselines",
    "ETSForecaster": "forecast.models.baselines",
    "ExternalForecast": "forecast.models.baselines",
    "LinearLagForecaster": "forecast.models.baselines",
    "MSTLForecaster": "forecast.models.baselines",
    "Naive": "forecast.models.baselines",
    "SARIMAXForecaster": "forecast.models.baselines",
    "SeasonalNaive": "forecast.models.baselines",
    "ModelFormatError": "forecast.persistence",
    "load": "forecast.persistence",
    "register_estimator": "forecast.persistence",
    "ConformalForecaster": "forecast.probabilistic",
    "set_threads": "forecast.training.threads",
    "MLflowCallback": "forecast.tracking",  # MLflow takes seconds to import
    "MLflowTracker": "forecast.tracking",
    "track_fit": "forecast.tracking",
    "tune": "forecast.tuning.sweep",  # needs the extra forecast-toolkit[ray] when called
}


def _lazy(name: str) -> _Any:
    """Return the public ``name``, imported from its home on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'forecast' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)  # a fixed name from _HOMES
    globals()[name] = value  # the next look-up is a plain attribute
    return value


if not TYPE_CHECKING:  # type checkers read the imports above: a catch-all would type typos Any
    __getattr__ = _lazy


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "AnalogDayForecaster",
    "BacktestResult",
    "BaseForecaster",
    "BoostedLagForecaster",
    "ComparisonResult",
    "ConformalForecaster",
    "ConstantVelocity",
    "DCTMixerForecaster",
    "ETSForecaster",
    "ElmanForecaster",
    "EnsembleForecaster",
    "ExternalForecast",
    "GRUForecaster",
    "HopfieldForecaster",
    "LSTMForecaster",
    "LinearLagForecaster",
    "MLflowCallback",
    "MLflowTracker",
    "MSTLForecaster",
    "ModelFormatError",
    "Naive",
    "OrthogonalRNNForecaster",
    "SARIMAXForecaster",
    "SeasonalNaive",
    "TransformerForecaster",
    "__version__",
    "backtest",
    "blend_weights",
    "calendar_features",
    "compare",
    "explain",
    "load",
    "register_estimator",
    "set_threads",
    "track_fit",
    "tune",
]


class _Package(_compat.Package):
    """The package's class (see :class:`forecast._compat.Package`), aware of lazy names.

    An alias import such as ``import forecast.backtest`` sets the attribute ``backtest`` on
    the package: the public function is loaded first so that it keeps its name. The
    attribute ``tune`` of 0.1.0 is put on ``forecast.parallel`` when that package loads.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, type(_sys)):
            if name in _HOMES and name not in self.__dict__:
                _lazy(name)  # the function first; the module is then not set over it
            if name == "parallel":
                vars(value)["__getattr__"] = _compat._parallel_attribute  # PEP 562 hook
        super().__setattr__(name, value)


if not any(isinstance(f, _compat._Alias) for f in _sys.meta_path):
    _sys.meta_path.append(_compat._Alias())
_sys.modules[__name__].__class__ = _Package
if "forecast.parallel" in _sys.modules:  # imported before this package finished: rare
    vars(_sys.modules["forecast.parallel"])["__getattr__"] = _compat._parallel_attribute
