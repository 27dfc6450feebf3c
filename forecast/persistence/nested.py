"""Parameters that are estimators: stored by registry name and parameters, rebuilt checked.

A meta-estimator's parameter that is an estimator (``ConformalForecaster(estimator=...)``)
or a list of ``(name, estimator)`` pairs (``EnsembleForecaster(estimators=[...])``) is
written to ``params.json`` as ``{"estimator": <registry name>, "params": {...}, "nested":
[...]}`` (a list of ``[name, entry]`` pairs for a list), recursively; the manifest lists
those parameters under ``"estimator_params"``. Loading rebuilds them through the registry
only (never a class named by a module path) and checks every parameter name against the
class before constructing it. See :mod:`forecast.persistence.format` for the folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from forecast.persistence.manifest import MANIFEST, ModelFormatError
from forecast.persistence.registry import estimator_class, estimator_name, is_forecaster
from forecast.persistence.serialize import encode

__all__ = ["FOLDS_SUFFIX", "check_nested_name", "construct", "params_tree"]

FOLDS_SUFFIX = "_folds_"
"""Name suffix of a fitted list of clones of one estimator parameter (fitted on folds)."""


def params_tree(estimator: Any) -> tuple[dict[str, Any], list[str]]:
    """Return the ``params.json`` tree of ``estimator`` and its estimator parameters.

    Parameters
    ----------
    estimator : BaseForecaster
        The estimator whose ``get_params(deep=False)`` is stored.

    Returns
    -------
    tree : dict
        Parameter name to typed JSON value (see :mod:`forecast.persistence.serialize`).
    nested : list of str
        Names of the parameters that are estimators or ``(name, estimator)`` lists.
    """
    raw, nested = _raw_params(estimator)
    return {k: encode(v, f"parameter {k!r}") for k, v in raw.items()}, nested


def _raw_params(estimator: Any) -> tuple[dict[str, Any], list[str]]:
    """``get_params(deep=False)`` with nested estimators as name/params/nested dicts."""

    def entry(v: Any) -> dict[str, Any]:
        inner, inner_nested = _raw_params(v)
        return {"estimator": estimator_name(type(v)), "params": inner, "nested": inner_nested}

    params: dict[str, Any] = {}
    nested: list[str] = []
    for k, v in estimator.get_params(deep=False).items():
        if is_forecaster(v):
            v = entry(v)
            nested.append(k)
        elif _is_named_list(v):
            v = [(name, entry(inner)) for name, inner in v]
            nested.append(k)
        elif isinstance(v, np.integer | np.floating | np.bool_):
            v = v.item()  # a numpy number is the number (hidden_size=np.int64(4) is 4)
        params[k] = v
    return params, nested


def _is_named_list(value: object) -> bool:
    """Tell whether ``value`` is a non-empty list of ``(name, estimator)`` pairs."""
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(
            isinstance(p, tuple | list)
            and len(p) == 2
            and isinstance(p[0], str)
            and is_forecaster(p[1])
            for p in value
        )
    )


def construct(cls: type[Any], params: dict[str, Any], nested: list[str], where: Path) -> Any:
    """Return ``cls(**params)`` after checking the names; nested estimators rebuilt first.

    Parameters
    ----------
    cls : type
        The registered class read from the manifest.
    params : dict
        Decoded ``params.json``.
    nested : list of str
        The manifest's ``"estimator_params"``.
    where : Path
        The file named in error messages.

    Returns
    -------
    BaseForecaster
        The unfitted estimator; its ``checkpoint_dir`` (where the class has one) is None,
        whatever the folder holds.

    Raises
    ------
    ModelFormatError
        A parameter the class does not take, or a malformed nested entry.
    """
    if not isinstance(nested, list) or not set(nested) <= set(params):
        raise ModelFormatError(f"{where}: 'estimator_params' must list parameters of the model")
    unknown = sorted(set(params) - set(cls._get_param_names()))
    if unknown:
        raise ModelFormatError(f"{where}: {cls.__name__} takes no parameters {unknown}")
    params = dict(params)
    if "checkpoint_dir" in params:  # another run's checkpoints: never written by a refit
        params["checkpoint_dir"] = None
    for key in nested:
        entry = params[key]
        if isinstance(entry, list):  # (name, estimator) pairs
            if not entry or not all(
                isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in entry
            ):
                raise ModelFormatError(
                    f"{where}: parameter {key!r} is not a list of (name, estimator) pairs"
                )
            params[key] = [
                (name, _nested(value, f"{key}[{name!r}]", where)) for name, value in entry
            ]
        else:
            params[key] = _nested(entry, key, where)
    return cls(**params)


def _nested(entry: Any, key: str, where: Path) -> Any:
    """Build the estimator a nested-estimator entry of params.json describes."""
    if not isinstance(entry, dict) or set(entry) != {"estimator", "params", "nested"}:
        raise ModelFormatError(f"{where}: parameter {key!r} is not a nested estimator")
    try:
        inner = estimator_class(entry["estimator"])
    except ValueError as err:
        raise ModelFormatError(f"{where}: parameter {key!r}: {err}") from err
    if not isinstance(entry["params"], dict):
        raise ModelFormatError(f"{where}: parameter {key!r} has no parameter dict")
    return construct(inner, entry["params"], entry["nested"], where)


def check_nested_name(
    name: str,
    pin: object,
    params: dict[str, Any],
    nested: list[str],
    taken: set[str],
    path: Path,
) -> None:
    """Refuse a nested folder ``name`` unless it is the fitted twin of an estimator parameter.

    ``estimator_`` is accepted only where the class takes the parameter ``estimator`` and the
    folder stored it as a nested estimator (``"estimator_params"``), a list of folders only
    for a list of ``(name, estimator)`` pairs or as ``estimator_folds_`` (clones of one
    estimator fitted on folds); it never replaces another fitted attribute.
    """
    param = name[:-1]
    shape_ok = isinstance(pin, list) == isinstance(params.get(param), list)
    if name.endswith(FOLDS_SUFFIX) and isinstance(pin, list):  # fold clones of one estimator
        param = name.removesuffix(FOLDS_SUFFIX)
        shape_ok = not isinstance(params.get(param), list)
    if name in taken or param not in nested or param not in params or not shape_ok:
        raise ModelFormatError(
            f"{path / MANIFEST}: nested model folder {name!r} is not the fitted form of a "
            "nested estimator parameter of this class"
        )
