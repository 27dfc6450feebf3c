"""``update(new_data)``: lineage, refusals, and the three rules (continue, extend, refit)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from forecast import (
    ETSForecaster,
    LinearLagForecaster,
    LSTMForecaster,
    Naive,
    SeasonalNaive,
)
from forecast.frames.fingerprint import fingerprint

HOURS = pd.date_range("2024-01-01", periods=24 * 40, freq="h")


def hourly(level: float = 10.0, shift_from: int | None = None, shift: float = 0.0) -> pd.DataFrame:
    t = np.arange(len(HOURS))
    y = level + np.sin(2 * np.pi * t / 24) + 0.01 * (t % 7)
    if shift_from is not None:
        y[shift_from:] += shift
    return pd.DataFrame({"load": y}, index=HOURS)


def tiny_lstm(**kw):
    params = dict(
        context_length=24, horizon=24, hidden_size=4, max_epochs=2, batch_size=32, random_state=0
    )
    return LSTMForecaster(**(params | kw))


# ---------------------------------------------------------------------------- lineage
def test_fit_starts_the_lineage():
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    assert model.updated_through_ == df.index[99]
    assert model.n_updates_ == 0
    (first,) = model.lineage_
    assert first["kind"] == "fit" and first["rows"] == 100
    assert first["fingerprint"] == fingerprint(df.iloc[:100])


def test_update_appends_a_record_and_moves_updated_through():
    df = hourly()
    model = Naive().fit(df.iloc[:100]).update(df.iloc[100:150]).update(df.iloc[150:160])
    assert model.n_updates_ == 2
    assert model.updated_through_ == df.index[159]
    assert [r["kind"] for r in model.lineage_] == ["fit", "update", "update"]
    assert model.lineage_[1]["fingerprint"] == fingerprint(df.iloc[100:150])
    assert model.lineage_[2]["start"] == str(df.index[150])
    assert model.predict(1)["load"].iloc[0] == df["load"].iloc[159]


def test_several_series_keep_one_end_each():
    df = hourly()
    data = {"a": df.iloc[:100], "b": df.iloc[:90]}
    model = Naive().fit(data)
    assert model.updated_through_ == {"a": df.index[99], "b": df.index[89]}
    model.update({"b": df.iloc[90:100]})
    assert model.updated_through_ == {"a": df.index[99], "b": df.index[99]}
    with pytest.raises(ValueError, match="series 'c' was not seen in fit"):
        model.update({"c": df.iloc[100:110]})


# --------------------------------------------------------------------------- refusals
def test_overlap_is_refused_naming_the_timestamps():
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    with pytest.raises(ValueError) as err:
        model.update(df.iloc[95:120])
    message = str(err.value)
    assert "\n" not in message
    assert "5 row(s)" in message and str(df.index[95]) in message and str(df.index[99]) in message
    assert model.n_updates_ == 0 and model.updated_through_ == df.index[99]  # nothing lost


def test_overlap_drop_and_replace():
    df = hourly()
    dropped = Naive().fit(df.iloc[:100]).update(df.iloc[95:120], on_overlap="drop")
    assert dropped.lineage_[-1]["dropped"] == 5 and dropped.lineage_[-1]["rows"] == 20
    revised = df.iloc[95:120].copy()
    revised["load"] += 100.0
    model = SeasonalNaive(season=24).fit(df.iloc[:100])
    model.update(revised, on_overlap="replace")
    assert model.lineage_[-1]["replaced"] == 5
    kept = model.train_tail_[None]["load"]
    assert kept.loc[df.index[99]] == pytest.approx(df["load"].iloc[99] + 100)
    with pytest.raises(ValueError, match="nothing new to learn"):
        Naive().fit(df.iloc[:100]).update(df.iloc[90:100], on_overlap="drop")


def test_gap_is_refused_unless_restart():
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    with pytest.raises(ValueError, match=f"starts at {df.index[110]}, leaving a gap after"):
        model.update(df.iloc[110:120])
    model.update(df.iloc[110:120], on_gap="restart")
    assert model.lineage_[-1]["restart"] is True
    assert model.train_tail_[None].index[-1] == df.index[119]


def test_another_target_and_options_of_other_rules_are_refused():
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    other = df.iloc[100:120].rename(columns={"load": "price"})
    with pytest.raises(ValueError, match=r"lacks the target column\(s\) \['load'\]"):
        model.update(other)
    with pytest.raises(ValueError, match="epochs apply to neural estimators; Naive updates"):
        model.update(df.iloc[100:120], epochs=3)
    with pytest.raises(ValueError, match="learning_rate apply to neural estimators"):
        model.update(df.iloc[100:120], learning_rate=1e-4)
    with pytest.raises(ValueError, match="history= is for estimators that refit"):
        model.update(df.iloc[100:120], history=df.iloc[:100])
    with pytest.raises(ValueError, match="on_overlap must be one of"):
        model.update(df.iloc[100:120], on_overlap="keep")
    assert model.n_updates_ == 0


# ------------------------------------------------------------------------------ rules
def test_seasonal_naive_extends_its_state():
    df = hourly()
    updated = SeasonalNaive(season=24).fit(df.iloc[:200]).update(df.iloc[200:300])
    refitted = SeasonalNaive(season=24).fit(df.iloc[:300])
    pd.testing.assert_frame_equal(updated.predict(24), refitted.predict(24))


def test_exponential_smoothing_filters_on_with_its_fitted_parameters():
    df = hourly()
    model = ETSForecaster(trend=None, seasonal=None).fit(df.iloc[:200])
    expected = model.predict(12, history=df.iloc[:300])
    model.update(df.iloc[200:300])
    pd.testing.assert_frame_equal(model.predict(12), expected)


def test_linear_refit_needs_the_history_and_equals_a_fit_on_all_data():
    df = hourly()
    model = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False).fit(df.iloc[:300])
    with pytest.raises(ValueError, match=f"pass history=.*through {df.index[299]}"):
        model.update(df.iloc[300:400])
    with pytest.raises(ValueError, match=f"history ends at {df.index[289]}, not at"):
        model.update(df.iloc[300:400], history=df.iloc[:290])
    model.update(df.iloc[300:400], history=df.iloc[:300])
    full = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False).fit(df.iloc[:400])
    pd.testing.assert_frame_equal(model.predict(24), full.predict(24))
    assert [r["rule"] for r in model.lineage_] == ["fit", "refit"]
    assert model.lineage_[-1]["history_rows"] == 400 and model.n_updates_ == 1


def test_neural_update_learns_a_level_shift(seed):
    df = hourly(shift_from=24 * 25, shift=3.0)
    start = 24 * 25
    model = tiny_lstm(max_epochs=30, learning_rate=0.01, normalization=None, linear_skip=False)
    model.fit(df.iloc[:start])
    weights = {k: v.clone() for k, v in model.module_.state_dict().items()}
    truth = df["load"].iloc[start + 24 * 10 : start + 24 * 11].to_numpy()
    before = model.predict(24, history=df.iloc[: start + 24 * 10])["load"].to_numpy()
    model.update(df.iloc[start : start + 24 * 10], epochs=30, early_stopping_patience=30)
    after = model.predict(24)["load"].to_numpy()
    assert np.abs(after - truth).mean() < 0.5 * np.abs(before - truth).mean()
    record = model.lineage_[-1]
    assert record["rule"] == "continue" and record["epochs"] == 30
    assert any((model.module_.state_dict()[k] != v).any() for k, v in weights.items())
    assert model.scaler_.mean_ == pytest.approx(df["load"].iloc[:start].mean())  # kept


def test_neural_update_is_deterministic_and_refuses_short_data(seed):
    df = hourly()
    a = tiny_lstm().fit(df.iloc[:300]).update(df.iloc[300:400], epochs=1)
    b = tiny_lstm().fit(df.iloc[:300]).update(df.iloc[300:400], epochs=1)
    pd.testing.assert_frame_equal(a.predict(24), b.predict(24))
    with pytest.raises(ValueError, match="update data too short"):
        a.update(df.iloc[400:405], epochs=1)
    with pytest.raises(ValueError, match="epochs must be an int >= 1"):
        a.update(df.iloc[400:500], epochs=0)
    with pytest.raises(ValueError, match="learning_rate must be > 0, got -1.0"):
        a.update(df.iloc[400:500], learning_rate=-1.0)
    a.update(df.iloc[400:500], epochs=1, learning_rate=1e-4)
    assert a.lineage_[-1]["learning_rate"] == pytest.approx(1e-4)


# -------------------------------------------------------------------------- round trips
def test_lineage_round_trips_through_a_saved_folder(tmp_path, seed):
    df = hourly()
    model = tiny_lstm(max_epochs=1).fit(df.iloc[:300]).update(df.iloc[300:400], epochs=1)
    folder = model.save(tmp_path / "m")
    loaded = LSTMForecaster.load(folder)
    assert loaded.lineage_ == model.lineage_
    assert loaded.updated_through_ == df.index[399] and loaded.n_updates_ == 1
    manifest = json.loads((folder / "meta.json").read_text())
    assert manifest["lineage"]["n_updates"] == 1
    assert manifest["lineage"]["updated_through"] == str(df.index[399])
    assert [r["fingerprint"] for r in manifest["lineage"]["records"]] == [
        r["fingerprint"] for r in model.lineage_
    ]
    loaded.update(df.iloc[400:500], epochs=1)
    assert loaded.n_updates_ == 2


def test_a_folder_saved_before_lineage_loads_and_updates_from_its_history(tmp_path):
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    for name in ("lineage_", "updated_through_", "n_updates_"):
        delattr(model, name)  # as 0.x saved it
    folder = model.save(tmp_path / "old")
    assert "lineage" not in json.loads((folder / "meta.json").read_text())
    loaded = Naive.load(folder)
    with pytest.raises(ValueError, match="overlaps"):
        loaded.update(df.iloc[99:110])
    loaded.update(df.iloc[100:110])
    assert loaded.n_updates_ == 1 and loaded.updated_through_ == df.index[109]


def test_an_update_run_carries_the_lineage_to_mlflow(new_store):
    from mlflow import MlflowClient

    from forecast.tracking import MLflowCallback

    store = new_store("update")
    df = hourly()
    model = Naive().fit(df.iloc[:100])
    callback = MLflowCallback(experiment="updates", tracking_uri=store)
    model.update(df.iloc[100:150], callbacks=[callback])
    run = MlflowClient(store).get_run(callback.run_id)
    assert run.info.status == "FINISHED"
    assert run.data.tags["updated_through"] == str(df.index[149])
    assert run.data.tags["n_updates"] == "1"
    assert run.data.tags["data_fingerprints"].split(",") == [
        r["fingerprint"] for r in model.lineage_
    ]
    folder = MlflowClient(store).download_artifacts(callback.run_id, "lineage.json")
    assert json.loads(open(folder).read()) == model.lineage_
