import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import forecast
from forecast.base import BaseForecaster
from forecast.frames import validation as V
from forecast.training.callbacks import Callback
from tests.conftest import make_series
from tests.frames.test_validation import LastValue


class Recorder(BaseForecaster):
    """Stores what the base hands to _predict; forecasts the last value."""

    def __init__(self, future_covariates=None, past_covariates=None, calendar=False, timezone=None):
        self.future_covariates = future_covariates
        self.past_covariates = past_covariates
        self.calendar = calendar
        self.timezone = timezone

    def _fit(self, series, callbacks):
        self.fit_series_ = series

    def _predict(self, series, horizon):
        self.predict_series_ = series
        return np.stack([np.repeat(s.y[-1:], horizon, axis=0) for s in series])


def test_predict_before_fit():
    with pytest.raises(NotFittedError):
        LastValue().predict(3)


def test_forecast_index_and_columns():
    df = make_series(48, channels=3)
    fc = LastValue().fit(df).predict(5)
    assert list(fc.columns) == ["y0", "y1", "y2"]
    expected = pd.date_range("2023-01-03 00:00", periods=5, freq="h")
    pd.testing.assert_index_equal(fc.index, expected, check_names=False)
    np.testing.assert_allclose(fc.iloc[0].to_numpy(), df.iloc[-1].to_numpy())


def test_scaling_is_undone():
    df = make_series(48) * 1000 + 5e4
    model = LastValue().fit(df)
    assert abs(model.seen_[0].mean()) < 1e-9 and model.seen_[0].std() == pytest.approx(1.0)
    assert model.predict(1).iloc[0, 0] == pytest.approx(df.iloc[-1, 0])


def test_timezone_kept_across_spring_forward():
    # last observation 2023-03-26 01:00 CET; the next local hour is 03:00 CEST
    df = make_series(50, tz="Europe/Berlin", start="2023-03-24 00:00")
    df = df.loc[:"2023-03-26 01:00"]
    fc = LastValue().fit(df).predict(3)
    assert [t.strftime("%H:%M%z") for t in fc.index] == ["03:00+0200", "04:00+0200", "05:00+0200"]


def test_timezone_kept_across_fall_back():
    df = make_series(50, tz="Europe/Berlin", start="2023-10-27 00:00")
    df = df.loc[:"2023-10-29 01:00"]
    fc = LastValue().fit(df).predict(3)
    stamps = [t.strftime("%H:%M%z") for t in fc.index]
    assert stamps == ["02:00+0200", "02:00+0100", "03:00+0100"]
    assert ((fc.index[1:] - fc.index[:-1]) == pd.Timedelta("1h")).all()


def test_quarter_hour_and_daily_frequencies():
    fc = LastValue().fit(make_series(30, freq="15min")).predict(2)
    assert fc.index[0] == pd.Timestamp("2023-01-01 07:30")
    fc = LastValue().fit(make_series(30, freq="D")).predict(2)
    assert list(fc.index) == [pd.Timestamp("2023-01-31"), pd.Timestamp("2023-02-01")]


def test_predict_from_new_history_without_refit():
    model = LastValue().fit(make_series(48))
    new = make_series(30, start="2024-06-01", seed=3)
    fc = model.predict(2, history=new)
    assert fc.index[0] == pd.Timestamp("2024-06-02 06:00")
    assert fc.iloc[0, 0] == pytest.approx(new.iloc[-1, 0])


def test_dict_and_long_frames_round_trip_container():
    a, b = make_series(40), make_series(40, seed=1) + 100
    fc = LastValue().fit({"a": a, "b": b}).predict(2)
    assert set(fc) == {"a", "b"}
    assert fc["b"].iloc[0, 0] == pytest.approx(b.iloc[-1, 0])
    long = pd.concat([a.assign(id="a"), b.assign(id="b")]).rename_axis("time").reset_index()
    out = LastValue().fit(long).predict(2)
    assert list(out.columns) == ["id", "time", "load"]
    assert out.loc[out.id == "b", "load"].iloc[0] == pytest.approx(b.iloc[-1, 0])


def test_future_covariates_required_at_predict():
    df = make_series(48)
    df["temp"] = np.arange(48.0)
    model = Recorder(future_covariates=["temp"]).fit(df)
    assert model.columns_ == ["load"]
    with pytest.raises(ValueError, match="pass future=DataFrame"):
        model.predict(3)
    future = pd.DataFrame(
        {"temp": [48.0, 49.0]}, index=pd.date_range("2023-01-03", periods=2, freq="h")
    )
    with pytest.raises(ValueError, match="lack 1 forecast timestamp.*2023-01-03 02:00:00"):
        model.predict(3, future=future)
    future = pd.DataFrame(
        {"temp": [48.0, 49.0, 50.0]}, index=pd.date_range("2023-01-03", periods=3, freq="h")
    )
    model.predict(3, future=future)
    fut = model.predict_series_[0].future
    assert fut.shape == (48 + 3, 1)
    sc = model.covariate_scaler_
    np.testing.assert_allclose(fut[:, 0] * sc.scale_[0] + sc.mean_[0], np.arange(51.0))


def test_past_covariates_are_history_only():
    df = make_series(48)
    df["price"] = np.arange(48.0)
    model = Recorder(past_covariates=["price"]).fit(df)
    model.predict(4)
    s = model.predict_series_[0]
    assert s.past.shape == (48, 1) and s.future is None


def test_predict_origins_never_sees_the_future():
    df = make_series(100)
    model = Recorder().fit(df.iloc[:50])
    origins = df.index[[49, 60, 75]]
    out = model.predict_origins(df, origins, horizon=4)
    for origin, s in zip(origins, model.predict_series_, strict=True):
        assert s.index[-1] == origin
        assert len(s.y) == df.index.get_loc(origin) + 1
    first = out[out.origin == origins[1]]
    assert first["time"].iloc[0] == origins[1] + pd.Timedelta("1h")
    assert first["load"].iloc[0] == pytest.approx(df.loc[origins[1], "load"])


def test_predict_origins_rejects_unknown_origin():
    df = make_series(60)
    model = Recorder().fit(df)
    with pytest.raises(ValueError, match="origin 2023-01-01 10:30:00 is not a timestamp"):
        model.predict_origins(df, [pd.Timestamp("2023-01-01 10:30")], 2)


def test_interpolated_gap_open_at_origin_does_not_leak():
    # A gap still open at the origin must be filled from the past, not interpolated
    # towards values after the origin.
    df = make_series(60)
    df.iloc[40:44, 0] = np.nan
    model = LastValue(nan_policy="interpolate").fit(df.iloc[:30])
    origin = df.index[41]
    first = model.predict_origins(df, [origin], horizon=2)
    changed = df.copy()
    changed.iloc[44:, 0] = 1e6
    second = model.predict_origins(changed, [origin], horizon=2)
    pd.testing.assert_frame_equal(first, second)
    assert first["load"].iloc[0] == pytest.approx(df["load"].iloc[39])
    # a gap closed before the origin is interpolated as usual
    late = model.predict_origins(df, [df.index[45]], horizon=1)
    assert late["load"].iloc[0] == pytest.approx(df["load"].iloc[45])


def test_predict_origins_frame_layout_for_several_series():
    a, b = make_series(60), make_series(60, seed=2) + 50
    model = LastValue().fit({"a": a, "b": b})
    out = model.predict_origins({"a": a, "b": b}, a.index[[30, 40]], horizon=3)
    assert list(out.columns) == ["origin", "id", "time", "load"]
    assert len(out) == 2 * 2 * 3
    row = out[(out.id == "b") & (out.origin == a.index[40])].iloc[2]
    assert row["time"] == a.index[43] and row["load"] == pytest.approx(b["load"].iloc[40])


class Twice(BaseForecaster):
    """A meta-estimator through the frame hooks: twice the inner estimator's forecasts."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def _prepare_fit(self, X):
        self.calls_ = ["prepare"]
        frames, kind = V.split_series(X, "X")
        return kind

    def _fit_frames(self, X, prepared, callbacks):
        self.calls_.append(("fit_frames", prepared, len(callbacks)))
        self.estimator_ = clone(self.estimator).fit(X)
        self.columns_, self.freq_ = self.estimator_.columns_, self.estimator_.freq_

    def _predict_frames(self, horizon, history, future, levels, max_horizon):
        self.calls_.append(("predict", horizon, levels))
        return 2 * self.estimator_.predict(horizon, history=history, max_horizon=max_horizon)

    def _predict_origins_frames(self, data, origins, horizon, levels, max_horizon):
        out = self.estimator_.predict_origins(data, origins, horizon, max_horizon=max_horizon)
        return out.assign(load=2 * out["load"])


def test_meta_estimators_get_the_template_through_the_frame_hooks():
    seen = []

    class Record(Callback):
        def on_fit_start(self, estimator):
            seen.append(("start", list(estimator.calls_)))

        def on_fit_end(self, estimator):
            seen.append(("end", len(estimator.calls_)))

    df = make_series(48)
    model = Twice(LastValue())
    with pytest.raises(NotFittedError):
        model.predict(2)
    assert model.fit(df, callbacks=[Record()]) is model
    assert seen == [("start", ["prepare"]), ("end", 2)]
    assert model.calls_[1] == ("fit_frames", "frame", 1)
    fc = model.predict(3)
    assert model.calls_[-1] == ("predict", 3, ())
    assert fc.iloc[0, 0] == pytest.approx(2 * df.iloc[-1, 0])
    with pytest.raises(ValueError, match="horizon must be a positive int"):
        model.predict(0)  # checked by the base, before the hook
    with pytest.raises(ValueError, match="Twice forecasts no quantiles"):
        model.predict(3, quantiles=True)
    out = model.predict_origins(df, df.index[[30]], 2)
    assert out["load"].iloc[0] == pytest.approx(2 * df["load"].iloc[30])


def test_public_fit_and_predict_exist_once_in_the_base():
    public = {"fit", "predict", "predict_origins", "save", "load"}
    classes = [
        c
        for c in (getattr(forecast, name) for name in forecast.__all__)  # loaded on first use
        if isinstance(c, type) and issubclass(c, BaseForecaster)
    ]
    assert {"ConformalForecaster", "EnsembleForecaster", "GRUForecaster"} <= {
        c.__name__ for c in classes
    }
    for cls in classes:
        for klass in cls.__mro__:
            if klass is not BaseForecaster and issubclass(klass, BaseForecaster):
                assert not public & set(vars(klass)), f"{klass.__name__} overrides {public}"


# the frame work of a forecast: defined once, by the pipeline, for every runtime
PIPELINE = {
    "predict",
    "predict_origins",
    "_predict_frames",
    "_predict_origins_frames",
    "_history_frames",
    "_clean",
    "_fill",
    "_calendar",
    "_scale_covariates",
    "_select_levels",
    "_scaling",
    "_encoder",
    "_to_arrays",
    "_frames_to_arrays",
    "_predict_values",
    "_predict_data_units",
    "_to_data_units",
    "_from_data_units",
    "_to_frames",
}


def test_one_predict_pipeline_for_the_estimators_and_the_onnx_runtime():
    from forecast.frames.pipeline import ForecastPipeline

    assert issubclass(BaseForecaster, ForecastPipeline)
    assert BaseForecaster.predict is ForecastPipeline.predict
    assert not PIPELINE & set(vars(BaseForecaster))  # the base supplies fit and hooks only
    pytest.importorskip("onnxruntime")
    from forecast.onnx.runtime import OnnxForecaster

    assert issubclass(OnnxForecaster, ForecastPipeline)
    assert not PIPELINE & set(vars(OnnxForecaster))  # the export supplies the network call
    assert {"_predict", "_predict_quantiles"} <= set(vars(OnnxForecaster))
