"""Time-reversed training copies (``time_reversal=True``): what is trained on, and what is not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.base import SeriesArrays
from forecast.models import DCTMixerForecaster, GRUForecaster
from forecast.models._batching import reversed_series, training_data

SPLIT = dict(context=3, horizon=2, windowing="sliding", tbptt_steps=3, batch_size=8)


def arrays(n: int, offset: float = 0.0, past: bool = False) -> SeriesArrays:
    y = (offset + np.arange(n, dtype=float))[:, None]  # 0, 1, 2, ...: order is visible
    index = pd.date_range("2024-01-01", periods=n, freq="h")
    return SeriesArrays(key=offset, y=y, index=index, past=-y if past else None)


def test_reversed_series_plays_the_training_part_backwards():
    s = arrays(6, past=True)
    r = reversed_series(s, 4)  # the first 4 steps: 0 1 2 3 -> 3 2 1 0
    assert r.y[:, 0].tolist() == [3.0, 2.0, 1.0, 0.0]
    assert r.past[:, 0].tolist() == [-3.0, -2.0, -1.0, -0.0]
    assert r.key == ("reversed", 0.0) and len(r.index) == 4
    assert s.y[:, 0].tolist() == [0, 1, 2, 3, 4, 5]  # the input is not changed
    with pytest.raises(ValueError, match="future-known covariates"):
        reversed_series(SeriesArrays(key=None, y=s.y, index=s.index, future=s.y), 4)


def test_tails_stay_out_of_the_reversed_copies_and_validation_is_unchanged():
    """20 steps, tail max(2, round(0.1 x 20)) = 2: training part 18 steps, 18 - 5 + 1 = 14
    windows forward and 14 backward; the validation windows are the same 1 as without."""
    series = [arrays(20)]
    plain, val_plain = training_data(series, **SPLIT, validation_fraction=0.1)
    both, val_both = training_data(series, **SPLIT, validation_fraction=0.1, time_reversal=True)
    assert (len(plain), len(both)) == (14, 28)
    assert len(val_plain) == len(val_both) == 1
    targets = {tuple(both[i].y[:, 0].tolist()) for i in range(len(both))}
    assert (4.0, 3.0) in targets  # context 7 6 5 -> target 4 3: a backward window
    assert max(max(t) for t in targets) == 17.0  # step 18 and 19 (the tail) never a target


def test_held_out_series_get_no_reversed_copy():
    series = [arrays(10), arrays(10, offset=100.0)]
    train, val = training_data(
        series, **SPLIT, validation_fraction=0.1, held_out=[1], time_reversal=True
    )
    assert (len(train), len(val)) == (2 * 6, 6)
    trained = {float(v) for i in range(len(train)) for v in train[i].y[:, 0]}
    assert max(trained) < 100  # nothing of the held-out series


def test_the_estimator_trains_on_both_and_refuses_calendar_features():
    idx = pd.date_range("2024-01-01", periods=120, freq="h")
    df = pd.DataFrame({"a": np.sin(np.arange(120) / 4.0)}, index=idx)
    tiny = dict(context_length=8, horizon=4, max_epochs=1, random_state=0)
    model = DCTMixerForecaster(**tiny, mixer="mlp", hidden_size=4, num_layers=2)
    model.set_params(time_reversal=True).fit(df)
    assert model.get_params()["time_reversal"] is True
    assert model.predict(horizon=4).index[0] == idx[-1] + pd.Timedelta("1h")
    with pytest.raises(ValueError, match="cannot reverse the 6 future-known covariates"):
        GRUForecaster(**tiny, hidden_size=4, calendar=True, time_reversal=True).fit(df)


# update trains on the reversed copies too: tests/update/test_update_windows.py
