"""What an ONNX export keeps besides its network, and what loading checks of it.

An export is a saved model folder of the one format (:mod:`forecast.persistence`): the
manifest ``meta.json`` (``"runtime": "onnx"``, the size and SHA-256 of every file),
``params.json``, ``fitted.json`` and ``fitted.npz`` as every saved folder has them, and
``model.onnx`` where a torch model has ``weights.safetensors``. The state is a fixed subset
of the estimator's: the parameters :data:`PARAMS` and the fitted attributes :data:`FITTED`,
all that the frame pipeline (:class:`forecast.frames.pipeline.ForecastPipeline`) and the
network call read.

:func:`check_state` validates that state when the folder loads, so that a forecast never
fails later on a bad record: zones that exist, the NaN policy, positive lengths, columns
and covariates of strings without repeats, the widths of the scalers and of the network's
inputs (calendar features included, computed for the recorded zone and country), quantile
levels. Nothing here imports torch.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler

from forecast.frames import validation
from forecast.frames.covariates import calendar_block
from forecast.persistence.errors import ModelFormatError
from forecast.persistence.trees import check_zones

__all__ = [
    "FITTED",
    "LEGACY_MANIFEST",
    "NETWORK",
    "PARAMS",
    "RUNTIME",
    "OnnxFormatError",
    "check_state",
    "export_state",
    "is_export_folder",
]

RUNTIME = "onnx"  # the manifest's "runtime" of an export
NETWORK = "model.onnx"
LEGACY_MANIFEST = "onnx_model.json"  # the separate format of exports before the one format
PARAMS = ("calendar", "country", "timezone", "fill_gaps", "nan_policy", "horizon", "context_length")
FITTED = (
    "columns_",
    "past_covariates_",
    "future_covariates_",
    "freq_",
    "tz_",
    "index_name_",
    "scaler_",
    "covariate_scaler_",
    "quantiles_",
    "head_horizon_",
    "n_inputs_",
    "n_outputs_",
    "n_past_",
    "n_future_",
)


class OnnxFormatError(ModelFormatError):
    """An export folder that loading refuses (one line naming the file and the field)."""


def is_export_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding an ONNX export (of this format or the earlier one).

    Decided by names alone (``model.onnx`` or ``onnx_model.json`` present), nothing read:
    loading then checks the folder (:func:`forecast.onnx.folder.read_export`).
    """
    folder = Path(path)
    return folder.is_dir() and any(
        os.path.lexists(folder / name) for name in (NETWORK, LEGACY_MANIFEST)
    )


def export_state(estimator: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the ``(params, fitted)`` an export of the fitted ``estimator`` keeps.

    ``horizon`` is kept when it is an int (the default horizon of ``forecast batch``).
    """
    params = {name: getattr(estimator, name) for name in PARAMS}
    if not isinstance(params["horizon"], int):
        params["horizon"] = None
    fitted = {name: getattr(estimator, name) for name in FITTED}
    fitted["quantiles_"] = tuple(float(q) for q in fitted["quantiles_"] or ()) or None
    for name in ("head_horizon_", "n_inputs_", "n_outputs_", "n_past_", "n_future_"):
        fitted[name] = int(fitted[name])
    return params, fitted


def _refuse(where: Path, what: str) -> NoReturn:
    raise OnnxFormatError(f"{where}: {what}")


def _count(value: Any, name: str, where: Path, least: int) -> int:
    if type(value) is not int or value < least:
        _refuse(where, f"{name} must be an int >= {least}, got {value!r}")
    return int(value)


def _names(value: Any, name: str, where: Path) -> list[Any]:
    if type(value) is not list or len(set(map(repr, value))) != len(value):
        _refuse(where, f"{name} must be a list of distinct names, got {value!r}")
    return list(value)


def _scaler(value: Any, width: int, name: str, where: Path) -> None:
    if value is None:
        return
    if type(value) is not StandardScaler:
        _refuse(where, f"{name} must be a StandardScaler, got {type(value).__name__}")
    for part in ("mean_", "scale_"):
        arr = getattr(value, part, None)
        if not isinstance(arr, np.ndarray) or arr.shape != (width,) or arr.dtype.kind != "f":
            _refuse(where, f"{name}.{part} must be {width} floats")
        if not np.isfinite(arr).all():
            _refuse(where, f"{name}.{part} holds NaN or inf")
    if not (value.scale_ > 0).all():
        _refuse(where, f"{name}.scale_ must be positive")


def _calendar_width(params: dict[str, Any], tz: str | None, where: Path) -> int:
    if not params["calendar"]:
        return 0
    stamps = pd.date_range("2024-01-01", periods=2, freq="h", tz=tz)
    try:
        return int(calendar_block(stamps, params["timezone"], params["country"]).shape[1])
    except (ValueError, KeyError, NotImplementedError) as err:
        _refuse(where, f"the calendar of country {params['country']!r} cannot be built ({err})")


def check_state(params: dict[str, Any], fitted: dict[str, Any], where: Path) -> None:
    """Refuse an export's state that a forecast could not run on, in one line.

    Parameters
    ----------
    params, fitted : dict
        Decoded ``params.json`` and ``fitted.json``.
    where : Path
        The folder, named in messages.

    Raises
    ------
    OnnxFormatError
        A missing or unknown entry, a zone that does not exist, a length that is not
        positive, widths that disagree (columns, covariates, scalers, network inputs with
        the calendar features), or quantile levels outside (0, 1).
    """
    for what, got, want in (("params.json", params, PARAMS), ("fitted.json", fitted, FITTED)):
        if set(got) != set(want):
            missing, unknown = sorted(set(want) - set(got)), sorted(set(got) - set(want))
            _refuse(where / what, f"lacks {missing} / has unknown entries {unknown}")
    for flag in ("calendar", "fill_gaps"):
        if type(params[flag]) is not bool:
            _refuse(where / "params.json", f"{flag} must be true or false")
    if params["nan_policy"] not in validation.NAN_POLICIES:
        _refuse(where / "params.json", f"nan_policy {params['nan_policy']!r} is not known")
    if params["country"] is not None and type(params["country"]) is not str:
        _refuse(where / "params.json", f"country must be a string, got {params['country']!r}")
    check_zones(params, fitted, where)
    _count(params["context_length"], "context_length", where / "params.json", 1)
    if params["horizon"] is not None:
        _count(params["horizon"], "horizon", where / "params.json", 1)
    at = where / "fitted.json"
    if not isinstance(fitted["freq_"], pd.offsets.BaseOffset):
        _refuse(at, "freq_ must be a pandas frequency")
    columns = _names(fitted["columns_"], "columns_", at)
    past = _names(fitted["past_covariates_"], "past_covariates_", at)
    future = _names(fitted["future_covariates_"], "future_covariates_", at)
    if not columns or not all(isinstance(c, str) for c in past + future):
        _refuse(at, "columns_ must name a target, covariates must be strings")
    if len(set(map(repr, columns + past + future))) != len(columns + past + future):
        _refuse(at, "a column is both a target and a covariate, or past and future")
    _count(fitted["head_horizon_"], "head_horizon_", at, 1)
    n_future = _count(fitted["n_future_"], "n_future_", at, 0)
    sizes = {"n_outputs_": len(columns), "n_past_": len(past)}
    for name, want_size in sizes.items():
        if _count(fitted[name], name, at, 0) != want_size:
            _refuse(at, f"{name} is {fitted[name]}, the column lists give {want_size}")
    calendar = _calendar_width(params, fitted["tz_"], where / "params.json")
    if n_future != len(future) + calendar:
        _refuse(at, f"n_future_ is {n_future}: {len(future)} covariates + {calendar} calendar")
    if _count(fitted["n_inputs_"], "n_inputs_", at, 1) != len(columns) + len(past) + n_future:
        _refuse(at, "n_inputs_ is not targets + past covariates + future inputs")
    _scaler(fitted["scaler_"], len(columns), "scaler_", at)
    if (fitted["covariate_scaler_"] is None) != (not past + future):
        _refuse(at, "covariate_scaler_ must be there exactly when there are covariates")
    _scaler(fitted["covariate_scaler_"], len(past + future), "covariate_scaler_", at)
    levels = fitted["quantiles_"]
    if levels is not None:
        ok = type(levels) is tuple and levels and all(type(q) is float for q in levels)
        if not ok or not all(0 < q < 1 and math.isfinite(q) for q in levels):
            _refuse(at, f"quantiles_ must be levels in (0, 1), got {levels!r}")
        if list(levels) != sorted(set(levels)):
            _refuse(at, f"quantiles_ must be increasing, got {levels!r}")
