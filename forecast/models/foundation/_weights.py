"""Where a foundation model's weights come from: a local folder or file, or a hub id.

A fitted wrapper records a *reference* to its weights (:func:`weights_reference`), never the
weights: for a local checkpoint its absolute path and the SHA-256 of the weight file, for
the model hub the repository id, the revision asked for and, once loaded, the commit it
resolved to and the SHA-256 of the cached file (:func:`pin_hub`). A saved folder holds that
reference; loading it later reads the weights from the same place (the same hub commit),
and a file whose content changed since the fit is refused (:func:`check_unchanged`) rather
than forecasting with other weights under the same name.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

__all__ = ["check_unchanged", "hub_revision", "local_file", "pin_hub", "weights_reference"]

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
        ``{"source": "local", "location": <absolute path>, "revision": None, "commit":
        None, "sha256": <hex>}`` or ``{"source": "hub", "location": <id>, "revision":
        <revision or None>, "commit": None, "sha256": None}`` (see :func:`pin_hub`).

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
        digest = _sha256(path)
        return {
            "source": "local",
            "location": str(path),
            "revision": None,
            "commit": None,
            "sha256": digest,
        }
    if not _HUB_ID.fullmatch(weights):
        raise ValueError(
            f"{owner}: weights={weights!r} is no existing local path and no hub id 'owner/name'"
        )
    return {
        "source": "hub",
        "location": weights,
        "revision": revision,
        "commit": None,
        "sha256": None,
    }


def pin_hub(reference: dict[str, Any], filename: str) -> dict[str, Any]:
    """Add the commit and SHA-256 of the hub snapshot just loaded to a hub ``reference``.

    The weight file is looked up in the local hub cache (where the model's package put it);
    a reference that is not a hub id, or whose file is not in the cache, is returned as is.
    """
    if reference["source"] != "hub":
        return reference
    # huggingface_hub comes with both model packages of the extra forecast-toolkit[foundation]
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(
        reference["location"], filename, revision=hub_revision(reference)
    )
    if not isinstance(found, str):
        return reference
    path = Path(found)
    return {**reference, "commit": path.parent.name, "sha256": _sha256(path)}


def hub_revision(reference: dict[str, Any]) -> str | None:
    """Return the revision to load a hub reference at: its pinned commit, else the one asked."""
    revision = reference["commit"] or reference["revision"]
    return None if revision is None else str(revision)


def check_unchanged(reference: dict[str, Any], filename: str, owner: str) -> None:
    """Raise if the weights of ``reference`` are gone or are not those ``fit`` read.

    A local file is checked by its SHA-256; a hub reference by the SHA-256 of its commit's
    file in the hub cache when it is there (otherwise loading fetches that commit).

    Raises
    ------
    FileNotFoundError
        If a local weight file is no longer there.
    ValueError
        If the SHA-256 differs from the one recorded by ``fit``.
    """
    if reference["source"] == "local":
        path = Path(reference["location"])
        if not path.is_file():
            raise FileNotFoundError(f"{owner}: the weights {path} recorded by fit are gone")
    else:
        if reference["sha256"] is None:
            return
        # huggingface_hub comes with both model packages of the extra forecast-toolkit[foundation]
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(
            reference["location"], filename, revision=hub_revision(reference)
        )
        if not isinstance(found, str):
            return
        path = Path(found)
    digest = _sha256(path)
    if digest != reference["sha256"]:
        raise ValueError(
            f"{owner}: the weights {path} changed since fit (SHA-256 {digest[:12]}..., fit read "
            f"{reference['sha256'][:12]}...): refit on the new weights"
        )
