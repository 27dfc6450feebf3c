"""Forecast combination: ensembles of estimators and their blend weights.

:class:`EnsembleForecaster` (:mod:`~forecast.combine.ensemble`) takes the weighted mean of
its members' forecasts, with one weight per member or one row per hour of day
(:mod:`~forecast.combine.weights`); :func:`blend_weights` (:mod:`~forecast.combine.blend`)
chooses them from backtests.
"""

from forecast.combine.blend import blend_weights
from forecast.combine.ensemble import EnsembleForecaster
from forecast.persistence.registry import register_builtin

register_builtin(EnsembleForecaster, "ensemble")

__all__ = ["EnsembleForecaster", "blend_weights"]
