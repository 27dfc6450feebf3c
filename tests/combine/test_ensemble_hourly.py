"""EnsembleForecaster with weights_by="hour": one row of weights per local target hour."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from forecast import EnsembleForecaster, ExternalForecast, Naive, SeasonalNaive, backtest, load
from tests.combine.spec_tables import blend_spec
from tests.conftest import make_series

# row h = [h, 23 - h]: normalised, member a gets h/23 and member b (23 - h)/23
RAMP = [[h, 23 - h] for h in range(24)]


def members():
    return [("a", ExternalForecast(column="a")), ("b", ExternalForecast(column="b"))]


def frame(index, start=0):
    """Target ``load`` and the members' forecasts: a = 1000 + i, b = 2000 - i."""
    i = np.arange(start, start + len(index), dtype=float)
    return pd.DataFrame({"load": 1500.0 + i % 7, "a": 1000.0 + i, "b": 2000.0 - i}, index=index)


def ramp_blend(hours, a, b):
    hours = np.asarray(hours, dtype=float)
    return hours / 23 * np.asarray(a) + (23 - hours) / 23 * np.asarray(b)


def test_local_hours_across_the_march_switch_pick_the_rows():
    index = pd.date_range("2023-03-20", "2023-03-27 12:00", freq="h", tz="Europe/Berlin")
    data = frame(index)
    history = data.loc[:"2023-03-25 23:00"]
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="hour").fit(history)
    assert model.weights_.shape == (24, 2)
    np.testing.assert_allclose(model.weights_[5], [5 / 23, 18 / 23])
    future = data.loc["2023-03-26":, ["a", "b"]].iloc[:30]
    fc = model.predict(30, future=future)
    # 26 March has 23 local hours: 01:00 is followed by 03:00; then 27 March 00:00-06:00
    hours = [0, 1, *range(3, 24), *range(0, 7)]
    assert list(fc.index.hour) == hours
    expected = ramp_blend(hours, future["a"], future["b"])
    np.testing.assert_allclose(fc["load"], expected, rtol=1e-12)
    # by hand: the third step is 03:00 local (01:00 UTC): a = 1000 + i, b = 2000 - i
    i = index.get_loc(pd.Timestamp("2023-03-26 03:00", tz="Europe/Berlin"))
    assert fc["load"].iloc[2] == pytest.approx((3 * (1000 + i) + 20 * (2000 - i)) / 23)
    assert fc["load"].iloc[2] != pytest.approx(ramp_blend(1, 1000 + i, 2000 - i))  # UTC hour
    # predict_origins from the end of the history and from an hour later agree with predict
    origins = [history.index[-1], history.index[-1] + pd.Timedelta("1h")]
    got = model.predict_origins(data, origins, 30)
    first = got[got["origin"] == origins[0]]
    pd.testing.assert_index_equal(
        pd.DatetimeIndex(first["time"]), fc.index, check_names=False, check_freq=False
    )
    np.testing.assert_allclose(first["load"], fc["load"], rtol=1e-12)
    second = got[got["origin"] == origins[1]]
    times = pd.DatetimeIndex(second["time"])
    assert list(times.hour) == hours[1:] + [7]
    expected = ramp_blend(times.hour, data["a"].loc[times], data["b"].loc[times])
    np.testing.assert_allclose(second["load"], expected, rtol=1e-12)


def test_quarter_hours_use_the_hour_they_lie_in_on_a_naive_clock():
    index = pd.date_range("2023-01-01", periods=4 * 24 * 4, freq="15min")
    data = frame(index)
    history = data.iloc[: 4 * (24 * 3 + 5)]  # ends at 04:45 on the fourth day
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="hour").fit(history)
    future = data.iloc[len(history) : len(history) + 8][["a", "b"]]
    fc = model.predict(8, future=future)
    assert [t.strftime("%H:%M") for t in fc.index[[0, 3, 4, 7]]] == [
        "05:00",
        "05:45",
        "06:00",
        "06:45",
    ]
    hours = [5, 5, 5, 5, 6, 6, 6, 6]
    np.testing.assert_allclose(fc["load"], ramp_blend(hours, future["a"], future["b"]))
    got = model.predict_origins(data, [history.index[-1]], 8)
    np.testing.assert_allclose(got["load"], fc["load"], rtol=1e-12)


def test_dict_and_long_outputs_combine_by_the_hour_of_each_row():
    index = pd.date_range("2023-06-01", periods=24 * 4, freq="h", tz="Europe/Berlin")
    series = {"x": frame(index[:72]), "y": frame(index[5:77], start=40)}
    future = {
        k: frame(f.index[-1] + pd.Timedelta("1h") * np.arange(1, 11), 99) for k, f in series.items()
    }
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="hour").fit(series)
    fc = model.predict(10, future={k: f[["a", "b"]] for k, f in future.items()})
    for key, part in fc.items():
        expected = ramp_blend(part.index.hour, future[key]["a"], future[key]["b"])
        np.testing.assert_allclose(part["load"], expected, rtol=1e-12)
    assert list(fc["y"].index.hour[:2]) == [5, 6]  # the series end at different hours

    def long(frames):
        return pd.concat(
            [f.rename_axis("time").reset_index().assign(id=k) for k, f in frames.items()]
        )

    model_long = clone(model).fit(long(series))
    fc_long = model_long.predict(10, future=long({k: f[["a", "b"]] for k, f in future.items()}))
    assert list(fc_long.columns) == ["id", "time", "load"]
    np.testing.assert_allclose(fc_long["load"], np.concatenate([fc["x"]["load"], fc["y"]["load"]]))


def test_backtest_of_an_hourly_blend_mixes_the_members_hour_by_hour():
    df = make_series(24 * 20, tz="Europe/Berlin", start="2023-03-01", seed=1)
    kwargs = {"protocol": "day-ahead", "start": "2023-03-12", "metrics": ["mae"]}
    pairs = [("last", Naive()), ("daily", SeasonalNaive(season="1D"))]
    model = EnsembleForecaster(pairs, weights=RAMP, weights_by="hour")
    result = backtest(model, df, **kwargs).forecasts
    parts = [backtest(est, df, **kwargs).forecasts for _, est in pairs]
    hours = result["time"].dt.hour.to_numpy()
    assert set(hours) == set(range(24)) and len(result) > 24 * 5  # spans the 26 March switch
    expected = ramp_blend(hours, parts[0]["y_pred"], parts[1]["y_pred"])
    np.testing.assert_allclose(result["y_pred"], expected, rtol=1e-12)


def test_weights_as_a_dataframe_by_hour_and_member_name():
    index = pd.date_range("2023-06-01", periods=48, freq="h")
    table = pd.DataFrame(RAMP, columns=["a", "b"])
    shuffled = table.iloc[::-1][["b", "a"]]  # rows and columns in another order
    model = EnsembleForecaster(members(), weights=shuffled, weights_by="hour").fit(frame(index))
    np.testing.assert_allclose(model.weights_, np.array(RAMP) / 23)
    equal = EnsembleForecaster(members(), weights_by="hour").fit(frame(index))
    np.testing.assert_array_equal(equal.weights_, np.full((24, 2), 0.5))


H = r"weights_by='hour': weights must be 24 x 2 \(24 rows for the hours 0-23, each one weight "


@pytest.mark.parametrize(
    "weights, weights_by, error, message",
    [
        (RAMP[:23], "hour", ValueError, H + r".*found 23 row\(s\)"),
        (RAMP[:5] + [[1, 2, 3]] + RAMP[6:], "hour", ValueError, r"3 value\(s\) in weights\[5\]"),
        (np.ones(2), "hour", ValueError, r"found an array of shape \(2,\)"),
        ([1.0, 2.0], "hour", ValueError, H + r".*found 2 row\(s\)"),
        ([1.0] * 24, "hour", TypeError, r"found weights\[0\] = 1.0, not a row of numbers"),
        ("ramp", "hour", TypeError, "found 'ramp'"),
        (
            RAMP[:7] + [[1.0, -1.0]] + RAMP[8:],
            "hour",
            ValueError,
            r"weights\[7\]\[1\] \(hour 7, member 'b'\) = -1.0: weights must be finite and >= 0",
        ),
        (RAMP[:2] + [[np.inf, 1]] + RAMP[3:], "hour", ValueError, r"\(hour 2, member 'a'\) = inf"),
        (RAMP[:9] + [[1, "x"]] + RAMP[10:], "hour", TypeError, r"member 'b'\) must be a number"),
        (RAMP[:3] + [[0, 0.0]] + RAMP[4:], "hour", ValueError, r"weights\[3\] \(hour 3\) is all"),
        (RAMP, "day", ValueError, r"weights_by must be None .*, 'hour' .* or 'step' .*, got 'day'"),
        (RAMP, None, TypeError, r"weights\[0\] must be a number, got \[0, 23\] \(for one row"),
        (
            pd.DataFrame(RAMP, columns=["a", "c"]),
            "hour",
            ValueError,
            r"a DataFrame needs one column per member \['a', 'b'\], found columns \['a', 'c'\]",
        ),
        (
            pd.DataFrame(RAMP, columns=["a", "b"], index=range(1, 25)),
            "hour",
            ValueError,
            r"a DataFrame needs the hours 0-23 as its index, found 24 row\(s\) labelled \[1, 2",
        ),
    ],
)
def test_bad_hourly_weights_say_what_and_where(weights, weights_by, error, message):
    index = pd.date_range("2023-06-01", periods=48, freq="h")
    model = EnsembleForecaster(members(), weights=weights, weights_by=weights_by)
    with pytest.raises(error, match=message):
        model.fit(frame(index))
    assert not hasattr(model, "weights_")


def test_data_coarser_than_hourly_is_refused_before_fitting():
    index = pd.date_range("2023-06-01", periods=30, freq="D")
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="hour")
    with pytest.raises(ValueError, match=r"sampled at least hourly, but the shortest step is 1 "):
        model.fit(frame(index))
    EnsembleForecaster(members(), weights=[1, 2]).fit(frame(index))  # one weight set: fine


def test_clone_params_and_save_load_round_trip(tmp_path):
    index = pd.date_range("2023-03-20", periods=24 * 8, freq="h", tz="Europe/Berlin")
    data = frame(index)
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="hour")
    twin = clone(model)
    assert twin.get_params()["weights_by"] == "hour" and twin.weights == RAMP
    assert twin.weights is not model.weights  # a copy, as clone makes of every parameter
    twin.set_params(weights_by=None)
    with pytest.raises(TypeError, match=r"weights\[0\] must be a number"):
        twin.fit(data)
    model.fit(data.iloc[:-30])
    model.save(tmp_path / "m")
    params = json.loads((tmp_path / "m" / "params.json").read_text())
    assert params["weights_by"] == "hour" and params["weights"] == RAMP
    loaded = load(tmp_path / "m")
    assert loaded.weights_by == "hour" and loaded.weights == RAMP
    np.testing.assert_array_equal(loaded.weights_, model.weights_)
    future = data.iloc[-30:][["a", "b"]]
    pd.testing.assert_frame_equal(
        loaded.predict(30, future=future), model.predict(30, future=future)
    )
    params["weights"] = RAMP[:20]  # a tampered manifest-consistent folder is checked on load
    from tests.combine.test_ensemble import rewrite

    rewrite(tmp_path / "m", "params.json", json.dumps(params).encode())
    with pytest.raises(Exception, match=r"found 20 row\(s\)"):
        load(tmp_path / "m")
    arrays = EnsembleForecaster(members(), weights=np.array(RAMP), weights_by="hour").fit(data)
    with pytest.raises(TypeError, match="cannot save parameter 'weights'"):
        arrays.save(tmp_path / "arrays")
    assert not (tmp_path / "arrays").exists()


def test_spec_table_with_weights_by_hour_runs(tmp_path):
    from forecast.specs.spec import build_models, run_spec

    tables = blend_spec(tmp_path, "hour", RAMP)
    blend = build_models(tables["models"])["blend"]
    assert blend.weights_by == "hour" and blend.weights == RAMP
    table = run_spec(tables, tmp_path / "out")
    assert table.loc["blend", "n"] == 6 * 24
    tables["models"]["blend"]["weights"] = RAMP[:2]
    with pytest.raises(ValueError, match=r"\[models.blend\] weights_by='hour': .* found 2 row"):
        build_models(tables["models"])


FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
ROW = st.lists(st.floats(0, 5), min_size=3, max_size=3).filter(lambda row: sum(row) > 0)


@FAST
@given(
    rows=st.lists(ROW, min_size=24, max_size=24),
    values=st.lists(st.floats(-1e3, 1e3), min_size=3 * 30, max_size=3 * 30),
    zone=st.sampled_from([None, "Europe/Berlin", "America/New_York"]),
)
def test_rows_sum_to_one_and_the_blend_lies_between_the_members(rows, values, zone):
    index = pd.date_range("2023-10-28 20:00", periods=48 + 30, freq="h", tz=zone)
    forecasts = np.array(values).reshape(30, 3)
    data = pd.DataFrame({"load": 0.0, "a": 0.0, "b": 0.0, "c": 0.0}, index=index)
    data.iloc[48:, 1:] = forecasts
    trio = [(n, ExternalForecast(column=n)) for n in "abc"]
    model = EnsembleForecaster(trio, weights=rows, weights_by="hour").fit(data.iloc[:48])
    np.testing.assert_allclose(model.weights_.sum(axis=1), 1.0, rtol=1e-12)
    assert (model.weights_ >= 0).all()
    blend = model.predict(30, future=data.iloc[48:, 1:])["load"].to_numpy()
    slack = 1e-9 * (1 + np.abs(forecasts).max())
    assert (blend >= forecasts.min(axis=1) - slack).all()
    assert (blend <= forecasts.max(axis=1) + slack).all()
