import numpy as np
import pandas as pd
import pytest

from forecast.frames.calendar import REGION_POPULATION
from forecast.models.baselines import LinearLagForecaster
from forecast.models.baselines._direct import regressors

BERLIN = "Europe/Berlin"


def test_regressors_by_hand():
    values = np.arange(20.0) * 10  # value at grid position p is 10 p
    known = np.arange(20.0)[:, None] + 0.5  # (G, 1)
    source_days = -np.arange(20.0)[:, None]  # (G, 1)
    o, j = np.array([10, 10, 10]), np.array([1, 3, 5])
    x = regressors(values, o, j, np.array([1, 2]), np.array([4]), known, source_days)
    # lags: positions 10, 9; seasonal (period 4): target 11 -> 7, 13 -> 9, 15 -> 15-8 = 7;
    # known at the target; the seasonal source's day value; the days of lag 1 and lag 2
    expected = [
        [100, 90, 70, 11.5, -7, -10, -9],
        [100, 90, 90, 13.5, -9, -10, -9],
        [100, 90, 70, 15.5, -7, -10, -9],
    ]
    np.testing.assert_array_equal(x, expected)


def weekly_frame(n_weeks, channels=("a", "b"), seed=0, start="2023-01-02"):
    rng = np.random.default_rng(seed)
    pattern = rng.normal(0, 1, (168, len(channels))) * [5, 2] + [50, -3]
    values = np.tile(pattern, (n_weeks, 1))
    index = pd.date_range(start, periods=168 * n_weeks, freq="h")
    return pd.DataFrame(values, index=index, columns=list(channels)), pattern


def test_recovers_a_weekly_pattern_at_every_lead_and_beyond_the_horizon():
    df, pattern = weekly_frame(7)
    train = df.iloc[: 168 * 6 - 5]  # ends at 18:00 on a Sunday
    est = LinearLagForecaster(lags=2, horizon=24, alpha=1e-9, calendar=False).fit(train)
    assert est.coef_.shape == (2, 24, 24, 4)  # channels, times of day, leads, regressors
    assert est.intercept_.shape == (2, 24, 24) and est.n_phases_ == 24 and est.horizon_ == 24
    assert list(est.seasonal_lags_) == [24, 168] and list(est.lags_) == [1, 2]
    # y(t) = y(t - 1 week) exactly: weight 1 on the weekly lag, 0 elsewhere, per channel
    # (at lead 24 the daily lag is the origin itself, lag 1: tiny opposite weights remain)
    np.testing.assert_allclose(est.coef_[..., 3], 1.0, atol=1e-5)
    np.testing.assert_allclose(est.coef_[..., :3], 0.0, atol=1e-5)
    fc = est.predict(horizon=60)  # 24 direct leads, then continued from its own forecasts
    truth = df.iloc[len(train) : len(train) + 60]
    pd.testing.assert_index_equal(fc.index, truth.index, check_names=False)
    np.testing.assert_allclose(fc.to_numpy(), truth.to_numpy(), atol=1e-6)
    # several series are pooled into one model
    other, _ = weekly_frame(7, seed=1)
    both = LinearLagForecaster(lags=2, horizon=24, alpha=1e-9, calendar=False)
    both.fit({"x": train, "y": other.iloc[: len(train)]})
    out = both.predict(horizon=30)
    np.testing.assert_allclose(out["y"].to_numpy(), other.iloc[len(train) :][:30], atol=1e-6)
    # new history without refitting, and every origin at once
    prefix = df.iloc[: 168 * 3 + 7]
    np.testing.assert_allclose(
        est.predict(horizon=5, history=prefix).to_numpy(), df.iloc[len(prefix) :][:5], atol=1e-6
    )
    origins = df.index[[300, 301, 700]]
    many = est.predict_origins(df, origins, horizon=30)
    for origin, part in many.groupby("origin"):
        one = est.predict(horizon=30, history=df.loc[:origin])
        np.testing.assert_allclose(part[["a", "b"]].to_numpy(), one.to_numpy(), rtol=1e-12)


def test_uses_future_covariates_at_the_target_time():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, 300)
    df = pd.DataFrame({"load": 3 * x + 5, "x": x}, index=pd.date_range("2023-01-01", periods=300))
    est = LinearLagForecaster(
        lags=1, seasonal_lags=(), horizon=3, alpha=1e-9, calendar=False, future_covariates=["x"]
    ).fit(df.iloc[:250])
    fc = est.predict(horizon=5, future=df)  # leads 4 and 5 continue from leads 1-3
    np.testing.assert_allclose(fc["load"].to_numpy(), 3 * x[250:255] + 5, atol=1e-6)


def share(*states):
    de = REGION_POPULATION["DE"]
    return sum(de[s] for s in states) / sum(de.values())


def test_learns_regional_holidays_on_daily_data():
    # Working days 12, weekends 10, minus 4 x the population share on a public holiday that
    # falls on a working day: y(t) = y(t - 7 days) - 4 h(t) + 4 h(t - 7 days) exactly.
    from forecast.models.baselines._direct import day_table

    index = pd.date_range("2020-01-01", "2023-12-31", freq="D", tz=BERLIN)
    days = (index.tz_localize(None) - pd.Timestamp("1970-01-01")).days.to_numpy()
    table = day_table(days, "DE")
    y = 10 + 2 * table[:, :5].sum(axis=1) - 4 * table[:, 9]  # column 9: share on a workday
    df = pd.DataFrame({"load": y}, index=index)
    est = LinearLagForecaster(lags=7, alpha=1e-9, country="DE").fit(df.loc[:"2022-12-31"])
    assert est.n_phases_ == 1 and list(est.seasonal_lags_) == [7] and est.horizon_ == 2
    corpus_christi = share("BW", "BY", "HE", "NW", "RP", "SL")
    assert corpus_christi == pytest.approx(0.64406, abs=1e-5)
    fc = est.predict(horizon=2, history=df.loc[:"2023-06-07"])  # Thursday, bridge Friday
    np.testing.assert_allclose(fc["load"], [12 - 4 * corpus_christi, 12.0], atol=1e-4)
    # a week later: last Thursday's holiday must not lower this Thursday
    fc = est.predict(horizon=2, history=df.loc[:"2023-06-14"])
    np.testing.assert_allclose(fc["load"], [12.0, 12.0], atol=1e-4)
    all_saints = share("BW", "BY", "NW", "RP", "SL")  # Wednesday 2023-11-01
    fc = est.predict(horizon=1, history=df.loc[:"2023-10-31"])
    np.testing.assert_allclose(fc["load"], [12 - 4 * all_saints], atol=1e-4)


def test_local_wall_clock_across_the_autumn_change():
    # load depends on the local hour and weekday only: exactly periodic over a local week
    index = pd.date_range("2023-09-01", "2023-11-15", freq="h", tz="UTC")
    local = index.tz_convert(BERLIN)
    y = 50 + 10 * np.sin(2 * np.pi * local.hour / 24) + 3 * (local.day_of_week >= 5)
    df = pd.DataFrame({"load": y}, index=index)
    est = LinearLagForecaster(lags=3, alpha=1e-9, calendar=False, timezone=BERLIN)
    est.fit(df.loc[:"2023-10-20"])
    # issued at 12:00 CEST on 2023-10-28 for the 25-hour day 2023-10-29 and the day after
    origin = pd.Timestamp("2023-10-28 11:00", tz=BERLIN)
    fc = est.predict(horizon=60, history=df.loc[:origin])
    truth = df.loc[fc.index, "load"]
    np.testing.assert_allclose(fc["load"], truth, atol=1e-6)
    stamps = fc.index.tz_convert(BERLIN)
    both_two = (stamps.hour == 2) & (stamps.day == 29)  # 02:00 CEST and 02:00 CET
    assert both_two.sum() == 2 and fc["load"][both_two].nunique() == 1
    second_two = pd.Timestamp("2023-10-29 01:00", tz="UTC")  # 02:00 CET, the repeated hour
    origins = pd.DatetimeIndex([origin.tz_convert("UTC"), second_two])
    many = est.predict_origins(df, origins, horizon=30)
    for o, part in many.groupby("origin"):
        one = est.predict(horizon=30, history=df.loc[:o])
        np.testing.assert_allclose(part["load"].to_numpy(), one["load"].to_numpy(), rtol=1e-12)
        np.testing.assert_allclose(part["load"].to_numpy(), df.loc[one.index, "load"], atol=1e-6)


def test_other_frequencies_and_clear_errors():
    months = pd.date_range("2010-01-01", periods=96, freq="MS")
    monthly = pd.DataFrame({"y": np.tile(np.arange(12.0), 8)}, index=months)
    est = LinearLagForecaster(lags=12, alpha=1e-9).fit(monthly.iloc[:90])
    assert est.horizon_ == 1 and est.n_phases_ == 1 and len(est.seasonal_lags_) == 0
    np.testing.assert_allclose(est.predict(horizon=6)["y"], np.arange(6.0, 12.0), atol=1e-6)
    hourly = pd.DataFrame({"y": np.arange(100.0)}, index=pd.date_range("2023-01-01", periods=100))
    cases = [
        (LinearLagForecaster(seasonal_lags="1D"), "seasonal_lags must be 'auto' or a list"),
        (LinearLagForecaster(horizon=0), "horizon must be a positive number of steps"),
        (LinearLagForecaster(lags=120), r"has 100 steps; LinearLagForecaster needs more than 120"),
    ]
    for est, message in cases:
        with pytest.raises(ValueError, match=message):
            est.fit(hourly)
    with pytest.raises(ValueError, match="horizon='2D' is a time span, but the data frequency MS"):
        LinearLagForecaster(lags=2, horizon="2D").fit(monthly)
    fast = pd.DataFrame(
        {"y": np.sin(np.arange(3000) / 50)}, index=pd.date_range("2000", periods=3000, freq="20ms")
    )
    with pytest.raises(ValueError, match="pass by_time_of_day=False"):
        LinearLagForecaster(lags=10, seasonal_lags=()).fit(fast)
    est = LinearLagForecaster(lags=10, seasonal_lags=(), by_time_of_day=False, horizon=25)
    fc = est.fit(fast).predict(horizon=40)
    np.testing.assert_allclose(fc["y"], np.sin(np.arange(3000, 3040) / 50), atol=1e-3)
