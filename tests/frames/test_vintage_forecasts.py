"""Vintaged covariates through predict, predict_origins, backtest and ensembles."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forecast import EnsembleForecaster, ExternalForecast, GRUForecaster, LinearLagForecaster
from forecast.evaluation.backtest import backtest
from forecast.frames.vintage_sources import daily_vintages
from forecast.frames.vintages import as_of, check_vintages
from tests.conftest import TINY_NEURAL

ZONE = "Europe/Berlin"


def _data(days=12, seed=0):
    rng = np.random.default_rng(seed)
    index = pd.date_range("2023-03-20", periods=24 * days, freq="h", tz=ZONE)
    temp = 10 + 5 * np.sin(np.arange(len(index)) * 2 * np.pi / 24) + rng.standard_normal(len(index))
    load = 50 - 2 * temp + rng.standard_normal(len(index))
    return pd.DataFrame({"load": load, "temp": temp}, index=index)


def _noisy_vintages(df, issue_hours, seed=1, lead=48):
    """Forecast vintages of df.temp: each issue is off by its own constant."""
    rng = np.random.default_rng(seed)
    rows = []
    for h in issue_hours:
        issue = df.index[0] + pd.Timedelta(hours=int(h))
        valid = pd.date_range(issue + pd.Timedelta("1h"), periods=lead, freq="h")
        valid = valid[valid <= df.index[-1]]
        rows.append(
            pd.DataFrame(
                {
                    "issue_time": issue,
                    "valid_time": valid,
                    "temp": df.temp.reindex(valid).to_numpy() + rng.normal(0, 3),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _linear():
    return LinearLagForecaster(lags=24, seasonal_lags=["1D"], future_covariates=["temp"])


def test_predict_with_vintages_equals_predict_with_the_values_known_at_the_origin():
    df = _data()
    cut = 24 * 8 + 12
    model = _linear().fit(df.iloc[:cut])
    v = _noisy_vintages(df, range(0, 24 * 12, 24))
    origin = df.index[cut - 1]
    steps = pd.date_range(origin + pd.Timedelta("1h"), periods=36, freq="h")
    known = as_of(check_vintages(v, ["temp"], ZONE), origin, steps, ["temp"])
    by_vintage = model.predict(horizon=36, future=v)
    by_values = model.predict(horizon=36, future=known)
    pd.testing.assert_frame_equal(by_vintage, by_values)
    observed = model.predict(horizon=36, future=df)
    assert not np.allclose(observed["load"], by_vintage["load"])  # the vintages were read


def test_predict_origins_reads_each_origins_own_vintage():
    df = _data()
    model = _linear().fit(df.iloc[: 24 * 6])
    v = _noisy_vintages(df, range(6, 24 * 12, 24))  # issued daily at 06:00
    origins = [df.index[24 * 7 + 11], df.index[24 * 8 + 11]]
    out = model.predict_origins(df, origins, 24, future=v)
    for origin in origins:
        history = df.loc[:origin]
        steps = pd.date_range(origin + pd.Timedelta("1h"), periods=24, freq="h")
        known = as_of(check_vintages(v, ["temp"], ZONE), origin, steps, ["temp"])
        alone = model.predict(horizon=24, history=history, future=known)
        got = out[out["origin"] == origin].set_index("time")["load"]
        np.testing.assert_allclose(got.to_numpy(), alone["load"].to_numpy())


def test_a_neural_model_reads_vintages_alike_in_predict_and_predict_origins():
    df = _data()
    params = TINY_NEURAL | dict(horizon=24, future_covariates=["temp"])
    model = GRUForecaster(**params).fit(df.iloc[: 24 * 7])
    v = _noisy_vintages(df, range(6, 24 * 12, 24))
    origin = df.index[24 * 8 + 11]
    out = model.predict_origins(df, [origin], 24, future=v)
    alone = model.predict(horizon=24, history=df.loc[:origin], future=v)
    np.testing.assert_allclose(out["load"].to_numpy(), alone["load"].to_numpy(), rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 24 * 11), min_size=3, max_size=15, unique=True),
    st.floats(-20, 20, allow_nan=False),
    st.integers(0, 2),
)
def test_changing_a_vintage_issued_after_an_origin_never_changes_its_forecast(
    issue_hours, shift, seed
):
    """The no-leakage property, through backtest, on random issue schedules."""
    df = _data(seed=seed)
    daily = range(6, 24 * 12, 24)  # a daily issue covers every origin; the others vary
    v = _noisy_vintages(df, sorted(set(issue_hours) | set(daily)), seed=seed)
    kwargs = dict(origins="12:00", horizon=24, lead=11, start="2023-03-26", end="2023-03-31",
                  timezone=ZONE, target="load")  # fmt: skip
    before = backtest(_linear(), df, future=v, **kwargs).forecasts
    origins = pd.DatetimeIndex(before["origin"].unique())
    for origin in origins[:: max(1, len(origins) // 2)]:
        changed = v.assign(temp=np.where(v.issue_time > origin, v.temp + shift + 100.0, v.temp))
        after = backtest(_linear(), df, future=changed, **kwargs).forecasts
        mine = before["origin"] == origin
        np.testing.assert_allclose(
            after.loc[after["origin"] == origin, "y_pred"], before.loc[mine, "y_pred"]
        )


def test_the_operators_forecast_as_vintages_reads_the_revision_known_at_noon():
    df = _data()
    df["forecast"] = df["load"] + 1.0
    first = daily_vintages(df, ["forecast"], time="10:00", days_before=1)
    revised = first.assign(
        issue_time=first.issue_time + pd.Timedelta("4h"), forecast=first.forecast + 50.0
    )  # revised at 14:00: too late
    v = pd.concat([first, revised], ignore_index=True)
    model = ExternalForecast(column="forecast", published="10:00 D-1")
    kwargs = dict(protocol="day-ahead", start="2023-03-25", end="2023-03-30", timezone=ZONE,
                  target="load")  # fmt: skip
    result = backtest(model, df[["load", "forecast"]], future=v, **kwargs)
    assert result.metrics.loc["overall", "mae"] == pytest.approx(1.0)
    at_15 = backtest(
        model,
        df[["load", "forecast"]],
        future=v.assign(issue_time=v.issue_time - pd.Timedelta("3h")),
        **kwargs,
    )  # revision now at 11:00
    assert at_15.metrics.loc["overall", "mae"] == pytest.approx(51.0)
    assert result.settings["future"] == "vintages"


def test_an_ensemble_passes_vintages_to_its_members():
    df = _data()
    members = [("a", _linear()), ("b", LinearLagForecaster(lags=24, seasonal_lags=["1D"]))]
    model = EnsembleForecaster(members, weights=[0.5, 0.5]).fit(df.iloc[: 24 * 6])
    v = _noisy_vintages(df, range(6, 24 * 12, 24))
    origin = df.index[24 * 7 + 11]
    out = model.predict_origins(df, [origin], 24, future=v)
    a = model.estimators_[0].predict_origins(df, [origin], 24, future=v)
    b = model.estimators_[1].predict_origins(df[["load"]], [origin], 24)
    np.testing.assert_allclose(out["load"], 0.5 * a["load"] + 0.5 * b["load"])


def test_predict_origins_refuses_plain_future_frames_by_name():
    df = _data()
    model = _linear().fit(df.iloc[: 24 * 6])
    with pytest.raises(ValueError, match="future= takes vintages"):
        model.predict_origins(df, [df.index[24 * 7]], 24, future=df[["temp"]])


def test_vintages_leave_the_callers_frames_unchanged():
    df = _data()
    v = _noisy_vintages(df, range(6, 24 * 12, 24))
    before_df, before_v = df.copy(), v.copy()
    model = _linear().fit(df.iloc[: 24 * 6])
    model.predict_origins(df, [df.index[24 * 7 + 11]], 24, future=v)
    model.predict(horizon=12, history=df.iloc[: 24 * 7], future=v)
    pd.testing.assert_frame_equal(df, before_df)
    pd.testing.assert_frame_equal(v, before_v)


def test_a_saved_folder_forecasts_from_vintages_like_the_fitted_model(tmp_path):
    from forecast import load

    df = _data()
    model = _linear().fit(df.iloc[: 24 * 6])
    model.save(tmp_path / "m")
    again = load(tmp_path / "m")
    v = _noisy_vintages(df, range(6, 24 * 12, 24))
    origin = [df.index[24 * 7 + 11]]
    pd.testing.assert_frame_equal(
        again.predict_origins(df, origin, 24, future=v),
        model.predict_origins(df, origin, 24, future=v),
    )
    assert again.training_covariates_ == model.training_covariates_
