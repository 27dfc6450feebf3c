"""The runtime forecasts in a process where torch cannot be imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_series
from tests.onnx.helpers import LEVELS, TINY

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

ROOT = Path(__file__).resolve().parents[2]

# a child process where importing torch fails, as on a machine without it
BLOCK_TORCH = textwrap.dedent(
    """
    import importlib.abc, json, sys

    class BlockTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError(f"torch is not installed here ({name})")

    sys.meta_path.insert(0, BlockTorch())
    """
)

CHILD = BLOCK_TORCH + textwrap.dedent(
    """
    from forecast.onnx.runtime import OnnxForecaster  # the user's import, root package first
    import pandas as pd

    history = pd.read_parquet(sys.argv[2])
    out = OnnxForecaster.load(sys.argv[1]).predict(horizon=9, history=history, quantiles=True)
    print(json.dumps({
        "torch": any(m.split(".")[0] == "torch" for m in sys.modules),
        "index": [t.isoformat() for t in out.index],
        "columns": list(out.columns),
        "values": out.to_numpy().tolist(),
    }))
    """
)


def test_runtime_forecasts_without_torch(tmp_path):
    from forecast.models.transformer import TransformerForecaster

    data = make_series(n=160, tz="Europe/Berlin", start="2023-10-22 07:00")  # to 10-28 22:00
    params = dict(TINY, calendar=True, country="DE", timezone="Europe/Berlin")
    model = TransformerForecaster(**params, quantiles=LEVELS).fit(data)
    folder = model.to_onnx(tmp_path / "export")
    history = data.iloc[-48:]  # the horizon crosses the autumn DST change (2023-10-29 03:00)
    history.to_parquet(tmp_path / "history.parquet")
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(tmp_path / "history.parquet")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["torch"] is False
    want = model.predict(horizon=9, history=history, quantiles=True)
    assert got["index"] == [t.isoformat() for t in want.index]
    assert got["columns"] == list(want.columns)
    np.testing.assert_allclose(np.array(got["values"]), want.to_numpy(), rtol=0, atol=1e-5)
    stamps = pd.DatetimeIndex(pd.to_datetime(got["index"], utc=True))
    assert stamps.is_unique and (np.diff(stamps) == pd.Timedelta("1h")).all()  # instants
    assert {s[-6:] for s in got["index"]} == {"+02:00", "+01:00"}  # both sides of the change


COMMANDS = BLOCK_TORCH + textwrap.dedent(
    """
    import pandas as pd
    from forecast.cli import main
    from forecast.serve.model import load_served

    export, latest, out = sys.argv[1:4]
    code = main(["batch", "--model", export, "--input", latest, "--output", out,
                 "--horizon", "6", "--no-track"])
    served = load_served(export)
    rows = pd.read_csv(latest).tail(48)
    body = {"history": rows.to_dict(orient="records"), "horizon": 6}
    answer = served.forecast(body)
    print(json.dumps({
        "code": code,
        "health": served.health()["estimator"],
        "served": [row["load"] for row in answer["forecast"]],
        "stamps": [row["timestamp"] for row in answer["forecast"]],
        "torch": any(m.split(".")[0] == "torch" for m in sys.modules),
    }))
    """
)


def test_cli_batch_and_the_service_run_an_export_without_torch(tmp_path):
    from forecast.models.recurrent import GRUForecaster

    data = make_series(n=160, tz="Europe/Berlin", start="2023-10-22 07:00")
    model = GRUForecaster(**TINY).fit(data)
    folder = model.to_onnx(tmp_path / "export")
    data.iloc[-48:].rename_axis("timestamp").to_csv(tmp_path / "latest.csv")
    run = subprocess.run(
        [sys.executable, "-c", COMMANDS, str(folder), "latest.csv", "fc.csv"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["torch"] is False and got["code"] == 0 and got["health"] == "OnnxForecaster"
    want = model.predict(horizon=6, history=data.iloc[-48:])
    written = pd.read_csv(tmp_path / "fc.csv")
    np.testing.assert_allclose(written["load"], want["load"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(got["served"], want["load"], rtol=0, atol=1e-5)
    assert got["stamps"] == [t.isoformat() for t in want.index]


@pytest.mark.parametrize("name", ["onnx", "onnxruntime"])
def test_a_missing_onnx_package_names_the_extra(name, monkeypatch):
    from forecast.onnx.graph import extra_module

    monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'forecast-toolkit\[onnx\]'"):
        extra_module(name)
