"""forecast: neural and statistical time-series forecasting with a scikit-learn-style API."""

import importlib as _importlib
import sys as _sys

from forecast import _compat
from forecast._version import __version__
from forecast.base import BaseForecaster
from forecast.combine import EnsembleForecaster, blend_weights
from forecast.evaluation.backtest import BacktestResult, backtest
from forecast.evaluation.compare import ComparisonResult, compare
from forecast.frames.calendar import calendar_features
from forecast.models import (
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

_LAZY = {  # importing mlflow takes seconds, Ray Tune more: loaded when first asked for
    "MLflowCallback": "forecast.tracking",
    "MLflowTracker": "forecast.tracking",
    "track_fit": "forecast.tracking",
    "tune": "forecast.tuning.sweep",  # needs the extra forecast[ray] when called
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(_importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'forecast' has no attribute {name!r}")


__all__ = [
    "BacktestResult",
    "BaseForecaster",
    "BoostedLagForecaster",
    "ComparisonResult",
    "ConformalForecaster",
    "ConstantVelocity",
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
    "load",
    "register_estimator",
    "track_fit",
    "tune",
]

_compat.install(_sys.modules[__name__])
