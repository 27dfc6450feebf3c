"""Probabilistic forecasts: conformal prediction intervals around any estimator.

:class:`ConformalForecaster` (:mod:`~forecast.probabilistic.conformal`) calibrates intervals
from a static or rolling backtest (:mod:`~forecast.probabilistic.static`,
:mod:`~forecast.probabilistic.rolling`) kept as sorted score tables
(:mod:`~forecast.probabilistic.table`). Quantile levels and their column names are in
:mod:`forecast.frames.quantiles`; interval scores in
:mod:`forecast.evaluation.interval_metrics`.
"""

from forecast.persistence.registry import register_builtin
from forecast.probabilistic.conformal import ConformalForecaster

register_builtin(ConformalForecaster, "conformal")

__all__ = ["ConformalForecaster"]
