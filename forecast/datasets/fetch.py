"""Download catalogue datasets with sha256 verification and atomic writes."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from forecast.datasets.catalogue import DATASETS, ENV_VAR, cache_dir

__all__ = ["download", "fetch"]

_CHUNK = 1 << 20


def download(url: str, path: str | Path, sha256: str | None, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``path`` atomically, verifying its sha256 checksum.

    The bytes go to a temporary file in the target folder, are hashed on the way, flushed
    to disk and only then renamed onto ``path`` with :func:`os.replace`. On a checksum
    mismatch, a transfer shorter than its ``Content-Length``, an HTTP or network error,
    or an interruption (including Ctrl-C) the
    temporary file is removed: ``path`` is either the complete verified file or left as
    it was.

    Parameters
    ----------
    url : str
        Source URL (http, https or file).
    path : str or Path
        Destination file; its folder is created if needed.
    sha256 : str or None
        Expected hex digest; None skips verification (callers must opt in to that).
    timeout : float
        Socket timeout in seconds.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        On a checksum mismatch (nothing is written).
    OSError
        On HTTP or network errors or a truncated transfer (nothing is written).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
                    expected = response.headers.get("Content-Length")
                    received = 0
                    while chunk := response.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        received += len(chunk)
            except urllib.error.URLError as err:
                raise OSError(f"download of {url} failed: {err}") from err
            if expected is not None and received != int(expected):
                raise OSError(
                    f"download of {url} incomplete: {received} of {expected} bytes; nothing was "
                    f"written to {path}"
                )
            out.flush()
            os.fsync(out.fileno())
        found = digest.hexdigest()
        if sha256 is not None and found.lower() != sha256.lower():
            raise ValueError(
                f"checksum mismatch for {url}: expected sha256 {sha256}, got {found}; "
                f"nothing was written to {path}"
            )
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(
    name: str,
    data_dir: str | Path | None = None,
    *,
    force: bool = False,
    sha256: str | None = None,
    allow_unverified: bool = False,
    timeout: float = 60.0,
) -> Path:
    """Download a catalogue dataset from its public source into the data folder.

    Files already present with the right checksum are kept (unless ``force``). Each file
    is written atomically (see :func:`download`), so an interrupted or failed fetch never
    leaves a partial file; rerunning it resumes with the files still missing.

    Parameters
    ----------
    name : str
        Catalogue name (see :func:`forecast.datasets.list_datasets`).
    data_dir : str or Path, optional
        Target data folder. Default: ``$FORECAST_DATA_DIR``, else ``data/cache`` of the
        checkout (never the shared read-only folder). Files go to its sub-folder of the
        dataset, under the same names the readers expect.
    force : bool
        Download again even if a verified file exists.
    sha256 : str, optional
        Expected checksum for a single-file dataset without a pinned checksum
        (``opsd-60min``).
    allow_unverified : bool
        Accept files that have no known checksum (not recommended).
    timeout : float
        Socket timeout in seconds per request.

    Returns
    -------
    Path
        The dataset's folder.

    Raises
    ------
    KeyError
        Unknown name.
    ValueError
        No public source, a missing checksum without ``allow_unverified``, or a checksum
        mismatch.
    OSError
        Network or HTTP errors.
    """
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; the catalogue has {sorted(DATASETS)}")
    info = DATASETS[name]
    files = list(info.files())
    if not files or info.folder is None:
        raise ValueError(
            f"dataset {name!r} has no public download ({info.source}); see data/README.md"
        )
    if sha256 is not None:
        if len(files) != 1:
            raise ValueError(
                f"sha256= applies to single-file datasets; {name!r} has {len(files)} files"
            )
        files = [(files[0][0], files[0][1], sha256)]
    missing = [rel for _, rel, sha in files if sha is None]
    if missing and not allow_unverified:
        raise ValueError(
            f"no pinned checksum for {missing}: pass sha256='<hex digest>' (CLI --sha256) or, "
            "at your own risk, allow_unverified=True (CLI --allow-unverified)"
        )
    root = Path(data_dir) if data_dir is not None else Path(os.environ.get(ENV_VAR) or cache_dir())
    folder = root / info.folder
    for url, rel, sha in files:
        target = folder / rel
        if target.exists() and not force and (sha is None or _sha256_of(target) == sha):
            continue
        download(url, target, sha, timeout=timeout)
    return folder
