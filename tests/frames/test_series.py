"""frames.series: a frame of one series turned into SeriesArrays."""

import numpy as np
import pandas as pd
import pytest

from forecast.base import SeriesArrays as FromBase
from forecast.frames.series import SeriesArrays, SeriesEncoder
from tests.conftest import make_series


def encoder(future=(), past=(), calendar=None):
    return SeriesEncoder(
        targets=["load"],
        past=list(past),
        future=list(future),
        freq=pd.tseries.frequencies.to_offset("h"),
        zone=None,
        scale=lambda y: y * 10.0,
        scale_covariates=lambda frame, cols: frame[cols].to_numpy(float) + 100.0,
        calendar=calendar or (lambda index: None),
    )


def test_series_arrays_is_importable_from_the_base():
    assert FromBase is SeriesArrays
    s = SeriesArrays(None, np.zeros((4, 1)), pd.RangeIndex(4), future=np.arange(6.0)[:, None])
    assert s.future_steps(2)[:, 0].tolist() == [4.0, 5.0]


def test_targets_and_past_covariates_use_the_given_scaling():
    df = make_series(5).assign(price=np.arange(5.0))
    s = encoder(past=["price"]).encode("k", df)
    assert s.key == "k" and s.index.equals(df.index) and s.future is None
    np.testing.assert_allclose(s.y[:, 0], df["load"] * 10.0)
    np.testing.assert_allclose(s.past[:, 0], np.arange(5.0) + 100.0)


def test_future_block_spans_history_and_horizon_then_calendar():
    df = make_series(4).assign(temp=np.arange(4.0))
    steps = pd.date_range(df.index[-1], periods=3, freq="h")[1:]
    future = pd.DataFrame({"temp": [40.0, 50.0]}, index=steps)
    seen = []

    def calendar(index):
        seen.append(index)
        return np.full((len(index), 2), 7.0)

    s = encoder(future=["temp"], calendar=calendar).encode(None, df, 2, future)
    assert s.future.shape == (6, 3)  # 4 history rows + 2 steps; temp, then 2 calendar
    np.testing.assert_allclose(s.future[:, 0], [100, 101, 102, 103, 140, 150])
    assert seen[0].equals(df.index.append(steps)) and (s.future[:, 1:] == 7.0).all()
    with pytest.raises(ValueError, match="pass future=DataFrame"):
        encoder(future=["temp"]).encode(None, df, 2, None)


def test_encode_all_reads_each_series_own_future():
    a, b = make_series(4).assign(temp=0.0), make_series(4, seed=1).assign(temp=1.0)
    steps = pd.date_range(a.index[-1], periods=2, freq="h")[1:]
    futures = {"a": pd.DataFrame({"temp": [5.0]}, index=steps)}
    out = encoder(future=["temp"]).encode_all({"a": a}, 1, futures)
    assert [s.key for s in out] == ["a"] and out[0].future[-1, 0] == 105.0
    assert [s.key for s in encoder().encode_all({"a": a, "b": b})] == ["a", "b"]
