"""AnalogDayForecaster: retrieval against hand-computed values, no leakage, persistence, errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from forecast import AnalogDayForecaster, LinearLagForecaster, SeasonalNaive, backtest, load
from tests.conftest import make_series

# four steps a day (6 h); the last step of each day is the origin phase 18:00
DAYS = [
    [40, 30, 20, 10],  # day 0: the reverse profile
    [10, 20, 30, 40],  # day 1
    [12, 22, 32, 42],  # day 2
    [20, 20, 20, 20],  # day 3: flat
    [10, 20, 30, 40],  # day 4: the profile of day 1 again
]


def six_hourly():
    index = pd.date_range("2023-05-01", periods=20, freq="6h", tz="Europe/Berlin")
    return pd.DataFrame({"load": np.array(DAYS, dtype=float).ravel()}, index=index)


def sharp(**extra):
    """Retrieval that takes the single closest stored day (season left out)."""
    params = dict(context=4, beta=1e4, shrink=0.5, season_weight=0.0) | extra
    return AnalogDayForecaster(SeasonalNaive(season="1D"), **params)


def test_forecast_adds_the_closest_days_relative_error_by_hand():
    df = six_hourly()
    model = sharp().fit(df)
    fc = model.predict(4)
    # the last day's profile is day 1's: stored day 1 (origin 18:00 of day 1) was followed by
    # day 2 = day 1 * (1.2, 1.1, 16/15, 1.05); the reference repeats day 4 = (10, 20, 30, 40)
    np.testing.assert_allclose(fc["load"], [11.0, 21.0, 31.0, 41.0])
    expected = pd.date_range("2023-05-06", periods=4, freq="6h", tz="Europe/Berlin")
    pd.testing.assert_index_equal(fc.index, expected, check_names=False)
    np.testing.assert_allclose(model.set_params(shrink=0.0).predict(4)["load"], DAYS[4])


def test_a_stored_day_is_used_only_once_its_window_is_observed():
    df = six_hourly()
    model = sharp().fit(df)
    origin = df.index[11]  # day 2, 18:00: its own stored window (day 3) lies after it
    got = model.predict_origins(df, [origin], 4)
    # day 2's own memory (an exact match) is excluded; day 1 is the closest observed one
    np.testing.assert_allclose(got["load"], np.array(DAYS[2]) * [1.1, 1.05, 1 + 0.5 / 15, 1.025])
    history = model.predict(4, history=df.iloc[:12])
    np.testing.assert_allclose(history["load"], got["load"])


def test_memory_holds_what_was_fitted_and_survives_save_load(tmp_path):
    df = make_series(24 * 21, tz="Europe/Berlin", start="2023-03-01")
    model = AnalogDayForecaster(LinearLagForecaster(lags=24), country="DE").fit(df)
    reference = model.reference_model_.predict(30)
    fc = model.predict(30)
    assert not np.allclose(fc["load"], reference["load"])  # the memory changed it
    model.save(tmp_path / "analog")
    again = load(tmp_path / "analog")
    pd.testing.assert_frame_equal(again.predict(30), fc)
    origins = df.index[[24 * 15 + 11, 24 * 18 + 11]]
    pd.testing.assert_frame_equal(
        again.predict_origins(df, origins, 37), model.predict_origins(df, origins, 37)
    )


def test_backtest_matches_predict_origins_and_leaves_data_alone():
    df = make_series(24 * 28, tz="Europe/Berlin", start="2023-03-01")
    before = df.copy()
    model = AnalogDayForecaster(LinearLagForecaster(lags=24), context="2D")
    result = backtest(model, df, protocol="day-ahead", start="2023-03-22", timezone="Europe/Berlin")
    pd.testing.assert_frame_equal(df, before)
    rows = result.forecasts
    fitted = result.estimator
    pred = fitted.predict_origins(df, pd.DatetimeIndex(rows["origin"].unique()), 37)
    merged = rows.merge(pred, on=["origin", "time"])
    np.testing.assert_allclose(merged["y_pred"], merged["load"])


def test_out_of_fold_memory_stores_each_blocks_errors_from_a_fit_without_it(tmp_path):
    df = make_series(24 * 30, tz="Europe/Berlin", start="2023-03-01")
    ref = LinearLagForecaster(lags=48)
    model = AnalogDayForecaster(ref, memory_folds=3).fit(df)
    assert len(model.reference_model_folds_) == 3
    assert not AnalogDayForecaster(ref).fit(df).reference_model_folds_  # in-sample by default
    origin = df.index[24 * 29 + 11]
    fc = model.predict_origins(df, [origin], 20)
    bank = model._bank(None, origin.tz_convert("Europe/Berlin"), 20)
    starts = bank["ends"] - pd.Timedelta(hours=20)
    # a stored day in the middle block: its error is that of a fit on the other two blocks
    at = df.index.get_indexer(starts)
    i = np.flatnonzero((at >= 24 * 10) & (at < 24 * 20))[2]
    day = starts[i]
    by_hand = clone(ref).fit({0: df.iloc[: 24 * 10], 1: df.iloc[24 * 20 :]})
    pred = by_hand.predict_origins(df, [day], 20)["load"].to_numpy()
    truth = df["load"].iloc[df.index.get_loc(day) + 1 :][:20].to_numpy()
    np.testing.assert_allclose(bank["errors"][i, :, 0], truth / pred - 1.0, rtol=1e-10)
    in_sample = model.reference_model_.predict_origins(df, [day], 20)["load"].to_numpy()
    assert not np.allclose(bank["errors"][i, :, 0], truth / in_sample - 1.0)
    model.save(tmp_path / "folds")
    pd.testing.assert_frame_equal(load(tmp_path / "folds").predict_origins(df, [origin], 20), fc)


def test_every_series_retrieves_from_its_own_memory():
    a = make_series(24 * 14, tz="Europe/Berlin", start="2023-03-01")
    b = a * 3.0 + 100.0
    model = AnalogDayForecaster(SeasonalNaive(season="1D"))  # a reference without a fit
    both = model.fit({"a": a, "b": b}).predict(12)
    alone = AnalogDayForecaster(SeasonalNaive(season="1D")).fit({"b": b}).predict(12)
    np.testing.assert_allclose(both["b"]["load"], alone["b"]["load"])
    assert not np.allclose(both["a"]["load"] * 3.0 + 100.0, both["b"]["load"])
    fitted = AnalogDayForecaster(SeasonalNaive(season="1D")).fit({"a": a})
    new = fitted.predict(12, history={"c": b})["c"]  # no memory of c: the reference alone
    pd.testing.assert_frame_equal(new, fitted.reference_model_.predict(12, history={"c": b})["c"])


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"reference_model": None}, TypeError, "reference_model must be a forecast estimator"),
        ({"beta": -1.0}, ValueError, "beta must be finite and >= 0"),
        ({"shrink": "half"}, TypeError, "shrink must be a number"),
        ({"context": "90min"}, ValueError, "context='90min'"),
        ({"memory_folds": 0}, ValueError, "memory_folds must be an integer >= 1, got 0"),
        ({"memory_folds": 2.5}, ValueError, "memory_folds must be an integer >= 1"),
    ],
)
def test_bad_settings_say_which(params, error, match):
    df = make_series(24 * 8, tz="Europe/Berlin", start="2023-03-20")
    model = AnalogDayForecaster(**({"reference_model": SeasonalNaive(season="1D")} | params))
    with pytest.raises(error, match=match):
        model.fit(df)


def test_reference_with_covariates_and_quantiles_are_refused():
    df = make_series(24 * 8, tz="Europe/Berlin", start="2023-03-20")
    df["temp"] = 1.0
    ref = LinearLagForecaster(lags=24, future_covariates=["temp"])
    with pytest.raises(ValueError, match="reference_model must take no covariates"):
        AnalogDayForecaster(ref).fit(df)
    model = AnalogDayForecaster(SeasonalNaive(season="1D")).fit(df[["load"]])
    with pytest.raises(ValueError, match="points only"):
        model.predict(4, quantiles=True)


@settings(max_examples=25, deadline=None)
@given(
    days=st.integers(min_value=3, max_value=9),
    horizon=st.integers(min_value=1, max_value=30),
    level=st.floats(min_value=10.0, max_value=1e5),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_any_positive_series_gives_finite_forecasts_at_the_next_steps(days, horizon, level, seed):
    rng = np.random.default_rng(seed)
    index = pd.date_range("2023-10-20", periods=24 * days, freq="h", tz="Europe/Berlin")
    df = pd.DataFrame({"load": level * (1 + 0.2 * rng.random(len(index)))}, index=index)
    before = df.copy()
    model = AnalogDayForecaster(SeasonalNaive(season="1D"), context="1D").fit(df)
    fc = model.predict(horizon)
    pd.testing.assert_frame_equal(df, before)
    assert len(fc) == horizon and np.isfinite(fc["load"]).all()
    assert fc.index[0] == index[-1] + pd.Timedelta("1h")
    plain = SeasonalNaive(season="1D").fit(df).predict(horizon)
    np.testing.assert_allclose(model.set_params(shrink=0.0).predict(horizon), plain)
