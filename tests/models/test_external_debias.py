"""ExternalForecast(debias=...): the column shifted by its recent mean error at the origin."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast import backtest
from forecast.models.baselines import ExternalForecast
from forecast.persistence.format import load, save


def frame(load_values, forecast_values, start="2023-01-02"):
    index = pd.date_range(start, periods=len(load_values), freq="h")
    return pd.DataFrame(
        {"load": np.asarray(load_values, float), "forecast": np.asarray(forecast_values, float)},
        index=index,
    )


def test_debias_adds_the_mean_error_of_the_last_steps():
    # errors load - forecast: 0, 1, -1, 2, 4, 3 on the six observed rows
    df = frame([10, 11, 12, 13, 14, 15, 16, 17], [10, 10, 13, 11, 10, 12, 20, 21])
    est = ExternalForecast(debias=3).fit(df.iloc[:6])
    assert est.debias_steps_ == 3
    fc = est.predict(horizon=2, future=df)["load"]
    np.testing.assert_allclose(fc, [20 + 3.0, 21 + 3.0])  # mean(2, 4, 3)
    # the same window as a time span
    span = ExternalForecast(debias="3h").fit(df.iloc[:6]).predict(horizon=2, future=df)["load"]
    np.testing.assert_array_equal(span, fc)
    # without debias the column comes back exactly
    plain = ExternalForecast().fit(df.iloc[:6]).predict(horizon=2, future=df)["load"]
    np.testing.assert_array_equal(plain, [20.0, 21.0])


def test_debias_reads_only_rows_up_to_each_origin():
    rng = np.random.default_rng(0)
    n = 60
    df = frame(rng.normal(100, 5, n), rng.normal(100, 5, n))
    est = ExternalForecast(debias=6).fit(df.iloc[:30])
    origins = df.index[[29, 40, 50]]
    got = est.predict_origins(df, origins, horizon=4)
    changed = df.copy()
    changed.iloc[51:, 0] += 1_000.0  # targets after the last origin: never read
    changed.iloc[:35, 0] -= 1_000.0  # targets before the window of origin 40 (rows 35-40)
    again = est.predict_origins(changed, origins[1:], horizon=4)
    np.testing.assert_array_equal(got["load"].to_numpy()[4:], again["load"].to_numpy())
    for origin, part in got.groupby("origin"):
        pos = df.index.get_loc(origin)
        shift = (df["load"] - df["forecast"]).iloc[pos - 5 : pos + 1].mean()
        np.testing.assert_allclose(part["load"], df["forecast"].iloc[pos + 1 : pos + 5] + shift)


def test_debias_skips_incomplete_rows_and_leaves_an_empty_window_unshifted():
    df = frame([10, 11, 12, 13, 14, 15, 16], [10, 10, 10, np.nan, 10, 30, 31])
    df.iloc[4, 0] = np.nan  # the target of row 4 is missing too
    est = ExternalForecast(debias=3).fit(df.iloc[:5])
    # rows 2-4: only row 2 is complete (error 2)
    np.testing.assert_allclose(est.predict(horizon=2, future=df)["load"], [32.0, 33.0])
    empty = frame([10, 11, np.nan, np.nan, 20], [10, 10, 10, 10, 25])
    est = ExternalForecast(debias=2).fit(empty.iloc[:4])
    np.testing.assert_array_equal(est.predict(horizon=1, future=empty)["load"], [25.0])


def test_debias_is_per_target():
    df = frame([10, 10, 10, 10], [9, 9, 9, 9])
    df["b"] = [0.0, 0.0, 0.0, 0.0]
    df["fb"] = [2.0, 2.0, 2.0, 2.0]
    est = ExternalForecast(column=["forecast", "fb"], debias=2).fit(df.iloc[:3])
    fc = est.predict(horizon=1, future=df)
    assert fc.to_numpy().tolist() == [[10.0, 0.0]]


@pytest.mark.parametrize(
    ("debias", "message"),
    [(0, "debias must be a positive number of steps"), ("90min", "debias")],
)
def test_bad_debias_is_named(debias, message):
    df = frame(np.arange(10.0), np.arange(10.0))
    with pytest.raises((ValueError, TypeError), match=message):
        ExternalForecast(debias=debias).fit(df)


def test_debias_round_trips_through_a_saved_folder(tmp_path):
    df = frame(np.arange(20.0), np.arange(20.0) - 2.0)
    est = ExternalForecast(debias="4h").fit(df.iloc[:12])
    save(est, tmp_path / "m")
    back = load(tmp_path / "m")
    assert back.get_params()["debias"] == "4h" and back.debias_steps_ == 4
    pd.testing.assert_frame_equal(
        back.predict(horizon=3, future=df), est.predict(horizon=3, future=df)
    )
    np.testing.assert_allclose(est.predict(horizon=3, future=df)["load"], [12.0, 13.0, 14.0])


def test_debias_on_the_day_ahead_backtest_uses_the_history_before_each_issue_time():
    index = pd.date_range("2023-03-01", periods=24 * 20, freq="h", tz="Europe/Berlin")
    rng = np.random.default_rng(3)
    actual = 50_000 + rng.normal(0, 500, len(index))
    df = pd.DataFrame({"actual": actual, "forecast": actual - 700.0}, index=index)
    result = backtest(
        ExternalForecast(debias="2D"),
        df,
        protocol="day-ahead",
        start="2023-03-10",
        end="2023-03-15",
        timezone="Europe/Berlin",
    )
    # a forecast that runs 700 MW low is centred exactly once corrected
    np.testing.assert_allclose(result.forecasts["y_pred"], result.forecasts["y_true"])
    assert abs(result.metrics.loc["overall", "bias"]) < 1e-6


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(
        st.tuples(st.floats(-1e4, 1e4, allow_nan=False), st.floats(-1e4, 1e4, allow_nan=False)),
        min_size=6,
        max_size=40,
    ),
    window=st.integers(1, 8),
)
def test_debias_shift_is_the_mean_error_of_the_window(values, window):
    data = np.array(values)
    df = frame(data[:, 0], data[:, 1])
    before = df.copy()
    n_train = len(df) - 2
    est = ExternalForecast(debias=window).fit(df.iloc[:n_train])
    got = est.predict(horizon=2, future=df)["load"].to_numpy()
    errors = data[:n_train, 0] - data[:n_train, 1]
    expected = data[n_train:, 1] + errors[-window:].mean()
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-6)
    pd.testing.assert_frame_equal(df, before)
