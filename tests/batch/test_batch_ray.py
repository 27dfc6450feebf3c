import os

import pytest

from forecast.batch import main
from forecast.batch import ray_data as batch_data
from forecast.batch.partitions import run_partitions
from forecast.batch.ray_data import PartitionForecaster
from tests.batch.test_batch_partitions import parts  # noqa: F401 - the fixture
from tests.conftest import make_series


def test_ray_batch_writes_the_same_bytes_and_reports_the_bad_partition(
    ray_local,
    parts,  # noqa: F811
):
    plain = run_partitions(parts["model"], parts["in"], parts["tmp"] / "plain", 24, track=False)
    on_ray = run_partitions(
        parts["model"], parts["in"], parts["tmp"] / "ray", 24, engine="ray", track=False
    )
    assert [r.path.name for r in on_ray.written] == [r.path.name for r in plain.written]
    for a, b in zip(on_ray.written, plain.written, strict=True):
        assert a.path.read_bytes() == b.path.read_bytes() and a.sha256 == b.sha256
        assert (a.rows, a.issue_date, a.input_sha256) == (b.rows, b.issue_date, b.input_sha256)
    assert on_ray.failed == plain.failed and len(on_ray.failed) == 1
    assert sorted(os.listdir(parts["tmp"] / "ray")) == sorted(os.listdir(parts["tmp"] / "plain"))


def test_corrupt_files_among_many_partitions_spare_the_others(ray_local, parts):  # noqa: F811
    # more partitions than actors, and files a whole-dataset Parquet read would choke on
    data = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    for k in range(6):
        (data.iloc[-48:] + k).to_parquet(parts["in"] / f"extra{k}.parquet")
    (parts["in"] / "broken.parquet").write_bytes(b"PAR1 not really parquet")
    (parts["in"] / "empty.csv").write_text("")
    on_ray = run_partitions(
        parts["model"], parts["in"], parts["tmp"] / "ray", 24, engine="ray", track=False
    )
    plain = run_partitions(parts["model"], parts["in"], parts["tmp"] / "plain", 24, track=False)
    failed = sorted(os.path.basename(path) for path, _ in on_ray.failed)
    assert failed == ["bad.csv", "broken.parquet", "empty.csv"]
    assert on_ray.failed == plain.failed
    for path, reason in on_ray.failed:
        assert path in reason  # each reason names its file
    assert len(on_ray.written) == 9
    for a, b in zip(on_ray.written, plain.written, strict=True):
        assert a.path.name == b.path.name and a.path.read_bytes() == b.path.read_bytes()
    written = sorted(os.listdir(parts["tmp"] / "ray"))
    assert written == sorted(os.listdir(parts["tmp"] / "plain")) and len(written) == 9


def test_ray_batch_cli_exit_code(ray_local, parts, capsys):  # noqa: F811
    code = main(
        ["--model", str(parts["model"]), "--input", str(parts["in"]), "--output",
         str(parts["tmp"] / "out"), "--horizon", "24", "--engine", "ray", "--no-track"]
    )  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert f"1 of 4 partitions failed: {parts['in'] / 'bad.csv'}" in err


def test_a_missing_model_fails_before_ray_work(ray_local, parts):  # noqa: F811
    from forecast.batch import BatchError

    with pytest.raises(BatchError, match="not found"):
        run_partitions(parts["tmp"] / "nope", parts["in"], parts["tmp"] / "o", engine="ray")


def test_the_callable_class_loads_the_model_once_for_all_its_batches(parts, monkeypatch):  # noqa: F811
    loads = []
    real = batch_data.load_forecaster

    def counting(*args):
        loads.append(args)
        return real(*args)

    monkeypatch.setattr(batch_data, "load_forecaster", counting)
    out = str(parts["tmp"] / "out")
    worker = PartitionForecaster(str(parts["model"]), None, None, out, {"horizon": 24})
    first = worker(
        {"position": [0, 1], "input": [str(parts["in"] / n) for n in ("bad.csv", "north.csv")]}
    )
    second = worker({"position": [2], "input": [str(parts["in"] / "south.parquet")]})
    assert len(loads) == 1
    assert first["position"] == [0, 1] and first["rows"] == [-1, 24]
    assert first["error"][0].startswith(f"input {parts['in'] / 'bad.csv'}: ")
    assert first["error"][1] == "" and first["path"][1] == str(parts["tmp"] / "out" / "north.csv")
    assert second["path"] == [str(parts["tmp"] / "out" / "south.parquet")]
    assert sorted(os.listdir(out)) == ["north.csv", "south.parquet"]


def test_files_per_call_shares_blocks_and_is_bounded():
    assert batch_data.files_per_call(1000, 8) == batch_data.MAX_FILES_PER_CALL == 16
    assert batch_data.files_per_call(10, 8) == 2  # ceil(10 / 8): a corrupt file shares a call
    assert batch_data.files_per_call(3, 3) == 1


def test_without_ray_the_ray_engine_fails_before_creating_anything(parts, monkeypatch, capsys):  # noqa: F811
    import sys

    monkeypatch.chdir(parts["tmp"])
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    before = sorted(os.listdir(parts["tmp"]))
    code = main(
        ["--model", str(parts["model"]), "--input", str(parts["in"]), "--output", "out",
         "--horizon", "24", "--engine", "ray"]
    )  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith(
        "engine='ray' needs Ray, which is not installed: pip install \"forecast-toolkit[ray]\"\n"
    )
    assert sorted(os.listdir(parts["tmp"])) == before  # no output folder, no mlflow.db
