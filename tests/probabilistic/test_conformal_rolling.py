import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast import ConformalForecaster, Naive, SeasonalNaive, backtest, load
from forecast.probabilistic.rolling import calibration_origins, replay_origins
from tests.conftest import make_series
from tests.probabilistic.test_conformal import noise_series


def alternating_walk(n=30):
    """Daily series with increments d_i = (-1)^i * i: a naive forecast from day o misses by
    d_(o+1), so its absolute residuals count up 1, 2, 3, ..."""
    d = np.array([(-1) ** i * i for i in range(n)], dtype=float)
    index = pd.date_range("2023-01-01", periods=n, freq="D")
    return pd.DataFrame({"load": 100 + np.cumsum(d)}, index=index)


def rolling(estimator=None, **kw):
    kw = {"coverage": 0.8, "horizon": 1, "stride": 1, "window": "9D"} | kw
    return ConformalForecaster(estimator or Naive(), **kw)


def test_rolling_quantiles_by_hand():
    df = alternating_walk()
    origins = df.index[10:29]
    t = np.arange(10, 29)
    # origin t: the 9 forecasts issued on days t-9 .. t-1 missed by d_(t-8) .. d_t
    sym = (
        rolling(method="symmetric")
        .fit(df.iloc[:10])
        .predict_origins(df, origins, 1, quantiles=True)
    )
    # |d| sorted = t-8 .. t; alpha 0.2 takes rank ceil(10 * 0.8) = 8 of 9: t - 1
    np.testing.assert_allclose(sym["load_q0.9"] - sym["load"], t - 1)
    np.testing.assert_allclose(sym["load"] - sym["load_q0.1"], t - 1)
    signed = (
        rolling(method="signed").fit(df.iloc[:10]).predict_origins(df, origins, 1, quantiles=True)
    )
    # ranks floor(10 * 0.1) = 1 and ceil(10 * 0.9) = 9: the extremes of d_(t-8) .. d_t,
    # -(largest odd index) and +(largest even index)
    low = -np.where(t % 2 == 1, t, t - 1)
    high = np.where(t % 2 == 0, t, t - 1)
    np.testing.assert_allclose(signed["load_q0.1"] - signed["load"], low)
    np.testing.assert_allclose(signed["load_q0.9"] - signed["load"], high)
    # the fit keeps the window before its end: predict() without history uses it
    model = rolling(method="symmetric").fit(df.iloc[:20])  # last origin: day 19
    assert model.predict(1, quantiles=True).iloc[0, 2] - df["load"].iloc[19] == 18
    assert model.calibration_start_ == df.index[10] and model.n_calibration_ == 9


def test_no_value_after_an_origin_reaches_its_interval():
    df = noise_series(24 * 20, seed=4)
    kw = {"horizon": 6, "stride": 3, "window": "4D", "by_hour": False, "coverage": 0.8}
    origins = df.index[24 * 10 : 24 * 19 : 5]
    cut = origins[20]
    for adaptive in (False, True):
        model = rolling(adaptive=adaptive, gamma=0.05, **kw).fit(df.iloc[: 24 * 10])
        clean = model.predict_origins(df, origins, 6, quantiles=True)
        corrupt = df.copy()
        corrupt.loc[corrupt.index > cut, "load"] = 1e6
        dirty = model.predict_origins(corrupt, origins, 6, quantiles=True)
        early = pd.DatetimeIndex(clean["origin"]) <= cut
        pd.testing.assert_frame_equal(dirty[early], clean[early])
        assert not np.allclose(dirty.loc[~early, "load_q0.9"], clean.loc[~early, "load_q0.9"])
        # the value at the origin itself is observed: the forecast issued 6 h before (two
        # strides) ends there, so corrupting it moves the bounds of the forecast issued at the
        # cut (relative to its point forecast, which moves too)
        at_cut = df.copy()
        at_cut.loc[cut, "load"] = 1e6
        moved = model.predict_origins(at_cut, [cut], 6, quantiles=True)
        before = clean[clean["origin"] == cut]
        up = [(f["load_q0.9"] - f["load"]).to_numpy()[-1] for f in (moved, before)]
        assert up[0] > up[1]  # step 6: one residual of 1e6 pushes the order statistic up


def test_rolling_calibration_follows_a_change_in_the_noise():
    n = 24 * 80
    df = noise_series(n, scale=np.where(np.arange(n) < 24 * 40, 1.0, 1.6), seed=3)
    kw = {"horizon": 6, "coverage": 0.8, "stride": 6, "by_hour": False}
    static = ConformalForecaster(Naive(), calibration="20D", **kw).fit(df.iloc[: 24 * 40])
    moving = rolling(window="15D", **kw).fit(df.iloc[: 24 * 40])
    origins = df.index[24 * 60 : n - 6 : 6]  # the window lies after the change
    cover = {}
    for name, model in (("static", static), ("rolling", moving)):
        pred = model.predict_origins(df, origins, 6, quantiles=True)
        y = df["load"].reindex(pd.DatetimeIndex(pred["time"])).to_numpy()
        cover[name] = ((y >= pred["load_q0.1"]) & (y <= pred["load_q0.9"])).mean()
    assert cover["static"] < 0.7  # calibrated on the quiet period (expected 0.58)
    assert cover["rolling"] == pytest.approx(0.8, abs=0.05)
    # predict(history=...) calibrates on the window before the history's end
    last = moving.predict(6, history=df.loc[: origins[-1]], quantiles=True)
    same = moving.predict_origins(df, origins[-1:], 6, quantiles=True)
    np.testing.assert_allclose(last.to_numpy(), same.iloc[:, 2:].to_numpy())


def test_daily_origins_keep_their_local_clock_time_across_dst():
    tz = "Europe/Berlin"
    query = pd.DatetimeIndex(["2023-03-28 11:00"]).tz_localize(tz)
    cal = calibration_origins(query, pd.Timedelta("1D"), 3, pd.Timedelta("38h"), tz)
    # the day before is not observed 38 h later; then 11:00 CEST and 11:00 CET
    assert cal[0] is pd.NaT
    assert [str(t) for t in cal[1:]] == ["2023-03-26 11:00:00+02:00", "2023-03-25 11:00:00+01:00"]
    elapsed = calibration_origins(query, pd.Timedelta("1D"), 3, pd.Timedelta("38h"), None)
    assert str(elapsed[2]) == "2023-03-25 10:00:00+01:00"  # 72 elapsed hours
    # 02:30 on 26 March does not exist in Berlin: skipped
    night = pd.DatetimeIndex(["2023-03-27 02:30"]).tz_localize(tz)
    assert calibration_origins(night, pd.Timedelta("1D"), 2, pd.Timedelta("1h"), tz)[0] is pd.NaT
    start = pd.Timestamp("2023-03-25 11:00", tz=tz)
    replay = replay_origins(start, pd.Timestamp("2023-03-27 12:00", tz=tz), pd.Timedelta("1D"), tz)
    assert [t.hour for t in replay] == [11, 11, 11]


def test_short_windows_and_histories_say_what_is_missing():
    df = noise_series(24 * 20)
    with pytest.raises(ValueError, match=r"window=.3D. before origin .* holds 3 forecast\(s\) "
                       r"whose 6 steps are observed by then \(18 residual\(s\)\); coverage 0.95 "
                       r"needs at least 39: lengthen the window \(the history runs from "
                       r"2023-01-01 00:00:00 to"):  # fmt: skip
        ConformalForecaster(Naive(), coverage=0.95, horizon=6, stride=24, window="3D").fit(df)
    with pytest.raises(ValueError, match=r"window='30D' before origin 2023-01-20 23:00:00 needs "
                       r"the forecast issued at 2022-12-21 23:00:00, which needs history from "
                       r"2022-12-21 23:00:00 \(1 row\(s\) of context\); the history runs from "
                       r"2023-01-01 00:00:00 to 2023-01-20 23:00:00"):  # fmt: skip
        ConformalForecaster(Naive(), horizon=6, stride=24, window="30D").fit(df)
    model = ConformalForecaster(Naive(), horizon=6, stride=24, window="8D").fit(df)
    with pytest.raises(ValueError, match=r"window='8D' before origin .* needs the forecast"):
        model.predict(6, history=df.iloc[-24 * 5 :], quantiles=True)
    assert list(model.predict(6, history=df.iloc[-24 * 5 :]).columns) == ["load"]
    with pytest.raises(ValueError, match=r"window must be None .* or a positive duration"):
        ConformalForecaster(Naive(), window="soon").fit(df)
    with pytest.raises(ValueError, match=r"window='12h' is shorter than one stride"):
        ConformalForecaster(Naive(), horizon=6, stride=24, window="12h").fit(df)


def test_rolling_model_round_trips_and_clones(tmp_path):
    df = noise_series(24 * 30, tz="Europe/Berlin")
    model = ConformalForecaster(
        SeasonalNaive(season="1D"), coverage=(0.8, 0.95), horizon=6, stride=2, window="5D",
        adaptive=True, gamma=0.02,
    ).fit(df.iloc[: 24 * 20])  # fmt: skip
    assert clone(model).get_params()["window"] == "5D"
    model.save(tmp_path / "m")
    loaded = load(tmp_path / "m")
    assert loaded.get_params(deep=False)["window"] == "5D"
    pd.testing.assert_frame_equal(
        loaded.predict(6, quantiles=True), model.predict(6, quantiles=True)
    )
    origins = df.index[24 * 21 : 24 * 29 : 7]
    pd.testing.assert_frame_equal(
        loaded.predict_origins(df, origins, 6, quantiles=True),
        model.predict_origins(df, origins, 6, quantiles=True),
    )


def test_day_ahead_backtest_of_a_rolling_model_scores_its_intervals():
    df = make_series(24 * 60, tz="Europe/Berlin")
    model = ConformalForecaster(
        SeasonalNaive(season="1D"), coverage=(0.8, 0.95), horizon=36, stride=24, window="45D",
    )  # fmt: skip
    res = backtest(model, df, protocol="day-ahead", start="2023-02-20", end="2023-02-27")
    fc = res.forecasts
    levels = ["y_pred_q0.025", "y_pred_q0.1", "y_pred_q0.9", "y_pred_q0.975"]
    assert (np.diff(fc[levels].to_numpy(), axis=1) >= 0).all()
    assert np.isfinite(res.metrics.loc["overall", ["crps", "coverage_80", "width_95"]]).all()
    # the same intervals as the fitted wrapper forecasting those origins itself
    fitted = clone(model).fit(df.loc[: res.folds["train_end"].iloc[0]])
    again = fitted.predict_origins(df, res.forecasts["origin"].unique(), 36, quantiles=True)
    merged = fc.merge(again, on=["origin", "time"])
    np.testing.assert_allclose(merged["y_pred_q0.9"], merged["load_q0.9"])
