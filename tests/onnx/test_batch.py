"""``forecast batch`` (``run_batch``) on an ONNX export writes what the torch model writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_series
from tests.onnx.helpers import LEVELS, TINY

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from forecast.batch.files import BatchError  # noqa: E402
from forecast.batch.run import load_forecaster, run_batch  # noqa: E402
from forecast.models.hopfield import HopfieldForecaster  # noqa: E402
from forecast.onnx.runtime import OnnxForecaster  # noqa: E402


def test_batch_runs_an_export_like_the_saved_model(tmp_path):
    data = make_series(n=160, tz="Europe/Berlin", start="2023-03-19")  # ends 03-25 15:00
    model = HopfieldForecaster(**TINY, quantiles=LEVELS, timezone="Europe/Berlin").fit(data)
    model.save(tmp_path / "saved")
    model.to_onnx(tmp_path / "export")
    estimator, _ = load_forecaster(tmp_path / "export")
    assert isinstance(estimator, OnnxForecaster)
    data.iloc[-50:].rename_axis("time").to_csv(tmp_path / "latest.csv")
    written = {}
    for name in ("saved", "export"):
        out = tmp_path / f"{name}.csv"
        run_batch(
            tmp_path / name, tmp_path / "latest.csv", out, "day-ahead", quantiles="all", track=False
        )
        written[name] = pd.read_csv(out)
    want, got = written["saved"], written["export"]
    # day-ahead from 15:00 on 03-25: 8 hours, then the 23-hour day of the spring change
    assert list(got.columns) == list(want.columns) and len(got) == len(want) == 8 + 23
    assert got.iloc[:, 0].tolist() == want.iloc[:, 0].tolist()  # the same local timestamps
    numbers = want.columns[1:]
    np.testing.assert_allclose(got[numbers], want[numbers], rtol=0, atol=1e-5)


def test_batch_nan_policy_override_reaches_the_export(tmp_path):
    data = make_series(n=160)
    model = HopfieldForecaster(**TINY).fit(data)
    model.to_onnx(tmp_path / "export")
    latest = data.iloc[-40:].copy()
    latest.iloc[-5, 0] = np.nan
    latest.rename_axis("time").to_csv(tmp_path / "latest.csv")
    with pytest.raises(BatchError, match="non-finite value"):
        run_batch(tmp_path / "export", tmp_path / "latest.csv", tmp_path / "a.csv", track=False)
    run_batch(
        tmp_path / "export",
        tmp_path / "latest.csv",
        tmp_path / "b.csv",
        6,
        nan_policy="interpolate",
        track=False,
    )
    assert np.isfinite(pd.read_csv(tmp_path / "b.csv").iloc[:, 1]).all()
    assert not (tmp_path / "a.csv").exists()


def test_forecast_predict_runs_an_export_like_the_saved_model(tmp_path):
    from forecast.cli import main

    data = make_series(n=160, tz="Europe/Berlin")
    model = HopfieldForecaster(**TINY).fit(data)
    model.save(tmp_path / "saved")
    model.to_onnx(tmp_path / "export")
    data.iloc[-40:].rename_axis("time").to_csv(tmp_path / "latest.csv")
    for name in ("saved", "export"):
        argv = ["predict", "--model", str(tmp_path / name), "--data", str(tmp_path / "latest.csv")]
        assert main([*argv, "--horizon", "5", "--output", str(tmp_path / f"{name}.csv")]) == 0
    want, got = (pd.read_csv(tmp_path / f"{name}.csv") for name in ("saved", "export"))
    assert got.iloc[:, 0].tolist() == want.iloc[:, 0].tolist()
    np.testing.assert_allclose(got["load"], want["load"], rtol=0, atol=1e-5)
    assert main(["predict", "--model", str(tmp_path / "export"), "--horizon", "5"]) == 2
