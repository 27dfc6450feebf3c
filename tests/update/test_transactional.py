"""Updates are all or nothing, their options are checked as parameters, and lineage scales."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

import forecast
import forecast.frames.lineage as lineage
from forecast import LinearLagForecaster, LSTMForecaster, Naive
from forecast.cli import main

HOURS = pd.date_range("2024-01-01", periods=400, freq="h", tz="Europe/Berlin")


def hourly() -> pd.DataFrame:
    t = np.arange(len(HOURS))
    return pd.DataFrame({"load": 50 + np.sin(2 * np.pi * t / 24) + 0.01 * (t % 7)}, index=HOURS)


def tiny_lstm() -> LSTMForecaster:
    return LSTMForecaster(
        context_length=24, horizon=6, hidden_size=4, max_epochs=1, batch_size=32, random_state=0
    )


def state(model) -> dict:
    weights = {k: v.clone() for k, v in model.module_.state_dict().items()}
    return {
        "weights": weights,
        "lineage": json.dumps(model.lineage_, sort_keys=True),
        "through": model.updated_through_,
        "n": model.n_updates_,
        "forecast": model.predict(6),
    }


def assert_unchanged(model, before: dict) -> None:
    after = state(model)
    assert after["lineage"] == before["lineage"]
    assert (after["through"], after["n"]) == (before["through"], before["n"])
    for key, value in before["weights"].items():
        assert torch.equal(after["weights"][key], value)
    pd.testing.assert_frame_equal(after["forecast"], before["forecast"])


# ------------------------------------------------------------------- transactions
def test_a_diverging_update_raises_and_leaves_the_estimator_as_it_was(tmp_path):
    df = hourly()
    model = tiny_lstm().fit(df.iloc[:300])
    before = state(model)
    with pytest.raises(RuntimeError, match="training diverged"):
        model.update(df.iloc[300:], learning_rate=1e30, epochs=2)  # an absurd rate
    assert_unchanged(model, before)
    path = model.save(tmp_path / "model")  # and the estimator still saves and loads
    pd.testing.assert_frame_equal(forecast.load(path).predict(6), before["forecast"])


def test_an_update_interrupted_by_a_callback_leaves_the_estimator_as_it_was():
    class Boom:
        def on_fit_start(self, est):
            pass

        def on_epoch_end(self, epoch, logs):
            raise KeyboardInterrupt  # Ctrl+C in the middle of the training

        def on_fit_end(self, est):
            pass

    df = hourly()
    model = tiny_lstm().fit(df.iloc[:300])
    before = state(model)
    with pytest.raises(KeyboardInterrupt):
        model.update(df.iloc[300:], epochs=1, callbacks=[Boom()])
    assert_unchanged(model, before)


@pytest.mark.parametrize(
    ("option", "match"),
    [
        ({"learning_rate": float("inf")}, "learning_rate must be > 0, got inf"),
        ({"learning_rate": float("nan")}, "learning_rate must be > 0, got nan"),
        ({"early_stopping_patience": -2}, "early_stopping_patience must be an int >= 1"),
        ({"epochs": np.int64(0)}, "epochs must be an int >= 1"),
    ],
)
def test_update_options_are_checked_as_the_parameters_are(option, match):
    df = hourly()
    model = tiny_lstm().fit(df.iloc[:300])
    before = state(model)
    with pytest.raises(ValueError, match=match):
        model.update(df.iloc[300:], **option)
    assert_unchanged(model, before)


def test_parameters_are_refused_at_fit_as_the_project_checks_them():
    for bad in ({"learning_rate": float("inf")}, {"early_stopping_patience": -2}):
        with pytest.raises(ValueError, match="must be"):
            tiny_lstm().set_params(**bad).fit(hourly())


def test_numpy_integer_update_options_are_ints():
    df = hourly()
    model = tiny_lstm().fit(df.iloc[:300])
    model.update(df.iloc[300:], epochs=np.int64(1), early_stopping_patience=np.int64(2))
    assert model.n_updates_ == 1


# ------------------------------------------------------------------------ lineage
def test_lineage_keeps_the_fit_the_recent_updates_and_the_totals(tmp_path, monkeypatch):
    monkeypatch.setattr(lineage, "KEEP_UPDATES", 5)
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    for start in range(100, 400, 25):  # 12 updates of 25 hours
        model.update(df.iloc[start : start + 25])
    kinds = [r["kind"] for r in model.lineage_]
    assert kinds == ["fit", "earlier"] + ["update"] * 5
    earlier = model.lineage_[1]
    assert earlier["updates"] == 7 and earlier["rows"] == 7 * 25
    assert earlier["start"] == str(df.index[100]) and earlier["end"] == str(df.index[274])
    assert model.n_updates_ == 12 and model.updated_through_ == df.index[-1]
    loaded = forecast.load(model.save(tmp_path / "model"))
    assert loaded.lineage_ == model.lineage_ and loaded.n_updates_ == 12
    meta = json.loads((tmp_path / "model" / "meta.json").read_text())
    assert meta["lineage"]["records"][1]["updates"] == 7


def test_appended_folds_the_oldest_updates_into_one_record():
    fit = {"kind": "fit", "rule": "fit", "start": "a", "end": "b", "rows": 10}
    records = [fit]
    for i in range(6):
        new = {"kind": "update", "rule": "extend", "start": f"s{i}", "end": f"e{i}", "rows": 1}
        records = lineage.appended(records, new, keep=2)
    assert [r["kind"] for r in records] == ["fit", "earlier", "update", "update"]
    assert records[1]["updates"] == 4 and records[1]["rows"] == 4
    assert (records[1]["start"], records[1]["end"]) == ("s0", "e3")


# ---------------------------------------------------- a refit from a later start
def test_a_refit_update_from_history_that_starts_later_is_refused(tmp_path, capsys):
    df = hourly()
    model = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False).fit(df.iloc[:300])
    before = model.predict(6)
    with pytest.raises(ValueError, match="history starts at .* after the first row"):
        model.update(df.iloc[300:], history=df.iloc[100:300])
    pd.testing.assert_frame_equal(model.predict(6), before)
    path = model.save(tmp_path / "model")
    later = tmp_path / "later.csv"
    df.iloc[100:].rename_axis("timestamp").reset_index().to_csv(later, index=False)
    args = ["update", "--model", str(path), "--input", str(later), "--no-track"]
    assert main([*args, "--output", str(tmp_path / "updated")]) == 1
    assert "after the first row the model was fitted on" in capsys.readouterr().err
    assert not (tmp_path / "updated").exists()
    whole = tmp_path / "whole.csv"
    df.rename_axis("timestamp").reset_index().to_csv(whole, index=False)
    args = ["update", "--model", str(path), "--input", str(whole), "--no-track"]
    assert main([*args, "--output", str(tmp_path / "updated")]) == 0
