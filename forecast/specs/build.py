"""What a spec's tables build: the ``[data]`` frame and the ``[models]`` estimators.

The format of the tables is described in :mod:`forecast.specs.spec`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from sklearn.base import clone

from forecast.base import BaseForecaster
from forecast.combine.ensemble import EnsembleForecaster
from forecast.datasets import load
from forecast.frames.io import read_frame
from forecast.models import get_estimator

__all__ = ["build_estimator", "build_models", "load_data"]


def load_data(data: dict[str, Any]) -> pd.DataFrame:
    """Load the frame a spec's ``[data]`` table describes."""
    if ("dataset" in data) == ("path" in data):
        raise ValueError("[data] needs exactly one of `dataset` (catalogue name) or `path` (file)")
    if "dataset" in data:
        frame = load(data["dataset"], data_dir=data.get("data_dir"))
    else:
        frame = read_frame(data["path"], data.get("time_column"))
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(
            f"dataset {data.get('dataset')!r} is a collection of series, not one frame"
        )
    if "columns" in data:
        missing = [c for c in data["columns"] if c not in frame.columns]
        if missing:
            raise ValueError(
                f"[data] columns {missing} not in the data; found {list(frame.columns)}"
            )
        frame = frame[data["columns"]]
    if "resample" in data:
        frame = frame.resample(data["resample"]).mean()
    if "timezone" in data:
        frame = frame.tz_convert(data["timezone"])
    if "start" in data or "end" in data:
        frame = frame.loc[data.get("start") : data.get("end")]
    return frame


def build_estimator(model: str, params: dict[str, Any]) -> Any:
    """Instantiate the estimator registered as ``model`` with ``params``.

    Parameters
    ----------
    model : str
        Registry name or class name (see :func:`forecast.models.get_estimator`).
    params : dict
        Constructor parameters.

    Returns
    -------
    BaseForecaster
        The unfitted estimator.

    Raises
    ------
    ValueError
        If ``model`` is unknown or a parameter is not one the class takes (the message
        names it and lists the valid ones).
    """
    cls: type[BaseForecaster] = get_estimator(model)
    valid = cls._get_param_names()
    unknown = [k for k in params if k not in valid]
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        raise ValueError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {names} for {model} "
            f"({cls.__name__}); valid: {', '.join(valid)}"
        )
    return cls(**params)


def build_models(models: dict[str, Any]) -> dict[str, Any]:
    """Instantiate the estimators of a spec's ``[models]`` tables.

    A table with ``model = "ensemble"`` names its members by the keys of other tables,
    ``members = ["linear-lag", "hopfield"]`` (optionally ``weights = [0.7, 0.3]``, or
    ``weights_by = "hour"`` with 24 rows of weights): each member is a clone of that
    table's estimator, named by its key with ``-`` as ``_``.
    """
    out, ensembles = {}, {}
    for name, params in models.items():
        params = dict(params)
        model = params.pop("model")
        params = {
            k: tuple(v) if isinstance(v, list) and k in ("order", "seasonal_order") else v
            for k, v in params.items()
        }
        try:
            if _is_ensemble(model):
                ensembles[name] = params
            else:
                out[name] = build_estimator(model, params)
        except ValueError as err:
            raise ValueError(f"[models.{name}] {err}") from err
    for name, params in ensembles.items():
        try:
            out[name] = _build_ensemble(name, params, out, set(ensembles))
        except (TypeError, ValueError) as err:
            raise ValueError(f"[models.{name}] {err}") from err
    return {name: out[name] for name in models}


def _is_ensemble(model: str) -> bool:
    return get_estimator(model) is EnsembleForecaster


def _build_ensemble(
    name: str, params: dict[str, Any], built: dict[str, Any], ensembles: set[str]
) -> Any:
    """Build the ensemble of a ``[models.<name>]`` table from other tables' estimators."""
    if "estimators" in params:
        raise ValueError(
            "give the members as members = [<keys of other [models] tables>], not estimators"
        )
    members = params.pop("members", None)
    if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
        raise ValueError(
            'an ensemble needs members = ["<model key>", ...] naming other [models] tables, '
            f"got {members!r}"
        )
    estimators = []
    for key in members:
        if key == name:
            raise ValueError(f"member {key!r} is the ensemble itself")
        if key in ensembles:
            raise ValueError(f"member {key!r} is itself an ensemble: nesting is not supported")
        if key not in built:
            raise ValueError(f"unknown member {key!r}; the [models] tables are {sorted(built)}")
        label = key.replace("-", "_")
        if not label.isidentifier():
            raise ValueError(
                f"member {key!r}: its key must be letters, digits, '_' or '-' (not starting "
                "with a digit) to name the member"
            )
        estimators.append((label, clone(built[key])))
    model = build_estimator("ensemble", {**params, "estimators": estimators})
    model._check_params()
    return model
