"""EnsembleForecaster with weights_by="step": one row of weights per step ahead of the origin."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from forecast import EnsembleForecaster, ExternalForecast, load

# row k = [k, 3 - k] for the steps 1-4: member a gets k/3 of step k + 1, member b (3 - k)/3
RAMP = [[k, 3 - k] for k in range(4)]


def members():
    return [("a", ExternalForecast(column="a")), ("b", ExternalForecast(column="b"))]


def frame(n=40):
    """Target ``load`` and the members' forecasts: a = 1000 + i, b = 2000 - i, hourly."""
    index = pd.date_range("2024-01-01", periods=n, freq="h")
    i = np.arange(n, dtype=float)
    return pd.DataFrame({"load": 1500.0 + i % 5, "a": 1000.0 + i, "b": 2000.0 - i}, index=index)


def test_each_step_ahead_takes_its_row():
    data = frame()
    history, future = data.iloc[:30], data.iloc[30:34][["a", "b"]]
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="step").fit(history)
    np.testing.assert_allclose(model.weights_[1], [1 / 3, 2 / 3])
    fc = model.predict(4, future=future)
    pd.testing.assert_index_equal(fc.index, future.index, check_names=False)
    # by hand, step 1 is row 30 (all b), step 4 row 33 (all a), step 2 row 31 (1/3 a, 2/3 b)
    assert fc["load"].iloc[0] == pytest.approx(2000 - 30)
    assert fc["load"].iloc[3] == pytest.approx(1000 + 33)
    assert fc["load"].iloc[1] == pytest.approx((1000 + 31) / 3 + 2 * (2000 - 31) / 3)
    # a shorter horizon uses the first rows, whatever the clock time
    short = model.predict(2, future=future.iloc[:2])
    np.testing.assert_allclose(short["load"], fc["load"].iloc[:2], rtol=1e-12)


def test_origins_count_steps_from_each_origin():
    data = frame()
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="step").fit(data.iloc[:20])
    origins = [data.index[19], data.index[22]]
    got = model.predict_origins(data, origins, 4)
    for origin in origins:
        rows = got[got["origin"] == origin]
        times = pd.DatetimeIndex(rows["time"])
        step = np.arange(1, 5)
        expected = (step - 1) / 3 * data["a"].loc[times] + (4 - step) / 3 * data["b"].loc[times]
        np.testing.assert_allclose(rows["load"], expected.to_numpy(), rtol=1e-12)
        # the same as predict from that origin
        history = data.loc[:origin]
        fc = model.predict(4, history=history, future=data.loc[times, ["a", "b"]])
        np.testing.assert_allclose(rows["load"], fc["load"], rtol=1e-12)


def test_a_dict_of_series_is_weighed_per_series():
    data = frame()
    other = data.copy()
    other[["a", "b"]] += 7.0
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="step")
    model.fit({"x": data.iloc[:30], "y": other.iloc[:30]})
    fc = model.predict(
        3, future={"x": data.iloc[30:33][["a", "b"]], "y": other.iloc[30:33][["a", "b"]]}
    )
    for key, source in (("x", data), ("y", other)):
        part = source.iloc[30:33]
        step = np.arange(1, 4)
        expected = (step - 1) / 3 * part["a"] + (4 - step) / 3 * part["b"]
        np.testing.assert_allclose(fc[key]["load"], expected.to_numpy(), rtol=1e-12)


def test_a_dataframe_of_weights_is_read_by_step_and_member():
    table = pd.DataFrame(RAMP, columns=["a", "b"], index=[1, 2, 3, 4]).iloc[::-1]
    table = table[["b", "a"]]  # any order of rows and columns
    data = frame()
    model = EnsembleForecaster(members(), weights=table, weights_by="step").fit(data.iloc[:30])
    np.testing.assert_allclose(model.weights_, np.array(RAMP) / 3)


def test_a_horizon_beyond_the_rows_is_refused_before_forecasting():
    data = frame()
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="step").fit(data.iloc[:30])
    with pytest.raises(
        ValueError, match=r"horizon=5, but weights_by='step' gives weights for steps 1-4"
    ):
        model.predict(5, future=data.iloc[30:35][["a", "b"]])
    with pytest.raises(ValueError, match="steps 1-4 only"):
        model.predict_origins(data, [data.index[25]], 6)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (None, r"weights_by='step': weights must be K x 2 .*found None"),
        ([], "found no row"),
        ([[1.0, 0.0], [0.0, 0.0]], r"weights\[1\] \(step 2\) is all zero"),
        ([[1.0, -1.0]], r"weights\[0\]\[1\] \(step 1, member 'b'\) = -1.0"),
        ([[1.0, 2.0, 3.0]], r"found 3 value\(s\) in weights\[0\] \(step 1\)"),
        (pd.DataFrame([[1, 1]], columns=["a", "b"], index=[0]), "needs the steps 1-1 as its index"),
    ],
)
def test_bad_step_weights_say_which_row_and_member(weights, message):
    with pytest.raises(ValueError, match=message):
        EnsembleForecaster(members(), weights=weights, weights_by="step").fit(frame())


def test_an_unknown_weights_by_names_the_choices():
    with pytest.raises(ValueError, match="'step' \\(one row per forecast step"):
        EnsembleForecaster(members(), weights=[1, 1], weights_by="lead").fit(frame())


def test_step_weights_survive_clone_and_save(tmp_path):
    data = frame()
    model = EnsembleForecaster(members(), weights=RAMP, weights_by="step").fit(data.iloc[:30])
    assert clone(model).get_params()["weights_by"] == "step"
    model.save(tmp_path / "m")
    again = load(tmp_path / "m")
    future = data.iloc[30:34][["a", "b"]]
    pd.testing.assert_frame_equal(again.predict(4, future=future), model.predict(4, future=future))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(st.floats(0.0, 10.0), st.floats(0.0, 10.0)).filter(lambda r: sum(r) > 0),
        min_size=1,
        max_size=6,
    ),
    data=st.data(),
)
def test_any_step_weights_give_a_convex_combination_per_step(rows, data):
    horizon = data.draw(st.integers(1, len(rows)))
    frame_ = frame()
    model = EnsembleForecaster(members(), weights=[list(r) for r in rows], weights_by="step")
    model.fit(frame_.iloc[:30])
    future = frame_.iloc[30 : 30 + horizon][["a", "b"]]
    fc = model.predict(horizon, future=future)
    w = np.array(rows[:horizon]) / np.array(rows[:horizon]).sum(axis=1, keepdims=True)
    expected = w[:, 0] * future["a"].to_numpy() + w[:, 1] * future["b"].to_numpy()
    np.testing.assert_allclose(fc["load"], expected, rtol=1e-12)
    # between the members at every step
    low = np.minimum(future["a"], future["b"]).to_numpy() - 1e-9
    high = np.maximum(future["a"], future["b"]).to_numpy() + 1e-9
    assert ((fc["load"].to_numpy() >= low) & (fc["load"].to_numpy() <= high)).all()


def test_spec_table_with_weights_by_step_runs(tmp_path):
    from forecast.specs.spec import build_models, run_spec
    from tests.combine.spec_tables import blend_spec

    rows = [[k, 35 - k] for k in range(36)]  # the day-ahead origin (12:00) to the end of D
    tables = blend_spec(tmp_path, "step", rows)
    blend = build_models(tables["models"])["blend"]
    assert blend.weights_by == "step" and blend.weights == rows
    table = run_spec(tables, tmp_path / "out")
    assert table.loc["blend", "n"] == 6 * 24
    tables["models"]["blend"]["weights"] = rows[:24]  # the day-ahead horizon needs 36 steps
    with pytest.raises(ValueError, match=r"horizon=36, but weights_by='step' .* steps 1-24 only"):
        run_spec(tables, tmp_path / "short")
    assert not (tmp_path / "short").exists()  # nothing half-written
    kept = tmp_path / "kept"  # a folder that was there: the failed run leaves it as it was
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="horizon=36"):
        run_spec(tables, kept)
    assert [p.name for p in kept.iterdir()] == ["notes.txt"]
