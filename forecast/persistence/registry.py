"""The registry: stable names of estimator classes, stored in saved folders instead of code.

A saved folder names its estimator (``"lstm"``, ``"conformal"``, or a name given to
:func:`register_estimator`) and loading looks the class up here, so a folder never names a
module to import. The packages that define the built-in estimators enter them with
:func:`register_builtin` when they are imported; a look-up imports those packages first (by
name: ``import forecast`` no longer imports them all). No estimator is imported at the top.
"""

from __future__ import annotations

import importlib
import sys

from sklearn.base import BaseEstimator

_BUILTIN: dict[str, type] = {}  # short name -> class, entered by the defining packages
_REGISTERED: dict[str, type] = {}  # classes added by register_estimator
# The packages that enter the built-ins. ``import forecast`` loads its names lazily (a fast
# start-up), so a look-up imports them first: by fixed name, as they sit above this layer.
_HOMES = ("forecast.models", "forecast.combine", "forecast.probabilistic")


def _builtins() -> dict[str, type]:
    for home in _HOMES:
        if home not in sys.modules:
            importlib.import_module(home)  # a fixed name from _HOMES, never from input
    return _BUILTIN


def register_builtin(cls: type, name: str) -> None:
    """Enter a built-in estimator under its fixed short name (package use only)."""
    other = _BUILTIN.get(name)
    if other is not None and other is not cls:
        raise ValueError(f"built-in name {name!r} is taken by {other.__qualname__}")
    _BUILTIN[name] = cls


def builtin_names() -> dict[str, type]:
    """Return the built-in short names and their classes (a copy)."""
    return dict(_builtins())


def all_estimators(include_registered: bool = False) -> list[tuple[str, type]]:
    """List the estimators of the registry, as scikit-learn's ``all_estimators`` does.

    The contract suites run over this list, so an estimator that enters the registry enters
    them too.

    Parameters
    ----------
    include_registered : bool, default=False
        Also list the classes added with :func:`register_estimator` (after the built-ins).

    Returns
    -------
    list of (str, type)
        ``(name, class)`` pairs: the built-ins sorted by their short name, then the
        registered classes sorted by their name.

    Examples
    --------
    >>> from forecast.persistence.registry import all_estimators
    >>> [name for name, _ in all_estimators()][:3]
    ['analog-day', 'boosted-lag', 'chronos2']
    """
    found = sorted(_builtins().items())
    return found + sorted(_REGISTERED.items()) if include_registered else found


def is_forecaster(value: object) -> bool:
    """Tell whether ``value`` is a forecaster (an instance of a ``BaseForecaster`` subclass)."""
    return isinstance(value, BaseEstimator) and _is_forecaster_class(type(value))


def _is_forecaster_class(cls: type) -> bool:
    # duck-typed so that this module needs no estimator: the base's private hooks
    return issubclass(cls, BaseEstimator) and all(
        callable(getattr(cls, hook, None)) for hook in ("_fit", "_predict", "_min_history")
    )


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
    if not (isinstance(cls, type) and _is_forecaster_class(cls)):
        raise TypeError(f"register_estimator takes a BaseForecaster subclass, got {cls!r}")
    name = f"{cls.__module__}.{cls.__qualname__}" if name is None else name
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"estimator name must be a non-empty string, got {name!r}")
    if name.lower() in _builtins():
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
    for table in (_builtins(), _REGISTERED):
        for name, registered in table.items():
            if registered is cls:
                return name
    raise TypeError(
        f"{cls.__module__}.{cls.__qualname__} is not a registered estimator, so a saved folder "
        "could not name it: call forecast.register_estimator(cls) first"
    )


def estimator_class(name: object) -> type:
    """Return the class registered under exactly ``name`` (as stored in saved folders).

    Raises
    ------
    ValueError
        If no class is registered under ``name``.
    """
    if isinstance(name, str) and name in _builtins():
        return _BUILTIN[name]
    if isinstance(name, str) and name in _REGISTERED:
        return _REGISTERED[name]
    raise ValueError(
        f"unknown estimator {name!r}: not a built-in name ({sorted(_BUILTIN)}) nor registered "
        "with forecast.register_estimator"
    )


def get_estimator(name: str) -> type:
    """Return the estimator class registered as ``name`` (e.g. ``"lstm"``).

    Parameters
    ----------
    name : str
        Short name of a built-in estimator, a name given to :func:`register_estimator`, or
        a built-in class name such as ``"LSTMForecaster"`` (any case).

    Returns
    -------
    type
        The estimator class.
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    key = name.lower()
    if key in _builtins():
        return _BUILTIN[key]
    for cls in _BUILTIN.values():
        if cls.__name__.lower() == key:
            return cls
    choices = sorted(_BUILTIN) + sorted(_REGISTERED)
    raise ValueError(f"unknown model {name!r}; choose one of {choices}")
