"""A forecast belongs to the model version that made it: live scores and the promotion rule.

``forecast batch --model models:/name@alias`` records the version it used with the SHA-256 of
the file it wrote. ``forecast score`` logs each forecast's scores to that version's run (not to
the version the alias points at when scoring runs), and ``forecast promote`` counts only the
days each alias's exact version forecast and scored.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.batch.promote import promotion_decision
from forecast.cli import main

ZONE = "Europe/Berlin"
FIRST = pd.Timestamp("2024-05-06", tz=ZONE)  # the first day forecast
EPOCH = pd.Timestamp("1970-01-01")


def hourly(days: int = 14) -> pd.DataFrame:
    index = pd.date_range("2024-05-01", periods=24 * days, freq="h", tz=ZONE)
    t = np.arange(len(index))
    noise = np.random.default_rng(0).normal(0, 5, t.size)
    return pd.DataFrame({"load": 1000 + 100 * np.sin(2 * np.pi * t / 24) + noise}, index=index)


def write(frame: pd.DataFrame, path) -> str:
    frame.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return str(path)


def register_version(store: str, estimator, data: pd.DataFrame, alias: str) -> str:
    """Fit, log and register ``estimator`` as a new version of ``load``; point ``alias`` at it."""
    from forecast.tracking import register, track_fit

    run = track_fit(estimator, data, experiment="fits", tracking_uri=store, log_model=True)
    return str(register(run.model_info.model_uri, "load", alias=alias, tracking_uri=store))


def batch(store: str, data: pd.DataFrame, alias: str, day: int, pattern: str, folder) -> None:
    """``forecast batch`` of day ``FIRST + day`` from the data observed by 12:00 on D-1."""
    issue = FIRST + pd.Timedelta(days=day) - pd.Timedelta("12h")
    latest = write(data.loc[: issue - pd.Timedelta("1h")], folder / "latest.csv")
    args = ["batch", "--model", f"models:/load@{alias}", "--input", latest, "--output", pattern]
    args += ["--timezone", ZONE, "--horizon", "day-ahead", "--tracking-uri", store]
    assert main([*args, "--issue-time", str(issue)]) == 0


def steps(client, run_id: str) -> list[int]:
    history = client.get_metric_history(run_id, "live_mape")
    return sorted(int(m.step) for m in history)


def day_steps(days) -> list[int]:
    return [((FIRST + pd.Timedelta(days=d - 1)).tz_localize(None) - EPOCH).days for d in days]


def test_scores_go_to_the_version_that_made_each_forecast(tmp_path, new_store, capsys):
    from mlflow import MlflowClient

    from forecast import Naive, SeasonalNaive

    store, data = new_store("versions"), hourly()
    seen = data.loc[: FIRST - pd.Timedelta("13h")]
    first = register_version(store, Naive(), seen, "champion")
    forecasts = str(tmp_path / "forecasts" / "{date}.csv")
    for day in range(3):
        batch(store, data, "champion", day, forecasts, tmp_path)
    second = register_version(store, SeasonalNaive("1D"), seen, "champion")  # a weekly update
    for day in range(3, 5):
        batch(store, data, "champion", day, forecasts, tmp_path)
    # a forecast no batch run records (written by hand): its version is not known
    hand = pd.read_csv(tmp_path / "forecasts" / "2024-05-09.csv")
    times = pd.to_datetime(hand["timestamp"], utc=True) + pd.Timedelta("1D")
    hand = hand.assign(timestamp=times.dt.tz_convert(ZONE))
    hand.to_csv(tmp_path / "forecasts" / "2024-05-10.csv", index=False)
    actuals = write(data, tmp_path / "actuals.csv")
    capsys.readouterr()
    args = ["score", "--forecasts", forecasts, "--actuals", actuals, "--timezone", ZONE]
    args += ["--protocol", "day-ahead", "--output", str(tmp_path / "scores.csv")]
    args += ["--model", "models:/load@champion", "--tracking-uri", store]
    assert main(args) == 0
    out, err = capsys.readouterr()
    client = MlflowClient(store)
    runs = {v: client.get_model_version("load", v).run_id for v in (first, second)}
    assert steps(client, runs[first]) == day_steps(range(3))
    assert steps(client, runs[second]) == day_steps(range(3, 5))  # not all five
    assert f"logged 3 to version {first}, 2 to version {second} of models:/load@champion" in err
    assert "1 scored forecast(s) of load not logged: no batch run records" in err
    assert "(issued 2024-05-10)" in err
    table = pd.read_csv(tmp_path / "scores.csv", dtype={"model_version": str})
    assert list(table["model_version"].fillna("-")) == [first] * 3 + [second] * 2 + ["-"]
    tags = client.get_model_version("load", first).tags
    assert tags["live_scored_through"] == "2024-05-07 11:00:00+02:00"  # its last origin
    experiment = client.get_run(runs[second]).info.experiment_id
    link = out.strip().splitlines()[-1]
    assert link.startswith(f"runs by live MAPE: http://127.0.0.1:5000/#/experiments/{experiment}/")
    assert "workflowType=machine_learning&viewStateShareKey=forecast-by-live_mape" in link
    assert link.endswith(f"(start: mlflow ui --backend-store-uri {store})")
    # scoring again logs nothing twice; a version named explicitly takes the unrecorded one
    assert main([*args[:-4], "--model", f"models:/load/{second}", "--tracking-uri", store]) == 0
    assert steps(client, runs[first]) == day_steps(range(3))
    assert steps(client, runs[second]) == day_steps([3, 4, 5])
    # a version deleted since: its forecasts are left out, named in one line
    client.delete_model_version("load", first)
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "3 scored forecast(s) of load not logged: their version 1 no longer exists" in err
    assert f"logged 0 to version {second} of models:/load@champion" in err


def test_promotion_counts_only_the_days_of_each_exact_version(tmp_path, new_store, capsys):
    from mlflow import MlflowClient

    from forecast import Naive, SeasonalNaive

    store, data = new_store("promote-versions"), hourly()
    seen = data.loc[: FIRST - pd.Timedelta("13h")]
    champion = register_version(store, Naive(), seen, "champion")
    earlier = register_version(store, SeasonalNaive("1D"), seen, "challenger")
    forecasts = str(tmp_path / "forecasts" / "{date}.csv")
    shadow = str(tmp_path / "shadow" / "{date}.csv")
    for day in range(6):
        batch(store, data, "champion", day, forecasts, tmp_path)
        if day == 4:  # a new challenger takes the earlier one's place
            challenger = register_version(store, SeasonalNaive("1D"), seen, "challenger")
        batch(store, data, "challenger", day, shadow, tmp_path)
    actuals = write(data, tmp_path / "actuals.csv")
    common = ["--actuals", actuals, "--timezone", ZONE, "--protocol", "day-ahead"]
    for pattern, name in ((forecasts, "champion"), (shadow, "challenger")):
        output = str(tmp_path / f"{name}.csv")
        assert main(["score", "--forecasts", pattern, *common, "--output", output]) == 0
    promote = ["promote", "load", "--champion-scores", str(tmp_path / "champion.csv")]
    promote += ["--challenger-scores", str(tmp_path / "challenger.csv"), "--tracking-uri", store]
    client = MlflowClient(store)
    capsys.readouterr()
    # the challenger alias has 6 scored days, of which its version forecast 2: too few for 3
    assert main([*promote, "--min-days", "3"]) == 0
    err = capsys.readouterr().err
    assert f"challenger version {challenger} vs champion version {champion}" in err
    assert "over 2 day(s) both versions forecast and scored (of 2 scored day(s)" in err
    assert "and 6 of the champion's): the rule asks 3; not promoted" in err
    assert str(client.get_model_version_by_alias("load", "champion").version) == champion
    assert earlier != challenger
    # a champion updated since: its new version has no scored day of its own
    update = register_version(store, Naive(), seen, "champion")
    assert main([*promote, "--min-days", "2"]) == 0
    err = capsys.readouterr().err
    assert f"vs champion version {update}: mape nan (challenger) vs nan (champion) over 0" in err
    client.set_registered_model_alias("load", "champion", champion)
    assert main([*promote, "--min-days", "2"]) == 0
    err = capsys.readouterr().err
    assert "over 2 day(s)" in err and ": promoted" in err
    assert str(client.get_model_version_by_alias("load", "champion").version) == challenger
    # scores of an older forecast score (no file_sha256): refused, nothing changed
    pd.read_csv(tmp_path / "champion.csv").drop(columns="file_sha256").to_csv(
        tmp_path / "old.csv", index=False
    )
    old = ["promote", "load", "--champion-scores", str(tmp_path / "old.csv"), *promote[4:]]
    assert main(old) == 1
    assert "champion scores" in capsys.readouterr().err


def test_the_rule_filters_each_table_to_its_version():
    days = pd.date_range("2024-01-01", periods=6, freq="D")
    base = pd.DataFrame({"issue_date": [str(d.date()) for d in days], "status": "scored"})
    champion = base.assign(mape=3.0, model_version="1")
    challenger = base.assign(mape=2.0, model_version=["2"] * 4 + ["3"] * 2)
    pooled = promotion_decision(champion, challenger, min_days=3)
    assert pooled.promote and pooled.days == 6  # without versions: every row counts
    exact = promotion_decision(champion, challenger, min_days=3, versions=("1", "3"))
    assert not exact.promote and exact.days == 2 and exact.own_days == (6, 2)
    assert "the rule asks 3; not promoted" in exact.reason
    numeric = challenger.assign(model_version=[2.0] * 4 + [3.0] * 2)  # as a CSV reads them
    assert promotion_decision(champion, numeric, min_days=2, versions=("1", "3")).promote
    with pytest.raises(ValueError, match=r"champion scores lack the column\(s\) \['model_version'"):
        promotion_decision(champion.drop(columns="model_version"), challenger, versions=("1", "3"))
