import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast.models.baselines import (
    ETSForecaster,
    ExternalForecast,
    LinearLagForecaster,
    MSTLForecaster,
    Naive,
    SARIMAXForecaster,
    SeasonalNaive,
)

ALL = [
    Naive(),
    SeasonalNaive(season="1D", n_seasons=2),
    ETSForecaster(trend="add", damped_trend=True, seasonal_periods=24),
    SARIMAXForecaster(order=(1, 0, 0), seasonal_order=(1, 0, 0, "1D"), future_covariates=["x"]),
    MSTLForecaster(periods=("1D", "7D"), trend_model="arima", train_window="21D"),
    LinearLagForecaster(lags=(1, 2, "1D"), alpha=0.5, calendar=False),
    ExternalForecast(column=["f1", "f2"]),
]


def frame(values, start="2023-01-02", freq="h", tz=None, name="load"):
    values = np.asarray(values, dtype=float)
    index = pd.date_range(start, periods=len(values), freq=freq, tz=tz)
    return pd.DataFrame({name: values}, index=index)


def seasonal(n, level=10.0, seed=0, noise=0.1, weekly=0.0):
    """Hourly series with a daily sine (and optionally a weekly one); returns (df, clean)."""
    t = np.arange(n)
    clean = level + 3 * np.sin(2 * np.pi * t / 24) + weekly * np.sin(2 * np.pi * t / 168)
    noisy = clean + noise * np.random.default_rng(seed).standard_normal(n)
    return frame(noisy), clean


# ------------------------------------------------------------------ estimator API
@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
def test_clone_get_params_round_trip(est):
    twin = clone(est)
    assert type(twin) is type(est) and twin.get_params() == est.get_params()
    for key, value in est.get_params().items():
        assert getattr(est, key) is value  # stored verbatim
    assert not [k for k in vars(twin) if k.endswith("_")]
    twin.set_params(**est.get_params())
    assert twin.get_params() == est.get_params()


def test_invalid_params_fail_in_fit_not_init():
    df, _ = seasonal(24 * 4)
    cases = [
        (SeasonalNaive(season="90min"), "not a positive whole multiple"),
        (SeasonalNaive(season="1D", n_seasons=0), "n_seasons"),
        (ETSForecaster(seasonal="both"), "seasonal must be None"),
        (ETSForecaster(trend=None, damped_trend=True), "damped_trend"),
        (SARIMAXForecaster(order=(1, 0)), "order must be a tuple of 3"),
        (MSTLForecaster(periods="1D"), "periods must be a non-empty list"),
        (MSTLForecaster(trend_model="prophet"), "trend_model"),
        (LinearLagForecaster(lags=0, calendar=False), "lags"),
        (LinearLagForecaster(alpha=-1, calendar=False), "alpha"),
    ]
    for est, message in cases:
        with pytest.raises(ValueError, match=message):
            est.fit(df)


# ------------------------------------------------------------------------ naive
def test_naive_repeats_last_value_per_channel_and_series():
    df = frame([1, 2, 3, 4, 5])
    df["other"] = [10.0, 20, 30, 40, 50]
    fc = Naive().fit(df).predict(horizon=3)
    assert fc["load"].tolist() == [5.0] * 3 and fc["other"].tolist() == [50.0] * 3
    assert fc.index[0] == df.index[-1] + pd.Timedelta("1h") and len(fc) == 3
    new = frame([7, 8, 9], start="2023-02-01")
    new["other"] = [1.0, 2, 3]
    again = Naive().fit(df).predict(horizon=2, history=new)
    assert again.to_numpy().tolist() == [[9.0, 3.0], [9.0, 3.0]]
    assert again.index[0] == pd.Timestamp("2023-02-01 03:00")
    out = Naive().fit({"a": frame([1, 2, 3]), "b": frame([4, 5, 6])}).predict(horizon=2)
    assert out["a"]["load"].tolist() == [3.0, 3.0] and out["b"]["load"].tolist() == [6.0, 6.0]


# --------------------------------------------------------------- seasonal naive
def test_seasonal_naive_hand_computed():
    df = frame(np.arange(9.0))  # 0 .. 8, season 3
    # last season [6, 7, 8] repeated over 5 steps
    assert SeasonalNaive(season=3).fit(df).predict(horizon=5)["load"].tolist() == [6, 7, 8, 6, 7]
    # mean of seasons [3, 4, 5] and [6, 7, 8] = [4.5, 5.5, 6.5]
    avg = SeasonalNaive(season="3h", n_seasons=2).fit(df).predict(horizon=4)
    assert avg["load"].tolist() == [4.5, 5.5, 6.5, 4.5]
    # three seasons: mean of [0,1,2], [3,4,5], [6,7,8] = [3, 4, 5]
    assert SeasonalNaive(season=3, n_seasons=3).fit(df).predict(horizon=3)["load"].tolist() == [
        3,
        4,
        5,
    ]
    with pytest.raises(ValueError, match="at least 12 are needed"):
        SeasonalNaive(season=3, n_seasons=4).fit(df)


def test_seasonal_naive_predict_from_new_history_needs_enough_rows():
    model = SeasonalNaive(season=4).fit(frame(np.arange(8.0)))
    history = frame([10.0, 20, 30, 40, 50], start="2023-05-01")
    fc = model.predict(horizon=5, history=history)
    assert fc["load"].tolist() == [20.0, 30.0, 40.0, 50.0, 20.0]
    assert fc.index[0] == pd.Timestamp("2023-05-01 05:00")
    assert len(model.train_tail_[None]) == 4  # only one season is kept after fit
    with pytest.raises(ValueError, match="3 rows, but at least 4 are needed"):
        model.predict(horizon=1, history=history.iloc[:3])


BERLIN = "Europe/Berlin"


def berlin_hours(first_day, last_day):
    """Hourly Berlin frame from 00:00 of first_day to 23:00 of last_day, values 0, 1, 2, ..."""
    index = pd.date_range(f"{first_day} 00:00", f"{last_day} 23:00", freq="h", tz=BERLIN)
    return pd.DataFrame({"load": np.arange(len(index), dtype=float)}, index=index)


def test_seasonal_naive_same_local_hour_after_spring_change():
    # 2023-03-25 has 24 hours (rows 0-23); on 2023-03-26 02:00 does not exist: 00:00 -> 24,
    # 01:00 -> 25, 03:00 -> 26, ..., 23:00 -> 46.
    df = berlin_hours("2023-03-25", "2023-03-26")
    assert len(df) == 47
    fc = SeasonalNaive(season="1D").fit(df).predict(horizon=24)
    expected_index = pd.date_range("2023-03-27 00:00", periods=24, freq="h", tz=BERLIN)
    pd.testing.assert_index_equal(fc.index, expected_index, check_names=False)
    # same local hour yesterday; the skipped 02:00 is the mean of 01:00 and 03:00
    assert fc["load"].tolist() == [24.0, 25.0, 25.5] + list(np.arange(26.0, 47.0))
    # an int season counts elapsed steps: 00:00 CEST comes from 23:00 CET two days before
    elapsed = SeasonalNaive(season=24).fit(df).predict(horizon=24)
    assert elapsed["load"].tolist() == list(np.arange(23.0, 47.0))
    # the forecast of the 23-hour day itself takes each hour from the day before
    day = SeasonalNaive(season="1D").fit(df.iloc[:24]).predict(horizon=23)
    assert day["load"].tolist() == [0.0, 1.0] + list(np.arange(3.0, 24.0))
    # a UTC index with timezone= gives the same forecast
    utc = SeasonalNaive(season="1D", timezone=BERLIN).fit(df.tz_convert("UTC"))
    assert utc.predict(horizon=24)["load"].tolist() == fc["load"].tolist()
    # without timezone a UTC index has no clock change: 24 elapsed hours
    plain = SeasonalNaive(season="1D").fit(df.tz_convert("UTC")).predict(horizon=24)
    assert plain["load"].tolist() == elapsed["load"].tolist()


def test_seasonal_naive_same_local_hour_after_autumn_change():
    # 2023-10-29 has 25 hours: 00:00 -> 24, 01:00 -> 25, 02:00 CEST -> 26, 02:00 CET -> 27,
    # 03:00 -> 28, ..., 23:00 -> 48.
    df = berlin_hours("2023-10-28", "2023-10-29")
    assert len(df) == 49
    fc = SeasonalNaive(season="1D").fit(df).predict(horizon=24)
    # the repeated 02:00 is read as the mean of its two values (26 and 27)
    assert fc["load"].tolist() == [24.0, 25.0, 26.5] + list(np.arange(28.0, 49.0))
    # forecasting the 25-hour day: both 02:00 get the value of 02:00 the day before
    day = SeasonalNaive(season="1D").fit(df.iloc[:24]).predict(horizon=25)
    assert day.index[2].utcoffset() == pd.Timedelta("2h")
    assert day.index[3].utcoffset() == pd.Timedelta("1h")
    assert day["load"].tolist() == [0.0, 1.0, 2.0, 2.0] + list(np.arange(3.0, 24.0))
    # two seasons: the mean of the same local hour one and two days before
    two = SeasonalNaive(season="1D", n_seasons=2).fit(df).predict(horizon=4)
    assert two["load"].tolist() == [12.0, 13.0, 14.25, 15.5]  # (24+0)/2, (25+1)/2, ...


def test_seasonal_naive_last_week_across_the_spring_change():
    # 2023-03-19 .. 2023-03-26: 8 days, the last one 23 hours; 03-20 00:00 is row 24
    df = berlin_hours("2023-03-19", "2023-03-26")
    fc = SeasonalNaive(season="7D").fit(df).predict(horizon=24)  # 2023-03-27, summer time
    assert fc["load"].tolist() == list(np.arange(24.0, 48.0))  # 2023-03-20, same hours
    elapsed = SeasonalNaive(season=168).fit(df).predict(horizon=24)
    assert elapsed["load"].tolist() == list(np.arange(23.0, 47.0))  # one hour early
    # the training tail keeps one extra hour for the week that holds 169 hours in autumn
    assert len(SeasonalNaive(season="7D").fit(df).train_tail_[None]) == 169
    # a history one hour short of a local week across the autumn change is reported
    autumn = berlin_hours("2023-10-23", "2023-10-29").iloc[-168:]
    with pytest.raises(ValueError, match="covers 167 local wall-clock steps; 1 season"):
        SeasonalNaive(season="7D").fit(autumn).predict(horizon=1)


# ------------------------------------------------------------- external forecast
def test_external_forecast_returns_the_column_exactly():
    n = 30
    rng = np.random.default_rng(1)
    df = frame(rng.normal(50_000, 5_000, n))
    df["forecast"] = rng.normal(50_000, 5_000, n) * np.pi + 1e-7  # awkward floats
    est = ExternalForecast().fit(df.iloc[:20])
    assert est.future_covariates_ == ["forecast"] and est.columns_ == ["load"]
    fc = est.predict(horizon=6, future=df)
    assert list(fc.columns) == ["load"]
    np.testing.assert_array_equal(fc["load"].to_numpy(), df["forecast"].to_numpy()[20:26])
    # from a new history, without refit
    fc2 = est.predict(horizon=3, history=df.iloc[:25], future=df)
    np.testing.assert_array_equal(fc2["load"].to_numpy(), df["forecast"].to_numpy()[25:28])
    # many origins at once
    origins = df.index[[10, 15, 20]]
    many = est.predict_origins(df, origins, horizon=4)
    for origin, part in many.groupby("origin"):
        pos = df.index.get_loc(origin)
        np.testing.assert_array_equal(
            part["load"].to_numpy(), df["forecast"].to_numpy()[pos + 1 : pos + 5]
        )
    with pytest.raises(ValueError, match="pass future=DataFrame"):
        est.predict(horizon=2)


def test_external_forecast_several_targets_map_in_order():
    df = frame(np.arange(10.0), name="a")
    df["b"] = 100 + np.arange(10.0)
    df["fa"] = 0.5 + np.arange(10.0)
    df["fb"] = 200 + np.arange(10.0)
    est = ExternalForecast(column=["fa", "fb"]).fit(df.iloc[:8])
    fc = est.predict(horizon=2, future=df)
    assert list(fc.columns) == ["a", "b"]
    assert fc.to_numpy().tolist() == [[8.5, 208.0], [9.5, 209.0]]
    with pytest.raises(ValueError, match="one per target"):
        ExternalForecast(column="fa").fit(df[["a", "b", "fa"]])


def test_external_forecast_ignores_gaps_it_does_not_forecast():
    df = frame(np.arange(10.0) * 100)
    df["forecast"] = np.arange(10.0) * 100 + 1
    df.iloc[2, 1] = np.nan  # a gap in the forecast column of a training row
    df.iloc[3, 0] = np.nan  # and one in the target
    before = df.copy()
    est = ExternalForecast().fit(df.iloc[:6])
    np.testing.assert_array_equal(est.predict(horizon=2, future=df)["load"], [601.0, 701.0])
    many = est.predict_origins(df, df.index[[4, 6]], horizon=3)
    np.testing.assert_array_equal(many["load"], [501.0, 601, 701, 701, 801, 901])
    pd.testing.assert_frame_equal(df, before)
    # a gap in a row that is forecast is reported with its column and timestamp
    with pytest.raises(
        ValueError,
        match=r"'forecast' has no value \(nan\) at forecast timestamp "
        r"2023-01-02 02:00:00 \(forecast issued after 2023-01-02 00:00:00\)",
    ):
        est.predict_origins(df, df.index[[0, 4]], horizon=3)
    with pytest.raises(ValueError, match="future covariate column 'forecast' has 3 non-finite"):
        est.predict(horizon=3, history=df.iloc[:4], future=df.iloc[4:].assign(forecast=np.nan))
    # nan_policy="interpolate" fills the forecast column in time: (101 + 301) / 2 at row 2
    filled = ExternalForecast(nan_policy="interpolate").fit(df.iloc[:6])
    got = filled.predict_origins(df, df.index[[0]], horizon=3)["load"].tolist()
    assert got == [101.0, 201.0, 301.0]


def M_mae(a, b):
    return float(np.mean(np.abs(np.asarray(a) - np.asarray(b))))


# ------------------------------------------------------------------ statsmodels
def test_ets_forecasts_a_seasonal_series():
    df, clean = seasonal(24 * 16)
    _, future = seasonal(24 * 17)
    est = ETSForecaster(seasonal="add", seasonal_periods="1D").fit(df)
    fc = est.predict(horizon=24)
    pd.testing.assert_index_equal(fc.index, pd.date_range(df.index[-1], periods=25, freq="h")[1:])
    assert list(fc.columns) == ["load"]
    assert M_mae(fc["load"], future[-24:]) < 0.2
    assert M_mae(Naive().fit(df).predict(horizon=24)["load"], future[-24:]) > 1.5
    # re-applying the fitted parameters to the training frame reproduces predict()
    pd.testing.assert_frame_equal(est.predict(horizon=24, history=df), fc)
    # a new history (level +5) shifts the forecast without refitting
    shifted = df + 5.0
    fc_new = est.predict(horizon=24, history=shifted)
    assert M_mae(fc_new["load"], future[-24:] + 5) < 0.3


def test_ets_per_series_and_channel_and_unknown_series():
    a, _ = seasonal(24 * 10, level=10)
    b, _ = seasonal(24 * 10, level=100, seed=1)
    a["second"] = -a["load"]
    b["second"] = -b["load"]
    est = ETSForecaster(seasonal_periods=24, train_window="7D").fit({"a": a, "b": b})
    assert len(est.params_["a"]) == 2 and len(est.train_tail_["a"]) == 168
    fc = est.predict(horizon=6)
    assert abs(fc["a"]["load"].mean() - 10) < 3 and abs(fc["b"]["load"].mean() - 100) < 3
    np.testing.assert_allclose(fc["a"]["second"], -fc["a"]["load"], atol=0.1)
    with pytest.raises(ValueError, match="series 'c' was not seen in fit"):
        est.predict(horizon=2, history={"c": a})
    with pytest.raises(ValueError, match="train_window='1D' is 24 steps, below the 48"):
        ETSForecaster(seasonal_periods=24, train_window="1D").fit(a)


def test_sarimax_with_future_covariates():
    # daily sine as regressors plus AR(1) noise with phi = 0.8
    rng = np.random.default_rng(0)
    noise = np.zeros(240)
    for i in range(1, 240):
        noise[i] = 0.8 * noise[i - 1] + 0.2 * rng.standard_normal()
    df = frame(10 + 3 * np.sin(2 * np.pi * np.arange(240) / 24) + noise)
    t = np.arange(24 * 11)
    known = pd.DataFrame(
        {"s": np.sin(2 * np.pi * t / 24), "c": np.cos(2 * np.pi * t / 24)},
        index=pd.date_range(df.index[0], periods=len(t), freq="h"),
    )
    data = df.join(known)
    est = SARIMAXForecaster(order=(1, 0, 0), trend="c", future_covariates=["s", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data)
    assert est.columns_ == ["load"] and len(est.params_[None][0]) == 5  # c, s, c, ar, sigma2
    fc = est.predict(horizon=24, future=known)
    truth = 10 + 3 * np.sin(2 * np.pi * t[-24:] / 24)
    assert M_mae(fc["load"], truth) < 0.3
    # new history without refit: raising only the last value by 2 raises the one-step
    # forecast c + b'x_{T+1} + phi (y_T - c - b'x_T) by exactly 2 phi
    phi = est.params_[None][0][3]
    assert 0.6 < phi < 0.95
    bumped = data.copy()
    bumped.iloc[-1, 0] += 2.0
    fc_new = est.predict(horizon=24, history=bumped, future=known)
    assert fc_new["load"].iloc[0] - fc["load"].iloc[0] == pytest.approx(2 * phi, rel=1e-6)
    with pytest.raises(ValueError, match="future covariates"):
        est.predict(horizon=24)


def test_sarimax_seasonal_period_as_offset():
    t = np.arange(120 + 12)
    clean = 10 + 3 * np.sin(2 * np.pi * t / 6)  # a 6-hour cycle keeps the state small
    df = frame(clean[:120] + 0.05 * np.random.default_rng(0).standard_normal(120))
    est = SARIMAXForecaster(order=(1, 0, 0), seasonal_order=(1, 0, 0, "6h"), trend="c")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(df)
        fc = est.predict(horizon=12)
    assert est.spec_["seasonal_order"] == (1, 0, 0, 6)
    assert M_mae(fc["load"], clean[120:]) < 0.5


@pytest.mark.parametrize("trend_model", ["ets", "arima", "naive"])
def test_mstl_daily_and_weekly_seasons(trend_model):
    n = 24 * 35
    df, _ = seasonal(n, weekly=2.0, noise=0.1)
    t = np.arange(n, n + 24)
    truth = 10 + 3 * np.sin(2 * np.pi * t / 24) + 2 * np.sin(2 * np.pi * t / 168)
    est = MSTLForecaster(periods=("1D", "7D"), trend_model=trend_model, train_window="28D")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fc = est.fit(df).predict(horizon=24)
    assert est.spec_["periods"] == [24, 168] and len(est.train_tail_[None]) == 24 * 28
    assert M_mae(fc["load"], truth) < 0.4
    # a daily-only seasonal naive misses the weekly part
    assert M_mae(SeasonalNaive(season="1D").fit(df).predict(horizon=24)["load"], truth) > 0.4


def test_mstl_predict_from_new_history_and_too_short():
    df, _ = seasonal(24 * 21)
    est = MSTLForecaster(periods=(24,), trend_model="naive", train_window=None).fit(df)
    fc = est.predict(horizon=5, history=df.iloc[:100] + 3.0)
    expected = 13 + 3 * np.sin(2 * np.pi * np.arange(100, 105) / 24)
    assert M_mae(fc["load"], expected) < 0.3
    with pytest.raises(ValueError, match="at least 49 are needed"):
        est.predict(horizon=2, history=df.iloc[:30])


def test_ets_estimated_initialisation_and_multiplicative():
    df, clean = seasonal(24 * 10)
    _, future = seasonal(24 * 11)
    for est in (
        ETSForecaster(seasonal_periods=24, initialization_method="estimated"),
        ETSForecaster(trend="mul", seasonal="mul", seasonal_periods=24),
    ):
        fc = est.fit(df).predict(horizon=24)
        assert M_mae(fc["load"], future[-24:]) < 0.3
        pd.testing.assert_frame_equal(est.predict(horizon=24, history=df), fc)


@pytest.mark.parametrize(
    "est",
    [
        SeasonalNaive(season="1D", n_seasons=2),
        LinearLagForecaster(lags=(1, 2, 24), seasonal_lags=("1D",), calendar=False),
        ETSForecaster(seasonal_periods=24, train_window="4D"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_predict_origins_equals_predict_from_each_prefix(est):
    df, _ = seasonal(24 * 8)
    est.fit(df.iloc[: 24 * 6])
    origins = df.index[[24 * 6, 24 * 7 - 5]]
    many = est.predict_origins(df, origins, horizon=6)
    for origin in origins:
        one = est.predict(horizon=6, history=df.loc[:origin])
        got = many.loc[many["origin"] == origin, "load"].to_numpy()
        np.testing.assert_allclose(got, one["load"].to_numpy(), rtol=1e-12)
