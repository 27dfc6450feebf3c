"""Many short series: whole series held out for validation, per-series forecast origins."""

import re

import numpy as np
import pandas as pd
import pytest

from forecast.base import SeriesArrays
from forecast.models._batching import training_data
from forecast.models.baselines import Naive
from forecast.models.recurrent import GRUForecaster
from forecast.training.splits import held_out
from tests.conftest import make_series

TINY = dict(context_length=4, horizon=2, hidden_size=4, max_epochs=2, batch_size=8)
LENGTHS = {"a": 10, "b": 12, "c": 15, "d": 20}  # windows of 4 + 2 steps: 5, 7, 10, 15


def short_series():
    return {k: make_series(n, seed=i) for i, (k, n) in enumerate(LENGTHS.items())}


def arrays():
    return [
        SeriesArrays(key=k, y=np.zeros((n, 1)), index=pd.RangeIndex(n), past=None, future=None)
        for k, n in LENGTHS.items()
    ]


@pytest.mark.parametrize(
    ("spec", "held", "n_train", "n_val"),
    [
        (1, [3], 5 + 7 + 10, 15),  # the last series
        (0.5, [2, 3], 5 + 7, 10 + 15),  # round(0.5 x 4) = 2, the last two
        (0.1, [3], 5 + 7 + 10, 15),  # round(0.4) = 0, at least one
        (["a", "c"], [0, 2], 7 + 15, 5 + 10),  # by key
    ],
)
def test_whole_series_are_held_out_and_the_rest_trained_on_whole(spec, held, n_train, n_val):
    keys = list(LENGTHS)
    assert held_out(spec, keys) == held
    train, val = training_data(
        arrays(),
        context=4,
        horizon=2,
        windowing="sliding",
        tbptt_steps=4,
        batch_size=8,
        validation_fraction=0.1,
        held_out=held,
    )
    assert (len(train), len(val)) == (n_train, n_val)


def test_a_tail_per_series_for_comparison():
    """validation_fraction=0.1: tails max(2, round(0.1 n)) = 2, 2, 2, 2 steps."""
    train, val = training_data(
        arrays(),
        context=4,
        horizon=2,
        windowing="sliding",
        tbptt_steps=4,
        batch_size=8,
        validation_fraction=0.1,
    )
    # training part n - 2 holds n - 2 - 6 + 1 windows; each tail of 2 holds one target window
    assert (len(train), len(val)) == (3 + 5 + 8 + 13, 4)


@pytest.mark.parametrize(
    ("spec", "error", "fragment"),
    [
        (4, ValueError, "validation_series=4 must hold out between 1 and 3 of the 4 series"),
        (0, ValueError, "validation_series=0 must hold out between 1 and 3 of the 4 series"),
        (0.9, ValueError, "validation_series=0.9 of 4 series holds out 4, leaving none"),
        (1.5, ValueError, "validation_series=1.5 as a fraction must be in (0, 1)"),
        (["a", "z"], ValueError, "validation_series names series ['z'] that are not in the"),
        (list(LENGTHS), ValueError, "must hold out at least one and at most 3 of the 4 series"),
        (True, TypeError, "validation_series must be an int, a float or a list of series keys"),
        ("a", TypeError, "validation_series must be an int, a float or a list of series keys"),
    ],
)
def test_bad_validation_series(spec, error, fragment):
    with pytest.raises(error, match=re.escape(fragment)):
        GRUForecaster(**TINY, validation_series=spec).fit(short_series())


def test_validation_series_needs_several_series_and_no_validation_size():
    with pytest.raises(ValueError, match="validation_series=1 needs several series"):
        GRUForecaster(**TINY, validation_series=1).fit(make_series(30))
    with pytest.raises(ValueError, match="validation_size a tail of each: give only one"):
        GRUForecaster(**TINY, validation_series=1, validation_size=3).fit(short_series())


@pytest.mark.parametrize("windowing", ["sliding", "tbptt"])
def test_series_one_window_long_train_with_validation_series(windowing):
    """Six rows each: too short for a tail (at least 8), enough with whole series held out."""
    data = {k: make_series(6, seed=i) for i, k in enumerate("pqrs")}
    with pytest.raises(ValueError, match="too little history: 6 rows, but at least 8"):
        GRUForecaster(**TINY).fit(data["p"])  # one series: none to hold out whole
    model = GRUForecaster(**TINY, windowing=windowing, validation_series=["q"], random_state=0)
    model.fit(data)
    assert model.validation_series_ == ["q"]
    assert len(model.history_["val_loss"]) == model.n_epochs_ == 2
    fc = model.predict(horizon=3)
    assert list(fc) == list("pqrs") and all(f.shape == (3, 1) for f in fc.values())


def test_predict_origins_per_series_is_one_call_with_the_per_series_results():
    data = short_series()
    model = Naive().fit(data)
    origins = {"a": data["a"].index[[4, 6]], "d": data["d"].index[[10]]}
    fc = model.predict_origins(data, origins, horizon=2)
    assert list(fc["id"]) == ["a"] * 4 + ["d"] * 2  # b and c are not forecast
    expected = [data["a"]["load"].iloc[4]] * 2 + [data["a"]["load"].iloc[6]] * 2
    expected += [data["d"]["load"].iloc[10]] * 2  # naive: the value at the origin
    np.testing.assert_allclose(fc["load"].to_numpy(), expected)
    assert (
        list(fc["origin"]) == [origins["a"][0]] * 2 + [origins["a"][1]] * 2 + [origins["d"][0]] * 2
    )
    one = model.predict_origins({"d": data["d"]}, list(origins["d"]), horizon=2)
    pd.testing.assert_frame_equal(fc.iloc[4:].reset_index(drop=True), one)


def test_predict_origins_per_series_neural_matches_separate_calls():
    data = short_series()
    model = GRUForecaster(**TINY, validation_series=1, random_state=0).fit(data)
    origins = {"b": data["b"].index[[5, 9]], "c": data["c"].index[[7]]}
    fc = model.predict_origins(data, origins, horizon=3)
    for key, times in origins.items():
        alone = model.predict_origins({key: data[key]}, times, horizon=3)
        part = fc[fc["id"] == key].reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone, atol=1e-6)


def test_bad_per_series_origins():
    data = short_series()
    model = Naive().fit(data)
    with pytest.raises(ValueError, match=r"origins names series \['z'\] that are not in data"):
        model.predict_origins(data, {"z": data["a"].index[:1]}, horizon=1)
    with pytest.raises(ValueError, match="origins is empty: give at least one series"):
        model.predict_origins(data, {}, horizon=1)
    with pytest.raises(ValueError, match="series 'a': origins is empty"):
        model.predict_origins(data, {"a": []}, horizon=1)
    late = pd.Timestamp("2030-01-01")
    with pytest.raises(ValueError, match=f"series 'b': origin {late} is not a timestamp"):
        model.predict_origins(data, {"b": [late]}, horizon=1)
