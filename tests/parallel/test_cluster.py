"""`forecast tune` and `forecast batch --engine ray` against a real `ray start --head`.

The head runs on 127.0.0.1 with token authentication (Ray 2.60) and its own token, its own
ports and temp folder, so it touches neither ``~/.ray`` nor another Ray on this machine.
The commands run as subprocesses, as a user would run them: the auth mode and token are
read from the environment once per process.
"""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.batch.partitions import run_partitions
from forecast.models.baselines import SeasonalNaive
from tests.conftest import make_series
from tests.tuning.test_sweep import SPEC

pytestmark = pytest.mark.ray
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "MLFLOW_"))}
    return {**env, "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", **extra}


@pytest.fixture(scope="module")
def ray_head():
    """`ray start --head` on 127.0.0.1 with a token of its own; stopped (only it) after."""
    pytest.importorskip("ray")
    ray_cli = shutil.which("ray", path=str(BIN)) or shutil.which("ray")
    if ray_cli is None:
        pytest.skip("the `ray` command is not installed")
    token = secrets.token_hex(32)
    env = _clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
    temp = tempfile.mkdtemp(prefix="rh", dir="/tmp")  # short: Ray's socket paths are limited
    port = _free_port()
    ports = ["--port", str(port), "--dashboard-port", str(_free_port())]
    ports += ["--dashboard-agent-listen-port", str(_free_port())]
    log = open(Path(temp) / "head.log", "w")  # noqa: SIM115 - open while the head runs
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--node-ip-address", "127.0.0.1", *ports,
         "--num-cpus", "2", "--temp-dir", temp, "--disable-usage-stats", "--block"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        for _ in range(240):
            if "Ray runtime started" in (Path(temp) / "head.log").read_text():
                break
            if head.poll() is not None:
                pytest.fail(f"ray start failed: {(Path(temp) / 'head.log').read_text()[-2000:]}")
            time.sleep(0.5)
        else:
            pytest.fail("ray start --head did not come up in 120 s")
        yield {"address": f"127.0.0.1:{port}", "token": token}
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops what it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(head.pid, signal.SIGKILL)  # its process group: whatever is left
        except ProcessLookupError:
            pass
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _forecast(args: list, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from forecast.cli import main; sys.exit(main())"]
    return subprocess.run(
        [*command, "--threads", "1", *args], env=env, cwd=cwd, capture_output=True, text=True,
        timeout=540,
    )  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A saved model, two partitions and a tiny sweep spec (two 2-epoch trials, never stopped)."""
    folder = tmp_path_factory.mktemp("cluster")
    data = make_series(n=24 * 56, start="2023-01-01", name="timestamp")
    data.to_csv(folder / "data.csv")
    SeasonalNaive(season="1D").fit(data.iloc[: 24 * 7]).save(folder / "model")
    (folder / "in").mkdir()
    data.iloc[-48:].to_csv(folder / "in" / "north.csv")
    (data.iloc[-72:] * 2).to_parquet(folder / "in" / "south.parquet")
    spec = SPEC.format(csv=folder / "data.csv", store=f"sqlite:///{folder / 'mlflow.db'}")
    for old, new in [
        ("max_epochs = 3", "max_epochs = 2"),
        ("num_samples = 5", "num_samples = 2"),
        ("max_concurrent = 2", "max_concurrent = 1"),
        ("grace_period = 1", "grace_period = 10"),  # ASHA never stops: epochs as trained
        ("dropout = { choice = [0.0, 2.0] }", "dropout = { choice = [0.0, 0.1] }"),
    ]:
        assert old in spec
        spec = spec.replace(old, new)
    (folder / "spec.toml").write_text(spec)
    return folder


def _batch_args(files: Path, out: str, address: str) -> list:
    return ["batch", "--model", str(files / "model"), "--input", str(files / "in"),
            "--output", str(files / out), "--horizon", "24", "--engine", "ray",
            "--address", address, "--no-track"]  # fmt: skip


@pytest.mark.parametrize(
    "auth", [{}, {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}], ids=["none", "wrong"]
)
def test_without_the_token_the_command_fails_at_once_with_rays_hint(ray_head, files, auth):
    done = _forecast(_batch_args(files, "refused", ray_head["address"]), _clean_env(**auth), files)
    assert done.returncode == 1, done.stderr[-2000:]  # batch: failed, nothing written
    errors = [line for line in done.stderr.splitlines() if "cannot connect" in line]
    assert len(errors) == 1  # one line: where, Ray's reason and Ray's hint
    assert (
        f"cannot connect to the Ray cluster at '{ray_head['address']}': "
        "RPC error: InvalidAuthToken: Authentication token is missing or incorrect"
    ) in errors[0]
    assert "RAY_AUTH_TOKEN" in errors[0] and "ray get-auth-token" in errors[0]
    # asked once, not ray.init's ~20 retries a second apart
    assert done.stderr.count("Failed to get cluster ID") <= 1
    assert not (files / "refused").exists()


def test_batch_on_the_cluster_writes_what_one_process_writes(ray_head, files):
    env = _clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=ray_head["token"])
    done = _forecast(_batch_args(files, "on-cluster", ray_head["address"]), env, files)
    assert done.returncode == 0, done.stderr[-3000:]
    plain = run_partitions(files / "model", files / "in", files / "plain", 24, track=False)
    assert len(plain.written) == 2
    for written in plain.written:
        assert (files / "on-cluster" / written.path.name).read_bytes() == written.path.read_bytes()
        assert f"{written.path.name}\t24 rows\tsha256 {written.sha256}" in done.stdout


def test_tune_on_the_cluster_reports_the_epochs_run(ray_head, files):
    env = _clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=ray_head["token"])
    args = ["tune", str(files / "spec.toml"), "--address", ray_head["address"], "--quiet"]
    done = _forecast([*args, "--output", str(files / "sweep")], env, files)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("| trial_id")  # the table; Tune's own lines on stderr
    trials = pd.read_csv(files / "sweep" / "trials.csv")
    assert list(trials["status"]) == ["FINISHED", "FINISHED"]
    assert list(trials["epochs"]) == [2, 2]  # max_epochs = 2, not one more for the last report
    client = MlflowClient(f"sqlite:///{files / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("sweep-test").experiment_id
    runs = client.search_runs([experiment], "tags.run_kind = 'tune-trial'")
    assert sorted(r.data.tags["trial_id"] for r in runs) == sorted(trials["trial_id"])
    for run in runs:
        steps = [m.step for m in client.get_metric_history(run.info.run_id, "val_loss")]
        assert run.info.status == "FINISHED" and steps == [1, 2]
