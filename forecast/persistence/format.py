"""Save a fitted estimator to a folder and load it back, on any device.

A saved folder is data, never code: nothing in it is unpickled and no class or module is
named by it. Folder layout (format 2.0):

``meta.json``
    the manifest: format version, the estimator's registry name (see
    :func:`forecast.register_estimator`), forecast/torch/Python versions, save time, the
    names of the torch modules, a fingerprint of the history the model keeps, and the size
    and SHA-256 of every other file. Loading checks it before parsing anything else.
``params.json``
    ``get_params()`` as typed JSON (tuples stay tuples).
``fitted.json``
    the fitted attributes (names ending in ``_``: columns, frequency, time zone, scalers,
    the history tail kept for prediction, training history, baseline parameters) as a
    typed JSON tree of a closed set of types (see :mod:`forecast.persistence.serialize`).
``fitted.npz``
    the numeric arrays that tree refers to, read with ``allow_pickle=False``.
``weights.safetensors``
    (neural models) the ``state_dict()`` of every fitted torch module, in safetensors.

Meta-estimators (:class:`forecast.ConformalForecaster`) nest estimators: a parameter that is
an estimator is stored in ``params.json`` as its registry name and parameters (listed under
``"estimator_params"`` in the manifest; see :mod:`forecast.persistence.nested`), and a
fitted attribute that is an estimator is saved as a subfolder of the same format named after
the attribute (``estimator_/``), whose ``meta.json`` SHA-256 the parent manifest pins under
``"nested"``. Lists work the same way (:class:`forecast.EnsembleForecaster`): a parameter
that is a list of ``(name, estimator)`` pairs is stored as a list of ``[name, nested
estimator]`` and listed under ``"estimator_params"`` too, and a fitted attribute that is a
list of estimators is saved as numbered subfolders (``estimators_/0/``, ``estimators_/1/``,
...) pinned in order by a list of SHA-256 under ``"nested"``. Clones of an estimator parameter
fitted on folds of the data (:class:`forecast.AnalogDayForecaster`'s out-of-fold references)
are a list named after that parameter with ``_folds_`` (``reference_model_folds_/0/``, ...).

Estimators with torch modules implement ``_build_module()``, which rebuilds the modules
from fitted attributes alone; loading fills them from the weights. Loading rejects a folder
that does not match its manifest, parameters the class does not take or rejects (its
``_check_params``/``_spec``), and a class other than the one asked for.

``pickle.dumps(estimator)`` also works, as in scikit-learn, but a pickle runs code when
loaded: unpickle only what you produced yourself, and share models as saved folders.
"""

from __future__ import annotations

import os
import platform
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import save as to_safetensors
from sklearn.utils.validation import check_is_fitted

from forecast._version import __version__
from forecast.frames.fingerprint import fingerprint
from forecast.frames.io import remove_stale_temporaries
from forecast.frames.messages import first_line
from forecast.persistence.arrays import check_npz_tail, read_npz
from forecast.persistence.atomic import write_folder
from forecast.persistence.loop_state import check_loop_state, lineage_summary
from forecast.persistence.manifest import (
    MANIFEST,
    ModelFormatError,
    VerifiedFiles,
    build_manifest,
    manifest_bytes,
    sha256,
)
from forecast.persistence.manifest import read_verified as _read_verified
from forecast.persistence.nested import check_nested_name, construct, params_tree
from forecast.persistence.overwrite import check_replaceable
from forecast.persistence.registry import estimator_class, estimator_name, is_forecaster
from forecast.persistence.serialize import arrays_to_bytes, encode
from forecast.persistence.trees import (
    ARRAYS,
    CAPS,
    FITTED,
    PARAMS,
    check_column_lists,
    check_zones,
    json_bytes,
    read_tree,
)
from forecast.persistence.weights import WEIGHTS, restore_modules
from forecast.training.device import resolve_device

__all__ = ["ModelFormatError", "check_writable", "load", "save"]

_CAPS = CAPS  # the caps of the state files (0.1 name)
_ATTRIBUTE = re.compile(r"[a-z][A-Za-z0-9_]*_")
_PARAM_CHECKS = ("_check_params", "_spec")  # the class's own parameter validation, if any


def _fitted_attributes(estimator: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(estimator).items() if _ATTRIBUTE.fullmatch(k)}


def _weights(modules: dict[str, torch.nn.Module]) -> bytes:
    tensors = {}
    for name, module in modules.items():
        for key, value in module.state_dict().items():
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"cannot save {name}: state entry {key!r} is not a tensor")
            tensors[f"{name}.{key}"] = value.detach().cpu().contiguous().clone()
    return to_safetensors(tensors)


def _history_summary(estimator: Any) -> dict[str, Any] | None:
    """Fingerprint of the history kept for ``predict`` (``train_tail_``)."""
    tails = getattr(estimator, "train_tail_", None)
    if not isinstance(tails, dict) or not any(len(f) for f in tails.values()):
        return None
    single = getattr(estimator, "input_kind_", None) == "frame" and list(tails) == [None]
    return {
        "sha256": fingerprint(tails[None] if single else tails),
        "series": len(tails),
        "rows": int(sum(len(f) for f in tails.values())),
        "start": str(min(f.index[0] for f in tails.values() if len(f))),
        "end": str(max(f.index[-1] for f in tails.values() if len(f))),
    }


def save(estimator: Any, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Save a fitted estimator to the folder ``path``.

    Parameters
    ----------
    estimator : BaseForecaster
        A fitted estimator of a registered class.
    path : str or path-like
        Target folder. Missing parent folders are created; the folder and its files get the
        usual permissions of the user's umask.
    overwrite : bool, default=False
        Replace an existing saved model folder (atomically; an empty folder is replaced
        too). Only a folder whose ``meta.json`` is a manifest of this format and which holds
        nothing but the files and nested folders that manifest lists is replaced; a file, a
        link or any other folder at ``path`` is never replaced (nothing else is deleted).

    Returns
    -------
    Path
        The folder written.

    Raises
    ------
    FileExistsError
        If ``path`` exists and ``overwrite`` is False, or it is not a saved model folder.
    TypeError
        If the class is not registered, or a parameter or fitted attribute has a type a
        saved folder cannot hold (the message names it). Nothing is written then.
    ModelFormatError
        If the folder written would not load (non-finite weights, a file over its cap,
        state that fails the load's checks): the check is :func:`load`'s own, run on the
        complete temporary folder before it is renamed into place, so nothing is written
        and a folder replaced with ``overwrite=True`` is left byte for byte.
    """
    path = Path(path)
    files, _ = _folder_files(estimator)
    write_folder(
        path,
        files,
        replace=_replaceable if overwrite else _refuse,
        check=lambda written: _check_loads(written, path, type(estimator)),
    )
    return path


def _check_loads(written: Path, target: Path, cls: type) -> None:
    """Load the folder just written (not yet in place) as ``load`` would; refuse it else.

    The one rule for what may be written over a saved model: nothing ``load`` would refuse
    (non-finite weights, a file over its cap, state that fails the load's checks). The
    message names ``target``, whose folder (if any) is left as it was.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _load(written, "cpu", cls, None)
    except (ModelFormatError, TypeError, ValueError) as err:
        detail = first_line(err).replace(os.fspath(written), os.fspath(target))
        raise ModelFormatError(
            f"{target}: not saved, the folder would not load ({detail}); nothing was written"
        ) from err


def _is_estimator_list(value: object) -> bool:
    return type(value) is list and bool(value) and all(is_forecaster(v) for v in value)


def _folder_files(estimator: Any) -> tuple[dict[str, Any], bytes]:
    """Files of the saved folder of ``estimator`` (subfolders as dicts), and its manifest."""
    check_is_fitted(estimator, "columns_")
    name = estimator_name(type(estimator))
    params, estimator_params = params_tree(estimator)
    fitted = _fitted_attributes(estimator)
    modules = {k: v for k, v in fitted.items() if isinstance(v, torch.nn.Module)}
    inner = {k: v for k, v in fitted.items() if is_forecaster(v) or _is_estimator_list(v)}
    arrays: dict[str, np.ndarray] = {}
    state = {k: encode(v, k, arrays) for k, v in fitted.items() if k not in modules | inner}
    files: dict[str, Any] = {
        PARAMS: json_bytes(params),
        FITTED: json_bytes(state),
        ARRAYS: arrays_to_bytes(arrays),
    }
    if modules:
        files[WEIGHTS] = _weights(modules)
    subfolders: dict[str, Any] = {}  # a subfolder: a dict of files, or a dict of them
    pins: dict[str, Any] = {}  # a manifest's sha256, or a list of them
    for attr, value in sorted(inner.items()):
        if isinstance(value, list):  # attr/0/, attr/1/, ... pinned in order
            subfolders[attr], pins[attr] = {}, []
            for i, member in enumerate(value):
                subfolders[attr][str(i)], sub_manifest = _folder_files(member)
                pins[attr].append(sha256(sub_manifest))
        else:
            subfolders[attr], sub_manifest = _folder_files(value)
            pins[attr] = sha256(sub_manifest)
    manifest = build_manifest(
        files,
        estimator=name,
        forecast_version=__version__,
        torch_version=torch.__version__,
        python_version=platform.python_version(),
        saved_at=datetime.now(UTC).isoformat(timespec="seconds"),
        modules=sorted(modules),
        history=_history_summary(estimator),
        **lineage_summary(estimator),
        **({"estimator_params": estimator_params} if estimator_params else {}),
        **({"nested": pins} if pins else {}),
    )
    files[MANIFEST] = manifest_bytes(manifest)
    return {**files, **subfolders}, files[MANIFEST]


def check_writable(path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    """Raise the ``FileExistsError`` :func:`save` would raise for what lies at ``path`` now.

    ``forecast update`` refuses its output so before it trains or registers anything.
    """
    path = Path(path)
    if path.exists() or path.is_symlink():
        (_replaceable if overwrite else _refuse)(path)


def _refuse(path: Path) -> None:
    raise FileExistsError(f"{path} exists: pass overwrite=True to replace a saved model folder")


def _replaceable(path: Path) -> None:
    """Raise ``FileExistsError`` unless ``path`` is a model folder of ours (or empty)."""
    check_replaceable(path, {PARAMS, FITTED, ARRAYS, WEIGHTS})


def load(
    path: str | os.PathLike[str], device: str | None = None, *, cls: type | None = None
) -> Any:
    """Load an estimator saved with :func:`~forecast.persistence.save`.

    Parameters
    ----------
    path : str or path-like
        Folder written by :func:`~forecast.persistence.save`.
    device : str, optional
        Device for torch modules: ``"auto"`` (default: CUDA when present, else CPU),
        ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    cls : type, optional
        Expected class: the folder must hold an instance of it or of a subclass.

    Returns
    -------
    BaseForecaster
        The fitted estimator.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a saved model folder.
    ModelFormatError
        If the folder is a symbolic link or does not match its manifest, has an
        unsupported format, holds a symbolic link, a file over its cap, malformed JSON,
        npz or safetensors, non-finite weights, weights of another shape than its
        parameters imply, parameters or state the class rejects (a ``ValueError``; the
        message names the file), or a loop state (``lineage_``, ``n_updates_``,
        ``updated_through_``) that is malformed or disagrees with the manifest's
        ``lineage``. Nothing is allocated for a file before
        its size and structure are checked.
    TypeError
        If the folder holds another class than ``cls``.
    ValueError
        If ``device`` is unknown or CUDA is requested but not available.

    Notes
    -----
    Temporary folders that a killed ``save`` left beside ``path`` are removed first (as the
    next ``save`` does; where the parent folder is read-only they are left).

    ``checkpoint_dir`` is not taken from the folder: a loaded model's ``checkpoint_dir``
    is None (refitting it never writes over the checkpoints of the run that saved it); set
    it with ``set_params`` before refitting to resume or keep checkpoints.
    """
    path = Path(path)
    try:  # the temporaries of a save that was killed beside this folder
        remove_stale_temporaries(path)
    except OSError:  # a read-only place: left for the next save
        pass
    return _load(path, resolve_device(device), cls, None)


def _load(path: Path, target: str, cls: type | None, expected: str | None) -> Any:
    manifest, files = _read_verified(path, {PARAMS, FITTED, ARRAYS, WEIGHTS}, expected, _CAPS)
    where = path / MANIFEST
    for name in (PARAMS, FITTED, ARRAYS):
        if name not in files:
            raise ModelFormatError(f"{path / name}: missing from the folder and from {MANIFEST}")
    try:
        found = estimator_class(manifest.get("estimator"))
    except ValueError as err:
        raise ModelFormatError(f"{where}: {err}") from err
    if cls is not None and not issubclass(found, cls):
        raise TypeError(
            f"{path} holds a {found.__name__}, not a {cls.__name__}: load it with "
            f"{found.__name__}.load or forecast.load"
        )
    modules = manifest.get("modules") or []
    if not isinstance(modules, list) or not all(
        isinstance(m, str) and _ATTRIBUTE.fullmatch(m) for m in modules
    ):
        raise ModelFormatError(f"{where}: 'modules' must be a list of attribute names")
    if bool(modules) != (WEIGHTS in files):
        raise ModelFormatError(
            f"{where}: 'modules' {modules} do not match the files {sorted(files)}"
        )
    check_npz_tail(files.tail(ARRAYS, 22), files.listed[ARRAYS]["size"], path / ARRAYS)
    estimator = _rebuild(found, files, path, manifest, target)
    if modules:
        restore_modules(estimator, modules, files, path, target)
        _check_can_forecast(estimator, path)
    return estimator


def _rebuild(
    cls: type, files: VerifiedFiles, path: Path, manifest: dict[str, Any], device: str
) -> Any:
    """Construct ``cls`` from params.json, then set the fitted attributes of fitted.json."""
    params = read_tree(files, PARAMS, path)
    nested = manifest.get("estimator_params") or []
    estimator = construct(cls, params, nested, path / PARAMS)
    arrays = read_npz(files[ARRAYS], path / ARRAYS)
    fitted = read_tree(files, FITTED, path, arrays)
    if arrays.unused():
        raise ModelFormatError(
            f"{path / ARRAYS}: members {arrays.unused()[:5]} belong to no fitted attribute"
        )
    check_zones(params, fitted, path)
    check_column_lists(fitted, path)
    modules = set(manifest.get("modules") or [])
    for name, value in fitted.items():
        if not _ATTRIBUTE.fullmatch(name) or name in params or name in modules:
            raise ModelFormatError(f"{path / FITTED}: {name!r} is not a fitted attribute name")
        setattr(estimator, name, value)
    for name, pin in (manifest.get("nested") or {}).items():
        check_nested_name(name, pin, params, nested, set(fitted) | modules, path)
        if isinstance(pin, list):
            value = [_load(path / name / str(i), device, None, p) for i, p in enumerate(pin)]
        else:
            value = _load(path / name, device, None, pin)
        setattr(estimator, name, value)
    check_loop_state(estimator, manifest, path)
    for check in _PARAM_CHECKS:
        if hasattr(estimator, check):
            try:
                getattr(estimator, check)()
            except (ValueError, TypeError) as err:
                raise ModelFormatError(f"{path / PARAMS}: {err}") from err
    return estimator


def _check_can_forecast(estimator: Any, path: Path) -> None:
    """Refuse a network whose state loads but cannot forecast one step from its kept history.

    Run for folders with torch modules (a forward pass of milliseconds; models that reference
    outside weights, such as the foundation wrappers, hold none and are not run). The kept
    training tail goes through ``predict`` as ``history`` (the cleaning, the NaN policy, the
    calendar, the network): fitted attributes that are missing or of the wrong kind, and
    parameters that change the network's inputs (a flipped ``calendar``), fail here in one
    line naming the folder instead of at the caller's first forecast. Skipped for estimators
    that forecast only with future covariates from the caller.
    """
    tail = getattr(estimator, "train_tail_", None)
    if getattr(estimator, "future_covariates_", None) or not isinstance(tail, dict) or not tail:
        return
    history = tail[None] if list(tail) == [None] else tail
    try:
        estimator.predict(1, history=history)
    except Exception as err:  # any failure of the loaded state is a format error
        raise ModelFormatError(f"{path}: the loaded model cannot forecast: {err}") from err
