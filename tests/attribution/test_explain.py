import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from forecast import (
    BoostedLagForecaster,
    EnsembleForecaster,
    GRUForecaster,
    LinearLagForecaster,
    Naive,
    SeasonalNaive,
)
from forecast.attribution import completeness_gap, explain
from tests.conftest import TINY_NEURAL, make_series, neural_families

pytest.importorskip("captum", reason="install the explain extra (captum)")

TZ = "Europe/Berlin"


def _with_covariate(n=24 * 21, tz=TZ, seed=0):
    df = make_series(n, tz=tz, seed=seed)
    rng = np.random.default_rng(seed + 1)
    df["temp"] = rng.standard_normal(n)
    return df


def _scale(frame):
    """Largest |forecast - baseline|: the size the completeness gap is measured against."""
    return float((frame["forecast"] - frame["baseline"]).abs().max())


def test_linear_terms_add_up_exactly_and_forecast_is_predict():
    df = _with_covariate()
    hist, fut = df.iloc[:-24], df[["temp"]].iloc[-24:]
    model = LinearLagForecaster(horizon=24, country="DE", future_covariates=["temp"]).fit(hist)
    table = explain(model, hist, fut, horizon=24)
    assert table.attrs["method"] == "exact"
    assert table.attrs["completeness_gap"] < 1e-9 * max(_scale(table), 1.0)
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    np.testing.assert_allclose(forecast, model.predict(24, hist, fut)["load"], rtol=1e-12)
    assert set(table["input_kind"]) == {"lag", "future covariate", "calendar"}
    # the intercept is the baseline: training mean plus the scaled intercept
    assert table["baseline"].nunique() > 1
    assert (table["input_step"] <= 24).all()
    assert (table.loc[table["input_kind"] == "lag", "input_step"] <= 0).all()


@pytest.mark.parametrize("family", neural_families())
def test_neural_integrated_gradients_are_complete(family):
    df = _with_covariate(24 * 14)
    hist, fut = df.iloc[:-6], df[["temp"]].iloc[-6:]
    params = {**TINY_NEURAL, "calendar": True, "future_covariates": ["temp"]}
    model = family(**params).fit(hist)
    table = explain(model, hist, fut, horizon=6)  # 64 steps: gaps 1e-7 to 2e-3 (ReLU RNN)
    assert table.attrs["method"] == "integrated_gradients"
    assert table.attrs["completeness_gap"] <= 1e-2 * _scale(table) + 1e-5
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    np.testing.assert_allclose(forecast, model.predict(6, hist, fut)["load"], rtol=1e-5)
    inputs = table[table["lead"] == 1]
    n_cal = inputs[inputs["input_kind"] == "calendar"]["input"].nunique()
    # the window: 24 steps x (target, covariate, calendar); the forecast steps: 6 x known
    assert len(inputs) == 24 * (2 + n_cal) + 6 * (1 + n_cal)


def test_recursive_roll_out_is_explained_through_the_feedback():
    df = make_series(24 * 10)
    model = GRUForecaster(**{**TINY_NEURAL, "strategy": "recursive"}).fit(df)
    table = explain(model, df, horizon=4, n_steps=32)
    assert table.attrs["completeness_gap"] <= 1e-2 * _scale(table) + 1e-5
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    np.testing.assert_allclose(forecast, model.predict(4, df)["load"], rtol=1e-5)


@pytest.mark.parametrize(
    "model",
    [
        SeasonalNaive(season="1D"),
        BoostedLagForecaster(horizon=6, lags=24, seasonal_lags=()),
        Naive(),
    ],
    ids=["seasonal-naive", "boosted", "naive"],
)
def test_shapley_values_are_complete(model):
    df = make_series(24 * 14, tz=TZ)
    model.fit(df)
    table = explain(model, df, horizon=6, n_samples=4)
    assert table.attrs["method"] == "shapley"
    assert table.attrs["completeness_gap"] < 1e-6 * max(_scale(table), 1.0)
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    np.testing.assert_allclose(forecast, model.predict(6, df)["load"], rtol=1e-9)


def _driven_by_yesterday(n=24 * 40, seed=0):
    """y_t = 0.95 y_(t-24) + noise: each value is driven only by the value a day before."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n)
    y[:24] = rng.standard_normal(24)
    for t in range(24, n):
        y[t] = 0.95 * y[t - 24] + 0.3 * rng.standard_normal()
    return pd.DataFrame({"load": y}, index=pd.date_range("2023-01-01", periods=n, freq="h"))


@pytest.mark.parametrize(
    ("model", "margin"),
    [
        (LinearLagForecaster(lags=48, seasonal_lags=(), calendar=False, horizon=6), 4.0),
        (
            GRUForecaster(
                context_length=48,
                horizon=6,
                hidden_size=8,
                max_epochs=8,
                batch_size=32,
                learning_rate=0.01,
                random_state=0,
            ),
            1.5,
        ),
    ],
    ids=["linear", "gru"],
)
def test_a_series_driven_by_yesterday_is_attributed_to_yesterday(model, margin):
    df = _driven_by_yesterday()
    model.fit(df)
    table = explain(model, df, horizon=6, origins=df.index[-10::3])
    lags = table[table["input_kind"] == "lag"]
    # offset 0: the input a day before the forecast step (input_step = lead - 24)
    offset = lags["input_step"] - (lags["lead"] - 24)
    profile = lags["contribution"].abs().groupby(offset).mean().sort_values(ascending=False)
    assert profile.index[0] == 0
    assert profile.iloc[0] > margin * profile.iloc[1]


def test_a_covariate_the_model_never_saw_vary_gets_nothing():
    df = _with_covariate()
    df["flat"] = 3.0  # constant in training: nothing to learn from
    model = LinearLagForecaster(horizon=6, future_covariates=["temp", "flat"]).fit(df.iloc[:-6])
    fut = df[["temp", "flat"]].iloc[-6:].assign(flat=50.0)  # far from anything seen
    table = explain(model, df.iloc[:-6], fut, horizon=6)
    flat = table[table["input"] == "flat"]
    assert flat["input_step"].nunique() == 6 and (flat["contribution"] == 0).all()
    assert table.loc[table["input"] == "temp", "contribution"].abs().max() > 0


def test_inputs_a_model_does_not_read_get_nothing():
    df = make_series(24 * 10)
    model = SeasonalNaive(season="1D").fit(df)
    table = explain(model, df, horizon=6, window=48, n_samples=3)
    old = table[table["input_step"] <= -24]  # yesterday's day before: never read
    assert len(old) == 6 * 24 and (old["contribution"] == 0).all()
    read = table[table["input_step"] == table["lead"] - 24]
    np.testing.assert_allclose(read["contribution"], read["forecast"] - read["baseline"])


def test_many_origins_match_predict_origins():
    df = make_series(24 * 14)
    model = LinearLagForecaster(horizon=6).fit(df)
    origins = list(df.index[-30::12])
    table = explain(model, df, horizon=6, origins=origins)
    assert list(table["origin"].unique()) == origins
    expected = model.predict_origins(df, origins, 6)
    got = table.groupby(["origin", "time"])["forecast"].first().to_numpy()
    np.testing.assert_allclose(got, expected["load"].to_numpy(), rtol=1e-12)
    assert completeness_gap(table) == table.attrs["completeness_gap"]


def test_bad_requests_fail_with_a_message():
    df = make_series(24 * 10)
    model = LinearLagForecaster(horizon=6).fit(df)
    with pytest.raises(ValueError, match="method must be one of"):
        explain(model, df, method="lime")
    with pytest.raises(ValueError, match="needs a neural forecaster"):
        explain(model, df, method="integrated_gradients")
    with pytest.raises(ValueError, match="horizon within its direct leads"):
        explain(model, df, horizon=12, method="exact")
    with pytest.raises(ValueError, match="n_samples must be a positive int"):
        explain(model, df, n_samples=0)
    with pytest.raises(ValueError, match="not a timestamp of history"):
        explain(model, df, origins=["2031-01-01"])
    ensemble = EnsembleForecaster([("a", Naive()), ("b", SeasonalNaive(season="1D"))]).fit(df)
    with pytest.raises(TypeError, match="explain its members"):
        explain(ensemble, df)


def test_beyond_the_direct_leads_the_linear_model_is_sampled():
    df = make_series(24 * 10)
    model = LinearLagForecaster(horizon=3, lags=24, seasonal_lags=()).fit(df)
    table = explain(model, df, horizon=5, n_samples=2)
    assert table.attrs["method"] == "shapley"
    assert table.attrs["completeness_gap"] < 1e-6


def test_a_missing_captum_names_the_extra(monkeypatch):
    df = make_series(24 * 10)
    model = SeasonalNaive(season="1D").fit(df)
    monkeypatch.setitem(sys.modules, "captum.attr", None)
    with pytest.raises(ImportError, match=r"forecast-toolkit\[explain\]"):
        explain(model, df)


def test_importing_forecast_does_not_import_captum():
    code = "import sys, forecast, forecast.attribution; print('captum' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_plot_shows_lead_by_input_and_the_top_inputs():
    from forecast.attribution import plot_explanation

    df = make_series(24 * 10)
    model = LinearLagForecaster(horizon=6).fit(df)
    table = explain(model, df, horizon=6)
    fig = plot_explanation(table, title="linear", top=5)
    heat, bars = fig.axes[:2]
    assert heat.get_ylabel() == "lead"
    assert len(bars.patches) == 5
    with pytest.raises(ValueError, match="no forecast from origin"):
        plot_explanation(table, target="other")


@pytest.mark.parametrize(
    "extra",
    [{"quantiles": (0.1, 0.5, 0.9)}, {"n_ensemble": 2}, {"strategy": "seq2seq"}],
    ids=["quantile-head", "ensemble", "seq2seq"],
)
def test_quantile_ensemble_and_decoder_networks_explain_their_point_forecast(extra):
    df = make_series(24 * 10)
    model = GRUForecaster(**TINY_NEURAL, **extra).fit(df)
    table = explain(model, df, horizon=6)
    assert table.attrs["completeness_gap"] <= 1e-2 * _scale(table) + 1e-5
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    np.testing.assert_allclose(forecast, model.predict(6, df)["load"], rtol=1e-5)


@pytest.mark.parametrize(
    "model",
    [GRUForecaster(**TINY_NEURAL), LinearLagForecaster(horizon=6)],
    ids=["gru", "linear"],
)
def test_each_channel_is_explained_on_its_own(model):
    df = make_series(24 * 10, channels=2)
    model.fit(df)
    table = explain(model, df, horizon=6)
    got = table.groupby(["lead", "target"])["forecast"].first().unstack()[["y0", "y1"]]
    np.testing.assert_allclose(got.to_numpy(), model.predict(6, df).to_numpy(), rtol=1e-5)
    assert table.attrs["completeness_gap"] <= 1e-2 * _scale(table) + 1e-5
    if isinstance(model, LinearLagForecaster):  # a channel's own lags only
        cross = table[(table["input_kind"] == "lag") & (table["input"] != table["target"])]
        assert (cross["contribution"] == 0).all()
