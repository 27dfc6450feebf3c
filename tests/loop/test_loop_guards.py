"""Scoring that cannot mislead, promotion on evidence only, registering only what was saved."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from forecast import Naive
from forecast.batch.files import BatchError
from forecast.cli import main
from forecast.loop.promote import promotion_decision
from forecast.loop.score import score_forecasts

ZONE = "Europe/Berlin"
TIMES = pd.date_range("2024-05-01", periods=48, freq="h", tz=ZONE)


def write(frame: pd.DataFrame, path, naive: bool = False) -> str:
    table = frame.rename_axis("timestamp").reset_index()
    if naive:
        table["timestamp"] = table["timestamp"].dt.tz_localize(None)
    table.to_csv(path, index=False)
    return str(path)


def stored(path, times, values) -> str:
    pd.DataFrame({"timestamp": times, "load": values}).to_csv(path, index=False)
    return str(path)


@pytest.fixture
def folder(tmp_path):
    """Two stored forecasts (tz-aware, as forecast batch writes them) and the actuals."""
    out = tmp_path / "forecasts"
    out.mkdir()
    stored(out / "f-2024-04-30.csv", TIMES[:24], [110.0] * 24)
    stored(out / "f-2024-05-01.csv", TIMES[24:], [95.0] * 24)
    write(pd.DataFrame({"load": 100.0}, index=TIMES), tmp_path / "actuals.csv")
    return out


# ------------------------------------------------------------------------- scoring
def test_naive_actuals_without_a_zone_are_refused_not_all_pending(folder, tmp_path):
    naive = write(pd.DataFrame({"load": 100.0}, index=TIMES), tmp_path / "naive.csv", naive=True)
    with pytest.raises(BatchError, match="without a zone .* pass --timezone"):
        score_forecasts(folder / "f-{date}.csv", naive)
    table = score_forecasts(folder / "f-{date}.csv", naive, timezone=ZONE).table
    assert list(table["status"]) == ["scored", "scored"]
    assert list(table["mape"]) == pytest.approx([10.0, 5.0])


def test_a_forecast_copied_under_another_date_is_refused(folder, tmp_path):
    (folder / "f-2024-05-02.csv").write_bytes((folder / "f-2024-05-01.csv").read_bytes())
    with pytest.raises(BatchError, match="hold forecasts from the same origin"):
        score_forecasts(folder / "f-{date}.csv", tmp_path / "actuals.csv", timezone=ZONE)


def test_an_empty_forecast_value_is_refused(folder, tmp_path):
    stored(folder / "f-2024-05-01.csv", TIMES[24:], [95.0] * 23 + [None])
    with pytest.raises(BatchError, match=r"empty value in column 'load' at 2024-05-02 23:00"):
        score_forecasts(folder / "f-{date}.csv", tmp_path / "actuals.csv", timezone=ZONE)


def test_a_linked_forecast_file_is_never_read_nor_shown(folder, tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n")
    os.symlink(secret, folder / "f-2024-05-03.csv")
    with pytest.raises(BatchError, match="is a symbolic link") as info:
        score_forecasts(folder / "f-{date}.csv", tmp_path / "actuals.csv", timezone=ZONE)
    assert "hunter2" not in str(info.value)
    args = ["score", "--forecasts", str(folder / "f-{date}.csv")]
    args += ["--actuals", str(tmp_path / "actuals.csv"), "--timezone", ZONE]
    assert main(args) == 1
    assert "hunter2" not in "".join(capsys.readouterr())


def test_an_output_the_forecasts_pattern_matches_is_refused(folder, tmp_path):
    output = folder / "f-2024-06-01.csv"
    with pytest.raises(BatchError, match="is matched by the --forecasts pattern"):
        score_forecasts(
            folder / "f-{date}.csv", tmp_path / "actuals.csv", timezone=ZONE, output=output
        )
    assert not output.exists()
    fine = score_forecasts(
        folder / "f-{date}.csv", tmp_path / "actuals.csv", timezone=ZONE,
        output=folder / "scores.csv",
    )  # fmt: skip
    assert fine.path is not None and fine.path.exists()


# ----------------------------------------------------------------------- promotion
def scores(values, start="2024-01-01") -> pd.DataFrame:
    days = pd.date_range(start, periods=len(values), freq="D")
    return pd.DataFrame(
        {
            "issue_date": [str(d.date()) for d in days],
            "origin": days + pd.Timedelta("11h"),
            "status": "scored",
            "mape": values,
        }
    )


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_impossible_scores_refuse_the_decision(bad):
    champion, challenger = scores([3.0] * 10), scores([2.0] * 9 + [bad])
    decision = promotion_decision(champion, challenger, min_days=5)
    assert decision.refused and not decision.promote
    assert "challenger scores hold mape" in decision.reason and "refused" in decision.reason
    assert promotion_decision(champion, scores([2.0] * 10), min_days=5).promote


def test_promote_records_why_it_refused_and_moves_nothing(tmp_path, new_store, capsys):
    from mlflow import MlflowClient

    from forecast.tracking import register, track_fit

    store = new_store("promote-guard")
    frame = pd.DataFrame({"load": 1.0}, index=pd.date_range("2024-01-01", periods=10, freq="h"))
    for alias in ("champion", "challenger"):
        run = track_fit(Naive(), frame, experiment="fits", tracking_uri=store, log_model=True)
        register(run.model_info.model_uri, "load", alias=alias, tracking_uri=store)
    client = MlflowClient(store)
    for version, role, mape in (("1", "champion", 3.0), ("2", "challenger", -2.0)):
        table = scores([mape] * 6).assign(file=[f"{role}-{k}.csv" for k in range(6)])
        table["file_sha256"] = [f"{role}{k}" for k in range(6)]
        table.to_csv(tmp_path / f"{role}.csv", index=False)
        for sha in table["file_sha256"]:
            tags = {"run_kind": "batch", "registered_model": "load", "model_version": version}
            client.create_run("0", tags={**tags, "output_sha256": sha})
    args = ["promote", "load", "--champion-scores", str(tmp_path / "champion.csv")]
    args += ["--challenger-scores", str(tmp_path / "challenger.csv"), "--tracking-uri", store]
    assert main([*args, "--min-days", "3"]) == 1
    assert "challenger scores hold mape -2.0" in capsys.readouterr().err
    assert str(client.get_model_version_by_alias("load", "champion").version) == "1"
    assert "refused" in client.get_registered_model("load").tags["promotion_decision"]


# -------------------------------------------------------------------- registration
def test_update_registers_nothing_when_its_output_is_refused(tmp_path, new_store, capsys):
    from mlflow import MlflowClient

    from forecast.tracking import register, track_fit

    store = new_store("update-guard")
    data = pd.DataFrame({"load": range(48)}, index=TIMES).astype(float)
    run = track_fit(Naive(), data.iloc[:24], experiment="fits", tracking_uri=store, log_model=True)
    register(run.model_info.model_uri, "load", alias="champion", tracking_uri=store)
    latest = write(data, tmp_path / "latest.csv")
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("not a model folder")
    args = ["update", "--model", "models:/load@champion", "--input", latest]
    args += ["--output", str(taken), "--tracking-uri", store, "--register", "load"]
    assert main([*args, "--alias", "challenger"]) == 1
    assert "not a saved model folder" in capsys.readouterr().err
    client = MlflowClient(store)
    assert [str(v.version) for v in client.search_model_versions("name='load'")] == ["1"]
    assert (taken / "notes.txt").read_text() == "not a model folder"
