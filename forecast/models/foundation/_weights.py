"""Where a foundation model's weights come from: a local folder or file, or a hub id.

A fitted wrapper records a *reference* to its weights (:func:`weights_reference`), never the
weights: for a local checkpoint its absolute path and the SHA-256 of the weight file, for
the model hub the repository id and the revision asked for. A saved folder holds that
reference; loading it later reads the weights from the same place, and a local file whose
content changed since the fit is refused (:func:`check_unchanged`) rather than forecasting
with other weights under the same name.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

__all__ = ["check_unchanged", "local_file", "weights_reference"]

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")  # owner/name, as the model hub spells it
_CHUNK = 1 << 20


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def local_file(location: str | os.PathLike[str], filename: str) -> Path | None:
    """Return the weight file of a local checkpoint (``location`` or ``location/filename``).

    Returns None when ``location`` is not an existing local path.

    Raises
    ------
    FileNotFoundError
        If ``location`` is a folder without ``filename``.
    """
    path = Path(location).expanduser()
    if not path.exists():
        return None
    if path.is_dir():
        path = path / filename
        if not path.is_file():
            raise FileNotFoundError(f"weights={str(location)!r}: the folder holds no {filename}")
    return path.resolve()


def weights_reference(
    weights: object, revision: object, filename: str, owner: str
) -> dict[str, Any]:
    """Resolve the ``weights`` and ``revision`` parameters of ``owner`` to a reference.

    Parameters
    ----------
    weights : str
        A local folder (holding ``filename``) or weight file, or a model-hub id
        ``"owner/name"`` (read from the local hub cache, or downloaded, by the model's own
        package when the model is loaded).
    revision : str or None
        Hub revision (branch, tag or commit); only with a hub id.
    filename : str
        Name of the weight file in a checkpoint folder.
    owner : str
        The estimator's class name, for messages.

    Returns
    -------
    dict
        ``{"source": "local", "location": <absolute path>, "revision": None,
        "sha256": <hex>}`` or ``{"source": "hub", "location": <id>, "revision": <revision or
        None>, "sha256": None}``.

    Raises
    ------
    TypeError
        If ``weights`` or ``revision`` has another type.
    ValueError
        If ``weights`` is neither an existing path nor a hub id, or a revision is given
        with a local path.
    """
    if not isinstance(weights, str):  # a parameter of saved folders: JSON, so a str
        raise TypeError(
            f"{owner}: weights must be a str, a local path or a hub id such as "
            f"'amazon/chronos-2'; got {weights!r} (pass str(path) for a path)"
        )
    if revision is not None and not isinstance(revision, str):
        raise TypeError(f"{owner}: revision must be a str or None, got {revision!r}")
    path = local_file(weights, filename)
    if path is not None:
        if revision is not None:
            raise ValueError(
                f"{owner}: revision={revision!r} applies to hub ids only; weights="
                f"{str(weights)!r} is a local path"
            )
        return {"source": "local", "location": str(path), "revision": None, "sha256": _sha256(path)}
    if not _HUB_ID.fullmatch(weights):
        raise ValueError(
            f"{owner}: weights={weights!r} is no existing local path and no hub id 'owner/name'"
        )
    return {"source": "hub", "location": weights, "revision": revision, "sha256": None}


def check_unchanged(reference: dict[str, Any], owner: str) -> None:
    """Raise if the local weight file of ``reference`` is gone or holds other weights.

    Raises
    ------
    FileNotFoundError
        If the file is no longer there.
    ValueError
        If its SHA-256 differs from the one recorded by ``fit``.
    """
    if reference["source"] != "local":
        return
    path = Path(reference["location"])
    if not path.is_file():
        raise FileNotFoundError(f"{owner}: the weights {path} recorded by fit are gone")
    found = _sha256(path)
    if found != reference["sha256"]:
        raise ValueError(
            f"{owner}: the weights {path} changed since fit (SHA-256 {found[:12]}..., fit read "
            f"{reference['sha256'][:12]}...): refit on the new weights"
        )
