import mmap

import numpy as np
import pandas as pd
import pytest

from forecast.evaluation.compare import ComparisonResult, compare
from tests.conftest import make_series
from tests.evaluation.test_backtest import METRICS, SEEN, Recorder


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


# ------------------------------------------------------------------ special days, memory
def test_german_special_days_2023():
    import datetime as dt

    from forecast.frames.special_days import special_dates

    days = special_dates("holidays-DE", [2023])
    expected = {
        "2023-01-01",  # New Year (national), also in the Christmas week
        "2023-03-08",  # Women's Day, Berlin only
        "2023-04-09",  # Easter Sunday, Brandenburg only
        "2023-05-19",  # Friday after Ascension: bridge day
        "2023-06-08",  # Corpus Christi (several states)
        "2023-06-09",  # its bridge Friday
        "2023-08-14",  # Monday before Assumption (Saarland): bridge day
        "2023-10-02",  # Monday before German Unity Day
        "2023-10-30",  # Monday before Reformation Day (northern and eastern states)
        "2023-11-22",  # Repentance Day, Saxony only
        "2023-12-27",  # between Christmas and New Year
    }
    assert {dt.date.fromisoformat(d) for d in expected} <= days
    for ordinary in ("2023-08-08", "2023-05-17", "2023-01-02", "2023-12-23"):
        # Augsburg's city holiday; the Wednesday before Ascension; first Monday; a Saturday
        assert dt.date.fromisoformat(ordinary) not in days
    assert all(d.year == 2023 for d in days)


def easter_frame():
    """Hourly load in UTC; the external forecast is off by a relative error set per local day."""
    index = pd.date_range("2023-03-20", "2023-04-16", freq="h", tz="UTC", inclusive="left")
    load = 100 + 10 * np.sin(2 * np.pi * np.arange(len(index)) / 24)
    local_day = index.tz_convert("Europe/Berlin").strftime("%Y-%m-%d")
    error = {"2023-04-07": 0.10, "2023-04-09": 0.30, "2023-04-10": 0.20}
    rel = np.array([error.get(d, 0.01) for d in local_day])
    return pd.DataFrame({"load": load, "tso": load * (1 + rel)}, index=index)


def test_mape_on_special_days_by_hand():
    from forecast.models.baselines import ExternalForecast

    df = easter_frame()
    kwargs = dict(protocol="day-ahead", start="2023-04-03", end="2023-04-12", target="load")
    res = compare({"tso": ExternalForecast(column="tso")}, df, special_days="holidays-DE", **kwargs)
    row = res.table.loc["tso"]
    # Good Friday 10 %, Easter Sunday (Brandenburg) 30 %, Easter Monday 20 %, 24 h each
    assert row["mape_special"] == pytest.approx((10 + 30 + 20) / 3)
    assert row["n_special"] == 3 * 24
    assert row["mape"] == pytest.approx((7 * 1 + 10 + 30 + 20) / 10)  # 10 days scored
    listed = compare(
        {"tso": ExternalForecast(column="tso")},
        df,
        special_days=["2023-04-04", "2023-04-07"],
        **kwargs,
    )
    assert listed.table.loc["tso", "mape_special"] == pytest.approx((1 + 10) / 2)
    assert "mape_special" not in compare({"t": ExternalForecast(column="tso")}, df, **kwargs).table


def test_bad_special_days_fail_before_any_fit():
    SEEN.clear()
    with pytest.raises(ValueError, match="holidays-<country>.*holidays-DE"):
        compare({"a": Recorder()}, hourly(10), horizon=6, start="2023-01-08", special_days="DE")
    with pytest.raises(ValueError, match="'2023-13-01' is not a date"):
        compare(
            {"a": Recorder()},
            hourly(10),
            horizon=6,
            start="2023-01-08",
            special_days=["2023-13-01"],
        )
    assert SEEN == []  # nothing was fitted


def test_peak_rss_is_measured_per_block():
    from forecast.evaluation.memory import PeakRSS

    memory = PeakRSS()
    if not memory.per_block:
        pytest.skip("the peak RSS cannot be reset on this system")
    memory.start()
    # 50 MiB of fresh pages, touched: an anonymous mapping is never memory the allocator
    # kept resident from earlier tests (np.ones could reuse it, and the peak not move)
    block = mmap.mmap(-1, 50 * 2**20)
    for offset in range(0, len(block), mmap.PAGESIZE):
        block[offset] = 1
    big = memory.peak_mb()
    block.close()
    memory.start()
    small = memory.peak_mb()
    assert big - small > 40  # the second block did not inherit the first one's peak


def test_table_has_memory_column():
    res = compare({"a": Recorder()}, hourly(10), horizon=6, start="2023-01-08", metrics=METRICS)
    column = "peak_rss_mb" if "peak_rss_mb" in res.table else "process_peak_rss_mb"
    assert res.table.loc["a", column] > 1
