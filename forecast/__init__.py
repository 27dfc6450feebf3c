"""forecast: neural and statistical time-series forecasting with a scikit-learn-style API."""

from forecast.base import BaseForecaster

__version__ = "0.1.0"

__all__ = ["BaseForecaster", "__version__"]
