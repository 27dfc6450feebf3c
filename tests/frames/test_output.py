"""frames.output: forecast arrays laid out as frames."""

import numpy as np
import pandas as pd

from forecast.frames.output import (
    forecast_frames,
    origin_frame,
    output_columns,
    points_and_levels,
)

HOUR = pd.tseries.frequencies.to_offset("h")


def test_columns_are_points_then_levels_target_by_target():
    assert output_columns(["a", "b"], ()) == ["a", "b"]
    assert output_columns(["a", "b"], (0.1, 0.9)) == [
        "a",
        "b",
        "a_q0.1",
        "a_q0.9",
        "b_q0.1",
        "b_q0.9",
    ]


def test_points_come_from_the_median_then_the_chosen_levels():
    full = np.arange(2 * 3 * 2 * 3, dtype=float).reshape(2, 3, 2, 3)  # (n, h, C, Q)
    out = points_and_levels(full, (0.1, 0.5, 0.9), (0.9,))
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out[..., :2], full[..., 1])
    np.testing.assert_array_equal(out[..., 2:], full[..., 2])


def test_forecast_frames_follow_each_series():
    frames = {
        "a": pd.DataFrame(index=pd.date_range("2023-01-01", periods=3, freq="h")),
        "b": pd.DataFrame(index=pd.date_range("2023-02-01", periods=5, freq="h")),
    }
    pred = np.arange(2 * 2 * 1, dtype=float).reshape(2, 2, 1)
    out = forecast_frames(frames, pred, 2, HOUR, ["load"], "time")
    assert out["a"].index[0] == pd.Timestamp("2023-01-01 03:00")
    assert out["b"].index[-1] == pd.Timestamp("2023-02-01 06:00")
    assert out["b"].index.name == "time" and out["b"]["load"].tolist() == [2.0, 3.0]


def test_origin_frame_is_long_with_origin_id_and_time():
    meta = [("a", pd.Timestamp("2023-01-01 05:00")), ("b", pd.Timestamp("2023-01-01 07:00"))]
    pred = np.arange(4.0).reshape(2, 2, 1)
    out = origin_frame(meta, pred, 2, "dict", ["load"], HOUR)
    assert list(out.columns) == ["origin", "id", "time", "load"]
    expected = pd.date_range("2023-01-01 06:00", periods=2, freq="h").append(
        pd.date_range("2023-01-01 08:00", periods=2, freq="h")
    )
    assert out["time"].tolist() == list(expected)
    assert out["id"].tolist() == ["a", "a", "b", "b"]
    single = origin_frame(meta[:1], pred[:1], 2, "frame", ["load"], HOUR)
    assert list(single.columns) == ["origin", "time", "load"]
    month_end = [(None, pd.Timestamp("2023-01-31"))]  # calendar steps: no fixed Timedelta
    monthly = origin_frame(month_end, pred[:1], 2, "frame", ["load"], pd.offsets.MonthEnd())
    assert monthly["time"].tolist() == [pd.Timestamp("2023-02-28"), pd.Timestamp("2023-03-31")]
