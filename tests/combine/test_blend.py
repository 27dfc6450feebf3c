"""blend_weights: the convex weights of least MAPE, once or per hour of the target time."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecast import EnsembleForecaster, Naive, SeasonalNaive, backtest, blend_weights
from forecast.evaluation import metrics as M
from tests.conftest import make_series


def test_a_member_equal_to_the_truth_gets_all_the_weight():
    rng = np.random.default_rng(0)
    index = pd.date_range("2022-01-01", periods=200, freq="h")
    truth = pd.Series(50 + 10 * rng.random(200), index=index)
    forecasts = pd.DataFrame(
        {
            "noisy": truth + rng.normal(0, 3, 200),
            "exact": truth,
            "high": truth * 1.05,
        }
    )
    weights = blend_weights(forecasts, truth)
    assert isinstance(weights, list) and all(type(w) is float for w in weights)
    np.testing.assert_allclose(weights, [0, 1, 0], atol=1e-9)


def test_two_members_with_a_known_optimum():
    # blend errors (w = weight of "a"): |20w - 10|, |40w - 10|, |15w - 10| (in % of 100);
    # the sum falls with slope -75 below w = 1/4 and rises with slope +5 above: w = 1/4
    truth = pd.Series([100.0, 100.0, 100.0])
    forecasts = pd.DataFrame({"a": [110.0, 130.0, 105.0], "b": [90.0, 90.0, 90.0]})
    weights = blend_weights(forecasts, truth)
    np.testing.assert_allclose(weights, [0.25, 0.75], atol=1e-9)
    blend = forecasts.to_numpy() @ np.array(weights)
    assert M.mape(truth.to_numpy(), blend) == pytest.approx((5 + 0 + 6.25) / 3)
    # an exact mix: a = +10 %, b = -20 % everywhere: w = 2/3 has no error at all
    exact = pd.DataFrame({"a": [110.0, 55.0], "b": [80.0, 40.0]})
    np.testing.assert_allclose(
        blend_weights(exact, pd.Series([100.0, 50.0])), [2 / 3, 1 / 3], atol=1e-9
    )


def hourly(index_berlin, boundary=12):
    """Member ``am`` equals the truth before ``boundary`` (Berlin clock), ``pm`` after."""
    truth = pd.Series(100 + np.arange(len(index_berlin)) % 5, index=index_berlin, dtype=float)
    morning = np.asarray(index_berlin.hour < boundary)
    am = np.where(morning, truth, truth * 1.2)
    pm = np.where(morning, truth * 0.7, truth)
    return pd.DataFrame({"am": am, "pm": pm}, index=index_berlin), truth


def test_per_hour_weights_follow_the_hour_of_the_target_time():
    index = pd.date_range("2022-01-10", periods=72, freq="h", tz="Europe/Berlin")
    forecasts, truth = hourly(index)
    rows = blend_weights(forecasts, truth, by="hour")
    assert len(rows) == 24 and all(len(row) == 2 for row in rows)
    expected = [[1.0, 0.0]] * 12 + [[0.0, 1.0]] * 12
    np.testing.assert_allclose(rows, expected, atol=1e-9)
    # the same instants in UTC: read in Berlin time nothing changes; on the UTC clock
    # (Berlin = UTC+1 in January) the switch comes at 11:00, and 23:00 is Berlin's midnight
    utc_forecasts, utc_truth = forecasts.tz_convert("UTC"), truth.tz_convert("UTC")
    berlin = blend_weights(utc_forecasts, utc_truth, by="hour", timezone="Europe/Berlin")
    np.testing.assert_allclose(berlin, expected, atol=1e-9)
    utc = blend_weights(utc_forecasts, utc_truth, by="hour")
    np.testing.assert_allclose(utc, [[1.0, 0.0]] * 11 + [[0.0, 1.0]] * 12 + [[1.0, 0.0]], atol=1e-9)


def test_target_times_from_the_time_level_of_backtest_forecasts():
    index = pd.date_range("2022-01-10", periods=48, freq="h", tz="Europe/Berlin")
    forecasts, truth = hourly(index, boundary=6)
    origins = index.floor("D") - pd.Timedelta("12h")
    multi = pd.MultiIndex.from_arrays([origins, index], names=["origin", "time"])
    rows = blend_weights(forecasts.set_index(multi), truth.set_axis(multi), by="hour")
    np.testing.assert_allclose(rows, [[1.0, 0.0]] * 6 + [[0.0, 1.0]] * 18, atol=1e-9)


def test_chosen_weights_make_an_ensemble_no_worse_than_its_members():
    df = make_series(24 * 30, tz="Europe/Berlin", start="2023-02-20", seed=2)
    kwargs = {"protocol": "day-ahead", "start": "2023-03-05", "metrics": ["mape"]}
    pairs = [("last", Naive()), ("daily", SeasonalNaive(season="1D"))]
    runs = {name: backtest(est, df, **kwargs).forecasts for name, est in pairs}
    keys = ["origin", "time"]
    forecasts = pd.DataFrame({name: run.set_index(keys)["y_pred"] for name, run in runs.items()})
    truth = runs["last"].set_index(keys)["y_true"]
    rows = blend_weights(forecasts, truth, by="hour", timezone="Europe/Berlin")
    model = EnsembleForecaster(pairs, weights=rows, weights_by="hour")
    blend = backtest(model, df, **kwargs).metrics.loc["overall", "mape"]
    members = [backtest(est, df, **kwargs).metrics.loc["overall", "mape"] for _, est in pairs]
    flat = blend_weights(forecasts, truth)
    once = backtest(EnsembleForecaster(pairs, weights=flat), df, **kwargs)
    assert blend <= once.metrics.loc["overall", "mape"] + 1e-9 < min(members)


INDEX = pd.date_range("2022-03-27", periods=4, freq="h", tz="Europe/Berlin")


@pytest.mark.parametrize(
    "forecasts, truth, kwargs, error, message",
    [
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}, index=INDEX),
            pd.Series([1.0, 0.0, np.nan, 4], index=INDEX),
            {},
            ValueError,
            r"truth is 0.0 at 2022-03-27 01:00:00\+01:00 \(2 row\(s\) with zero, NaN",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}, index=INDEX),
            pd.Series([1.0, 2, np.nan, 4], index=INDEX),
            {},
            ValueError,
            r"truth is nan at 2022-03-27 03:00:00\+02:00",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 2, np.inf, 4]}, index=INDEX),
            pd.Series([1.0, 2, 3, 4], index=INDEX),
            {},
            ValueError,
            r"forecasts column 'b' is inf at 2022-03-27 03:00:00\+02:00",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}, index=INDEX),
            pd.Series([1.0, 2, 3, 4]),
            {},
            ValueError,
            r"truth and forecasts must have the same index \(4 vs 4 rows\)",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}, index=INDEX),
            pd.Series([1.0, 2, 3, 4], index=INDEX),
            {"by": "day"},
            ValueError,
            r"by must be None .*, 'hour' .* or 'step' .*, got 'day'",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}, index=INDEX),
            pd.Series([1.0, 2, 3, 4], index=INDEX),
            {"by": "hour"},
            ValueError,
            "no forecast has a target time at hour 2: cannot choose weights for it",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}, index=INDEX.tz_localize(None)),
            pd.Series([1.0, 2, 3, 4], index=INDEX.tz_localize(None)),
            {"by": "hour", "timezone": "Europe/Berlin"},
            ValueError,
            r"timezone='Europe/Berlin' but the target times are naive",
        ),
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4]}),
            pd.Series([1.0, 2, 3, 4]),
            {"by": "hour"},
            TypeError,
            r"by='hour' needs the target times: a DatetimeIndex, or an index level named 'time'",
        ),
        (
            pd.DataFrame({"a": ["1", "2", "3", "4"]}, index=INDEX),
            pd.Series([1.0, 2, 3, 4], index=INDEX),
            {},
            TypeError,
            "forecasts column 'a' has dtype .*, not numbers",
        ),
        (
            {"a": [1.0, 2, 3, 4]},
            pd.Series([1.0, 2, 3, 4]),
            {},
            TypeError,
            "forecasts must be a DataFrame with one column per member",
        ),
        (
            pd.DataFrame(index=INDEX),
            pd.Series([1.0, 2, 3, 4], index=INDEX),
            {},
            ValueError,
            r"forecasts is empty \(4 rows, 0 columns\)",
        ),
    ],
)
def test_bad_input_says_what_and_where(forecasts, truth, kwargs, error, message):
    before = None if not isinstance(forecasts, pd.DataFrame) else forecasts.copy()
    with pytest.raises(error, match=message):
        blend_weights(forecasts, truth, **kwargs)
    if before is not None:
        pd.testing.assert_frame_equal(forecasts, before)  # never mutated


FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@FAST
@given(
    k=st.integers(1, 4),
    n=st.integers(1, 25),
    data=st.data(),
)
def test_weights_are_convex_and_no_member_alone_does_better(k, n, data):
    values = st.floats(1, 1e4, allow_nan=False)
    truth = np.array(data.draw(st.lists(values, min_size=n, max_size=n)))
    signs = np.array(data.draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    columns = {f"m{j}": data.draw(st.lists(values, min_size=n, max_size=n)) for j in range(k)}
    forecasts = pd.DataFrame(columns) * signs[:, None]
    weights = np.array(blend_weights(forecasts, pd.Series(truth * signs)))
    assert weights.shape == (k,) and (weights >= 0).all()
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    f = forecasts.to_numpy()
    blend = M.mape(truth * signs, f @ weights)
    best = min(M.mape(truth * signs, f[:, j]) for j in range(k))
    assert blend <= best + 1e-6 * (1 + best)


def test_per_step_weights_follow_the_step_ahead_of_each_origin():
    # two origins a day apart, 6 steps each: member "near" is exact on steps 1-2, "far" on 3-6
    rows = []
    for day in (10, 11):
        origin = pd.Timestamp(f"2022-01-{day} 12:00")
        for step in range(1, 7):
            y = 100.0 + step + day
            near = y if step <= 2 else y * 1.3
            far = y if step > 2 else y * 0.6
            rows.append((origin, origin + pd.Timedelta(hours=step), near, far))
    frame = pd.DataFrame(rows, columns=["origin", "time", "near", "far"]).sample(
        frac=1, random_state=0
    )
    forecasts = frame.set_index(["origin", "time"])
    truth = pd.Series(
        [100.0 + (t - o) / pd.Timedelta("1h") + o.day for o, t in forecasts.index],
        index=forecasts.index,
    )
    weights = blend_weights(forecasts, truth, by="step")
    np.testing.assert_allclose(weights, [[1.0, 0.0]] * 2 + [[0.0, 1.0]] * 4, atol=1e-9)
    model = EnsembleForecaster(
        [("near", Naive()), ("far", Naive())], weights=weights, weights_by="step"
    )
    assert model.get_params()["weights"] == weights
    with pytest.raises(TypeError, match=r"by='step' needs each row's origin and target time"):
        blend_weights(
            forecasts.reset_index(level="origin", drop=True),
            truth.reset_index(level="origin", drop=True),
            by="step",
        )
