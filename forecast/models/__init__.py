"""The estimators: the neural families, their shared base, and the statistical baselines.

Importing this package enters every built-in estimator in the registry of saved folders
(:mod:`forecast.persistence.registry`) under its stable short name.
"""

from __future__ import annotations

from forecast.models import baselines, foundation  # foundation: registers chronos2, tirex
from forecast.models.auto import MOTION_PRESET
from forecast.models.dct_mixer import DCTMixerForecaster
from forecast.models.hopfield import HopfieldForecaster
from forecast.models.orthogonal import OrthogonalRNNForecaster
from forecast.models.presets import (
    DAY_AHEAD_LOAD,
    LTD,
    LTD_3D,
    MOTION_BEST,
    MOTION_BEST_3D,
    PGBIG_3D,
    SIMLPE,
    SIMLPE_3D,
)
from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
from forecast.models.referenced import ReferencedHopfieldForecaster, ReferencedTransformerForecaster
from forecast.models.transformer import TransformerForecaster
from forecast.persistence.registry import (
    estimator_class,
    estimator_name,
    get_estimator,
    register_builtin,
    register_estimator,
)

for _name, _cls in {
    "elman": ElmanForecaster,
    "lstm": LSTMForecaster,
    "gru": GRUForecaster,
    "orthogonal": OrthogonalRNNForecaster,
    "transformer": TransformerForecaster,
    "hopfield": HopfieldForecaster,
    "dct-mixer": DCTMixerForecaster,
    "referenced-hopfield": ReferencedHopfieldForecaster,
    "referenced-transformer": ReferencedTransformerForecaster,
    "naive": baselines.Naive,
    "seasonal-naive": baselines.SeasonalNaive,
    "constant-velocity": baselines.ConstantVelocity,
    "ets": baselines.ETSForecaster,
    "sarimax": baselines.SARIMAXForecaster,
    "mstl": baselines.MSTLForecaster,
    "linear-lag": baselines.LinearLagForecaster,
    "boosted-lag": baselines.BoostedLagForecaster,
    "external": baselines.ExternalForecast,
}.items():
    register_builtin(_cls, _name)

__all__ = [
    "DAY_AHEAD_LOAD",
    "LTD",
    "LTD_3D",
    "MOTION_BEST",
    "MOTION_BEST_3D",
    "MOTION_PRESET",
    "SIMLPE",
    "PGBIG_3D",
    "SIMLPE_3D",
    "DCTMixerForecaster",
    "ElmanForecaster",
    "GRUForecaster",
    "HopfieldForecaster",
    "LSTMForecaster",
    "OrthogonalRNNForecaster",
    "ReferencedHopfieldForecaster",
    "ReferencedTransformerForecaster",
    "TransformerForecaster",
    "baselines",
    "foundation",
    "estimator_class",
    "estimator_name",
    "get_estimator",
    "register_estimator",
]
