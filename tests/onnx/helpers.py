"""Shared pieces of the ONNX tests: tiny fits, export and the comparison."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd

from tests.conftest import TINY_NEURAL

TINY = dict(TINY_NEURAL, max_epochs=1)
LEVELS = (0.1, 0.5, 0.9)
ATOL = 1e-5


def assert_same_forecast(want, got, rtol: float = 0.0) -> None:
    """Same container, index, columns; values within ATOL (data units) plus ``rtol``."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(want) == list(got)
        for key in want:
            assert_same_forecast(want[key], got[key], rtol)
        return
    assert isinstance(got, pd.DataFrame)
    assert list(got.columns) == list(want.columns)
    if isinstance(want.index, pd.DatetimeIndex):
        assert got.index.equals(want.index), (got.index, want.index)
        assert got.index.freq == want.index.freq
    else:
        pd.testing.assert_frame_equal(
            got.select_dtypes(exclude="number"), want.select_dtypes(exclude="number")
        )
    a = want.select_dtypes("number").to_numpy()
    b = got.select_dtypes("number").to_numpy()
    assert np.isfinite(b).all()
    np.testing.assert_allclose(b, a, rtol=rtol, atol=ATOL)


def rewrite(folder, name: str, data: bytes) -> None:
    """Replace the file ``name`` of a saved folder and record its new size and SHA-256.

    The manifest then matches the folder again, so what a test checks is the content.
    """
    (folder / name).write_bytes(data)
    manifest = json.loads((folder / "meta.json").read_text())
    manifest["files"][name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (folder / "meta.json").write_text(json.dumps(manifest, indent=2))


def rewrite_json(folder, name: str, edit) -> None:
    """Apply ``edit`` to the JSON file ``name`` of a saved folder (see :func:`rewrite`)."""
    tree = json.loads((folder / name).read_text())
    edit(tree)
    rewrite(folder, name, json.dumps(tree).encode())
