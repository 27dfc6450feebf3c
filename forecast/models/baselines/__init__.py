"""Statistical baselines with the estimator API of :class:`forecast.base.BaseForecaster`.

Pure array functions live in ``_math`` (numpy) and ``_statsmodels`` (statsmodels engines,
imported lazily); the classes here only hold parameters and fitted state.

- :class:`Naive`, :class:`SeasonalNaive`: last value, last season(s).
- :class:`ConstantVelocity`: last value plus the recent step per step (drift).
- :class:`ETSForecaster`, :class:`SARIMAXForecaster`, :class:`MSTLForecaster`: statsmodels.
- :class:`LinearLagForecaster`: ridge on lags and calendar features, recursive roll-out.
- :class:`BoostedLagForecaster`: the same ridge plus boosted trees on its residuals.
- :class:`ExternalForecast`: a forecast column of the data (e.g. the grid operators').
"""

from forecast.models.baselines.boosted import BoostedLagForecaster
from forecast.models.baselines.external import ExternalForecast
from forecast.models.baselines.linear import LinearLagForecaster
from forecast.models.baselines.simple import Naive, SeasonalNaive
from forecast.models.baselines.statistical import (
    ETSForecaster,
    MSTLForecaster,
    SARIMAXForecaster,
)
from forecast.models.baselines.velocity import ConstantVelocity

__all__ = [
    "BoostedLagForecaster",
    "ConstantVelocity",
    "ETSForecaster",
    "ExternalForecast",
    "LinearLagForecaster",
    "MSTLForecaster",
    "Naive",
    "SARIMAXForecaster",
    "SeasonalNaive",
]
