"""Save a fitted estimator to a folder and load it back, on any device.

Folder layout:

``meta.json``
    estimator class, package, torch and Python versions, save time.
``params.json``
    ``get_params()`` as JSON.
``weights.pt``
    ``state_dict()`` of every fitted attribute that is a ``torch.nn.Module``, loaded back
    with ``torch.load(weights_only=True)``.
``fitted.pkl``
    the remaining fitted attributes (names ending in ``_``: columns, frequency, scalers,
    the history tail kept for prediction, training history).

Estimators with torch modules implement ``_build_module()``, which rebuilds ``module_``
from fitted attributes alone, so that loading never unpickles a torch object.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import platform
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import torch
from sklearn.utils.validation import check_is_fitted

import forecast

FORMAT_VERSION = 1


def _fitted_attributes(estimator) -> dict:
    return {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("__")}


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(
        f"parameter value {value!r} of type {type(value).__name__} cannot be saved as JSON"
    )


def save(estimator, path: str | os.PathLike) -> Path:
    """Save a fitted estimator to the folder ``path`` (replaced atomically if it exists).

    Parameters
    ----------
    estimator : BaseForecaster
        A fitted estimator.
    path : str or path-like
        Target folder.

    Returns
    -------
    Path
        The folder written.
    """
    check_is_fitted(estimator, "columns_")
    path = Path(path)
    params = {k: _jsonable(v) for k, v in estimator.get_params(deep=False).items()}
    fitted = _fitted_attributes(estimator)
    modules = {k: v for k, v in fitted.items() if isinstance(v, torch.nn.Module)}
    rest = {k: v for k, v in fitted.items() if k not in modules}
    cls = type(estimator)
    meta = {
        "format": FORMAT_VERSION,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "forecast_version": forecast.__version__,
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "modules": sorted(modules),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2))
        (tmp / "params.json").write_text(json.dumps(params, indent=2, sort_keys=True))
        if modules:
            state = {
                name: {k: t.detach().cpu() for k, t in m.state_dict().items()}
                for name, m in modules.items()
            }
            torch.save(state, tmp / "weights.pt")
        with open(tmp / "fitted.pkl", "wb") as fh:
            pickle.dump(rest, fh, protocol=pickle.HIGHEST_PROTOCOL)
        if path.exists():
            old = path.with_name(f".{path.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def _resolve_device(device: str | None) -> str:
    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return str(device)


def load(path: str | os.PathLike, device: str | None = None):
    """Load an estimator saved with :func:`save`.

    Parameters
    ----------
    path : str or path-like
        Folder written by :func:`save`.
    device : str, optional
        Device for torch modules (``"cpu"``, ``"cuda"``); default CUDA when present, else CPU.

    Returns
    -------
    BaseForecaster
        The fitted estimator.
    """
    path = Path(path)
    if not (path / "meta.json").is_file():
        raise FileNotFoundError(f"{path} is not a saved forecaster: meta.json is missing")
    meta = json.loads((path / "meta.json").read_text())
    module_name, qualname = meta["class"].split(":")
    cls = getattr(importlib.import_module(module_name), qualname)
    params = json.loads((path / "params.json").read_text())
    estimator = cls(**params)
    with open(path / "fitted.pkl", "rb") as fh:
        for key, value in pickle.load(fh).items():
            setattr(estimator, key, value)
    if meta.get("modules"):
        target = _resolve_device(device)
        state = torch.load(path / "weights.pt", map_location=target, weights_only=True)
        estimator._build_module()
        for name in meta["modules"]:
            module = getattr(estimator, name)
            module.load_state_dict(state[name])
            module.to(target)
            module.eval()
        estimator.device_ = target
    return estimator
