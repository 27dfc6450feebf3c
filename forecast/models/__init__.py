"""The estimators, and the registry that finds one by a stable name.

The CLI and experiment specs look classes up here by short name (``"lstm"``); saved model
folders store the same name and :mod:`forecast.persistence` resolves it here, so a folder
never names a module to import. Built-in names are fixed below; other classes join with
:func:`register_estimator`.
"""

from __future__ import annotations

import importlib

REGISTRY = {  # fixed in code: the only modules a name can lead to
    "elman": "forecast.models.recurrent:ElmanForecaster",
    "lstm": "forecast.models.recurrent:LSTMForecaster",
    "gru": "forecast.models.recurrent:GRUForecaster",
    "orthogonal": "forecast.models.orthogonal:OrthogonalRNNForecaster",
    "transformer": "forecast.models.transformer:TransformerForecaster",
    "hopfield": "forecast.models.hopfield:HopfieldForecaster",
    "naive": "forecast.models.baselines:Naive",
    "seasonal-naive": "forecast.models.baselines:SeasonalNaive",
    "constant-velocity": "forecast.models.baselines:ConstantVelocity",
    "ets": "forecast.models.baselines:ETSForecaster",
    "sarimax": "forecast.models.baselines:SARIMAXForecaster",
    "mstl": "forecast.models.baselines:MSTLForecaster",
    "linear-lag": "forecast.models.baselines:LinearLagForecaster",
    "boosted-lag": "forecast.models.baselines:BoostedLagForecaster",
    "external": "forecast.models.baselines:ExternalForecast",
    "conformal": "forecast.conformal:ConformalForecaster",
    "ensemble": "forecast.ensemble:EnsembleForecaster",
}

_REGISTERED: dict[str, type] = {}  # classes added by register_estimator


def _builtin(name: str) -> type:
    module, attr = REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), attr)


def register_estimator(cls: type, name: str | None = None) -> str:
    """Register an estimator class so that saved folders of it can be loaded.

    Parameters
    ----------
    cls : type
        A subclass of :class:`forecast.base.BaseForecaster`.
    name : str, optional
        Stable name stored in saved folders; default ``"module.QualName"`` of ``cls``.

    Returns
    -------
    str
        The registered name.

    Examples
    --------
    >>> import forecast
    >>> class MyNaive(forecast.Naive):
    ...     pass
    >>> forecast.register_estimator(MyNaive, "my-naive")
    'my-naive'
    """
    from forecast.base import BaseForecaster

    if not isinstance(cls, type) or not issubclass(cls, BaseForecaster):
        raise TypeError(f"register_estimator takes a BaseForecaster subclass, got {cls!r}")
    name = f"{cls.__module__}.{cls.__qualname__}" if name is None else name
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"estimator name must be a non-empty string, got {name!r}")
    if name.lower() in REGISTRY:
        raise ValueError(f"{name!r} is the name of a built-in estimator; choose another name")
    other = _REGISTERED.get(name)
    if other is not None and other is not cls:
        raise ValueError(
            f"{name!r} is already registered for {other.__module__}.{other.__qualname__}"
        )
    _REGISTERED[name] = cls
    return name


def estimator_name(cls: type) -> str:
    """Return the registry name of ``cls`` (exactly this class, not a parent).

    Raises
    ------
    TypeError
        If ``cls`` is not registered.
    """
    for name in REGISTRY:
        if _builtin(name) is cls:
            return name
    for name, registered in _REGISTERED.items():
        if registered is cls:
            return name
    raise TypeError(
        f"{cls.__module__}.{cls.__qualname__} is not a registered estimator, so a saved folder "
        "could not name it: call forecast.register_estimator(cls) first"
    )


def estimator_class(name: str) -> type:
    """Return the class registered under exactly ``name`` (as stored in saved folders).

    Raises
    ------
    ValueError
        If no class is registered under ``name``.
    """
    if isinstance(name, str) and name in REGISTRY:
        return _builtin(name)
    if isinstance(name, str) and name in _REGISTERED:
        return _REGISTERED[name]
    raise ValueError(
        f"unknown estimator {name!r}: not a built-in name ({sorted(REGISTRY)}) nor registered "
        "with forecast.register_estimator"
    )


def get_estimator(name: str) -> type:
    """Return the estimator class registered as ``name`` (e.g. ``"lstm"``).

    Parameters
    ----------
    name : str
        Short name (see ``REGISTRY``), a name given to :func:`register_estimator`, or a
        built-in class name such as ``"LSTMForecaster"``.

    Returns
    -------
    type
        The estimator class.
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    key = name.lower()
    if key not in REGISTRY:
        by_class = {v.split(":")[1].lower(): k for k, v in REGISTRY.items()}
        key = by_class.get(key, "")
    if key not in REGISTRY:
        choices = sorted(REGISTRY) + sorted(_REGISTERED)
        raise ValueError(f"unknown model {name!r}; choose one of {choices}")
    return _builtin(key)  # the module path comes from REGISTRY, never from the caller
