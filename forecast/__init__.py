"""forecast: neural and statistical time-series forecasting with a scikit-learn-style API."""

from forecast.backtest import BacktestResult, backtest
from forecast.base import BaseForecaster
from forecast.blend import blend_weights
from forecast.compare import ComparisonResult, compare
from forecast.conformal import ConformalForecaster
from forecast.ensemble import EnsembleForecaster
from forecast.features import calendar_features
from forecast.models import register_estimator
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
from forecast.models.hopfield import HopfieldForecaster
from forecast.models.orthogonal import OrthogonalRNNForecaster
from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
from forecast.models.transformer import TransformerForecaster
from forecast.persistence import ModelFormatError, load

__version__ = "0.1.0"

_LAZY = {  # importing mlflow takes seconds: load tracking only when asked for
    "MLflowCallback": "forecast.tracking",
    "MLflowTracker": "forecast.tracking",
    "track_fit": "forecast.tracking",
    "tune": "forecast.parallel.sweep",  # needs the extra forecast[ray] when called
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'forecast' has no attribute {name!r}")


__all__ = [
    "BacktestResult",
    "BaseForecaster",
    "ComparisonResult",
    "ConformalForecaster",
    "ConstantVelocity",
    "EnsembleForecaster",
    "HopfieldForecaster",
    "OrthogonalRNNForecaster",
    "TransformerForecaster",
    "backtest",
    "blend_weights",
    "compare",
    "ElmanForecaster",
    "GRUForecaster",
    "LSTMForecaster",
    "MLflowCallback",
    "MLflowTracker",
    "ModelFormatError",
    "calendar_features",
    "load",
    "register_estimator",
    "track_fit",
    "tune",
    "BoostedLagForecaster",
    "ETSForecaster",
    "ExternalForecast",
    "LinearLagForecaster",
    "MSTLForecaster",
    "Naive",
    "SARIMAXForecaster",
    "SeasonalNaive",
    "__version__",
]
