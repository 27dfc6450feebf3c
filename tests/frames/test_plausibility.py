"""Implausible history: far outside the series' own range warns (or errs), subnormal errs."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from forecast import Naive
from forecast.frames.plausibility import ImplausibleValueWarning

HOURS = pd.date_range("2024-01-01", periods=500, freq="h", tz="Europe/Berlin")
LOAD = 50 + 5 * np.sin(2 * np.pi * np.arange(len(HOURS)) / 24)


def frame(values) -> pd.DataFrame:
    return pd.DataFrame({"load": values}, index=HOURS)


def test_a_spike_far_outside_the_series_range_warns_naming_it():
    spiked = LOAD.copy()
    spiked[300] = 1e9  # a 1e9 in a series of about 50 MW
    with pytest.warns(ImplausibleValueWarning, match=r"'load' has the value 1e\+09 at 2024-01-13"):
        Naive().fit(frame(spiked))
    with pytest.warns(ImplausibleValueWarning):  # a forecast from such history too
        Naive().fit(frame(LOAD)).predict(3, history=frame(spiked))


def test_the_warning_is_an_error_by_the_documented_option():
    spiked = LOAD.copy()
    spiked[300] = 1e9
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImplausibleValueWarning)
        with pytest.raises(ValueError, match="robust scales from its median"):
            Naive().fit(frame(spiked))


def test_ordinary_series_do_not_warn():
    rng = np.random.default_rng(0)
    heavy = LOAD + rng.standard_t(2, len(LOAD))  # heavy tails, no unit error
    intermittent = np.where(rng.random(len(LOAD)) < 0.9, 0.0, 100.0)  # mostly zeros
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImplausibleValueWarning)
        for values in (LOAD, heavy, intermittent, np.zeros(len(LOAD))):
            Naive().fit(frame(values))


@pytest.mark.parametrize(
    ("values", "match"),
    [
        (LOAD * 1e-310, "has a subnormal value"),
        (LOAD * 1e-160, "has no value above 1e-150"),
    ],
)
def test_subnormal_magnitudes_are_refused(values, match):
    with pytest.raises(ValueError, match=match):
        Naive().fit(frame(values))
