"""The state files of a saved folder, torch-free: params.json, fitted.json, fitted.npz.

Every saved folder keeps an estimator's parameters and fitted attributes in these three
files (typed JSON trees of :mod:`forecast.persistence.serialize`, their arrays in one npz),
whatever runs its network: safetensors weights for torch (:mod:`forecast.persistence.format`)
or an ONNX graph for the torch-free runtime (:mod:`forecast.onnx.folder`). Writing and
reading them is here, so that both read them through the same checks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.persistence.arrays import check_npz_tail, read_npz
from forecast.persistence.errors import ModelFormatError
from forecast.persistence.files import strict_json
from forecast.persistence.manifest import VerifiedFiles
from forecast.persistence.serialize import arrays_to_bytes, decode, encode

__all__ = [
    "ARRAYS",
    "CAPS",
    "FITTED",
    "PARAMS",
    "check_zones",
    "json_bytes",
    "read_state",
    "read_tree",
    "state_files",
]

PARAMS, FITTED, ARRAYS = "params.json", "fitted.json", "fitted.npz"
CAPS = {PARAMS: 1 << 20, FITTED: 16 << 20}  # JSON read whole and parsed: capped


def json_bytes(value: Any) -> bytes:
    """Return ``value`` (a JSON tree) as indented, strict JSON with a final newline."""
    return (json.dumps(value, indent=1, allow_nan=False) + "\n").encode()


def state_files(params: Any, fitted: dict[str, Any]) -> dict[str, bytes]:
    """Return the three state files of a parameter tree and of the fitted attributes.

    Parameters
    ----------
    params : object
        The JSON tree of the parameters (already encoded).
    fitted : dict
        Fitted attributes by name; encoded here, their arrays into ``fitted.npz``.

    Returns
    -------
    dict
        ``params.json``, ``fitted.json`` and ``fitted.npz`` by name.

    Raises
    ------
    TypeError
        If a fitted attribute holds a type a saved folder cannot hold (named).
    """
    arrays: dict[str, np.ndarray] = {}
    state = {name: encode(value, name, arrays) for name, value in fitted.items()}
    return {PARAMS: json_bytes(params), FITTED: json_bytes(state), ARRAYS: arrays_to_bytes(arrays)}


def read_tree(
    files: Mapping[str, bytes],
    name: str,
    path: Path,
    arrays: Mapping[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """Decode the JSON object ``name`` of a checked folder (``ModelFormatError`` else)."""
    tree = strict_json(files[name], path / name)
    try:
        if type(tree) is not dict:
            raise ValueError("expected a JSON object of name: value")
        return {k: decode(v, arrays, k) for k, v in tree.items()}
    except (KeyError, ValueError, TypeError, OverflowError, RecursionError) as err:
        raise ModelFormatError(f"{path / name}: {err}") from err


def read_state(files: VerifiedFiles, path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the decoded ``(params, fitted)`` of a checked folder.

    ``fitted.npz`` is checked member by member before anything is inflated, and an array
    that no fitted attribute refers to is refused.
    """
    for name in (PARAMS, FITTED, ARRAYS):
        if name not in files:
            raise ModelFormatError(f"{path / name}: missing from the folder and from meta.json")
    check_npz_tail(files.tail(ARRAYS, 22), files.listed[ARRAYS]["size"], path / ARRAYS)
    params = read_tree(files, PARAMS, path)
    arrays = read_npz(files[ARRAYS], path / ARRAYS)
    fitted = read_tree(files, FITTED, path, arrays)
    if arrays.unused():
        raise ModelFormatError(
            f"{path / ARRAYS}: members {arrays.unused()[:5]} belong to no fitted attribute"
        )
    return params, fitted


def check_zones(params: Mapping[str, Any], fitted: Mapping[str, Any], path: Path) -> None:
    """Refuse a ``timezone`` parameter or fitted ``tz_`` that names no time zone.

    A zone is read by name whenever a forecast converts or localises timestamps; checked
    here, a bad one fails at load in one line instead of inside pandas at predict.
    """
    for tree, name, key in ((params, PARAMS, "timezone"), (fitted, FITTED, "tz_")):
        value = tree.get(key)
        if value is None:
            continue
        try:
            ok = isinstance(value, str) and pd.Timestamp(0, tz=value) is not None
        except (TypeError, ValueError, KeyError):  # zoneinfo's and pytz's errors are KeyErrors
            ok = False
        if not ok:
            raise ModelFormatError(f"{path / name}: {key} {value!r} is not a time zone")


COLUMN_LISTS = ("columns_", "future_covariates_", "past_covariates_")
"""Fitted attributes that name data columns (targets, then declared covariates)."""


def check_column_lists(fitted: Mapping[str, Any], path: Path) -> None:
    """Refuse fitted column lists that are not lists of distinct labels (str or int).

    ``predict`` looks these names up in the frames it is given; checked here, a label such as
    ``None`` or a list fails at load in one line instead of at predict.
    """
    for key in COLUMN_LISTS:
        if key not in fitted:
            continue
        value = fitted[key]
        labels = value if isinstance(value, list) else None
        ok = labels is not None and all(
            isinstance(c, str | int) and not isinstance(c, bool) for c in labels
        )
        if ok and labels is not None:
            ok = len(set(labels)) == len(labels) and (key != "columns_" or bool(labels))
        if not ok:
            raise ModelFormatError(
                f"{path / FITTED}: {key} {value!r} is not a list of distinct column names"
            )
