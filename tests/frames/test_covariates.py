"""frames.covariates: the future= values of the forecast steps, and calendar features."""

import numpy as np
import pandas as pd
import pytest

from forecast.frames.calendar import calendar_features
from forecast.frames.covariates import calendar_block, known_future

STEPS = pd.date_range("2023-01-03", periods=3, freq="h", tz="Europe/Berlin")


def test_future_values_are_read_at_the_forecast_steps_in_the_fitted_zone():
    future = pd.DataFrame(
        {"temp": [1.0, 2.0, 3.0, 4.0], "other": 0.0},
        index=pd.date_range("2023-01-02 23:00", periods=4, freq="h", tz="UTC"),
    )
    out = known_future(future, STEPS, None, ["temp"], "Europe/Berlin")
    assert list(out.columns) == ["temp"] and list(out["temp"]) == [1.0, 2.0, 3.0]
    assert out.index.equals(STEPS)


def test_missing_or_bad_future_values_say_what_is_missing():
    with pytest.raises(ValueError, match="series 'a': future covariates \\['temp'\\] are decl"):
        known_future(None, STEPS, "a", ["temp"], "Europe/Berlin")
    short = pd.DataFrame({"temp": [1.0, 2.0]}, index=STEPS[:2])
    with pytest.raises(ValueError, match="lack 1 forecast timestamp"):
        known_future(short, STEPS, None, ["temp"], "Europe/Berlin")
    gap = pd.DataFrame({"temp": [1.0, np.nan, 3.0]}, index=STEPS)
    with pytest.raises(ValueError, match="never interpolated"):
        known_future(gap, STEPS, None, ["temp"], "Europe/Berlin")
    with pytest.raises(ValueError, match="future has timestamps in time zone Europe/Berlin but"):
        known_future(gap, STEPS.tz_localize(None), None, ["temp"], None)


def test_naive_future_stamps_are_local_times_in_the_model_zone():
    future = pd.DataFrame({"temp": [1.0, 2.0, 3.0]}, index=STEPS)
    local = future.tz_convert("Europe/Berlin").tz_localize(None)  # the same wall-clock times
    out = known_future(local, STEPS, None, ["temp"], "Europe/Berlin")
    assert out.index.equals(STEPS) and list(out["temp"]) == [1.0, 2.0, 3.0]


def test_calendar_block_is_the_calendar_features_as_floats():
    block = calendar_block(STEPS, "Europe/Berlin", "DE")
    expected = calendar_features(STEPS, timezone="Europe/Berlin", country="DE")
    assert block.dtype == float and block.shape == expected.shape
    np.testing.assert_array_equal(block, expected.to_numpy(dtype=float))
