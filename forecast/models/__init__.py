"""The estimators, and a registry that finds one by its short name (used by the CLI)."""

from __future__ import annotations

import importlib

REGISTRY = {
    "elman": "forecast.models.recurrent:ElmanForecaster",
    "lstm": "forecast.models.recurrent:LSTMForecaster",
    "gru": "forecast.models.recurrent:GRUForecaster",
    "orthogonal": "forecast.models.orthogonal:OrthogonalRNNForecaster",
    "transformer": "forecast.models.transformer:TransformerForecaster",
    "hopfield": "forecast.models.hopfield:HopfieldForecaster",
    "naive": "forecast.models.baselines:Naive",
    "seasonal-naive": "forecast.models.baselines:SeasonalNaive",
    "ets": "forecast.models.baselines:ETSForecaster",
    "sarimax": "forecast.models.baselines:SARIMAXForecaster",
    "mstl": "forecast.models.baselines:MSTLForecaster",
    "linear-lag": "forecast.models.baselines:LinearLagForecaster",
    "external": "forecast.models.baselines:ExternalForecast",
}


def get_estimator(name: str) -> type:
    """Return the estimator class registered as ``name`` (e.g. ``"lstm"``).

    Parameters
    ----------
    name : str
        Short name (see ``REGISTRY``) or a class name such as ``"LSTMForecaster"``.

    Returns
    -------
    type
        The estimator class.
    """
    target = REGISTRY.get(name.lower())
    if target is None:
        by_class = {v.split(":")[1].lower(): v for v in REGISTRY.values()}
        target = by_class.get(name.lower())
    if target is None:
        raise ValueError(f"unknown model {name!r}; choose one of {sorted(REGISTRY)}")
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)
