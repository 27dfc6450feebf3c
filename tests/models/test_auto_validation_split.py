"""The default validation split: a tail of each series where it fits (whole series if none)."""

import re

import numpy as np
import pandas as pd
import pytest

from forecast.base import SeriesArrays
from forecast.models._batching import training_data
from forecast.models.recurrent import GRUForecaster
from forecast.training.splits import default_split, min_length
from tests.conftest import make_series

TINY = dict(context_length=4, horizon=2, hidden_size=4, max_epochs=2, batch_size=8)


def data_of(lengths: dict) -> dict:
    return {k: make_series(n, seed=i) for i, (k, n) in enumerate(lengths.items())}


@pytest.mark.parametrize(
    ("lengths", "need", "fraction", "held", "untailed"),
    [
        ([100] * 31 + [50], 60, 0.1, None, [31]),  # the short one trains whole, others keep tails
        ([6, 30, 7], 8, 0.1, None, [0, 2]),
        ([6, 6, 6, 6], 8, 0.1, [3], []),  # none has room: k = round(0.4) = 0, at least one
        ([6] * 10, 8, 0.3, [3, 6, 9], []),  # k = 3: ceil(10/3) - 1 = 3, ceil(20/3) - 1 = 6, 9
        ([6, 7], 8, 0.9, [1], []),  # k = round(1.8) = 2, capped at n - 1 = 1
        ([10, 12, 15, 20], 8, 0.1, None, []),  # every series has room for its tail
        ([6], 8, 0.1, None, []),  # one series: its too-short error says what to do
        ([6, 6, 6], 8, 0.0, None, []),  # no validation at all
    ],
)
def test_default_split(lengths, need, fraction, held, untailed):
    assert default_split(lengths, need, fraction) == (held, untailed)


def arrays(lengths):
    return [
        SeriesArrays(key=k, y=np.zeros((n, 1)), index=pd.RangeIndex(n), past=None, future=None)
        for k, n in lengths.items()
    ]


def test_short_series_train_whole_while_the_others_keep_their_tails():
    """a, c: 20 rows, tail max(2, round(2)) = 2; b: 7 rows < 8, no tail (windows of 4 + 2)."""
    split = dict(context=4, horizon=2, windowing="sliding", tbptt_steps=4, batch_size=8)
    lengths = {"a": 20, "b": 7, "c": 20}
    train, val = training_data(arrays(lengths), **split, validation_fraction=0.1, untailed=[1])
    assert (len(train), len(val)) == (13 + 2 + 13, 1 + 0 + 1)
    model = GRUForecaster(**TINY, random_state=0).fit(data_of(lengths))
    assert model.untailed_series_ == ["b"] and model.validation_series_ is None
    assert len(model.history_["val_loss"]) == model.n_epochs_


def test_whole_series_are_held_out_when_none_has_room_for_a_tail():
    """Seven rows each, validation_fraction=0.4 needs 10: k = round(5 x 0.4) = 2 series held
    out, positions ceil(5/2) - 1 = 2 and 4 (c, e): the fit asked for with validation_series."""
    data = data_of({k: 7 for k in "abcde"})
    params = dict(TINY, validation_fraction=0.4, random_state=0)
    assert min_length(4, 2, 0.4, None, False) == 10
    auto = GRUForecaster(**params).fit(data)
    assert auto.validation_series_ == ["c", "e"] and auto.untailed_series_ is None
    explicit = GRUForecaster(**params, validation_series=["c", "e"]).fit(data)
    assert auto.history_ == explicit.history_
    for key, frame in auto.predict(horizon=2).items():
        pd.testing.assert_frame_equal(frame, explicit.predict(horizon=2)[key])


@pytest.mark.parametrize(
    ("lengths", "why"),
    [
        (
            {"a": 20, "b": 5, "c": 20},
            "series shorter than the 8 rows a validation tail of validation_fraction=0.1 needs "
            "are trained on whole, without a tail",
        ),
        (
            {"a": 7, "b": 5, "c": 7},
            "no series has the 8 rows a validation tail of validation_fraction=0.1 needs, so "
            "whole series are held out for validation instead",
        ),
    ],
)
def test_the_default_split_message_when_a_series_lacks_even_one_window(lengths, why):
    message = (
        "series 'b': too little history: 5 rows, but at least 6 are needed (one training window "
        f"of context_length=4 + horizon=2 = 6 steps; {why})"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        GRUForecaster(**TINY).fit(data_of(lengths))


def test_long_series_keep_a_tail_each():
    data = data_of({"a": 20, "b": 30})
    model = GRUForecaster(**TINY, random_state=0).fit(data)
    assert model.validation_series_ is None
    assert len(model.history_["val_loss"]) == model.n_epochs_


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
    assert default.validation_series_ is None and default.untailed_series_ is None
    assert default.change_scale_ is None
    assert (default.normalize_, default.skip_) == (True, True)
    assert default.history_ == explicit.history_
    np.testing.assert_array_equal(
        default.predict(horizon=6).to_numpy(), explicit.predict(horizon=6).to_numpy()
    )
