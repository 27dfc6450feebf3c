"""``fit`` and ``update`` cut their training windows with the same options.

The windows of an update are those ``fit`` would cut from the joined rows: every option
(``time_reversal``, ``train_origins``, the windowing, the validation tail) reaches both,
because both call the estimator's one ``_training_data``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import forecast.models.neural as neural
from forecast.models import GRUForecaster
from forecast.models.baselines import LinearLagForecaster
from forecast.models.referenced import ReferencedHopfieldForecaster, ReferencedWindows

TINY = dict(context_length=8, horizon=4, max_epochs=1, random_state=0, hidden_size=4)
# the arguments of each call that depend on the data, not on the options
DATA = ("origins", "held_out", "untailed")

OPTIONS = [
    {},
    dict(time_reversal=True),
    dict(train_origins=3),
    dict(train_origins=("00:00", "12:00")),
    dict(windowing="tbptt", tbptt_steps=6),
    dict(validation_size="6h"),
    dict(validation_fraction=0.0),
    dict(time_reversal=True, windowing="tbptt", validation_fraction=0.2),
]


def frame(n: int) -> pd.DataFrame:
    idx = pd.date_range("2024-01-01", periods=n, freq="h")
    return pd.DataFrame({"a": np.sin(np.arange(n) / 4.0)}, index=idx)


@pytest.fixture
def calls(monkeypatch):
    """Record each call of the window function: its keyword arguments and the windows."""
    made = []

    def spy(series, **kwargs):
        windows = training_data(series, **kwargs)
        made.append((kwargs, windows))
        return windows

    training_data = neural.training_data
    monkeypatch.setattr(neural, "training_data", spy)
    return made


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_update_cuts_its_windows_as_fit_does(calls, options):
    df = frame(160)
    model = GRUForecaster(**TINY, **options).fit(df.iloc[:120])
    model.update(df.iloc[120:])
    assert len(calls) == 2  # one for fit, one for the update: the same function
    (fit_args, fit_windows), (update_args, update_windows) = calls
    assert {k: v for k, v in fit_args.items() if k not in DATA} == {
        k: v for k, v in update_args.items() if k not in DATA
    }
    assert (fit_args["origins"] is None) == (update_args["origins"] is None)
    assert type(fit_windows[0]) is type(update_windows[0])
    assert (fit_windows[1] is None) == (update_windows[1] is None)


def test_time_reversal_doubles_the_windows_of_fit_and_of_update(calls):
    df = frame(160)
    counts = {}
    for reverse in (False, True):
        model = GRUForecaster(**TINY, time_reversal=reverse).fit(df.iloc[:120])
        model.update(df.iloc[120:])
        counts[reverse] = [len(windows[0]) for _, windows in calls[-2:]]
    assert counts[True] == [2 * n for n in counts[False]]


def test_a_network_with_a_reference_reads_it_in_the_update_windows_too(monkeypatch):
    trained = []

    def spy(net, train_data, *args):
        trained.append(train_data)
        return train(net, train_data, *args)

    train = neural.train
    monkeypatch.setattr(neural, "train", spy)
    df = frame(400)
    linear = LinearLagForecaster(horizon=4, seasonal_lags=[24])
    model = ReferencedHopfieldForecaster(**TINY, reference_model=linear, reference_input=True)
    model.fit(df.iloc[:340]).update(df.iloc[340:])
    assert [type(windows) for windows in trained] == [ReferencedWindows, ReferencedWindows]
