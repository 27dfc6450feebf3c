import hashlib
import os

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.batch import BatchError, main, run_batch
from forecast.batch.partitions import list_partitions, run_partitions
from forecast.models.baselines import SeasonalNaive
from tests.batch.logcheck import errors
from tests.conftest import make_series


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def parts(tmp_path):
    """A saved model and a folder of partitions: CSV, Parquet, a long frame, a bad file."""
    data = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    SeasonalNaive(season="1D").fit(data.iloc[: 24 * 7]).save(tmp_path / "model")
    folder = tmp_path / "in"
    folder.mkdir()
    (data.iloc[-48:] * 2).to_csv(folder / "north.csv")
    data.iloc[-72:].to_parquet(folder / "south.parquet")
    long = pd.concat([data.iloc[-48:].assign(id="a"), (data.iloc[-48:] + 5).assign(id="b")])
    long.to_parquet(folder / "pair.parquet")
    data.iloc[-48:].rename(columns={"load": "watts"}).to_csv(folder / "bad.csv")
    (folder / "notes.txt").write_text("not a partition")
    return {"model": tmp_path / "model", "in": folder, "tmp": tmp_path}


def test_one_forecast_per_partition_same_bytes_as_single_file_batch(parts):
    out = parts["tmp"] / "out"
    result = run_partitions(parts["model"], parts["in"], out, 24, track=False)
    assert sorted(os.listdir(out)) == ["north.csv", "pair.parquet", "south.parquet"]
    assert [p.name for p in (r.path for r in result.written)] == [
        "north.csv",
        "pair.parquet",
        "south.parquet",
    ]
    for written in result.written:
        name = written.path.name
        single = run_batch(
            parts["model"], parts["in"] / name, parts["tmp"] / "single" / name, 24, track=False
        )
        assert written.path.read_bytes() == single.path.read_bytes()
        assert written.sha256 == sha(written.path)
    pair = pd.read_parquet(out / "pair.parquet")
    assert sorted(pair["id"].unique()) == ["a", "b"] and len(pair) == 48


def test_bad_partition_is_reported_by_name_and_spares_the_others(parts):
    out = parts["tmp"] / "out"
    result = run_partitions(parts["model"], parts["in"], out, 24, track=False)
    assert len(result.failed) == 1
    path, reason = result.failed[0]
    assert path == str(parts["in"] / "bad.csv")
    assert reason.startswith(f"input {parts['in'] / 'bad.csv'}: ") and "'load'" in reason
    assert not any(name.startswith("bad") or name.endswith(".tmp") for name in os.listdir(out))


def test_pattern_output_and_glob_input(parts):
    pattern = str(parts["tmp"] / "out" / "{stem}-{date}.csv")
    result = run_partitions(
        parts["model"], str(parts["in"] / "*.parquet"), pattern, 24, track=False
    )
    assert [r.path.name for r in result.written] == ["pair-2023-01-10.csv", "south-2023-01-10.csv"]
    assert result.failed == []


def test_bad_outputs_and_empty_inputs_are_refused_before_any_work(parts):
    with pytest.raises(BatchError, match=r"--output is a folder or a pattern holding \{stem\}"):
        run_partitions(parts["model"], parts["in"], parts["tmp"] / "f.csv", 24, track=False)
    (parts["in"] / "north.parquet").write_bytes(b"")
    with pytest.raises(BatchError, match="north.csv and .*north.parquet would both write"):
        run_partitions(parts["model"], parts["in"], str(parts["tmp"] / "o" / "{stem}.csv"))
    with pytest.raises(BatchError, match=r"no \.csv, \.csv\.gz, \.parquet files found"):
        list_partitions(parts["tmp"] / "nothing-*.csv")
    assert not (parts["tmp"] / "o").exists()


def test_cli_lists_failed_partitions_and_exits_non_zero(parts, capsys):
    out = parts["tmp"] / "out"
    argv = ["--model", str(parts["model"]), "--input", str(parts["in"]), "--output", str(out)]
    code = main([*argv, "--horizon", "24", "--no-track"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out.count("rows\tsha256") == 3
    assert errors(captured.err).splitlines()[-1] == (
        f"1 of 4 partitions failed: {parts['in'] / 'bad.csv'}"
    )
    (parts["in"] / "bad.csv").unlink()
    assert main([*argv, "--horizon", "24", "--no-track"]) == 0


def test_engine_options_need_many_partitions(parts, capsys):
    code = main(
        ["--model", str(parts["model"]), "--input", str(parts["in"] / "north.csv"),
         "--output", "x.csv", "--engine", "ray", "--no-track"]
    )  # fmt: skip
    assert code == 1
    assert "need a folder or glob --input" in capsys.readouterr().err


def test_one_tracked_run_for_the_whole_batch(parts, new_store):
    store = new_store("partitions")
    result = run_partitions(
        parts["model"], parts["in"], parts["tmp"] / "out", 24, tracking_uri=store
    )
    run = MlflowClient(store).get_run(result.run_id)
    assert run.info.status == "FAILED"
    assert run.data.metrics == {"partitions": 4.0, "failed": 1.0, "output_rows": 96.0}
    assert run.data.tags["failed_inputs"] == str(parts["in"] / "bad.csv")
    assert run.data.params["engine"] == "sequential"
