"""Forecast combination: ensembles of estimators and their blend weights.

:class:`EnsembleForecaster` (:mod:`~forecast.combine.ensemble`) takes the weighted mean of
its members' forecasts, with one weight per member or one row per hour of day or per step
ahead (:mod:`~forecast.combine.weights`); :func:`blend_weights` (:mod:`~forecast.combine.blend`)
chooses them from backtests. :class:`AnalogDayForecaster` (:mod:`~forecast.combine.analog`)
corrects a reference forecaster by its errors on the most similar stored training days;
:data:`DAY_AHEAD_MEMORY` (:mod:`~forecast.combine.presets`) puts a network over it;
:func:`motion_angles` and :func:`motion_3d` build the best estimators of the motion benchmarks.
"""

from forecast.combine.analog import AnalogDayForecaster
from forecast.combine.blend import blend_weights
from forecast.combine.ensemble import EnsembleForecaster
from forecast.combine.presets import (
    DAY_AHEAD_MEMORY,
    LTD_3D_40,
    MOTION_3D_PGBIG_WEIGHTS,
    MOTION_3D_WEIGHTS,
    PGBIG_3D_14,
    SIMLPE_ANGLES,
    motion_3d,
    motion_angles,
)
from forecast.persistence.registry import register_builtin

register_builtin(EnsembleForecaster, "ensemble")
register_builtin(AnalogDayForecaster, "analog-day")

__all__ = [
    "DAY_AHEAD_MEMORY",
    "LTD_3D_40",
    "MOTION_3D_PGBIG_WEIGHTS",
    "MOTION_3D_WEIGHTS",
    "PGBIG_3D_14",
    "SIMLPE_ANGLES",
    "AnalogDayForecaster",
    "EnsembleForecaster",
    "blend_weights",
    "motion_3d",
    "motion_angles",
]
