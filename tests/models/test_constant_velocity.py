import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import forecast
from forecast import ConstantVelocity, Naive
from forecast.models.baselines._math import constant_velocity_forecast


def frame(columns, start="2023-01-02", freq="40ms"):
    n = len(next(iter(columns.values())))
    index = pd.date_range(start, periods=n, freq=freq, name="time")
    return pd.DataFrame({k: np.asarray(v, dtype=float) for k, v in columns.items()}, index=index)


def test_pure_function_hand_computed():
    y = np.array([[0.0, 10.0], [1.0, 8.0], [3.0, 5.0]])
    out = constant_velocity_forecast(y, horizon=3)
    assert out.tolist() == [[5.0, 2.0], [7.0, -1.0], [9.0, -4.0]]
    # window=2: mean step (3 - 0) / 2 = 1.5 and (5 - 10) / 2 = -2.5
    assert constant_velocity_forecast(y, 2, window=2).tolist() == [[4.5, 2.5], [6.0, 0.0]]
    with pytest.raises(ValueError, match="over 3 step.*needs 4 rows, got 3"):
        constant_velocity_forecast(y, 2, window=3)


def test_fit_predict_per_channel_with_timestamps():
    df = frame({"a": [0, 1, 3, 4], "b": [2, 2, 2, 2]})
    fc = ConstantVelocity().fit(df).predict(horizon=3)
    assert list(fc.columns) == ["a", "b"] and fc.index.name == "time"
    assert fc["a"].tolist() == [5.0, 6.0, 7.0]
    assert fc["b"].tolist() == [2.0, 2.0, 2.0]  # a channel at rest stays at rest
    assert fc.index[0] == df.index[-1] + pd.Timedelta("40ms")
    # a long window is the drift method: slope from the first to the last row, 4 / 3
    drift = ConstantVelocity(window=3).fit(df).predict(horizon=3)["a"].to_numpy()
    np.testing.assert_allclose(drift, 4 + np.arange(1, 4) * 4 / 3)


def test_predict_from_new_history_and_several_series():
    model = ConstantVelocity().fit(frame({"a": [0, 1, 2]}))
    new = frame({"a": [5, 7, 4]}, start="2023-03-01")
    before = new.copy()
    fc = model.predict(horizon=2, history=new)
    assert fc["a"].tolist() == [1.0, -2.0]
    assert fc.index[0] == pd.Timestamp("2023-03-01 00:00:00.120")
    pd.testing.assert_frame_equal(new, before)  # the caller's frame is not mutated
    both = ConstantVelocity().fit({"x": frame({"a": [0, 1, 2]}), "y": frame({"a": [9, 7, 5]})})
    out = both.predict(horizon=2)
    assert out["x"]["a"].tolist() == [3.0, 4.0] and out["y"]["a"].tolist() == [3.0, 1.0]


def test_predict_origins_batches_windows_like_the_benchmark():
    values = np.array([0.0, 1.0, 4.0, 9.0, 16.0, 25.0])
    df = frame({"a": values})
    model = ConstantVelocity().fit(df)
    long = model.predict_origins(df, df.index[[2, 4]], horizon=2)
    assert long["origin"].tolist() == list(df.index[[2, 2, 4, 4]])
    # origin 2: 4 + k * 3; origin 4: 16 + k * 7 (only rows up to the origin are seen)
    assert long["a"].tolist() == [7.0, 10.0, 23.0, 30.0]


def test_window_one_is_zero_velocity_plus_the_last_step():
    rng = np.random.default_rng(0)
    df = frame({"a": rng.standard_normal(20).cumsum(), "b": rng.standard_normal(20)})
    cv = ConstantVelocity().fit(df).predict(horizon=5).to_numpy()
    zero = Naive().fit(df).predict(horizon=5).to_numpy()
    step = df.to_numpy()[-1] - df.to_numpy()[-2]
    np.testing.assert_allclose(cv - zero, np.arange(1, 6)[:, None] * step, rtol=0, atol=1e-12)


@pytest.mark.parametrize("window", [0, -1, 1.5, True, "2"])
def test_bad_window_fails_in_fit_with_its_value(window):
    model = ConstantVelocity(window=window)
    assert model.window is window  # stored verbatim, checked in fit
    with pytest.raises(ValueError, match=r"window must be a positive int number of steps, got "):
        model.fit(frame({"a": [0, 1, 2, 3]}))


def test_too_short_series_names_series_and_requirement():
    data = {"long": frame({"a": [0, 1, 2, 3]}), "short": frame({"a": [0, 1, 2]})}
    with pytest.raises(ValueError, match=r"short.*3 rows, but at least 4 .*window=3"):
        ConstantVelocity(window=3).fit(data)
    model = ConstantVelocity(window=3).fit(frame({"a": np.arange(6.0)}))
    with pytest.raises(ValueError, match=r"3 rows, but at least 4 .*history needed by predict"):
        model.predict(horizon=2, history=frame({"a": [0, 1, 2]}))


def test_save_load_and_clone_round_trip(tmp_path):
    df = frame({"a": [0, 1, 3, 4], "b": [1, 0, -1, -3]})
    model = ConstantVelocity(window=2).fit(df)
    path = model.save(tmp_path / "cv")
    loaded = forecast.load(path)
    assert type(loaded) is ConstantVelocity and loaded.get_params() == model.get_params()
    pd.testing.assert_frame_equal(loaded.predict(horizon=4), model.predict(horizon=4))
    twin = clone(model)
    assert twin.get_params() == {"window": 2, "nan_policy": "raise", "fill_gaps": False}
    assert not hasattr(twin, "columns_")
