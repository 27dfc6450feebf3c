"""``explain`` reaches estimators through their decomposition hook and the pipeline's rules."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast import BoostedLagForecaster, GRUForecaster, LinearLagForecaster, SeasonalNaive
from forecast.attribution import explain
from forecast.frames.decomposition import NotDecomposable
from tests.conftest import TINY_NEURAL, make_series

pytest.importorskip("captum", reason="install the explain extra (captum)")

ATTRIBUTION = Path(__file__).resolve().parents[2] / "forecast" / "attribution"


def _imported_modules(source):
    """Every module ``source`` imports, ``from a import b`` counted as ``a.b`` too."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _private_imports(source):
    """Private modules of packages other than ``forecast.attribution`` that ``source`` imports."""
    private = []
    for module in sorted(_imported_modules(source)):
        parts = module.split(".")
        own = parts[:2] == ["forecast", "attribution"]
        if parts[0] == "forecast" and not own and any(p.startswith("_") for p in parts):
            private.append(module)
    return private


def test_explanations_import_no_private_module_of_another_package():
    found = {p.name: _private_imports(p.read_text()) for p in sorted(ATTRIBUTION.glob("*.py"))}
    assert {name: modules for name, modules in found.items() if modules} == {}
    explain_imports = _imported_modules((ATTRIBUTION / "explain.py").read_text())
    assert not any(m.startswith("forecast.models.baselines") for m in explain_imports)


def test_the_import_check_sees_a_private_module():
    source = (
        "from forecast.models.baselines import _direct as D\n"
        "import forecast.frames._x\n"
        "from forecast.attribution import _captum\n"
        "from forecast.frames.series import SeriesArrays\n"
    )
    assert _private_imports(source) == ["forecast.frames._x", "forecast.models.baselines._direct"]


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (SeasonalNaive(season="1D"), "SeasonalNaive has no exact decomposition"),
        (GRUForecaster(**TINY_NEURAL), "GRUForecaster has no exact decomposition"),
        (
            BoostedLagForecaster(horizon=6, lags=24, seasonal_lags=(), max_iter=5),
            "BoostedLagForecaster adds to the ridge's forecast",
        ),
    ],
    ids=["seasonal-naive", "gru", "boosted"],
)
def test_an_estimator_without_a_decomposition_says_so_by_name(model, message):
    df = make_series(24 * 10)
    model.fit(df)
    with pytest.raises(NotDecomposable, match=message):
        explain(model, df, horizon=6, method="exact")
    # auto: sampled Shapley values (GRU: integrated gradients), no error
    method = explain(model, df, horizon=2, n_samples=1, n_steps=4).attrs["method"]
    assert method == ("integrated_gradients" if isinstance(model, GRUForecaster) else "shapley")


def test_the_linear_hook_adds_up_to_its_own_forecast():
    df = make_series(24 * 14, tz="Europe/Berlin")
    model = LinearLagForecaster(horizon=6, country="DE").fit(df)
    table = explain(model, df, horizon=6)
    assert table.attrs["method"] == "exact"
    assert table.attrs["baseline"].startswith("every regressor at zero")
    assert table.attrs["completeness_gap"] < 1e-12
    assert str(table["input_time"].dt.tz) == "Europe/Berlin"


def _spring(n=24 * 21):
    index = pd.date_range("2023-03-05", periods=n, freq="h", tz="Europe/Berlin")
    rng = np.random.default_rng(0)
    load = np.sin(np.arange(n) * np.pi / 12) + 0.1 * rng.standard_normal(n)
    return pd.DataFrame({"load": load}, index=index)


def test_a_forecast_across_the_spring_change_beyond_the_direct_leads_is_sampled():
    df = _spring()
    model = LinearLagForecaster(horizon=24, country="DE").fit(df)
    origin = pd.Timestamp("2023-03-25 20:00", tz="Europe/Berlin")  # 24 steps reach lead 25
    table = explain(model, df, horizon=24, origins=[origin], n_samples=1)
    assert table.attrs["method"] == "shapley"
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    expected = model.predict_origins(df, [origin], 24)["load"].to_numpy()
    np.testing.assert_allclose(forecast, expected, rtol=1e-9)
    with pytest.raises(NotDecomposable, match="horizon within its direct leads"):
        explain(model, df, horizon=24, origins=[origin], method="exact")
    inside = explain(model, df, horizon=23, origins=[origin])  # lead 24 at most: exact
    assert inside.attrs["method"] == "exact" and inside.attrs["completeness_gap"] < 1e-12


def test_naive_origins_are_local_times_of_the_model_as_in_predict_origins():
    df = make_series(24 * 14, tz="Europe/Berlin")
    model = LinearLagForecaster(horizon=6).fit(df)
    naive = [pd.Timestamp("2023-01-13 12:00"), pd.Timestamp("2023-01-14 06:00")]
    table = explain(model, df, horizon=6, origins=naive)
    aware = [t.tz_localize("Europe/Berlin") for t in naive]
    assert list(table["origin"].unique()) == aware
    expected = model.predict_origins(df, naive, 6)["load"].to_numpy()
    got = table.groupby(["origin", "time"])["forecast"].first().to_numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="origins is empty"):
        explain(model, df, horizon=6, origins=[])
