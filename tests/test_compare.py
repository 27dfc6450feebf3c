import numpy as np
import pandas as pd
import pytest

from forecast.compare import ComparisonResult, compare
from tests.conftest import make_series
from tests.test_backtest import METRICS, Recorder


def hourly(days=20):
    df = make_series(n=24 * days, tz="UTC")
    return df


def test_table_rows_models_and_same_folds(tmp_path):
    df = hourly()
    models = {"last": Recorder(), "shifted": Recorder(weight=0.1)}
    res = compare(
        models,
        df,
        protocol="day-ahead",
        start="2023-01-10",
        metrics=METRICS,
        plots_dir=tmp_path,
        unit="MW",
    )
    assert isinstance(res, ComparisonResult)
    assert list(res.table.index) == ["last", "shifted"]
    for col in ("mae", "bias", "n", "fit_seconds", "predict_seconds", "backtest_seconds", "n_fits"):
        assert col in res.table.columns
    # each row is that model's overall backtest score
    for name, result in res.results.items():
        assert res.table.loc[name, "mae"] == pytest.approx(result.metrics.loc["overall", "mae"])
    a, b = (res.results[k].forecasts for k in ("last", "shifted"))
    pd.testing.assert_frame_equal(a[["origin", "time"]], b[["origin", "time"]])
    # shifted adds 0.1 * training mean (~10) on top of the last value
    np.testing.assert_allclose(
        b["y_pred"] - a["y_pred"], 0.1 * res.results["shifted"].estimator.level_[0]
    )
    assert res.table.loc["shifted", "bias"] == pytest.approx(
        res.table.loc["last", "bias"] + 1.0, abs=0.05
    )
    assert set(res.plots) == {"forecast_vs_actual", "error_by_hour", "mae_by_model"}
    for path in res.plots.values():
        assert path.exists() and path.read_bytes()[:4] == b"\x89PNG"
    assert res.model_plots == {}  # per-model plots are drawn for a tracker only


def test_list_of_models_named_by_class_and_no_plots_without_dir():
    df = hourly(10)
    res = compare(
        [Recorder(), Recorder(weight=1.0)], df, horizon=6, start="2023-01-08", metrics=METRICS
    )
    assert list(res.table.index) == ["Recorder", "Recorder-2"]
    assert res.plots == {} and res.model_plots == {}
    with pytest.raises(TypeError, match="non-empty"):
        compare([], df, horizon=6, start="2023-01-08", metrics=METRICS)


def test_tracker_parent_and_one_child_per_model():
    events = []

    class FakeTracker:
        def comparison(self, name, data):
            tracker = self

            class Run:
                def __enter__(self):
                    events.append(("enter", name, data))
                    return tracker

                def __exit__(self, *exc):
                    events.append(("exit", name, None))
                    return False

            return Run()

        def log_backtest(self, name, estimator, result, data, plots):
            assert all(path.exists() for path in plots.values())  # still there while logged
            events.append(("child", name, (estimator, result, dict(plots))))

        def log_comparison(self, table, plots):
            events.append(("comparison", list(table.index), sorted(plots)))

    df = hourly(12)
    models = {"a": Recorder(), "b": Recorder(weight=0.5)}
    res = compare(
        models,
        df,
        protocol="day-ahead",
        start="2023-01-10",
        metrics=METRICS,
        tracker=FakeTracker(),
        name="de-load",
    )
    kinds = [e[0] for e in events]
    assert kinds == ["enter", "child", "child", "comparison", "exit"]
    assert events[0][1] == "de-load" and events[0][2] is df
    (_, n1, (e1, r1, p1)), (_, n2, (e2, r2, p2)) = events[1], events[2]
    assert (n1, n2) == ("a", "b") and (e1, e2) == (models["a"], models["b"])
    assert (r1, r2) == (res.results["a"], res.results["b"])
    assert set(p1) == set(p2) == {"forecast_vs_actual", "error_by_hour"}
    assert events[3][1] == ["a", "b"]
    assert res.plots == {}  # the temporary plot folder is gone after logging
