"""Our own loader of logged forecast models: MLflow artifacts as data, never as code.

``mlflow.pyfunc.load_model`` honours whatever the ``MLmodel`` file says: it imports the
``loader_module`` it names, puts the ``code`` folders on ``sys.path`` (a planted package
shadows a real one), unpickles a cloudpickled ``python_model`` and follows ``data`` where it
points. Our paths (``forecast batch`` with one file or many partitions, its Ray Data actors,
:func:`forecast.batch.run.load_forecaster`) never call it. :func:`load_artifact` instead

1. downloads the artifact (``models:/`` through the registry, ``runs:/``, any MLflow URI;
   a local folder or ``file:`` URI is copied, links kept as links) into a temporary folder;
2. checks its ``MLmodel`` file (YAML, read with ``yaml.safe_load``, at most 1 MiB) against
   exactly what :func:`forecast.tracking.pyfunc.log_model` writes: one flavour,
   ``python_function``, whose ``loader_module`` is :mod:`forecast.tracking.pyfunc`, whose
   ``code`` is empty, with no ``python_model``, ``cloudpickle_version``, ``artifacts`` or
   any key our flavour does not write, and whose ``data`` is a relative path without ``..``
   that stays inside the artifact (no symbolic link on the way);
3. loads that ``data`` folder with the checked loader :func:`forecast.persistence.load`,
   which refuses a folder that does not match its manifest.

Anything else raises :class:`ArtifactError` (a :class:`ModelFormatError`, so a
``ValueError``) with one line naming the ``MLmodel`` field. Nothing in the artifact is
imported or unpickled, so a tampered artifact runs no code.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse

import mlflow.artifacts
import yaml

from forecast.frames.messages import first_line
from forecast.persistence.errors import ModelFormatError
from forecast.persistence.format import load
from forecast.tracking._store import resolve_tracking_uri, use_store
from forecast.tracking.pyfunc import ForecastModel

__all__ = ["ArtifactError", "check_mlmodel", "download_model", "load_artifact"]

MLMODEL = "MLmodel"
FLAVOR = "python_function"
_MLMODEL_CAP = 1 << 20
# keys of the python_function flavour that log_model writes (MLflow fills in all of them)
_FLAVOR_KEYS = frozenset({"loader_module", "data", "code", "env", "python_version", "streamable"})
_LOADER = ForecastModel.__module__  # forecast.tracking.pyfunc
_CODE_KEYS = ("code", "python_model", "cloudpickle_version", "artifacts", "model_config")


class ArtifactError(ModelFormatError):
    """An MLflow model artifact is not what our pyfunc flavour writes; names the field."""


def _refuse(model: str, field: str, why: str) -> ArtifactError:
    return ArtifactError(f"model {model}: MLmodel field '{field}' refused: {why}")


def read_mlmodel(root: Path, model: str) -> dict[str, Any]:
    """Return the parsed ``MLmodel`` of the artifact folder ``root`` (a plain file, capped)."""
    path = root / MLMODEL
    try:
        st = path.lstat()
    except FileNotFoundError:
        raise ArtifactError(f"model {model}: no {MLMODEL} file in the artifact") from None
    if not stat.S_ISREG(st.st_mode):
        raise ArtifactError(f"model {model}: {MLMODEL} is not a plain file (a link?)")
    if st.st_size > _MLMODEL_CAP:
        raise ArtifactError(f"model {model}: {MLMODEL} is {st.st_size} bytes, too large")
    try:
        parsed = yaml.safe_load(path.read_bytes())
    except yaml.YAMLError as err:
        raise ArtifactError(
            f"model {model}: {MLMODEL} is not valid YAML: {first_line(err)}"
        ) from None
    if not isinstance(parsed, dict):
        raise ArtifactError(f"model {model}: {MLMODEL} is not a YAML mapping")
    return parsed


def check_mlmodel(root: str | os.PathLike[str], model: str | None = None) -> Path:
    """Check the ``MLmodel`` of the artifact folder ``root``; return its model data folder.

    Parameters
    ----------
    root : str or path-like
        The downloaded artifact (the folder holding ``MLmodel``).
    model : str, optional
        How error messages name the model (default: ``root``).

    Returns
    -------
    Path
        The folder ``data`` names, inside ``root`` (to load with
        :func:`forecast.persistence.load`).

    Raises
    ------
    ArtifactError
        ``MLmodel`` is missing, not YAML, or differs from what our flavour writes: another
        flavour, another ``loader_module``, ``code`` paths, a ``python_model`` or other key
        our flavour does not write, or a ``data`` that is absolute, climbs with ``..`` or
        leaves ``root`` through a symbolic link. The message names the field.
    """
    root = Path(root)
    model = str(root) if model is None else model
    spec = read_mlmodel(root, model)
    flavors = spec.get("flavors")
    if not isinstance(flavors, dict) or FLAVOR not in flavors:
        raise _refuse(model, "flavors", f"no {FLAVOR} flavour")
    for name in flavors:
        if name != FLAVOR:
            raise _refuse(model, f"flavors.{name}", "our flavour logs python_function only")
    flavor = flavors[FLAVOR]
    if not isinstance(flavor, dict):
        raise _refuse(model, f"flavors.{FLAVOR}", "not a mapping")
    for key in _CODE_KEYS:
        if flavor.get(key) not in (None, "", [], {}):
            raise _refuse(model, f"flavors.{FLAVOR}.{key}", "it would run code; ours has none")
    for key in flavor:
        if key not in _FLAVOR_KEYS and key not in _CODE_KEYS:
            raise _refuse(model, f"flavors.{FLAVOR}.{key}", "our flavour does not write it")
    loader = flavor.get("loader_module")
    if loader != _LOADER:
        raise _refuse(model, f"flavors.{FLAVOR}.loader_module", f"{loader!r} is not {_LOADER!r}")
    return _data_folder(root, flavor.get("data"), model)


def _data_folder(root: Path, data: Any, model: str) -> Path:
    """Return ``root / data`` if it is a relative path that stays inside ``root``."""
    field = f"flavors.{FLAVOR}.data"
    if not isinstance(data, str) or not data.strip():
        raise _refuse(model, field, "missing or not a path")
    relative = PurePosixPath(data)
    if relative.is_absolute() or "\\" in data or Path(data).is_absolute():
        raise _refuse(model, field, f"{data!r} is absolute")
    if ".." in relative.parts:
        raise _refuse(model, field, f"{data!r} climbs out with '..'")
    folder = root
    for part in relative.parts:
        folder = folder / part
        if folder.is_symlink():
            raise _refuse(model, field, f"{data!r} passes through a symbolic link")
    base = root.resolve()
    if not folder.resolve().is_relative_to(base):
        raise _refuse(model, field, f"{data!r} resolves outside the artifact")
    if not folder.is_dir():
        raise _refuse(model, field, f"{data!r} is not a folder in the artifact")
    return folder


def _local_path(model: str) -> Path | None:
    """Return the folder of a local model (a path, a ``file:`` URI); None for a store URI."""
    if model.startswith("file:"):
        return Path(unquote(urlparse(model).path))
    if "://" in model or model.startswith(("models:/", "runs:/")):
        return None
    return Path(model)


def download_model(
    model: str, dest: str | os.PathLike[str], tracking_uri: str | None = None
) -> Path:
    """Copy the artifact of ``model`` into the empty folder ``dest``; return its root.

    Parameters
    ----------
    model : str
        ``models:/name@alias``, ``models:/name/version``, ``models:/<model_id>``,
        ``runs:/<run_id>/model``, another MLflow artifact URI, or a local model folder.
    dest : str or path-like
        Existing folder the artifact is copied into.
    tracking_uri : str, optional
        Store resolving ``models:/`` and ``runs:/`` URIs (and holding the registry).

    Returns
    -------
    Path
        The copied artifact folder (the one holding ``MLmodel``).
    """
    local = _local_path(model)
    if local is not None:  # links stay links, so check_mlmodel sees where they point
        target = Path(dest) / "model"
        shutil.copytree(local, target, symlinks=True)
        return target
    resolved = resolve_tracking_uri(tracking_uri)
    with use_store(resolved):
        path = mlflow.artifacts.download_artifacts(
            artifact_uri=model, dst_path=os.fspath(dest), tracking_uri=resolved
        )
    return Path(path)


def load_artifact(
    model: str | os.PathLike[str], tracking_uri: str | None = None, device: str | None = None
) -> ForecastModel:
    """Download, check and load a logged forecast model without running any of its code.

    Parameters
    ----------
    model : str or path-like
        MLflow model URI or local MLflow model folder (see
        :func:`~forecast.tracking.artifacts.download_model`).
    tracking_uri : str, optional
        Store resolving ``models:/`` and ``runs:/`` URIs.
    device : str, optional
        Device for torch modules (default: CUDA when present, else CPU).

    Returns
    -------
    ForecastModel
        With ``estimator`` loaded; ``predict(None, history, params)`` answers as the pyfunc
        model does.

    Raises
    ------
    ArtifactError
        The ``MLmodel`` file is not what our flavour writes (see
        :func:`~forecast.tracking.artifacts.check_mlmodel`).
    ModelFormatError
        The model folder does not match its manifest.
    """
    text = os.fspath(model)
    with tempfile.TemporaryDirectory(prefix="forecast-model-") as tmp:
        root = download_model(text, tmp, tracking_uri)
        data = check_mlmodel(root, text)
        wrapper = ForecastModel()
        try:
            wrapper.estimator = load(data, device=device)
        except ModelFormatError as err:  # name the artifact, not the temporary copy
            message = str(err).replace(os.fspath(root), text.rstrip("/"))
            raise type(err)(message) from err
    return wrapper
