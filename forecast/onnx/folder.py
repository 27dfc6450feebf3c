"""An ONNX export as a saved model folder: written and read by the persistence format's code.

Layout (format 2.0, the one format of :mod:`forecast.persistence`)::

    meta.json           manifest: "runtime": "onnx", "opset", the source estimator's
                        registry name, versions, and the size and SHA-256 of every file
    params.json         the parameters of metadata.PARAMS (typed JSON)
    fitted.json         the fitted attributes of metadata.FITTED (typed JSON)
    fitted.npz          their arrays (the scalers' means and scales)
    model.onnx          the network, every tensor embedded

Reading goes through :func:`forecast.persistence.manifest.read_verified` (no links, exactly
the listed files, sizes checked before reading, every file's SHA-256 checked before it is
parsed, the same caps and one-line :class:`~forecast.persistence.errors.ModelFormatError`)
and :func:`forecast.persistence.trees.read_state`, then the export's own checks: the state
(:func:`forecast.onnx.metadata.check_state`) and the graph
(:func:`forecast.onnx.graph.check_graph`). A folder of the earlier, separate export format
(``onnx_model.json``) is refused with a line saying to export again. Nothing here imports
torch.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forecast.onnx.graph import OPSET, check_graph
from forecast.onnx.metadata import LEGACY_MANIFEST, NETWORK, RUNTIME, OnnxFormatError, check_state
from forecast.persistence.files import entries
from forecast.persistence.manifest import (
    MANIFEST,
    build_manifest,
    check_runtime,
    manifest_bytes,
    read_manifest,
    read_verified,
)
from forecast.persistence.overwrite import check_replaceable
from forecast.persistence.trees import ARRAYS, CAPS, FITTED, PARAMS, read_state, state_files

__all__ = [
    "FILES",
    "MAX_NETWORK_BYTES",
    "Export",
    "export_files",
    "is_replaceable_export",
    "read_export",
]

FILES = frozenset({PARAMS, FITTED, ARRAYS, NETWORK})  # besides meta.json
MAX_NETWORK_BYTES = 2**31  # protobuf's own limit for a model with embedded weights


@dataclass(frozen=True)
class Export:
    """A checked export folder: its manifest, state and network bytes."""

    manifest: dict[str, Any]
    params: dict[str, Any]
    fitted: dict[str, Any]
    network: bytes


def export_files(
    params: dict[str, Any], fitted: dict[str, Any], network: bytes, **fields: Any
) -> dict[str, bytes]:
    """Return the files of an export folder, its manifest with ``fields`` included.

    Parameters
    ----------
    params, fitted : dict
        The state of :func:`forecast.onnx.metadata.export_state`.
    network : bytes
        ``model.onnx``.
    **fields
        Manifest fields (estimator, versions, save time).

    Returns
    -------
    dict
        File name to content, ``meta.json`` included.
    """
    files = {**state_files(params, fitted), NETWORK: network}
    manifest = build_manifest(files, **fields, runtime=RUNTIME, opset=OPSET)
    return {**files, MANIFEST: manifest_bytes(manifest)}


def _refuse_legacy(folder: Path) -> None:
    if os.path.lexists(folder / LEGACY_MANIFEST) and not os.path.lexists(folder / MANIFEST):
        raise OnnxFormatError(
            f"{folder / LEGACY_MANIFEST}: an export of the earlier format (onnx_model.json), "
            "which this version no longer reads; export the model again with "
            "estimator.to_onnx(path, overwrite=True)"
        )


def read_export(
    path: str | os.PathLike[str], *, max_network_bytes: int = MAX_NETWORK_BYTES
) -> Export:
    """Read and check an export folder.

    Parameters
    ----------
    path : str or path-like
        Folder written by ``estimator.to_onnx(path)``.
    max_network_bytes : int
        Largest ``model.onnx`` read.

    Returns
    -------
    Export

    Raises
    ------
    FileNotFoundError
        ``path`` is not a folder, or has no ``meta.json``.
    ModelFormatError
        Anything a saved folder is refused for (a link, an unlisted, missing or oversized
        file, a checksum that differs, JSON that is not strict), a saved torch folder, an
        export of the earlier format, a bad state or graph (:class:`OnnxFormatError`).
    """
    folder = Path(path)
    if folder.is_dir() and not folder.is_symlink():
        _refuse_legacy(folder)
    caps = {**CAPS, NETWORK: max_network_bytes}
    manifest, files = read_verified(folder, set(FILES), caps=caps, runtime=RUNTIME)
    if NETWORK not in files:
        raise OnnxFormatError(f"{folder / NETWORK}: missing from the folder and from {MANIFEST}")
    params, fitted = read_state(files, folder)
    check_state(params, fitted, folder)
    network = files[NETWORK]
    check_graph(network, params, fitted, folder / NETWORK)
    return Export(manifest, params, fitted, network)


def is_replaceable_export(path: Path) -> bool:
    """Whether ``to_onnx(overwrite=True)`` may replace ``path``: an export folder alone.

    An export of this format (a manifest of ``"runtime": "onnx"`` listing every entry), an
    export of the earlier format (``onnx_model.json`` and ``model.onnx``, nothing else), or
    an empty folder.
    """
    try:
        found = entries(path)
        if set(found) <= {LEGACY_MANIFEST, NETWORK} and LEGACY_MANIFEST in found:
            return all(path.joinpath(name).is_file() for name in found)
        check_replaceable(path, set(FILES))  # a saved folder listing only these files
        if found:
            with warnings.catch_warnings():  # an older or newer minor format is still ours
                warnings.simplefilter("ignore")
                check_runtime(read_manifest(path), path / MANIFEST, RUNTIME)
    except (OSError, ValueError):
        return False
    return True
