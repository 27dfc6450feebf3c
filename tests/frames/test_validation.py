import numpy as np
import pandas as pd
import pytest

from forecast.base import BaseForecaster
from forecast.frames import validation as V
from tests.conftest import make_series


class LastValue(BaseForecaster):
    """Repeats the last (scaled) value; enough to exercise the base."""

    def __init__(self, context_length=3, nan_policy="raise", fill_gaps=False):
        self.context_length = context_length
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _min_history(self):
        return self.context_length

    def _fit(self, series, callbacks):
        self.seen_ = [s.y.copy() for s in series]

    def _predict(self, series, horizon):
        return np.stack([np.repeat(s.y[-1:], horizon, axis=0) for s in series])


@pytest.mark.parametrize("horizon", [0, -3, 1.5, "24", True, None])
def test_bad_horizon(horizon):
    with pytest.raises((TypeError, ValueError), match="horizon must be a positive int"):
        V.check_horizon(horizon)


def test_numpy_int_horizon_is_accepted():
    assert V.check_horizon(np.int64(4)) == 4


def test_index_not_datetime():
    df = pd.DataFrame({"load": [1.0, 2.0, 3.0]})
    with pytest.raises(TypeError, match="DatetimeIndex, got RangeIndex"):
        LastValue().fit(df)


def test_unsorted_names_first_offending_timestamp():
    df = make_series(10)
    df = df.iloc[[0, 1, 2, 4, 3, 5, 6, 7, 8, 9]]
    with pytest.raises(ValueError, match="not sorted: timestamp 2023-01-01 03:00:00 comes after"):
        LastValue().fit(df)


def test_duplicate_timestamp_named():
    df = make_series(10)
    df = pd.concat([df.iloc[:5], df.iloc[4:]])
    with pytest.raises(ValueError, match="duplicated timestamp 2023-01-01 04:00:00"):
        LastValue().fit(df)


def test_missing_step_raises_then_fills():
    df = make_series(30).drop(pd.Timestamp("2023-01-01 07:00"))
    with pytest.raises(ValueError, match=r"1 missing step\(s\).*first at 2023-01-01 07:00:00"):
        LastValue().fit(df)
    model = LastValue(fill_gaps=True).fit(df)
    filled = model.train_tail_[None]
    assert len(filled) == 30
    expected = (df.loc["2023-01-01 06:00", "load"] + df.loc["2023-01-01 08:00", "load"]) / 2
    assert filled.loc["2023-01-01 07:00", "load"] == pytest.approx(expected)


def test_off_grid_timestamp_raises():
    df = make_series(30)
    index = df.index.tolist()
    index[10] = index[10] + pd.Timedelta("17min")
    df.index = pd.DatetimeIndex(index)
    with pytest.raises(ValueError, match="irregular spacing: timestamp 2023-01-01 10:17:00"):
        LastValue().fit(df)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_target_names_column_and_time(bad):
    df = make_series(30)
    df.iloc[12, 0] = bad
    with pytest.raises(
        ValueError, match="target column 'load' has 1 non-finite value.*2023-01-01 12:00:00"
    ):
        LastValue().fit(df)


def test_interpolate_policy_fills_linearly():
    df = make_series(30)
    df.iloc[12, 0] = np.nan
    model = LastValue(nan_policy="interpolate").fit(df)
    got = model.train_tail_[None]["load"].iloc[12]
    assert got == pytest.approx((df["load"].iloc[11] + df["load"].iloc[13]) / 2)


def test_non_numeric_column():
    df = make_series(30)
    df["site"] = "berlin"
    with pytest.raises(TypeError, match="column 'site' has non-numeric dtype"):
        LastValue().fit(df)


def test_too_little_history():
    with pytest.raises(ValueError, match="too little history: 3 rows, but at least 4"):
        LastValue(context_length=3).fit(make_series(3))


def test_input_frame_not_mutated():
    df = make_series(50)
    df.iloc[5, 0] = np.nan
    before = df.copy()
    model = LastValue(nan_policy="interpolate").fit(df)
    model.predict(3, history=df)
    pd.testing.assert_frame_equal(df, before)


def test_frequency_mismatch_in_history():
    model = LastValue().fit(make_series(50))
    with pytest.raises(ValueError, match="frequency 30min differs from h"):
        model.predict(2, history=make_series(50, freq="30min"))


def test_history_missing_column():
    model = LastValue().fit(make_series(50))
    other = make_series(50).rename(columns={"load": "demand"})
    with pytest.raises(ValueError, match=r"history lacks column\(s\) \['load'\]"):
        model.predict(2, history=other)


def test_series_names_appear_in_errors():
    good, bad = make_series(40), make_series(40)
    bad.iloc[7, 0] = np.nan
    with pytest.raises(ValueError, match="series 'north': target column 'load'"):
        LastValue().fit({"south": good, "north": bad})


def test_horizon_limit_default_and_override():
    assert V.check_horizon(V.MAX_HORIZON, V.MAX_HORIZON) == V.MAX_HORIZON
    with pytest.raises(ValueError, match="horizon=10001 exceeds the limit max_horizon=10000"):
        V.check_horizon(10_001, V.MAX_HORIZON)
    assert V.check_horizon(10**7) == 10**7  # no limit unless one is given


def test_predict_max_horizon_none_lifts_the_limit():
    from forecast import Naive

    model = Naive().fit(make_series(10))
    with pytest.raises(ValueError, match="pass max_horizon=10001"):
        model.predict(10_001)
    fc = model.predict(10_001, max_horizon=None)
    assert len(fc) == 10_001 and fc.index[-1] == pd.Timestamp("2023-01-01 09:00") + 10_001 * (
        pd.Timedelta("1h")
    )


def test_aware_history_in_another_zone_is_converted_to_the_fitted_zone():
    model = LastValue().fit(make_series(48, tz="UTC"))
    berlin = make_series(30, tz="Europe/Berlin", start="2024-06-01", seed=3)
    fc = model.predict(2, history=berlin)
    assert str(fc.index.tz) == "UTC"
    assert fc.index[0] == berlin.index[-1].tz_convert("UTC") + pd.Timedelta("1h")
    same = model.predict(2, history=berlin.tz_convert("UTC"))
    pd.testing.assert_frame_equal(fc, same)
    assert str(berlin.index.tz) == "Europe/Berlin"  # the caller's frame keeps its zone


def test_origins_and_data_in_another_zone_are_converted():
    df = make_series(60, tz="UTC")
    model = LastValue().fit(df)
    origin = df.index[40]
    got = model.predict_origins(
        df.tz_convert("America/New_York"), [origin.tz_convert("Asia/Tokyo")], 2
    )
    expected = model.predict_origins(df, [origin], 2)
    pd.testing.assert_frame_equal(got, expected)
    assert str(got["time"].dt.tz) == "UTC"


def test_long_frame_error_names_the_row_of_a_missing_id():
    long = pd.concat([make_series(10).assign(id="a"), make_series(10).assign(id="b")])
    long = long.rename_axis("time").reset_index()
    long.loc[13, "id"] = None
    with pytest.raises(
        ValueError,
        match=r"column 'id' has 1 missing value\(s\), first at row 13 "
        r"\(time 2023-01-01 03:00:00\)",
    ):
        V.split_series(long, "X")


def test_dict_series_in_one_zone_are_accepted():
    frames, kind = V.split_series(
        {"a": make_series(5, tz="Europe/Berlin"), "b": make_series(5, tz="Europe/Berlin")}
    )
    assert kind == "dict" and list(frames) == ["a", "b"]
