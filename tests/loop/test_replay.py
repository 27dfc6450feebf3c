"""The daily loop replayed with the documented commands: batch, score, weekly update, recovery.

Every step is a ``forecast`` command as docs/guide/daily-loop.md gives it: at 12:05 on day
D-1 ``forecast batch`` forecasts day D from the data observed by 12:00 (the hour starting
11:00), ``forecast score`` scores every stored forecast whose actuals have arrived, and every
seventh day ``forecast update`` teaches the saved model the week's rows. One day's forecast is
missed and recovered afterwards by running the batch on the data as it stood at that issue
time. A short synthetic stretch runs by default; eight weeks of 2023 on the German data are
the ``slow`` test.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from forecast import LinearLagForecaster
from forecast.cli import main

ZONE = "Europe/Berlin"


def write(frame: pd.DataFrame, path) -> str:
    frame.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return str(path)


def replay(data: pd.DataFrame, model, first_day: str, days: int, folder) -> dict:
    """Run the loop over ``days`` days from ``first_day``; return what it left.

    Each weekly update writes a folder of its own (``models/week-<n>``), so a missed day is
    recovered with the model of its week.
    """
    week = folder / "models" / "week-0"
    model.fit(data.loc[: pd.Timestamp(first_day, tz=ZONE) - pd.Timedelta("13h")]).save(week)
    latest, forecasts = folder / "latest.csv", str(folder / "forecasts" / "{date}.csv")
    scores = str(folder / "scores.csv")
    common = ["--horizon", "day-ahead", "--timezone", ZONE, "--no-track"]
    score = ["score", "--forecasts", forecasts, "--actuals", str(latest), "--timezone", ZONE]
    score += ["--protocol", "day-ahead", "--output", scores]
    missed = None
    for k in range(days):
        day = pd.Timestamp(first_day, tz=ZONE) + pd.Timedelta(days=k)
        issue = day - pd.Timedelta("12h")  # 12:00 on D-1: the hour starting 11:00 is complete
        write(data.loc[: issue - pd.Timedelta("1h")], latest)
        if k and k % 7 == 0:  # weekly, before the forecast: the week's rows
            new = folder / "models" / f"week-{k // 7}"
            update = ["update", "--model", str(week), "--input", str(latest)]
            assert main([*update, "--output", str(new), "--timezone", ZONE, "--no-track"]) == 0
            week = new
        if k == 3:
            missed = (issue, week)  # the batch of this day did not run
            continue
        batch = ["batch", "--model", str(week), "--input", str(latest), "--output", forecasts]
        assert main([*batch, *common]) == 0
        if k:
            assert main(score) == 0
    # recovery: the missed day's batch with its week's model on the data as of its issue time
    as_of = write(data.loc[: missed[0] - pd.Timedelta("1h")], folder / "as-of.csv")
    recover = ["batch", "--model", str(missed[1]), "--input", as_of, "--output", forecasts]
    return {"current": week, "scores": scores, "recover": [*recover, *common], "score": score}


def check(result: dict, data: pd.DataFrame, days: int, folder) -> pd.DataFrame:
    table = pd.read_csv(result["scores"])
    assert len(table) == days - 1  # one day missed
    # at 12:00 on D-1 the actuals of D-1 are known up to 11:00, those of D not at all
    assert list(table["status"].iloc[-2:]) == ["partial", "pending"]
    assert (table["status"].iloc[:-2] == "scored").all()
    manifest = json.loads((result["current"] / "meta.json").read_text())
    assert manifest["lineage"]["n_updates"] == (days - 1) // 7
    return table


def synthetic() -> pd.DataFrame:
    index = pd.date_range("2024-02-01", "2024-03-31 23:00", freq="h", tz=ZONE)
    t = np.arange(len(index))
    rng = np.random.default_rng(1)
    load = 1000 + 100 * np.sin(2 * np.pi * t / 24) + 40 * (index.day_of_week < 5)
    return pd.DataFrame({"load": load + rng.normal(0, 5, len(t))}, index=index)


def test_replay_on_a_synthetic_stretch(tmp_path, capsys):
    data = synthetic()
    model = LinearLagForecaster(lags=24, seasonal_lags=(), calendar=False, timezone=ZONE)
    result = replay(data, model, "2024-03-05", 15, tmp_path)
    table = check(result, data, 15, tmp_path)
    assert "2024-03-07" not in set(table["issue_date"])  # the missed day (D = 8 March)
    assert main(result["recover"]) == 0
    assert main(result["score"]) == 0
    table = pd.read_csv(result["scores"])
    assert "2024-03-07" in set(table["issue_date"]) and len(table) == 15
    assert capsys.readouterr().err.count("ERROR") == 0


@pytest.mark.slow
def test_replay_of_eight_weeks_of_2023_on_the_german_data(tmp_path, data_dir):
    from forecast.datasets import german_load

    data = german_load("hourly", start="2021-01-01", end="2023-03-01", columns=("actual",))
    model = LinearLagForecaster(calendar=True, country="DE", timezone=ZONE)
    result = replay(data, model, "2023-01-02", 56, tmp_path)
    table = check(result, data, 56, tmp_path)
    assert table["mape"].iloc[:-2].between(0, 20).all()
