"""frames.origins: the origins argument and what the forecast at an origin may read."""

import numpy as np
import pandas as pd
import pytest

from forecast.frames.causal_fill import CausalFill
from forecast.frames.origins import (
    origin_arrays,
    origin_index,
    origin_position,
    origins_per_series,
)
from forecast.frames.series import SeriesArrays, SeriesEncoder

INDEX = pd.date_range("2023-01-01", periods=10, freq="h")


def encoder(future=()):
    return SeriesEncoder(
        ["load"],
        [],
        list(future),
        pd.tseries.frequencies.to_offset("h"),
        None,
        lambda y: y,
        lambda frame, cols: frame[cols].to_numpy(float),
        lambda index: np.arange(len(index), dtype=float)[:, None],
    )


def test_origins_are_timestamps_in_the_fitted_zone():
    index = origin_index(["2023-01-01 02:00"], None)
    assert index[0] == pd.Timestamp("2023-01-01 02:00")
    aware = origin_index(pd.DatetimeIndex(["2023-01-01 02:00"], tz="UTC"), "Europe/Berlin")
    assert str(aware.tz) == "Europe/Berlin"
    with pytest.raises(TypeError, match="must be a list or DatetimeIndex"):
        origin_index("2023-01-01", None)
    with pytest.raises(ValueError, match="origins is empty"):
        origin_index([], None)
    with pytest.raises(ValueError, match="origins must be timestamps of the data"):
        origin_index(["soon"], None)


def test_a_list_applies_to_every_series_a_dict_to_its_own():
    both = origins_per_series(INDEX[[3]], ["a", "b"], None)
    assert list(both) == ["a", "b"]
    own = origins_per_series({"b": INDEX[[4]]}, ["a", "b"], None)
    assert list(own) == ["b"] and own["b"][0] == INDEX[4]
    with pytest.raises(ValueError, match=r"names series \['c'\] that are not in data"):
        origins_per_series({"c": INDEX[[4]]}, ["a", "b"], None)
    with pytest.raises(ValueError, match="series 'a': origins is empty"):
        origins_per_series({"a": []}, ["a", "b"], None)


def test_origin_position_counts_the_rows_up_to_the_origin():
    assert origin_position(INDEX, INDEX[3], None) == 4
    with pytest.raises(ValueError, match="origin 2023-01-01 03:30:00 is not a timestamp"):
        origin_position(INDEX, pd.Timestamp("2023-01-01 03:30"), None)


def test_origin_arrays_cut_the_history_and_extend_the_calendar():
    y = np.arange(10.0)[:, None]
    whole = SeriesArrays("k", y, INDEX, future=np.arange(10.0)[:, None])
    cut = origin_arrays(whole, 4, 2, encoder())
    assert cut.index.equals(INDEX[:4]) and cut.y[:, 0].tolist() == [0, 1, 2, 3]
    assert cut.future[:, 0].tolist() == [0, 1, 2, 3, 4, 5]
    late = origin_arrays(whole, 9, 3, encoder())  # past the data: calendar is recomputed
    assert late.future.shape == (12, 1)
    with pytest.raises(ValueError, match="series 'k': future covariates end at"):
        origin_arrays(whole, 9, 3, encoder(future=["temp"]))


def test_a_gap_open_at_the_origin_is_filled_from_the_past():
    raw = np.array([0.0, 1.0, 2.0, np.nan, np.nan, 5.0])[:, None]
    filled = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])[:, None]
    index = INDEX[:6]
    causal = CausalFill(SeriesArrays(None, raw, index))
    cut = origin_arrays(SeriesArrays(None, filled, index), 4, 1, encoder(), causal)
    assert cut.y[:, 0].tolist() == [0.0, 1.0, 2.0, 2.0]
