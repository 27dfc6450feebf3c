"""Durations in steps of the data: the one conversion every estimator's parameters use."""

import pandas as pd
import pytest
from pandas.tseries.frequencies import to_offset

from forecast.frames.steps import duration, steps

HOURLY = to_offset("h")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3),
        ("1D", 24),
        ("1 day", 24),  # read as a Timedelta
        ("1W", 168),
        ("D", 24),  # a bare offset alias
        ("90min", None),  # refused below: not whole hours
        (pd.Timedelta("2h"), 2),
        (pd.offsets.Hour(3), 3),
    ],
)
def test_ints_and_durations_in_any_form_pandas_reads(value, expected):
    if expected is None:
        with pytest.raises(ValueError, match=r"not a positive whole multiple .* h \(1.5 steps\)"):
            steps(value, "season", HOURLY)
    else:
        assert steps(value, "season", HOURLY) == expected


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (True, TypeError, "season must be an int number of steps or a duration, got True"),
        (0, ValueError, "season must be a positive number of steps, got 0"),
        ("x", ValueError, "season='x' is neither an int number of steps nor a fixed time span"),
        (None, ValueError, "season=None is neither an int number of steps"),
        (1.5, ValueError, "season=1.5 is neither an int number of steps"),
        ("-1D", ValueError, r"season='-1D' is not a positive whole multiple"),
    ],
)
def test_bad_values_say_what_is_wrong(value, error, message):
    with pytest.raises(error, match=message):
        steps(value, "season", HOURLY)


def test_a_calendar_frequency_takes_steps_only():
    monthly = to_offset("MS")
    assert steps(2, "season", monthly) == 2
    with pytest.raises(ValueError, match="frequency MS has no fixed length; give it as an int"):
        steps("30D", "season", monthly)


def test_round_up_takes_any_positive_span():
    assert steps("90min", "horizon", HOURLY, round_up=True) == 2
    assert steps("2h", "horizon", HOURLY, round_up=True) == 2
    assert steps(5, "horizon", HOURLY, round_up=True) == 5
    with pytest.raises(ValueError, match="horizon must be a positive time span, got '0h'"):
        steps("0h", "horizon", HOURLY, round_up=True)


def test_duration_reads_spans_and_nothing_else():
    assert duration("7D") == duration("1W") == duration(pd.Timedelta("7D")) == pd.Timedelta("7D")
    assert duration("h") == pd.Timedelta("1h")
    assert duration("x") is None and duration(None) is None and duration("MS") is None
