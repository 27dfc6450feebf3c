"""FrameOptions: the input options an estimator declares, with defaults for the others."""

import pytest

from forecast.frames.options import FrameOptions


class Declares:
    future_covariates = ["temp"]
    past_covariates = None
    calendar = True
    fill_gaps = False
    nan_policy = "interpolate"


def test_declared_options_are_read_and_the_others_default():
    options = FrameOptions.of(Declares())
    assert options.future_covariates == ["temp"] and options.calendar is True
    assert options.country is None and options.timezone is None
    assert FrameOptions.of(object()) == FrameOptions()
    assert FrameOptions().policy() == "raise"


def test_covariates_are_lists_and_may_not_be_both_future_and_past():
    assert FrameOptions.of(Declares()).covariates() == (["temp"], [])
    both = FrameOptions(future_covariates=("a", "b"), past_covariates=["b"])
    with pytest.raises(ValueError, match=r"columns \['b'\] are declared both future and past"):
        both.covariates()


def test_fill_gaps_implies_interpolation():
    assert FrameOptions(nan_policy="raise", fill_gaps=True).policy() == "interpolate"
    assert FrameOptions.of(Declares()).policy() == "interpolate"
