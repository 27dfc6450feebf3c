"""forecast: neural and statistical time-series forecasting with a scikit-learn-style API."""

from forecast.base import BaseForecaster
from forecast.models.baselines import (
    ETSForecaster,
    ExternalForecast,
    LinearLagForecaster,
    MSTLForecaster,
    Naive,
    SARIMAXForecaster,
    SeasonalNaive,
)

__version__ = "0.1.0"

__all__ = [
    "BaseForecaster",
    "ETSForecaster",
    "ExternalForecast",
    "LinearLagForecaster",
    "MSTLForecaster",
    "Naive",
    "SARIMAXForecaster",
    "SeasonalNaive",
    "__version__",
]
