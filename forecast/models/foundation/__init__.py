"""Pretrained (foundation) forecasters, zero-shot, in the extra ``forecast-toolkit[foundation]``.

- :class:`Chronos2Forecaster`: Chronos-2 (``chronos-forecasting``), with past and future
  covariates and multivariate targets.
- :class:`TiRexForecaster`: TiRex (``tirex-ts``), univariate, an xLSTM.

Importing this package imports neither model package (nor ``transformers``): they load with
the weights, in ``fit`` or the first forecast after ``load``. Saved folders hold the
configuration and a reference to the weights (``forecast.models.foundation._weights``).
"""

from forecast.models.foundation.chronos2 import Chronos2Forecaster
from forecast.models.foundation.tirex import TiRexForecaster
from forecast.persistence.registry import register_builtin

register_builtin(Chronos2Forecaster, "chronos2")
register_builtin(TiRexForecaster, "tirex")

__all__ = ["Chronos2Forecaster", "TiRexForecaster"]
