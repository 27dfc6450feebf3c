"""Parameter checks in their one place: explain's horizon first, foreign weight files named."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

import forecast
from forecast import LinearLagForecaster
from forecast.attribution import explain

HOURS = pd.date_range("2024-01-01", periods=200, freq="h", tz="Europe/Berlin")


def hourly() -> pd.DataFrame:
    t = np.arange(len(HOURS))
    return pd.DataFrame({"load": 50 + np.sin(2 * np.pi * t / 24)}, index=HOURS)


def test_explain_checks_its_horizon_first():
    model = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False).fit(hourly())
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"horizon=10000000 exceeds the limit max_horizon"):
        explain(model, horizon=10**7)
    with pytest.raises(ValueError, match="horizon=10000000 exceeds"):  # before the fit check
        explain(LinearLagForecaster(), horizon=10**7)
    with pytest.raises(TypeError, match="horizon must be a positive int"):
        explain(model, horizon=2.5)
    assert time.perf_counter() - started < 1.0


def test_a_foreign_tirex_weight_file_is_refused_naming_the_file(tmp_path):
    pytest.importorskip("tirex")
    from forecast.models.foundation import TiRexForecaster

    junk = tmp_path / "model.ckpt"
    junk.write_bytes(b"this is not a checkpoint\n" * 40)
    with pytest.raises(ValueError, match=r"weights .*model\.ckpt.*not a checkpoint"):
        TiRexForecaster(weights=str(junk), context_length=64).fit(hourly()).predict(4)


@pytest.mark.parametrize(
    "make",
    [
        lambda: forecast.SeasonalNaive(season=np.int64(24)),
        lambda: LinearLagForecaster(lags=np.int64(24), horizon=np.int64(6), calendar=False),
        lambda: forecast.BoostedLagForecaster(
            lags=np.int64(24),
            seasonal_lags=(),
            horizon=np.int64(6),
            max_iter=np.int64(10),
            calendar=False,
        ),
    ],
    ids=["seasonal-naive", "linear-lag", "boosted-lag"],
)
def test_numpy_integer_parameters_of_baselines_fit_save_and_load(make, tmp_path):
    model = make().fit(hourly())
    loaded = forecast.load(model.save(tmp_path / "model"))
    pd.testing.assert_frame_equal(loaded.predict(6), model.predict(6))
