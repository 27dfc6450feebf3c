import os

import pytest

from forecast.batch import main
from forecast.batch.partitions import run_partitions
from tests.test_batch_partitions import parts  # noqa: F401 - the fixture


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
    assert on_ray.failed == plain.failed and len(on_ray.failed) == 1
    assert sorted(os.listdir(parts["tmp"] / "ray")) == sorted(os.listdir(parts["tmp"] / "plain"))


def test_ray_batch_cli_exit_code(ray_local, parts, capsys):  # noqa: F811
    code = main(
        ["--model", str(parts["model"]), "--input", str(parts["in"]), "--output",
         str(parts["tmp"] / "out"), "--horizon", "24", "--engine", "ray", "--no-track"]
    )  # fmt: skip
    assert code == 1
    assert "1 of 4 partitions failed" in capsys.readouterr().err


def test_a_missing_model_fails_before_ray_work(ray_local, parts):  # noqa: F811
    from forecast.batch import BatchError

    with pytest.raises(BatchError, match="not found"):
        run_partitions(parts["tmp"] / "nope", parts["in"], parts["tmp"] / "o", engine="ray")
