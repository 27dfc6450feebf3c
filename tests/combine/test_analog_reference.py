"""The analog-day memory as the reference of a network: same forecasts, no leakage, round trips."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast import AnalogDayForecaster, LinearLagForecaster
from forecast.base import SeriesArrays
from forecast.models.referenced import (
    ReferencedHopfieldForecaster,
    ReferencedTransformerForecaster,
)
from forecast.persistence.format import load, save
from tests.models.test_referenced import TINY  # the tiny networks of the referenced tests


def load_series(days=40, seed=0):
    """Hourly load with daily and weekly cycles, a trend and noise, on the Berlin clock."""
    index = pd.date_range("2022-09-01", periods=24 * days, freq="h", tz="Europe/Berlin")
    t = np.arange(len(index))
    rng = np.random.default_rng(seed)
    values = 50 + 10 * np.sin(2 * np.pi * t / 24) + 4 * np.sin(2 * np.pi * t / 168) + t / 500
    return pd.DataFrame({"load": values + rng.normal(0, 1, len(t))}, index=index)


def memory(**params):
    ref = LinearLagForecaster(lags=24, seasonal_lags=("1D",), horizon=12, calendar=False)
    return AnalogDayForecaster(ref, context="2D", **params)


@pytest.mark.parametrize("cut", [24 * 2 + 13, 24 * 25 + 11, 24 * 40])
def test_array_forecast_equals_the_frame_forecast(cut):
    df = load_series()
    model = memory(memory_folds=2).fit(df)
    history = df.iloc[:cut]
    by_frame = model.predict(12, history=history)["load"].to_numpy()
    y = history[["load"]].to_numpy(float)
    by_array = model._predict([SeriesArrays(None, y, pd.DatetimeIndex(history.index))], 12)
    np.testing.assert_allclose(by_array[0, :, 0], by_frame, rtol=1e-10)
    plain = model.reference_model_.predict(12, history=history)["load"].to_numpy()
    # before any stored day has been observed the memory adds nothing; later it does
    assert np.allclose(by_array[0, :, 0], plain, rtol=1e-10) == (cut < 24 * 3)


def test_a_series_without_memory_or_short_history_gets_the_reference_forecast():
    df = load_series()
    model = memory().fit(df)
    tail = df.iloc[-30:]  # shorter than the 48-step profile
    y, index = tail[["load"]].to_numpy(float), pd.DatetimeIndex(tail.index)
    out = model._predict([SeriesArrays(None, y, index), SeriesArrays("other", y, index)], 12)
    plain = model.reference_model_._predict(
        [SeriesArrays(None, (y - model.reference_model_.scaler_.mean_)
                      / model.reference_model_.scaler_.scale_, index)], 12
    )  # fmt: skip
    scaler = model.reference_model_.scaler_
    expected = plain[0] * scaler.scale_ + scaler.mean_
    np.testing.assert_allclose(out[0], expected, rtol=1e-10)
    np.testing.assert_allclose(out[1], expected, rtol=1e-10)


@pytest.mark.parametrize("family", [ReferencedHopfieldForecaster, ReferencedTransformerForecaster])
def test_training_windows_carry_the_memory_forecast_of_their_origin(family):
    df = load_series()
    model = family(reference_model=memory(), **TINY).fit(df)
    assert isinstance(model.reference_model_, AnalogDayForecaster)
    series = model._to_arrays({None: df}, horizon=0, future=None)
    train, _ = model._training_data(series, None, [])
    mean, scale = model.scaler_.mean_[0], model.scaler_.scale_[0]
    for i in (0, len(train) // 2, len(train) - 1):
        last = int(train.starts[i]) + model.context_length - 1  # the window's last step
        # the frame forecast from that origin uses only stored days observed by then
        by_hand = model.reference_model_.predict(12, history=df.iloc[: last + 1])["load"]
        scaled = (by_hand.to_numpy() - mean) / scale
        np.testing.assert_allclose(train[i].future[:, -1].numpy(), scaled, rtol=1e-5, atol=1e-5)


def test_the_network_forecast_corrects_the_memory_forecast_and_survives_save_load(tmp_path):
    df = load_series()
    model = ReferencedHopfieldForecaster(reference_model=memory(memory_folds=2), **TINY).fit(df)
    assert len(model.reference_model_.reference_model_folds_) == 2
    fc = model.predict(horizon=12)
    assert fc.index[0] == df.index[-1] + pd.Timedelta("1h") and fc.shape == (12, 1)
    assert not np.allclose(fc["load"], model.reference_model_.predict(12)["load"])
    save(model, tmp_path / "m")
    back = load(tmp_path / "m")
    assert isinstance(back.reference_model_, AnalogDayForecaster)
    assert len(back.reference_model_.reference_model_folds_) == 2
    np.testing.assert_allclose(back.predict(horizon=12), fc, rtol=1e-6)
    twin = clone(model).fit(df)
    np.testing.assert_allclose(twin.predict(horizon=12), fc, rtol=1e-6)


def test_the_day_ahead_memory_preset_builds_and_fits():
    from forecast.combine import DAY_AHEAD_MEMORY

    df = load_series(days=50)  # across the October clock change
    params = {**DAY_AHEAD_MEMORY, "n_ensemble": 1, "max_epochs": 1}
    model = ReferencedHopfieldForecaster(**params, random_state=0).fit(df)
    preset_memory = DAY_AHEAD_MEMORY["reference_model"]
    assert model.reference_model_ is not preset_memory
    assert not hasattr(preset_memory, "memory_")  # the preset stays unfitted
    assert len(model.reference_model_.reference_model_folds_) == 3
    fc = model.predict(horizon=37)
    assert fc.shape == (37, 1) and fc.index[0] == df.index[-1] + pd.Timedelta("1h")
    assert np.isfinite(fc.to_numpy()).all()


def test_a_shorter_forecast_is_the_head_of_a_longer_one():
    # the memory's forecast of a step depends on how far it reaches (which stored days have
    # been observed, which days are covered), so the network reads it over its whole head,
    # as in training, whatever horizon is asked
    df = load_series().iloc[:-8]  # ends at 15:00: 5 steps stay in the day, 12 cross midnight
    memory_ref = memory(country="DE", timezone="Europe/Berlin", holiday_weight=3.0)
    model = ReferencedHopfieldForecaster(reference_model=memory_ref, **TINY).fit(df)
    long, short = model.predict(horizon=12), model.predict(horizon=5)
    np.testing.assert_allclose(short.to_numpy(), long.to_numpy()[:5], rtol=1e-6)
