"""forecast: neural and statistical time-series forecasting with a scikit-learn-style API."""

from forecast.base import BaseForecaster
from forecast.features import calendar_features
from forecast.models.baselines import (
    ETSForecaster,
    ExternalForecast,
    LinearLagForecaster,
    MSTLForecaster,
    Naive,
    SARIMAXForecaster,
    SeasonalNaive,
)
from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster

__version__ = "0.1.0"

__all__ = [
    "BaseForecaster",
    "ElmanForecaster",
    "GRUForecaster",
    "LSTMForecaster",
    "calendar_features",
    "ETSForecaster",
    "ExternalForecast",
    "LinearLagForecaster",
    "MSTLForecaster",
    "Naive",
    "SARIMAXForecaster",
    "SeasonalNaive",
    "__version__",
]
