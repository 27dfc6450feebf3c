"""``forecast score``: stored forecasts joined with actuals, scored as a backtest scores them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast import LinearLagForecaster, backtest
from forecast.batch.files import BatchError
from forecast.batch.run import run_batch
from forecast.cli import main
from forecast.evaluation.live import forecast_scores, live_alert
from forecast.loop.score import score_forecasts

ZONE = "Europe/Berlin"


def load_frame(days: int = 50) -> pd.DataFrame:
    index = pd.date_range("2024-03-01", periods=24 * days, freq="h", tz=ZONE)
    t = np.arange(len(index))
    rng = np.random.default_rng(0)
    weekday = 30 * (index.day_of_week < 5)
    y = 1000 + 100 * np.sin(2 * np.pi * t / 24) + weekday + rng.normal(0, 5, t.size)
    return pd.DataFrame({"load": y}, index=index)


def write(frame: pd.DataFrame, path) -> str:
    frame.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return str(path)


def stored(path, times, values, **quantiles) -> None:
    table = pd.DataFrame({"timestamp": times, "load": values, **quantiles})
    table.to_csv(path, index=False)


# ------------------------------------------------------------------------ hand-computed
def test_scores_of_a_stored_forecast_by_hand_and_a_pending_one(tmp_path):
    times = pd.date_range("2024-05-01 00:00", periods=6, freq="h", tz=ZONE)
    actuals = pd.DataFrame({"load": [100.0, 200.0, 400.0, 100.0]}, index=times[:4])
    # issued 2024-04-30 from 23:00: forecasts 00:00 and 01:00 (both known)
    stored(
        tmp_path / "fc-2024-04-30.csv",
        times[:2],
        [110.0, 150.0],
        **{"load_q0.1": [90.0, 160.0], "load_q0.9": [120.0, 190.0]},
    )
    # issued 2024-05-01 from 02:00: 03:00 known, 04:00 and 05:00 pending
    stored(tmp_path / "fc-2024-05-01.csv", times[3:6], [80.0, 1.0, 1.0])
    # issued 2024-05-02: nothing known yet
    stored(tmp_path / "fc-2024-05-02.csv", times[4:6] + pd.Timedelta("1D"), [5.0, 5.0])
    result = score_forecasts(
        tmp_path / "fc-{date}.csv", write(actuals, tmp_path / "actuals.csv"), timezone=ZONE
    )
    table = result.table.set_index("issue_date")
    first = table.loc["2024-04-30"]
    assert first["status"] == "scored" and first["n"] == 2 and first["n_pending"] == 0
    assert first["mae"] == pytest.approx((10 + 50) / 2)
    assert first["mape"] == pytest.approx(100 * (10 / 100 + 50 / 200) / 2)
    assert first["bias"] == pytest.approx((10 - 50) / 2)
    assert first["rmse"] == pytest.approx(np.sqrt((100 + 2500) / 2))
    assert first["coverage_80"] == pytest.approx(0.5)  # 100 in [90, 120]; 200 not in [160, 190]
    assert first["origin"] == times[0] - pd.Timedelta("1h")
    second = table.loc["2024-05-01"]
    assert second["status"] == "partial" and second["n"] == 1 and second["n_pending"] == 2
    assert second["mape"] == pytest.approx(20.0)
    third = table.loc["2024-05-02"]
    assert third["status"] == "pending" and third["n"] == 0 and third["n_pending"] == 2
    assert np.isnan(third["mape"]) and np.isnan(third["mae"])  # pending, not zero


def test_special_days_are_marked(tmp_path):
    times = pd.date_range("2024-04-30 22:00", periods=4, freq="h", tz=ZONE)  # 1 May: holiday
    actuals = pd.DataFrame({"load": [1.0, 1.0, 1.0, 1.0]}, index=times)
    stored(tmp_path / "f-2024-04-30.csv", times[1:], [1.0, 1.0, 1.0])
    result = score_forecasts(
        tmp_path / "f-{date}.csv",
        write(actuals, tmp_path / "a.csv"),
        timezone=ZONE,
        special_days="holidays-DE",
    )
    row = result.table.iloc[0]
    assert bool(row["special"]) and row["special_dates"] == "2024-05-01"


# -------------------------------------------------------------- one scoring code
def test_scores_equal_those_of_the_backtest_on_the_same_origins(tmp_path):
    data = load_frame()
    model = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False, timezone=ZONE)
    result = backtest(model, data, protocol="day-ahead", start="2024-04-10", end="2024-04-16")
    folder = result.estimator.save(tmp_path / "model")
    for origin in result.origins:
        history = write(data.loc[:origin], tmp_path / "latest.csv")
        run_batch(
            folder, history, tmp_path / "out" / "{date}.csv", "day-ahead",
            timezone=ZONE, track=False,
        )  # fmt: skip
    actuals = write(data, tmp_path / "actuals.csv")
    live = score_forecasts(
        tmp_path / "out" / "{date}.csv", actuals, timezone=ZONE, protocol="day-ahead"
    ).table
    expected = forecast_scores(result.forecasts, timezone=ZONE)
    assert len(live) == len(result.origins) == 7
    assert list(live["origin"]) == list(expected["origin"])
    for metric in ("mape", "mae", "rmse", "bias", "n"):
        np.testing.assert_allclose(live[metric], expected[metric], rtol=1e-9)
    pooled = result.metrics.loc["overall"]  # all 7 days have 24 values: the pooled MAE agrees
    assert live["mae"].mean() == pytest.approx(pooled["mae"])


# ------------------------------------------------------------------------------ alert
def test_alert_rule_compares_the_rolling_live_error_with_the_backtest_range():
    origins = pd.date_range("2024-01-01", periods=10, freq="D")
    reference = pd.DataFrame({"origin": origins, "mape": [2.0, 3.0, 2.5, 2.0, 3.0] * 2})
    live = reference.assign(status="scored")
    calm = live_alert(live, reference, window=3)
    assert not calm.alert and calm.low <= calm.live <= calm.high
    worse = live.assign(mape=live["mape"] * 3)
    raised = live_alert(worse, reference, window=3)
    assert raised.alert and "above the backtest's range" in raised.message
    few = live_alert(live.iloc[:2], reference, window=3)
    assert not few.alert and "fewer than window=3" in few.message


# ----------------------------------------------------------------------- bad input
def test_bad_actuals_and_missing_files_are_one_line_errors(tmp_path):
    times = pd.date_range("2024-05-01", periods=4, freq="h", tz=ZONE)
    stored(tmp_path / "f-2024-04-30.csv", times[:2], [1.0, 1.0])
    pattern = tmp_path / "f-{date}.csv"
    doubled = pd.DataFrame({"load": [1.0] * 3}, index=times[[0, 1, 1]])
    with pytest.raises(BatchError, match=r"timestamp 2024-05-01 01:00:00\+02:00 appears more"):
        score_forecasts(pattern, write(doubled, tmp_path / "d.csv"), timezone=ZONE)
    gappy = pd.DataFrame({"load": [1.0] * 3}, index=times[[0, 1, 3]])
    with pytest.raises(BatchError, match=r"1 timestamp\(s\) missing, the first 2024-05-01 02:00"):
        score_forecasts(pattern, write(gappy, tmp_path / "g.csv"), timezone=ZONE)
    good = write(pd.DataFrame({"load": [1.0] * 4}, index=times), tmp_path / "a.csv")
    with pytest.raises(BatchError, match="no forecast file matches"):
        score_forecasts(tmp_path / "none-{date}.csv", good, timezone=ZONE)
    with pytest.raises(BatchError, match="--output .* is the --actuals file"):
        score_forecasts(pattern, good, timezone=ZONE, output=good)
    other = write(pd.DataFrame({"price": [1.0] * 4}, index=times), tmp_path / "p.csv")
    with pytest.raises(BatchError, match=r"lack the column\(s\) \['load'\]"):
        score_forecasts(pattern, other, timezone=ZONE)


def test_command_writes_scores_and_exits_3_on_alert(tmp_path, capsys):
    times = pd.date_range("2024-05-01", periods=48, freq="h", tz=ZONE)
    actuals = write(pd.DataFrame({"load": 100.0}, index=times), tmp_path / "a.csv")
    stored(tmp_path / "f-2024-04-30.csv", times[:24], [130.0] * 24)
    stored(tmp_path / "f-2024-05-01.csv", times[24:], [130.0] * 24)
    reference = pd.DataFrame(
        {"origin": pd.date_range("2023-01-01", periods=5, freq="D"), "mape": [1.0, 2.0] * 2 + [1.0]}
    )
    reference.to_csv(tmp_path / "bt.csv", index=False)
    args = ["score", "--forecasts", str(tmp_path / "f-{date}.csv"), "--actuals", actuals]
    args += ["--timezone", ZONE, "--output", str(tmp_path / "scores.csv")]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "2 forecast(s): 2 scored, 0 partial, 0 pending" in err
    assert "2024-04-30" in out and "30" in out
    written = pd.read_csv(tmp_path / "scores.csv")
    assert list(written["mape"]) == pytest.approx([30.0, 30.0])
    code = main([*args, "--backtest", str(tmp_path / "bt.csv"), "--window", "2"])
    err = capsys.readouterr().err
    assert code == 3 and "WARNING forecast.score: ALERT rolling mape" in err
    assert main([*args[:4], str(tmp_path / "missing.csv")]) == 1
    assert "ERROR forecast.score: input" in capsys.readouterr().err


# --------------------------------------------------------------------------- MLflow
def test_live_scores_go_to_the_model_versions_run_once(tmp_path, new_store):
    from mlflow import MlflowClient

    from forecast import Naive
    from forecast.tracking import track_fit

    store = new_store("score")
    times = pd.date_range("2024-05-01", periods=48, freq="h", tz=ZONE)
    callback = track_fit(
        Naive(),
        pd.DataFrame({"load": 1.0}, index=times[:10]),
        experiment="fits",
        tracking_uri=store,
        registered_model_name="load",
    )
    actuals = write(pd.DataFrame({"load": 100.0}, index=times), tmp_path / "a.csv")
    stored(tmp_path / "f-2024-04-30.csv", times[:24], [110.0] * 24)
    stored(tmp_path / "f-2024-05-01.csv", times[24:], [95.0] * 24)
    stored(tmp_path / "f-2024-05-02.csv", times[24:] + pd.Timedelta("1D"), [1.0] * 24)
    options = {"timezone": ZONE, "model": "models:/load/1", "tracking_uri": store}
    first = score_forecasts(tmp_path / "f-{date}.csv", actuals, **options)
    assert first.logged == 2  # the pending forecast is not logged
    client = MlflowClient(store)
    history = client.get_metric_history(callback.run_id, "live_mape")
    days = (pd.Timestamp("2024-04-30") - pd.Timestamp("1970-01-01")).days
    logged = sorted((m.step, m.value) for m in history)
    assert logged == [(days, pytest.approx(10.0)), (days + 1, pytest.approx(5.0))]
    again = score_forecasts(tmp_path / "f-{date}.csv", actuals, **options)
    assert again.logged == 0
    assert len(client.get_metric_history(callback.run_id, "live_mape")) == 2
    tags = client.get_model_version("load", "1").tags
    assert tags["live_scored_through"] == str(times[23])
    with pytest.raises(BatchError, match=r"models:/load/9 not found .*versions of load: 1\)"):
        gone = options | {"model": "models:/load/9"}
        score_forecasts(tmp_path / "f-{date}.csv", actuals, **gone)
