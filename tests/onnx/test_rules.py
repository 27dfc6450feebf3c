"""Estimator and export follow every rule of a forecast alike: the same frames or the same error.

Each call goes to the fitted estimator and to its ONNX export. Where the estimator forecasts,
the export gives the same frame (index, zone, frequency, columns, container; values within
1e-5); where it refuses, the export refuses with the same exception type and the same
message. The rules: naive local stamps at a DST gap and fold, aware stamps in another zone,
vintages and plain future covariates, several series (long frame and dict), quantile
levels, the NaN policy, origins.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import make_series
from tests.onnx.helpers import LEVELS, TINY, assert_same_forecast

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from forecast.models.recurrent import GRUForecaster  # noqa: E402
from forecast.onnx.runtime import OnnxForecaster  # noqa: E402

ZONE = "Europe/Berlin"


def same_outcome(model, runtime, method="predict", **kwargs):
    """Call ``method`` on both; the same forecast or the same error. Returns the outcome.

    Messages that name the class say ``OnnxForecaster`` for the export.
    """
    try:
        want = getattr(model, method)(**kwargs)
    except (ValueError, TypeError) as err:
        with pytest.raises(type(err)) as info:
            getattr(runtime, method)(**kwargs)
        assert str(info.value) == str(err).replace(type(model).__name__, "OnnxForecaster")
        return err
    got = getattr(runtime, method)(**kwargs)
    assert_same_forecast(want, got)
    return got


@pytest.fixture(scope="module")
def naive(tmp_path_factory):
    """A GRU fitted on naive local stamps read in Europe/Berlin, with quantiles, and its export."""
    data = make_series(n=200, start="2023-03-01")
    model = GRUForecaster(**TINY, timezone=ZONE, calendar=True, quantiles=LEVELS).fit(data)
    return model, OnnxForecaster.load(model.to_onnx(tmp_path_factory.mktemp("n") / "m"))


def _naive_history(end: str) -> pd.DataFrame:
    index = pd.date_range(end=end, periods=48, freq="h")
    rng = np.random.default_rng(1)
    return pd.DataFrame({"load": 10 + rng.standard_normal(48)}, index=index)


@pytest.mark.parametrize(
    "end, horizon, refused",
    [
        ("2023-03-26 02:00", 3, "does not exist there"),  # the history: in the gap
        ("2023-03-26 01:00", 3, "does not exist there"),  # a forecast step in the gap
        ("2023-10-29 02:00", 3, "occurs twice there"),  # the history at the fold
        ("2023-10-29 01:00", 3, "occurs twice there"),  # a forecast step at the fold
        ("2023-03-25 20:00", 3, None),  # clear of both
    ],
)
def test_naive_local_stamps_at_a_dst_gap_and_fold(naive, end, horizon, refused):
    model, runtime = naive
    history = _naive_history(end)
    if refused:
        assert history.index.has_duplicates is False  # a regular naive grid
    out = same_outcome(model, runtime, horizon=horizon, history=history, quantiles=True)
    if refused:
        assert isinstance(out, ValueError) and refused in str(out)
        assert "read as local time in Europe/Berlin" in str(out)
    else:
        assert isinstance(out, pd.DataFrame) and out.index.tz is None


def test_aware_history_in_another_zone_and_quantile_levels(tmp_path):
    data = make_series(n=200, tz=ZONE, start="2023-03-20")
    model = GRUForecaster(**TINY, quantiles=LEVELS).fit(data)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path / "m"))
    history = data.iloc[-40:].tz_convert("America/New_York")  # converted to the fitted zone
    got = same_outcome(model, runtime, horizon=9, history=history, quantiles=(0.9,))
    assert str(got.index.tz) == ZONE and list(got.columns) == ["load", "load_q0.9"]
    for refused in (
        dict(horizon=9, history=history, quantiles=(0.3,)),  # a level not fitted
        dict(horizon=9, history=history.assign(extra=1.0)),  # a column the model does not read
        dict(horizon=0, history=history),  # the horizon check
        dict(horizon=3, history=history.iloc[-10:]),  # shorter than the context
    ):
        assert isinstance(same_outcome(model, runtime, **refused), ValueError)
    same_outcome(model, runtime, horizon=9, history=data.iloc[-40:].tz_localize(None))  # naive
    assert runtime._quantile_levels() == model._quantile_levels() == LEVELS
    assert runtime._min_history() == model._min_history() == 24


@pytest.fixture(scope="module")
def covariates(tmp_path_factory):
    """Two series with a future-known covariate, as a long frame, and the model's export."""
    frames = []
    for i in range(2):
        s = make_series(n=200, tz=ZONE, start="2023-03-20", seed=i)
        s["temp"] = np.cos(np.arange(200) / 7.0) + i
        frames.append(s.rename_axis("time").reset_index().assign(id=f"s{i}"))
    long = pd.concat(frames, ignore_index=True)
    model = GRUForecaster(**TINY, future_covariates=["temp"], strategy="recursive").fit(long)
    runtime = OnnxForecaster.load(model.to_onnx(tmp_path_factory.mktemp("c") / "m"))
    return model, runtime, long


def _vintages(long: pd.DataFrame, origin: pd.Timestamp, steps: int) -> pd.DataFrame:
    """Two issues of ``temp`` per series: one before ``origin``, one after it (not readable)."""
    valid = pd.date_range(origin - pd.Timedelta("2h"), periods=steps + 4, freq="h")
    rows = []
    for key in long["id"].unique():
        for issued, shift in ((origin - pd.Timedelta("6h"), 0.0), (origin + pd.Timedelta("1h"), 9)):
            rows.append(
                pd.DataFrame(
                    {
                        "id": key,
                        "issue_time": issued,
                        "valid_time": valid,
                        "temp": np.linspace(0, 1, len(valid)) + shift,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def test_vintages_future_covariates_and_several_series(covariates):
    model, runtime, long = covariates
    history = long.groupby("id").head(144)  # ends 2023-03-25 23:00, before spring-forward
    origin = pd.Timestamp(history["time"].max())
    vintages = _vintages(long, origin, 8)
    got = same_outcome(model, runtime, horizon=8, history=history, future=vintages)
    local = pd.DatetimeIndex(got.loc[got["id"] == "s0", "time"])
    assert local.hour.tolist()[:4] == [0, 1, 3, 4]  # 02:00 does not exist on 2023-03-26
    steps = pd.date_range(origin, periods=9, freq="h")[1:]
    plain = {f"s{i}": pd.DataFrame({"temp": np.arange(8.0) + i}, index=steps) for i in range(2)}
    same_outcome(model, runtime, horizon=8, history=history, future=plain)
    as_dict = {
        key: frame.set_index("time")[["load", "temp"]] for key, frame in history.groupby("id")
    }
    out = same_outcome(model, runtime, horizon=8, history=as_dict, future=plain)
    assert isinstance(out, dict) and sorted(out) == ["s0", "s1"]
    late = vintages[vintages["issue_time"] > origin]  # issued after the origin: unreadable
    for future in (None, vintages.drop(columns="temp"), late):
        out = same_outcome(model, runtime, horizon=8, history=history, future=future)
        assert isinstance(out, ValueError)


def test_origins_with_vintages_and_the_nan_policy(covariates):
    model, runtime, long = covariates
    data = long.groupby("id").head(150)
    origins = [pd.Timestamp("2023-03-25 10:00", tz=ZONE), pd.Timestamp("2023-03-25 23:00", tz=ZONE)]
    vintages = pd.concat([_vintages(long, o, 6) for o in origins], ignore_index=True)
    vintages = vintages.drop_duplicates(["id", "issue_time", "valid_time"])
    kwargs = dict(data=data, origins=origins, horizon=6)
    read = same_outcome(model, runtime, "predict_origins", **kwargs, future=vintages)
    observed = same_outcome(model, runtime, "predict_origins", **kwargs)
    assert len(read) == len(observed) == 2 * 2 * 6
    assert not np.allclose(read["load"], observed["load"])  # the vintages were read
    gappy = long.groupby("id").head(120).copy()
    gappy.loc[gappy.index[100], "load"] = np.nan
    steps = pd.date_range(pd.Timestamp(gappy["time"].max()), periods=4, freq="h")[1:]
    future = {f"s{i}": pd.DataFrame({"temp": [0.0, 1.0, 2.0]}, index=steps) for i in range(2)}
    refused = same_outcome(model, runtime, horizon=3, history=gappy, future=future)
    assert isinstance(refused, ValueError) and "non-finite" in str(refused)
    model.set_params(nan_policy="interpolate")
    runtime.set_params(nan_policy="interpolate")
    try:
        filled = same_outcome(model, runtime, horizon=3, history=gappy, future=future)
        assert isinstance(filled, pd.DataFrame) and np.isfinite(filled["load"]).all()
    finally:
        model.set_params(nan_policy="raise")
        runtime.set_params(nan_policy="raise")
