import numpy as np
import pandas as pd
import pytest

from forecast.datasets import find_gaps, missing_runs


def test_runs_and_summary_by_hand():
    idx = pd.date_range("2023-01-01", periods=8, freq="h", tz="UTC")
    df = pd.DataFrame(
        {"a": [1, np.nan, np.nan, 4, 5, np.nan, 7, 8], "b": np.arange(8.0)}, index=idx
    )
    runs = missing_runs(df["a"])
    assert runs["start"].tolist() == [idx[1], idx[5]]
    assert runs["end"].tolist() == [idx[2], idx[5]]
    assert runs["length"].tolist() == [2, 1]
    gaps = find_gaps(df)
    assert gaps.loc["a"].tolist() == [3, idx[1], idx[5], 2, 2]
    assert gaps.loc["b", "n_missing"] == 0 and pd.isna(gaps.loc["b", "first"])


def test_absent_timestamps_count_as_missing():
    idx = pd.DatetimeIndex(
        ["2023-01-01 00:00", "2023-01-01 00:15", "2023-01-01 01:00", "2023-01-01 01:15"]
    )
    gaps = find_gaps(pd.DataFrame({"x": [1.0, 2, 3, 4]}, index=idx), freq="15min")
    assert gaps.loc["x", "n_missing"] == 2
    assert gaps.loc["x", "first"] == pd.Timestamp("2023-01-01 00:30")


def test_requires_datetime_index():
    with pytest.raises(TypeError, match="DatetimeIndex"):
        find_gaps(pd.DataFrame({"x": [1.0, 2.0]}))
