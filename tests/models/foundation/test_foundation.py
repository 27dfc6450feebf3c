"""The foundation wrappers on tiny random checkpoints: what fit records, covariates,
quantiles, saved folders without weights, backtests and comparisons, import isolation."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from forecast.base import BaseForecaster
from forecast.evaluation.backtest import backtest
from forecast.evaluation.compare import compare
from forecast.models.baselines import SeasonalNaive
from forecast.models.foundation import Chronos2Forecaster, TiRexForecaster
from forecast.models.foundation._base import levels_from_grid
from forecast.models.foundation._weights import weights_reference
from tests.conftest import make_series
from tests.models.foundation.checkpoints import CHRONOS_LEVELS, CONTEXT

TZ = "Europe/Berlin"


@pytest.fixture
def df():
    frame = make_series(24 * 8, tz=TZ, start="2023-03-20", name="time")
    frame["temp"] = np.cos(np.arange(len(frame)) / 5.0)
    frame["price"] = np.sin(np.arange(len(frame)) / 3.0)
    return frame


def future_frame(df, horizon, temp):
    index = pd.date_range(df.index[-1], periods=horizon + 1, freq="h")[1:]
    return pd.DataFrame({"temp": np.full(horizon, temp)}, index=index)


def chronos(weights, **kw):
    return Chronos2Forecaster(weights=str(weights), device="cpu", **kw)


def test_fit_records_context_targets_covariates_and_the_weights(df, chronos_weights):
    est = chronos(chronos_weights, future_covariates=["temp"], past_covariates=["price"])
    est.fit(df)
    assert est.columns_ == ["load"]
    assert est.future_covariates_ == ["temp"] and est.past_covariates_ == ["price"]
    assert est.freq_ == pd.tseries.frequencies.to_offset("h") and est.tz_ == TZ
    assert est.model_context_length_ == CONTEXT == est.context_length_
    assert est.model_levels_ == tuple(CHRONOS_LEVELS)
    assert est.quantile_levels_ == (0.1, 0.5, 0.9) and est.device_ == "cpu"
    ref = est.weights_reference_
    assert ref["source"] == "local" and ref["location"].endswith("model.safetensors")
    assert len(ref["sha256"]) == 64 and ref["revision"] is None
    assert all(len(f) == CONTEXT for f in est.train_tail_.values())
    short = chronos(chronos_weights, context_length=24).fit(df[["load"]])
    assert short.context_length_ == 24 and len(short.train_tail_[None]) == 24


def test_future_and_past_covariates_reach_chronos2(df, chronos_weights):
    est = chronos(chronos_weights, future_covariates=["temp"], past_covariates=["price"]).fit(df)
    cold = est.predict(horizon=6, future=future_frame(df, 6, -3.0))
    warm = est.predict(horizon=6, future=future_frame(df, 6, 3.0))
    assert not np.allclose(cold.to_numpy(), warm.to_numpy())
    other_past = df.assign(price=df["price"].to_numpy()[::-1])  # a new shape (scale is normalised)
    moved = est.predict(horizon=6, history=other_past, future=future_frame(df, 6, -3.0))
    assert np.abs(moved.to_numpy() - cold.to_numpy()).max() > 1e-6  # a tiny random model
    with pytest.raises(ValueError, match="temp"):
        est.predict(horizon=6)  # the future covariate is needed for the forecast steps


def test_calendar_features_go_in_as_future_covariates(df, chronos_weights):
    plain = chronos(chronos_weights).fit(df[["load"]]).predict(horizon=6)
    with_calendar = chronos(chronos_weights, calendar=True, country="DE").fit(df[["load"]])
    assert not np.allclose(with_calendar.predict(horizon=6).to_numpy(), plain.to_numpy())


@pytest.mark.parametrize("family", ["chronos", "tirex"])
def test_quantile_columns_are_sorted_and_the_point_is_the_median(df, family, request):
    weights = request.getfixturevalue(f"{family}_weights")
    cls = Chronos2Forecaster if family == "chronos" else TiRexForecaster
    est = cls(weights=str(weights), device="cpu", quantiles=(0.1, 0.25, 0.9))
    fc = est.fit(df[["load"]]).predict(horizon=8, quantiles=True)
    assert list(fc.columns) == ["load", "load_q0.1", "load_q0.25", "load_q0.5", "load_q0.9"]
    values = fc.to_numpy()
    assert np.isfinite(values).all() and (np.diff(values[:, 1:], axis=1) >= 0).all()
    np.testing.assert_array_equal(fc["load"], fc["load_q0.5"])
    only = est.predict(horizon=8, quantiles=(0.9,))
    assert list(only.columns) == ["load", "load_q0.9"]


@pytest.mark.parametrize("family", ["chronos", "tirex"])
def test_several_targets_and_series(df, family, request):
    weights = request.getfixturevalue(f"{family}_weights")
    cls = Chronos2Forecaster if family == "chronos" else TiRexForecaster
    two = df[["load"]].assign(load2=df["load"] * 2 + 1)
    fc = cls(weights=str(weights), device="cpu").fit(two).predict(horizon=4)
    assert list(fc.columns) == ["load", "load2"] and np.isfinite(fc.to_numpy()).all()
    series = {"a": df[["load"]], "b": df[["load"]].iloc[:100] * 3}
    out = cls(weights=str(weights), device="cpu").fit(series).predict(horizon=4)
    assert set(out) == {"a", "b"} and all(len(f) == 4 for f in out.values())
    assert out["b"].index[0] == series["b"].index[-1] + pd.Timedelta("1h")


def test_tirex_levels_outside_its_grid_are_refused(df, tirex_weights):
    est = TiRexForecaster(weights=str(tirex_weights), device="cpu", quantiles=(0.05, 0.5))
    with pytest.raises(ValueError, match="quantile level 0.05 is outside the model's levels"):
        est.fit(df[["load"]])


def test_levels_from_grid_interpolates_between_sorted_levels():
    values = np.array([[3.0, 1.0, 2.0]])  # crossed: sorted to 1, 2, 3 at levels .1 .5 .9
    got = levels_from_grid(values, (0.1, 0.5, 0.9), (0.1, 0.3, 0.5, 0.9), "X")
    np.testing.assert_allclose(got, [[1.0, 1.5, 2.0, 3.0]])
    with pytest.raises(ValueError, match="X: quantile level 0.95"):
        levels_from_grid(values, (0.1, 0.5, 0.9), (0.95,), "X")


@pytest.mark.parametrize("family", ["chronos", "tirex"])
def test_saved_folder_holds_the_reference_not_the_weights(df, family, request, tmp_path):
    weights = shutil.copytree(request.getfixturevalue(f"{family}_weights"), tmp_path / "w")
    cls = Chronos2Forecaster if family == "chronos" else TiRexForecaster
    est = cls(weights=str(weights), device="cpu").fit(df[["load"]])
    folder = est.save(tmp_path / "model")
    assert sorted(p.name for p in folder.iterdir()) == [
        "fitted.json",
        "fitted.npz",
        "meta.json",
        "params.json",
    ]
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["modules"] == [] and meta["estimator"] == (
        "chronos2" if family == "chronos" else "tirex"
    )
    assert json.loads((folder / "params.json").read_text())["weights"] == str(weights)
    fitted = (folder / "fitted.json").read_text()
    assert est.weights_reference_["sha256"] in fitted
    weight_file = est.weights_reference_["location"]
    saved = sum(p.stat().st_size for p in folder.iterdir())
    assert saved < os.path.getsize(weight_file), "the folder is smaller than the weights alone"
    loaded = BaseForecaster.load(folder, device="cpu")
    pd.testing.assert_frame_equal(loaded.predict(horizon=5), est.predict(horizon=5))
    with open(weight_file, "r+b") as handle:  # other weights under the same name
        handle.seek(-4, 2)
        tail = handle.read(4)
        handle.seek(-4, 2)
        handle.write(bytes(b ^ 0xFF for b in tail))
    stale = BaseForecaster.load(folder, device="cpu")
    with pytest.raises(ValueError, match="changed since fit"):
        stale.predict(horizon=5)


def test_bad_weights_and_parameters_fail_early_with_what_and_where(df, tmp_path, chronos_weights):
    data = df[["load"]]
    with pytest.raises(ValueError, match="no existing local path and no hub id"):
        chronos(tmp_path / "nothing").fit(data)
    with pytest.raises(ValueError, match="revision='main' applies to hub ids only"):
        chronos(chronos_weights, revision="main").fit(data)
    with pytest.raises(FileNotFoundError, match="holds no model.safetensors"):
        chronos(tmp_path).fit(data)
    with pytest.raises(ValueError, match=f"context_length=999 exceeds the {CONTEXT} steps"):
        chronos(chronos_weights, context_length=999).fit(data)
    with pytest.raises(ValueError, match="context_length must be a positive int"):
        chronos(chronos_weights, context_length=0).fit(data)
    with pytest.raises(ValueError, match="device"):
        chronos(chronos_weights).set_params(device="tpu").fit(data)


def test_a_hub_id_is_a_reference_until_the_model_loads():
    ref = weights_reference("amazon/chronos-2", "abc123", "model.safetensors", "X")
    assert ref == {
        "source": "hub",
        "location": "amazon/chronos-2",
        "revision": "abc123",
        "commit": None,
        "sha256": None,
    }


def test_missing_extra_names_the_extra(df, chronos_weights, monkeypatch):
    monkeypatch.setitem(sys.modules, "chronos", None)
    with pytest.raises(ImportError, match=r"forecast-toolkit\[foundation\]"):
        chronos(chronos_weights).fit(df[["load"]])


def test_backtest_and_compare_take_the_wrappers(df, chronos_weights, tirex_weights):
    data = df[["load", "temp"]]
    kwargs = dict(protocol="day-ahead", start="2023-03-26", end="2023-03-27", timezone=TZ)
    est = chronos(chronos_weights, future_covariates=["temp"])
    res = backtest(est, data, target="load", **kwargs)
    assert len(res.origins) == 2 and np.isfinite(res.metrics.loc["overall", "mape"])
    origin = res.origins[0]
    first = res.forecasts[res.forecasts["origin"] == origin].set_index("time")
    steps = len(data.loc[origin : first.index[-1]]) - 1  # the scored day ends the horizon
    direct = est.fit(data.loc[:origin]).predict(horizon=steps, future=data.loc[origin:, ["temp"]])
    np.testing.assert_allclose(first["y_pred"], direct.loc[first.index, "load"], rtol=1e-6)
    models = {
        "chronos2": chronos(chronos_weights),
        "tirex": TiRexForecaster(weights=str(tirex_weights), device="cpu"),
        "same hour yesterday": SeasonalNaive(season="1D", timezone=TZ),
    }
    table = compare(models, df[["load"]], progress=False, **kwargs).table
    assert list(table.index) == list(models) and table["mape"].notna().all()


def test_importing_forecast_and_the_wrappers_loads_no_model_package():
    script = (
        "import sys, forecast, forecast.models, forecast.models.foundation\n"
        "from forecast.models.foundation import Chronos2Forecaster, TiRexForecaster\n"
        "print(sorted(m for m in ('chronos', 'tirex', 'transformers', 'huggingface_hub')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_weights_are_a_str_and_an_unreadable_checkpoint_names_them(df, chronos_weights, tmp_path):
    with pytest.raises(TypeError, match=r"weights must be a str.*str\(path\)"):
        Chronos2Forecaster(weights=chronos_weights, device="cpu").fit(df[["load"]])
    broken = shutil.copytree(chronos_weights, tmp_path / "broken")
    (broken / "config.json").unlink()
    with pytest.raises(ValueError, match=r"Chronos2Forecaster: cannot read the weights .*broken"):
        chronos(broken).fit(df[["load"]])


@pytest.mark.gpu
@pytest.mark.parametrize("family", ["chronos", "tirex"])
def test_cuda_forecasts_match_the_cpu(df, family, request):
    weights = request.getfixturevalue(f"{family}_weights")
    cls = Chronos2Forecaster if family == "chronos" else TiRexForecaster
    on_cpu = cls(weights=str(weights), device="cpu").fit(df[["load"]])
    on_gpu = cls(weights=str(weights), device="cuda").fit(df[["load"]])
    assert on_gpu.device_ == "cuda"
    expected = on_cpu.predict(horizon=8, quantiles=True)
    pd.testing.assert_frame_equal(on_gpu.predict(horizon=8, quantiles=True), expected, rtol=1e-3)


COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("family", ["chronos", "tirex"])
def test_a_hub_id_loads_from_the_hub_cache_and_pins_its_commit(
    df, family, request, tmp_path, monkeypatch
):
    """A hub id read offline from a hub cache laid out as huggingface_hub lays it out."""
    constants = pytest.importorskip("huggingface_hub.constants")
    weights = request.getfixturevalue(f"{family}_weights")
    repo, filename = {
        "chronos": ("test-owner/tiny-chronos2", "model.safetensors"),
        "tirex": ("test-owner/TiRex", "model.ckpt"),
    }[family]
    root = tmp_path / "hub" / ("models--" + repo.replace("/", "--"))
    shutil.copytree(weights, root / "snapshots" / COMMIT)
    (root / "refs").mkdir()
    (root / "refs" / "main").write_text(COMMIT)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # never the network
    cls = Chronos2Forecaster if family == "chronos" else TiRexForecaster
    est = cls(weights=repo, device="cpu").fit(df[["load"]])
    ref = est.weights_reference_
    assert (ref["source"], ref["location"], ref["revision"]) == ("hub", repo, None)
    assert ref["commit"] == COMMIT and len(ref["sha256"]) == 64
    local = cls(weights=str(weights), device="cpu").fit(df[["load"]])
    pd.testing.assert_frame_equal(est.predict(horizon=4), local.predict(horizon=4))
    folder = est.save(tmp_path / "model")
    pd.testing.assert_frame_equal(BaseForecaster.load(folder).predict(horizon=4), local.predict(4))
    cached = root / "snapshots" / COMMIT / filename
    cached.write_bytes(cached.read_bytes()[:-4] + b"\x01\x02\x03\x04")
    with pytest.raises(ValueError, match="changed since fit"):
        BaseForecaster.load(folder).predict(horizon=4)
