import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast.base import BaseForecaster
from forecast.evaluation.backtest import BacktestResult, backtest, day_ahead_plan
from tests.conftest import make_series

SEEN = []  # (kind, last timestamp seen) recorded by Recorder; clones share nothing else


def mae(y_true, y_pred):
    return float(np.mean(np.abs(y_true - y_pred)))


def bias(y_true, y_pred):
    return float(np.mean(y_pred - y_true))


METRICS = (mae, bias)


class Recorder(BaseForecaster):
    """Forecast = last observed value + mean of the training data * weight.

    Records the last timestamp given to ``_fit`` and to ``_predict`` (per origin).
    """

    _scale_targets = False

    def __init__(self, weight=0.0, future_covariates=None):
        self.weight = weight
        self.future_covariates = future_covariates

    def _fit(self, series, callbacks):
        SEEN.append(("fit", series[0].index[-1]))
        self.level_ = np.mean([s.y.mean(axis=0) for s in series], axis=0)

    def _predict(self, series, horizon):
        SEEN.append(("predict_call", len(series)))
        out = []
        for s in series:
            SEEN.append(("predict", s.index[-1]))
            out.append(np.repeat(s.y[-1:], horizon, axis=0) + self.weight * self.level_)
        return np.stack(out)  # (n_series, horizon, channels)


@pytest.fixture(autouse=True)
def _clear():
    SEEN.clear()


def hourly(start, end, tz="UTC", seed=0):
    index = pd.date_range(start, end, freq="h", tz=tz, inclusive="left")
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"load": 100 + rng.standard_normal(len(index)).cumsum()}, index=index)


def test_result_layout_and_hand_computed_metrics():
    df = make_series(n=120)
    res = backtest(Recorder(), df, horizon=4, start=df.index[100], metrics=METRICS)
    assert isinstance(res, BacktestResult)
    assert list(res.forecasts.columns) == ["origin", "time", "step", "target", "y_pred", "y_true"]
    # scored windows tile [index[100], end]: origins 99, 103, ..., 115 -> 5 forecasts of 4 steps
    assert list(res.origins) == list(df.index[[99, 103, 107, 111, 115]])
    assert res.forecasts["time"].tolist() == df.index[100:120].tolist()
    assert res.forecasts["step"].tolist() == [1, 2, 3, 4] * 5
    # hand computation: last-value forecast from origin p is y[p] for all 4 steps
    y = df["load"].to_numpy()
    errors = np.concatenate([y[p + 1 : p + 5] - y[p] for p in (99, 103, 107, 111, 115)])
    assert res.metrics.loc["overall", "mae"] == pytest.approx(np.abs(errors).mean())
    assert res.metrics.loc["load", "mae"] == pytest.approx(np.abs(errors).mean())
    assert res.metrics.loc["overall", "n"] == 20
    step1 = np.abs([y[p + 1] - y[p] for p in (99, 103, 107, 111, 115)]).mean()
    assert res.by_horizon.loc[1, "mae"] == pytest.approx(step1)
    assert list(res.by_horizon.index) == [1, 2, 3, 4]
    assert res.by_hour is not None and res.by_hour["n"].sum() == 20


def test_no_forecast_sees_data_after_its_origin():
    df = make_series(n=200)
    est = Recorder(weight=0.5)
    res = backtest(est, df, horizon=6, start=df.index[120], refit_every=3, metrics=METRICS)
    fits = [t for kind, t in SEEN if kind == "fit"]
    predicted = [t for kind, t in SEEN if kind == "predict"]
    assert fits == list(res.folds["first_origin"])
    assert sorted(predicted) == list(res.origins)
    # corrupt everything after each origin: the forecasts from that origin (and before) stay put
    clean = res.forecasts.set_index(["origin", "time"])["y_pred"]
    for origin in res.origins[[0, 4, 9]]:
        bad = df.copy()
        bad.loc[bad.index > origin, "load"] = 1e6
        again = backtest(est, bad, horizon=6, start=df.index[120], refit_every=3, metrics=METRICS)
        fc = again.forecasts[again.forecasts["origin"] <= origin].set_index(["origin", "time"])
        pd.testing.assert_series_equal(fc["y_pred"], clean.loc[fc.index])
        later = again.forecasts[again.forecasts["origin"] > origin]
        assert not np.allclose(
            later["y_pred"], clean.loc[later.set_index(["origin", "time"]).index]
        )


def test_estimator_is_cloned_not_mutated():
    df = make_series(n=100)
    est = Recorder(weight=0.25)
    params = est.get_params()
    res = backtest(est, df, horizon=5, start=df.index[80], refit_every=2, metrics=METRICS)
    assert not hasattr(est, "columns_")
    assert est.get_params() == params
    assert res.estimator is not est and hasattr(res.estimator, "level_")


def test_refit_every_and_windows():
    df = make_series(n=150)
    kwargs = dict(horizon=5, start=df.index[100], metrics=METRICS)
    never = backtest(Recorder(), df, **kwargs)
    assert len(never.folds) == 1 and never.folds.loc[0, "train_end"] == df.index[99]
    assert never.folds.loc[0, "n_train"] == 100
    every2 = backtest(Recorder(), df, refit_every=2, **kwargs)
    assert len(every2.origins) == 10 and len(every2.folds) == 5
    assert list(every2.folds["first_origin"]) == list(every2.origins[::2])
    assert list(every2.folds["n_train"]) == [100, 110, 120, 130, 140]
    sliding = backtest(Recorder(), df, refit_every=4, window="sliding", train_size=48, **kwargs)
    assert list(sliding.folds["n_train"]) == [48, 48, 48]
    assert sliding.folds.loc[1, "train_start"] == df.index[119 - 47]
    by_time = backtest(Recorder(), df, window="sliding", train_size="24h", **kwargs)
    assert by_time.folds.loc[0, "n_train"] == 24
    # one batched _predict call per fold, never one per origin
    SEEN.clear()
    backtest(Recorder(), df, refit_every=4, **kwargs)
    assert [n for kind, n in SEEN if kind == "predict_call"] == [4, 4, 2]


def test_lead_schedules_and_explicit_origins():
    df = make_series(n=24 * 10, tz="UTC")
    res = backtest(Recorder(), df, horizon=3, lead=2, start="2023-01-05", metrics=METRICS)
    assert set(res.forecasts["step"]) == {3, 4, 5}
    assert res.forecasts["time"].min() == pd.Timestamp("2023-01-05", tz="Europe/Berlin")
    daily = backtest(
        Recorder(),
        df,
        horizon=24,
        origins="06:00",
        start="2023-01-05",
        end="2023-01-08",
        metrics=METRICS,
        timezone="UTC",
    )
    # issued at 06:00, the origin is the 05:00 step; the last one whose 24 steps end by 01-08
    assert list(daily.origins) == list(
        pd.date_range("2023-01-05 05:00", periods=3, freq="D", tz="UTC")
    )
    weekly = backtest(
        Recorder(), df, horizon=2, origins="2D", start="2023-01-03", metrics=METRICS, timezone="UTC"
    )
    assert (weekly.origins[1:] - weekly.origins[:-1] == pd.Timedelta("2D")).all()
    assert weekly.origins[0] == pd.Timestamp("2023-01-02 23:00", tz="UTC")
    explicit = backtest(
        Recorder(), df, horizon=2, origins=[df.index[50], df.index[30]], metrics=METRICS
    )
    assert list(explicit.origins) == [df.index[30], df.index[50]]
    with pytest.raises(ValueError, match="2023-01-01 10:30:00.*not a timestamp"):
        backtest(
            Recorder(),
            df,
            horizon=2,
            origins=[pd.Timestamp("2023-01-01 10:30", tz="UTC")],
            metrics=METRICS,
        )
    with pytest.raises(ValueError, match="past the end of the data"):
        backtest(Recorder(), df, horizon=5, origins=[df.index[-3]], metrics=METRICS)
    with pytest.raises(ValueError, match="horizon is required"):
        backtest(Recorder(), df, start="2023-01-05", metrics=METRICS)
    with pytest.raises(ValueError, match="sets \\['horizon'\\]"):
        backtest(
            Recorder(), df, horizon=24, protocol="day-ahead", start="2023-01-05", metrics=METRICS
        )
    with pytest.raises(ValueError, match="train_size"):
        backtest(Recorder(), df, horizon=2, start="2023-01-05", window="sliding")
    with pytest.raises(ValueError, match="holds no timestamp"):
        backtest(Recorder(), df, horizon=2, start="2024-01-01", metrics=METRICS)


def dst_data(freq):
    index = pd.date_range("2023-03-20", "2023-11-05", freq=freq, tz="UTC", inclusive="left")
    return pd.DataFrame({"load": np.arange(len(index), dtype=float)}, index=index)


@pytest.mark.parametrize("freq, per_hour", [("1h", 1), ("15min", 4)])
def test_day_ahead_around_dst_by_hand(freq, per_hour):
    df = dst_data(freq)
    last = pd.Timedelta("1h") - pd.Timedelta(freq)  # 11:00 or 11:45 ends at 12:00
    utc = lambda s: pd.Timestamp(s, tz="UTC")  # noqa: E731
    cases = {
        # day D: (issue D-1 12:00 local, first scored step, last scored step, hours)
        "2023-03-25": ("2023-03-24 11:00", "2023-03-24 23:00", "2023-03-25 22:00", 24),
        "2023-03-26": ("2023-03-25 11:00", "2023-03-25 23:00", "2023-03-26 21:00", 23),
        "2023-03-27": ("2023-03-26 10:00", "2023-03-26 22:00", "2023-03-27 21:00", 24),
        "2023-10-29": ("2023-10-28 10:00", "2023-10-28 22:00", "2023-10-29 22:00", 25),
        "2023-10-30": ("2023-10-29 11:00", "2023-10-29 23:00", "2023-10-30 22:00", 24),
    }
    for day, (issue, first, final, hours) in cases.items():
        plan = day_ahead_plan(df.index, day, day)
        assert len(plan) == 1
        row = plan.iloc[0]
        assert row["issue"] == utc(issue)
        assert row["origin"] == utc(issue) - pd.Timedelta("1h") + last
        assert row["first"] == utc(first)
        assert row["last"] == utc(final) + last
        assert row["n_steps"] == hours * per_hour
    res = backtest(
        Recorder(), df, protocol="day-ahead", start="2023-03-25", end="2023-03-27", metrics=METRICS
    )
    per_day = res.forecasts.groupby("origin").size()
    assert list(per_day) == [24 * per_hour, 23 * per_hour, 24 * per_hour]
    assert res.forecasts.groupby("origin")["step"].min().tolist() == [12 * per_hour + 1] * 3
    # the last-value forecast of a ramp 0, 1, 2, ... misses by the step number
    np.testing.assert_allclose(
        res.forecasts["y_true"] - res.forecasts["y_pred"], res.forecasts["step"]
    )
    # hour 2 local does not exist on 26 March; it is scored twice on 29 October
    autumn = backtest(
        Recorder(), df, protocol="day-ahead", start="2023-10-29", end="2023-10-29", metrics=METRICS
    )
    assert autumn.by_hour.loc[2, "n"] == 2 * per_hour and autumn.by_hour.loc[3, "n"] == per_hour
    assert (
        2
        not in res.forecasts.loc[res.forecasts["origin"] == res.origins[1], "time"]
        .dt.tz_convert("Europe/Berlin")
        .dt.hour.tolist()
    )


def test_day_ahead_skips_incomplete_days_and_runs_batched():
    df = hourly("2023-01-01", "2023-01-20")  # starts 01:00 local: 1 January is incomplete
    res = backtest(
        Recorder(), df, protocol="day-ahead", start="2023-01-01", refit_every=7, metrics=METRICS
    )
    days = res.forecasts["time"].dt.tz_convert("Europe/Berlin").dt.normalize().unique()
    assert days[0] == pd.Timestamp("2023-01-02", tz="Europe/Berlin")
    assert days[-1] == pd.Timestamp("2023-01-19", tz="Europe/Berlin")  # 20 Jan ends at 23:00 UTC
    assert [n for kind, n in SEEN if kind == "predict_call"] == [7, 7, 4]
    assert res.settings["protocol"] == "day-ahead" and res.settings["n_fits"] == 3


def test_several_series_and_target_selection():
    a, b = make_series(n=100, seed=1), make_series(n=100, seed=2)
    res = backtest(Recorder(), {"a": a, "b": b}, horizon=4, start=a.index[80], metrics=METRICS)
    assert list(res.forecasts.columns[:2]) == ["origin", "id"]
    assert set(res.forecasts["id"]) == {"a", "b"}
    rows = res.forecasts[(res.forecasts["id"] == "b")]
    np.testing.assert_allclose(rows["y_true"], b["load"].reindex(rows["time"]).to_numpy())
    both = a.assign(other=a["load"] * 2, temp=1.0)
    only = backtest(Recorder(), both, horizon=4, start=a.index[80], target="load", metrics=METRICS)
    assert set(only.forecasts["target"]) == {"load"}
    assert list(only.metrics.index) == ["load", "overall"]
    cov = backtest(
        Recorder(future_covariates=["temp"]),
        both,
        horizon=4,
        start=a.index[80],
        target="load",
        metrics=METRICS,
    )
    assert cov.estimator.future_covariates_ == ["temp"] and cov.estimator.columns_ == ["load"]
    many = backtest(Recorder(), both, horizon=4, start=a.index[80], metrics=METRICS)
    assert list(many.metrics.index) == ["load", "other", "temp", "overall"]
    assert many.metrics.loc["overall", "n"] == 3 * many.metrics.loc["load", "n"]


def test_tracker_called_once():
    calls = []

    class FakeTracker:
        def log_backtest(self, name, estimator, result, data, plots):
            calls.append((name, estimator, result, data, plots))

    df = make_series(n=100)
    est = Recorder()
    res = backtest(est, df, horizon=4, start=df.index[90], tracker=FakeTracker(), metrics=METRICS)
    assert len(calls) == 1
    name, logged, result, data, plots = calls[0]
    assert name == "Recorder" and logged is est and result is res and data is df and plots == {}
    backtest(
        clone(est),
        df,
        horizon=4,
        start=df.index[90],
        tracker=FakeTracker(),
        name="mine",
        metrics=METRICS,
    )
    assert calls[1][0] == "mine"


def test_metrics_by_name_including_mase():
    from forecast.evaluation import metrics as M

    df = make_series(n=120)
    res = backtest(
        Recorder(),
        df,
        horizon=4,
        start=df.index[100],
        metrics=("mape", "mae", "rmse", "smape", "bias", "mase"),
        mase_season=24,
    )
    fc = res.forecasts
    y, p = fc["y_true"].to_numpy(), fc["y_pred"].to_numpy()
    assert res.metrics.loc["overall", "mape"] == pytest.approx(M.mape(y, p))
    assert res.metrics.loc["overall", "rmse"] == pytest.approx(np.sqrt(np.mean((y - p) ** 2)))
    train = df["load"].to_numpy()[:100]  # up to and including the first origin (row 99)
    scale = np.mean(np.abs(train[24:] - train[:-24]))
    assert res.metrics.loc["overall", "mase"] == pytest.approx(np.mean(np.abs(y - p)) / scale)
    assert "scale" not in fc.columns
    named = backtest(Recorder(), df, horizon=4, start=df.index[100], metrics={"err": mae})
    assert list(named.metrics.columns) == ["err", "n"]
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        backtest(Recorder(), df, horizon=4, start=df.index[100], metrics=("nope",))


@pytest.mark.slow
def test_entsoe_day_ahead_reproduces_the_grid_operators_mape(data_dir):
    from forecast.datasets import load
    from forecast.models.baselines import ExternalForecast, SeasonalNaive

    df = load("entsoe-de", data_dir=data_dir)
    df = df[df.index.tz_convert("Europe/Berlin") >= pd.Timestamp("2019-01-01", tz="Europe/Berlin")]
    hourly = df.resample("1h").mean()
    kwargs = dict(protocol="day-ahead", start="2023-01-01", end="2023-12-31", target="actual")
    tso = backtest(ExternalForecast(column="forecast", nan_policy="interpolate"), hourly, **kwargs)
    assert len(tso.origins) == 365 and len(tso.forecasts) == 8760
    assert tso.metrics.loc["overall", "mape"] == pytest.approx(3.76, abs=0.05)
    weekly = backtest(SeasonalNaive(season="7D"), hourly, **kwargs)
    assert weekly.metrics.loc["overall", "mape"] == pytest.approx(4.6, abs=0.1)
    quarter = backtest(ExternalForecast(column="forecast", nan_policy="interpolate"), df, **kwargs)
    assert len(quarter.forecasts) == 35040
    assert quarter.metrics.loc["overall", "mape"] == pytest.approx(3.78, abs=0.05)
