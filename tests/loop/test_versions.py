"""A forecast belongs to the model version that made it: live scores and the promotion rule.

``forecast batch --model models:/name@alias`` records the version it used with the SHA-256 of
the file it wrote. ``forecast score`` logs each forecast's scores to that version's run (not to
the version the alias points at when scoring runs). ``forecast promote`` compares the
challenger's exact version with the served record: every forecast of the champion alias, by
whichever version was champion that day.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.cli import main
from forecast.loop.promote import promotion_decision

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
    """``forecast batch`` of day ``FIRST + day`` from the data observed by 12:00 on D-1.

    ``alias`` is an alias of ``load`` or, as ``/N``, its version N named by number.
    """
    issue = FIRST + pd.Timedelta(days=day) - pd.Timedelta("12h")
    latest = write(data.loc[: issue - pd.Timedelta("1h")], folder / "latest.csv")
    model = f"models:/load{alias}" if alias.startswith("/") else f"models:/load@{alias}"
    args = ["batch", "--model", model, "--input", latest, "--output", pattern]
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


def test_the_served_record_spans_weekly_updates_the_challenger_counts_its_version(
    tmp_path, new_store, capsys
):
    from mlflow import MlflowClient

    from forecast import Naive, SeasonalNaive

    store, data = new_store("promote-versions"), hourly()
    seen = data.loc[: FIRST - pd.Timedelta("13h")]
    first = register_version(store, Naive(), seen, "champion")
    earlier = register_version(store, SeasonalNaive("1D"), seen, "challenger")
    forecasts = str(tmp_path / "forecasts" / "{date}.csv")
    shadow = str(tmp_path / "shadow" / "{date}.csv")
    for day in range(6):
        if day == 2:  # the challenger updated: a new version, its record restarts
            challenger = register_version(store, SeasonalNaive("1D"), seen, "challenger")
        if day == 3:  # the weekly update of the champion: a new version under the alias
            second = register_version(store, Naive(), seen, "champion")
        # day 5 missed and recovered by hand with the champion's version named by number
        batch(store, data, f"/{second}" if day == 5 else "champion", day, forecasts, tmp_path)
        batch(store, data, "challenger", day, shadow, tmp_path)
    # a forecast of another alias written over the served pattern is not served record
    batch(store, data, "challenger", 6, forecasts, tmp_path)
    actuals = write(data, tmp_path / "actuals.csv")
    common = ["--actuals", actuals, "--timezone", ZONE, "--protocol", "day-ahead"]
    for pattern, name in ((forecasts, "champion"), (shadow, "challenger")):
        output = str(tmp_path / f"{name}.csv")
        assert main(["score", "--forecasts", pattern, *common, "--output", output]) == 0
    promote = ["promote", "load", "--champion-scores", str(tmp_path / "champion.csv")]
    promote += ["--challenger-scores", str(tmp_path / "challenger.csv"), "--tracking-uri", store]
    client = MlflowClient(store)
    capsys.readouterr()
    # shared days: 2..5, served by both champion versions; the earlier challenger's 0..1 not
    assert main([*promote, "--min-days", "5"]) == 0
    err = capsys.readouterr().err
    assert "WARNING forecast.promote: 1 forecast(s) of" in err
    assert "run under another alias than champion, not counted as served" in err
    assert "(issued 2024-05-11)" in err
    head = f"champion (versions {first}, {second} served) mape "
    assert head in err and f" vs challenger version {challenger} mape " in err
    counts = "(scored: 6 day(s) of the served record, 4 of the challenger's version)"
    assert f"over 4 shared day(s) {counts}: the rule asks 5; not promoted" in err
    assert str(client.get_model_version_by_alias("load", "champion").version) == second
    assert earlier not in (first, second, challenger)
    assert main([*promote, "--min-days", "4"]) == 0
    err = capsys.readouterr().err
    assert head in err and "over 4 shared day(s)" in err
    assert f": promoted (champion alias moved from version {second} to {challenger})" in err
    assert str(client.get_model_version_by_alias("load", "champion").version) == challenger
    tag = client.get_registered_model("load").tags["promotion_decision"]
    assert f"champion (versions {first}, {second} served)" in tag
    tag = client.get_model_version("load", challenger).tags["promotion_reason"]
    assert tag.endswith(f"to {challenger})")
    # promoted once: the challenger alias needs a new candidate before the next promotion
    assert main([*promote, "--min-days", "4"]) == 0
    err = capsys.readouterr().err
    assert f"challenger version {challenger} is the champion or has served as champion" in err
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
    # the served record: whichever version served; a day no batch run records is left out
    served = champion.assign(model_version=["1", "1", None, "4", "4", "4"], mape=3.0)
    across = promotion_decision(served, challenger, min_days=2, versions=("4", "3"))
    assert across.promote and across.days == 2 and across.served == ("4",)
    wide = challenger.assign(model_version="7")
    decision = promotion_decision(served, wide, min_days=5, versions=("4", "7"))
    assert decision.promote and decision.days == 5 and decision.served == ("1", "4")
    assert decision.reason.startswith("champion (versions 1, 4 served) mape 3 vs challenger ")
    assert "version 7 mape 2 over 5 shared day(s) (scored: 5 day(s) of the served record, 6 of" in (
        decision.reason
    )
    assert not promotion_decision(served, wide, min_days=6, versions=("4", "7")).promote
    again = promotion_decision(served, challenger.assign(model_version="1"), versions=("4", "1"))
    assert not again.promote and "version 1 is the champion or has served" in again.reason
    numeric = challenger.assign(model_version=[2.0] * 4 + [3.0] * 2)  # as a CSV reads them
    assert promotion_decision(champion, numeric, min_days=2, versions=("1", "3")).promote
    with pytest.raises(ValueError, match=r"champion scores lack the column\(s\) \['model_version'"):
        promotion_decision(champion.drop(columns="model_version"), challenger, versions=("1", "3"))
