"""Champion and challenger: the promotion rule and the alias move (``forecast promote``)."""

from __future__ import annotations

import pandas as pd
import pytest

from forecast.cli import main
from forecast.loop.promote import promotion_decision


def scores(mapes, status="scored", start="2024-01-01") -> pd.DataFrame:
    days = pd.date_range(start, periods=len(mapes), freq="D")
    return pd.DataFrame(
        {
            "issue_date": [str(d.date()) for d in days],
            "origin": days + pd.Timedelta("11h"),
            "status": status,
            "mape": mapes,
        }
    )


def test_the_rule_needs_enough_common_scored_days_and_the_margin():
    champion, challenger = scores([3.0] * 10), scores([2.0] * 10)
    assert promotion_decision(champion, challenger, min_days=10).promote
    few = promotion_decision(champion, challenger, min_days=11)
    assert not few.promote and "the rule asks 11; not promoted" in few.reason
    close = promotion_decision(champion, scores([2.95] * 10), min_days=10, margin=0.02)
    assert not close.promote and "by more than 2%: not promoted" in close.reason
    pending = scores([2.0] * 5 + [float("nan")] * 5)
    pending.loc[5:, "status"] = "pending"
    assert promotion_decision(champion, pending, min_days=5).days == 5  # pending days not counted
    shifted = scores([2.0] * 10, start="2024-01-06")  # 5 issue dates in common
    decision = promotion_decision(champion, shifted, min_days=5)
    assert decision.days == 5 and decision.promote
    with pytest.raises(ValueError, match=r"challenger scores lack the column\(s\) \['mape'\]"):
        promotion_decision(champion, challenger.drop(columns="mape"))


def test_promote_moves_the_alias_and_logs_why(tmp_path, new_store, capsys):
    from mlflow import MlflowClient

    from forecast import Naive
    from forecast.tracking import register, track_fit

    store = new_store("promote")
    frame = pd.DataFrame({"load": 1.0}, index=pd.date_range("2024-01-01", periods=10, freq="h"))
    for alias in ("champion", "challenger"):
        run = track_fit(Naive(), frame, experiment="fits", tracking_uri=store, log_model=True)
        register(run.model_info.model_uri, "load", alias=alias, tracking_uri=store)
    client = MlflowClient(store)
    for version, role, mape in (("1", "champion", 3.0), ("2", "challenger", 2.0)):
        table = scores([mape] * 6).assign(file=[f"{role}-{k}.csv" for k in range(6)])
        table["file_sha256"] = [f"{role}{k}" for k in range(6)]
        table.to_csv(tmp_path / f"{role}.csv", index=False)
        for sha in table["file_sha256"]:  # what forecast batch records of each file it wrote
            tags = {"run_kind": "batch", "registered_model": "load", "model_version": version}
            client.create_run("0", tags={**tags, "output_sha256": sha})
    args = ["promote", "load", "--champion-scores", str(tmp_path / "champion.csv")]
    args += ["--challenger-scores", str(tmp_path / "challenger.csv"), "--tracking-uri", store]
    assert main([*args, "--min-days", "7"]) == 0
    assert "the rule asks 7; not promoted" in capsys.readouterr().err
    assert str(client.get_model_version_by_alias("load", "champion").version) == "1"
    assert main([*args, "--min-days", "6", "--margin", "0.1"]) == 0
    err = capsys.readouterr().err
    assert "champion (version 1 served) mape 3 vs challenger version 2 mape 2 over 6 shared" in err
    assert "(champion alias moved from version 1 to 2)" in err
    assert str(client.get_model_version_by_alias("load", "champion").version) == "2"
    assert "promoted" in client.get_registered_model("load").tags["promotion_decision"]
    assert main([*args[:1], "nothing", *args[2:]]) == 1
    assert "ERROR forecast.promote: model nothing" in capsys.readouterr().err
