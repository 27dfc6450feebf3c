"""The default validation split: a tail of each series, whole series when one is too short."""

import re

import numpy as np
import pandas as pd
import pytest

from forecast.models._split import auto_held_out, min_length
from forecast.models.recurrent import GRUForecaster
from tests.conftest import make_series

TINY = dict(context_length=4, horizon=2, hidden_size=4, max_epochs=2, batch_size=8)


def data_of(lengths: dict) -> dict:
    return {k: make_series(n, seed=i) for i, (k, n) in enumerate(lengths.items())}


@pytest.mark.parametrize(
    ("lengths", "need", "fraction", "held"),
    [
        ([100] * 31 + [50], 60, 0.1, [10, 21, 31]),  # k = round(3.2) = 3: ceil(32/3) - 1, ...
        ([6, 6, 6, 6], 8, 0.1, [3]),  # k = round(0.4) = 0, at least one: the last
        ([6] * 10, 8, 0.3, [3, 6, 9]),  # k = 3: ceil(10/3) - 1 = 3, ceil(20/3) - 1 = 6, 9
        ([6, 30], 8, 0.9, [1]),  # k = round(1.8) = 2, capped at n - 1 = 1
        ([10, 12, 15, 20], 8, 0.1, None),  # every series has room for its tail
        ([6], 8, 0.1, None),  # one series: its too-short error says what to do
        ([6, 6, 6], 8, 0.0, None),  # no validation at all
    ],
)
def test_auto_held_out(lengths, need, fraction, held):
    assert auto_held_out(lengths, need, fraction) == held


def test_a_series_too_short_for_its_tail_makes_the_fit_hold_out_whole_series():
    """b (7 rows) cannot keep a tail of validation_fraction=0.4 (10 rows needed).

    k = round(5 x 0.4) = 2 series are held out: positions ceil(5/2) - 1 = 2 and 4, i.e. c, e;
    the fit is the one asked for explicitly with validation_series=["c", "e"].
    """
    data = data_of({"a": 20, "b": 7, "c": 20, "d": 20, "e": 20})
    params = dict(TINY, validation_fraction=0.4, random_state=0)
    assert min_length(4, 2, 0.4, None, False) == 10
    auto = GRUForecaster(**params).fit(data)
    assert auto.validation_series_ == ["c", "e"]
    explicit = GRUForecaster(**params, validation_series=["c", "e"]).fit(data)
    assert auto.history_ == explicit.history_
    for key, frame in auto.predict(horizon=2).items():
        pd.testing.assert_frame_equal(frame, explicit.predict(horizon=2)[key])


def test_long_series_keep_a_tail_each():
    data = data_of({"a": 20, "b": 30})
    model = GRUForecaster(**TINY, random_state=0).fit(data)
    assert model.validation_series_ is None
    assert len(model.history_["val_loss"]) == model.n_epochs_


def test_the_auto_rule_message_when_a_series_lacks_even_one_window():
    data = data_of({"a": 20, "b": 5, "c": 20, "d": 20})
    message = (
        "series 'b': too little history: 5 rows, but at least 6 are needed (one training window "
        "of context_length=4 + horizon=2 = 6 steps; some series are shorter than the 8 rows a "
        "validation tail of validation_fraction=0.1 needs, so whole series are held out for "
        "validation instead (each series needs one window only))"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        GRUForecaster(**TINY).fit(data)


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        # one series: the tail is required, and the message says how to avoid it
        ({}, "round(validation_fraction=0.1 x rows)) steps, 2 at 8 rows; lower validation_"),
        # validation_size asks for a tail explicitly: no automatic switch
        ({"validation_size": 3}, "then a validation tail of max(horizon=2, validation_size=3)"),
    ],
)
def test_a_tail_asked_for_is_never_replaced(params, fragment):
    data = data_of({"a": 20, "b": 7, "c": 20})
    with pytest.raises(ValueError, match=re.escape("too little history: 7 rows, but at least")):
        GRUForecaster(**TINY, **params).fit(data if params else data["b"])
    with pytest.raises(ValueError, match=re.escape(fragment)):
        GRUForecaster(**TINY, **params).fit(data if params else data["b"])


def test_no_validation_needs_one_window_per_series():
    data = data_of({"a": 20, "b": 6, "c": 20})
    model = GRUForecaster(**TINY, validation_fraction=0.0, random_state=0).fit(data)
    assert model.validation_series_ is None and "val_loss" not in model.history_


def test_a_single_long_series_fits_as_with_the_explicit_pre_auto_settings():
    """Defaults on one long series = a tail of 10 %, window normalisation, skip, no changes."""
    df = make_series(300)
    params = dict(context_length=24, horizon=6, hidden_size=4, max_epochs=2, random_state=0)
    default = GRUForecaster(**params).fit(df)
    explicit = GRUForecaster(
        **params,
        validation_fraction=0.1,
        normalization="window",
        linear_skip=True,
        input_differences=False,
        residual=False,
    ).fit(df)
    assert default.validation_series_ is None and default.change_scale_ is None
    assert (default.normalize_, default.skip_) == (True, True)
    assert default.history_ == explicit.history_
    np.testing.assert_array_equal(
        default.predict(horizon=6).to_numpy(), explicit.predict(horizon=6).to_numpy()
    )
