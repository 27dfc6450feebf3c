"""``explain`` reaches estimators through their decomposition hook and the pipeline's rules."""

import ast
import importlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from forecast import (
    BoostedLagForecaster,
    DCTMixerForecaster,
    GRUForecaster,
    LinearLagForecaster,
    LSTMForecaster,
    Naive,
    SeasonalNaive,
    TransformerForecaster,
)
from forecast.attribution import explain
from forecast.base import BaseForecaster
from forecast.frames.decomposition import Decomposition, DifferentiableForecast, NotDecomposable
from tests.conftest import TINY_NEURAL, make_series

pytest.importorskip("captum", reason="install the explain extra (captum)")

from forecast.attribution.gradients import integrated_gradients  # noqa: E402 (needs captum)

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


# ------------------------------------------------------------- every estimator through its hook
EXPLAIN = ATTRIBUTION / "explain.py"


def _class_checks(source):
    """Names of the classes ``isinstance`` / ``issubclass`` calls in ``source`` test against."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
            "isinstance",
            "issubclass",
        ):
            second = node.args[1]
            for item in second.elts if isinstance(second, ast.Tuple) else [second]:
                names.append(ast.unparse(item))
    return names


def test_explain_tests_no_estimator_class():
    module = importlib.import_module("forecast.attribution.explain")  # the name is the function
    checked = _class_checks(EXPLAIN.read_text())
    assert "DifferentiableForecast" in checked  # what the hook answered, not who answered
    estimators = [n for n in checked if issubclass(eval(n, vars(module)), BaseForecaster)]
    assert estimators == []
    assert not any(m.startswith("forecast.models") for m in _imported_modules(EXPLAIN.read_text()))


def test_the_class_check_sees_an_estimator_class():
    source = (
        "if isinstance(model, NeuralForecaster) or isinstance(x, (int, models.Naive)):\n    pass\n"
    )
    assert _class_checks(source) == ["NeuralForecaster", "int", "models.Naive"]


def _covariates(n=24 * 14):
    df = make_series(n, tz="Europe/Berlin")
    rng = np.random.default_rng(1)
    df["temp"], df["wind"] = rng.standard_normal(n), rng.standard_normal(n)
    return df


@pytest.mark.parametrize(
    "family", [GRUForecaster, LSTMForecaster, TransformerForecaster, DCTMixerForecaster]
)
def test_the_neural_hook_is_a_complete_differentiable_forecast(family):
    df = _covariates()
    hist, fut = df.iloc[:-6], df[["temp"]].iloc[-6:]
    params = {**TINY_NEURAL, "calendar": True, "country": "DE"}
    model = family(**params, future_covariates=["temp"], past_covariates=["wind"]).fit(hist)
    arrays = model._frames_to_arrays(hist, 6, fut)[0][0]
    answer = model._decompose(arrays, 6)
    assert isinstance(answer, DifferentiableForecast) and answer.shape == (6, 1)
    sizes = [t[0].numel() for t in answer.values]
    assert len(answer.kind) == len(answer.name) == len(answer.step) == sum(sizes)
    n_cal = int(np.sum((answer.kind == "calendar") & (answer.step == 1)))
    assert sizes == [24 * (3 + n_cal), 6 * (1 + n_cal)]  # window (L, I), steps (H, F)
    assert set(answer.kind) == {"lag", "past covariate", "future covariate", "calendar"}
    with torch.no_grad():
        forecast = answer.function(*answer.values).numpy().reshape(6)
    np.testing.assert_allclose(forecast, model.predict(6, hist, fut)["load"], rtol=1e-5)
    terms = integrated_gradients(answer, n_steps=64)
    gap = np.abs(terms.contributions.sum(axis=2) - (terms.forecast - terms.baseline)).max()
    assert gap <= 1e-2 * np.abs(terms.forecast - terms.baseline).max() + 1e-5


class _LastValue(Naive):
    """A naive forecast that knows its one term: the last value, from a baseline of zero."""

    def _decompose(self, series, horizon):
        last = self._to_data_units(series.y[-1:])  # (1, C)
        n_c = last.shape[1]
        return Decomposition(
            method="exact",
            baseline_text="no level at all",
            kind=np.full(n_c, "lag", dtype=object),
            name=np.asarray(self.columns_, dtype=object),
            time=series.index[-1:].repeat(n_c),
            step=np.zeros(n_c, dtype=np.int64),
            contributions=np.tile(np.diag(last[0]), (horizon, 1, 1)),  # (H, C, C)
            forecast=np.repeat(last, horizon, axis=0),
            baseline=np.zeros((horizon, n_c)),
        )


class _Repeat(torch.nn.Module):
    def __init__(self, horizon):
        super().__init__()
        self.horizon = horizon

    def forward(self, x):  # (B, 1, C) -> (B, H * C)
        return x.expand(-1, self.horizon, -1).reshape(len(x), -1)


class _DifferentiableLastValue(Naive):
    """A naive forecast given as a differentiable function of the last value."""

    def _decompose(self, series, horizon):
        last = torch.tensor(self._to_data_units(series.y[-1:]))[None]  # (1, 1, C)
        n_c = last.shape[-1]
        return DifferentiableForecast(
            baseline_text="the last value at zero",
            function=_Repeat(horizon),
            values=(last,),
            baselines=(torch.zeros_like(last),),
            kind=np.full(n_c, "lag", dtype=object),
            name=np.asarray(self.columns_, dtype=object),
            time=series.index[-1:].repeat(n_c),
            step=np.zeros(n_c, dtype=np.int64),
            shape=(horizon, n_c),
        )


@pytest.mark.parametrize(
    ("model", "method", "baseline"),
    [
        (_LastValue(), "exact", "no level at all"),
        (_DifferentiableLastValue(), "integrated_gradients", "the last value at zero"),
    ],
    ids=["terms", "differentiable"],
)
def test_a_custom_estimator_is_explained_through_its_hook(model, method, baseline):
    df = make_series(24 * 5, channels=2)
    model.fit(df)
    for asked in ("auto", method):
        table = explain(model, df, horizon=3, method=asked)
        assert table.attrs["method"] == method and table.attrs["baseline"] == baseline
        assert list(table["input_step"].unique()) == [0]  # the one input the hook named
        own = table[table["input"] == table["target"]]
        np.testing.assert_allclose(own["contribution"], own["forecast"], rtol=1e-6)
        assert (table.loc[table["input"] != table["target"], "contribution"] == 0).all()
        np.testing.assert_allclose(
            table.groupby(["lead", "target"])["forecast"].first().unstack().to_numpy(),
            model.predict(3, df).to_numpy(),
            rtol=1e-6,
        )
    assert explain(model, df, horizon=3, method="shapley").attrs["method"] == "shapley"
    other = "integrated_gradients" if method == "exact" else "exact"
    with pytest.raises(NotDecomposable, match=f"{type(model).__name__}"):
        explain(model, df, horizon=3, method=other)


def test_a_network_with_a_reference_is_sampled_and_one_without_integrated():
    from forecast.models.referenced import ReferencedHopfieldForecaster

    df = make_series(n=240, channels=1)
    tiny = {"context_length": 24, "horizon": 6, "hidden_size": 8, "n_heads": 2, "max_epochs": 1}
    reference = LinearLagForecaster(lags=24, horizon=6, calendar=False)
    model = ReferencedHopfieldForecaster(reference_model=reference, random_state=0, **tiny)
    model.fit(df)
    table = explain(model, df, horizon=3, n_samples=1)
    assert table.attrs["method"] == "shapley"
    with pytest.raises(NotDecomposable, match="with a reference_model"):
        explain(model, df, horizon=3, method="exact")
    with pytest.raises(NotDecomposable, match="needs a neural forecaster") as refused:
        explain(model, df, horizon=3, method="integrated_gradients")
    assert "with a reference_model" in str(refused.value.__cause__)  # the hook's reason
    plain = ReferencedHopfieldForecaster(random_state=0, **tiny).fit(df)
    assert explain(plain, df, horizon=3, n_steps=4).attrs["method"] == "integrated_gradients"
