"""The metadata of an exported model: what a forecast needs besides the network, as strict JSON.

An export folder holds two regular files: ``model.onnx`` (the network, weights embedded) and
``onnx_model.json``, this metadata plus the size and SHA-256 of ``model.onnx``. The folder is
data: reading it follows no link, checks sizes before reading, parses JSON strictly (no
NaN/Infinity, no duplicate keys, a cap on values and depth), checks every field's type and
refuses unknown ones, and checks the network's bytes against their recorded hash. Nothing
here imports torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

MANIFEST = "onnx_model.json"
NETWORK = "model.onnx"
FORMAT = "forecast-onnx"
FORMAT_VERSION = 1
MAX_MANIFEST_BYTES = 4 * 2**20  # scalers and column names of thousands of channels fit
MAX_NETWORK_BYTES = 2**31  # protobuf's own limit for a model with embedded weights
MAX_JSON_VALUES = 200_000
MAX_JSON_DEPTH = 8


class OnnxFormatError(ValueError):
    """An export folder that is not what :func:`read_folder` accepts (one-line message)."""


_STR = (str,)
_OPT_STR = (str, type(None))
# field -> accepted types; lists are checked item by item below
FIELDS: dict[str, tuple[type, ...]] = {
    "estimator": _STR,
    "forecast_version": _STR,
    "opset": (int,),
    "inputs": (list,),
    "columns": (list,),
    "past_covariates": (list,),
    "future_covariates": (list,),
    "freq": _STR,
    "tz": _OPT_STR,
    "index_name": _OPT_STR,
    "target_scaler": (dict, type(None)),
    "covariate_scaler": (dict, type(None)),
    "calendar": (bool,),
    "country": _OPT_STR,
    "timezone": _OPT_STR,
    "fill_gaps": (bool,),
    "nan_policy": _STR,
    "context_length": (int,),
    "horizon": (int, type(None)),
    "head_horizon": (int,),
    "n_inputs": (int,),
    "n_outputs": (int,),
    "n_past": (int,),
    "n_future": (int,),
    "quantiles": (list, type(None)),
}
_STR_LISTS = ("inputs", "columns", "past_covariates", "future_covariates")


def _refuse_constant(token: str) -> Any:
    raise ValueError(f"{token} is not strict JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _depth(value: Any, level: int = 0) -> int:
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()], default=level + 1)
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value], default=level + 1)
    return level


def parse_json(raw: bytes, where: Path) -> Any:
    """Parse strict UTF-8 JSON under caps on values and depth (``OnnxFormatError`` else)."""
    if raw.count(b"[") + raw.count(b"{") + raw.count(b",") > MAX_JSON_VALUES:
        raise OnnxFormatError(f"{where}: more than {MAX_JSON_VALUES} JSON values")
    try:
        value = json.loads(
            raw.decode("utf-8"),
            parse_constant=_refuse_constant,
            object_pairs_hook=_no_duplicates,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise OnnxFormatError(f"{where}: not strict JSON ({err})") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise OnnxFormatError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def _scaler(value: Any, width: int, name: str, where: Path) -> None:
    if value is None:
        return
    if set(value) != {"mean", "scale"}:
        raise OnnxFormatError(f"{where}: {name} needs exactly the keys mean and scale")
    for key in ("mean", "scale"):
        numbers = value[key]
        ok = isinstance(numbers, list) and len(numbers) == width
        real = ok and all(isinstance(v, float | int) and not isinstance(v, bool) for v in numbers)
        if not real:
            raise OnnxFormatError(f"{where}: {name}.{key} must be {width} numbers")
    if not all(v > 0 for v in value["scale"]):
        raise OnnxFormatError(f"{where}: {name}.scale must be positive")


def check_metadata(meta: Any, where: Path) -> dict[str, Any]:
    """Return ``meta`` when every field is present with its type and sizes agree.

    Raises
    ------
    OnnxFormatError
        A missing, unknown or mistyped field, or shapes that disagree.
    """
    if not isinstance(meta, dict):
        raise OnnxFormatError(f"{where}: metadata must be a JSON object")
    missing, unknown = sorted(set(FIELDS) - set(meta)), sorted(set(meta) - set(FIELDS))
    if missing or unknown:
        raise OnnxFormatError(f"{where}: metadata lacks {missing} / has unknown fields {unknown}")
    for name, types in FIELDS.items():
        value = meta[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise OnnxFormatError(f"{where}: metadata field {name} has type {type(value).__name__}")
    for name in _STR_LISTS:
        if not all(isinstance(v, str) for v in meta[name]):
            raise OnnxFormatError(f"{where}: metadata field {name} must list strings")
    if meta["inputs"] not in (["x"], ["x", "future"]):
        raise OnnxFormatError(f"{where}: inputs must be ['x'] or ['x', 'future']")
    if meta["nan_policy"] not in ("raise", "interpolate"):
        raise OnnxFormatError(f"{where}: nan_policy {meta['nan_policy']!r} is not known")
    sizes = ("context_length", "head_horizon", "n_inputs", "n_outputs", "n_past", "n_future")
    if any(meta[k] < 0 for k in sizes) or min(meta["context_length"], meta["head_horizon"]) < 1:
        raise OnnxFormatError(f"{where}: a size of the network is not positive")
    n_targets, n_past = len(meta["columns"]), len(meta["past_covariates"])
    if meta["n_outputs"] != n_targets or meta["n_past"] != n_past:
        raise OnnxFormatError(f"{where}: n_outputs/n_past disagree with the column lists")
    if meta["n_inputs"] != n_targets + n_past + meta["n_future"]:
        raise OnnxFormatError(f"{where}: n_inputs is not targets + past + future inputs")
    if (meta["n_future"] > 0) != (meta["inputs"] == ["x", "future"]):
        raise OnnxFormatError(f"{where}: the future input and n_future disagree")
    _scaler(meta["target_scaler"], n_targets, "target_scaler", where)
    covariates = len(meta["past_covariates"]) + len(meta["future_covariates"])
    _scaler(meta["covariate_scaler"], covariates, "covariate_scaler", where)
    levels = meta["quantiles"]
    if levels is not None and not (
        levels and all(isinstance(q, float) and 0 < q < 1 for q in levels)
    ):
        raise OnnxFormatError(f"{where}: quantiles must be levels in (0, 1)")
    return meta


def manifest_bytes(meta: dict[str, Any], network: bytes) -> bytes:
    """Return the ``onnx_model.json`` bytes of ``meta`` and the network's bytes."""
    record = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "files": {NETWORK: {"bytes": len(network), "sha256": hashlib.sha256(network).hexdigest()}},
        "metadata": meta,
    }
    return json.dumps(record, indent=1, allow_nan=False).encode("utf-8")


def _read(path: Path, cap: int) -> bytes:
    """Read a regular file (no link) of at most ``cap`` bytes, its size checked first."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise OnnxFormatError(f"{path}: missing") from None
    if not stat.S_ISREG(info.st_mode):
        raise OnnxFormatError(f"{path}: not a regular file (links are not followed)")
    if info.st_size > cap:
        raise OnnxFormatError(f"{path}: {info.st_size} bytes, more than the cap of {cap}")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise OnnxFormatError(f"{path}: grew past the cap of {cap} bytes while read")
    return data


def is_export_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding an ONNX export's manifest."""
    return (Path(path) / MANIFEST).is_file()


def read_folder(
    path: str | os.PathLike[str], *, max_network_bytes: int = MAX_NETWORK_BYTES
) -> tuple[dict[str, Any], bytes]:
    """Read an export folder: its checked metadata and the network's checked bytes.

    Parameters
    ----------
    path : str or path-like
        Folder written by :func:`forecast.onnx.export.export_onnx`.
    max_network_bytes : int
        Largest ``model.onnx`` read.

    Returns
    -------
    metadata : dict
        The fields of :data:`FIELDS`.
    network : bytes
        ``model.onnx``, matching its recorded size and SHA-256.

    Raises
    ------
    OnnxFormatError
        A link, an oversized file, JSON that is not strict, a field missing or mistyped,
        or a network whose hash differs.
    """
    folder = Path(path)
    if not folder.is_dir() or folder.is_symlink():
        raise OnnxFormatError(f"{folder}: not a folder (links are not followed)")
    where = folder / MANIFEST
    record = parse_json(_read(where, MAX_MANIFEST_BYTES), where)
    if not isinstance(record, dict) or set(record) != {
        "format",
        "format_version",
        "files",
        "metadata",
    }:
        raise OnnxFormatError(f"{where}: needs exactly format, format_version, files, metadata")
    if record["format"] != FORMAT or record["format_version"] != FORMAT_VERSION:
        raise OnnxFormatError(
            f"{where}: format {record['format']!r} version {record['format_version']!r}, "
            f"expected {FORMAT!r} version {FORMAT_VERSION}"
        )
    meta = check_metadata(record["metadata"], where)
    files = record["files"]
    entry = files.get(NETWORK) if isinstance(files, dict) and len(files) == 1 else None
    if not isinstance(entry, dict) or set(entry) != {"bytes", "sha256"}:
        raise OnnxFormatError(f"{where}: files must record {NETWORK} with bytes and sha256")
    if not isinstance(entry["bytes"], int) or entry["bytes"] > max_network_bytes:
        raise OnnxFormatError(
            f"{where}: {NETWORK} is recorded as {entry['bytes']!r} bytes, over the cap of "
            f"{max_network_bytes}"
        )
    network = _read(folder / NETWORK, min(entry["bytes"], max_network_bytes))
    if len(network) != entry["bytes"] or hashlib.sha256(network).hexdigest() != entry["sha256"]:
        raise OnnxFormatError(f"{folder / NETWORK}: size or SHA-256 differs from {MANIFEST}")
    return meta, network
