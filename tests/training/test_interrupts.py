"""How long commands end and what they print: signals, MLflow runs, library log lines."""

import pytest

from tests.conftest import make_series


@pytest.fixture
def csv(tmp_path):
    df = make_series(24 * 10, tz="UTC")
    path = tmp_path / "load.csv"
    df.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return path, df


def test_mlflow_info_lines_are_off_inside_a_command_and_restored(monkeypatch):
    import logging
    import os

    from forecast.training.progress import quiet_libraries

    monkeypatch.delenv("MLFLOW_LOGGING_LEVEL", raising=False)
    monkeypatch.delenv("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", raising=False)
    log = logging.getLogger("mlflow")
    monkeypatch.setattr(log, "level", logging.INFO)
    with quiet_libraries():
        assert os.environ["MLFLOW_LOGGING_LEVEL"] == "WARNING"
        assert os.environ["MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"] == "false"
        assert not log.isEnabledFor(logging.INFO) and log.isEnabledFor(logging.WARNING)
    assert log.level == logging.INFO and "MLFLOW_LOGGING_LEVEL" not in os.environ
    assert "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR" not in os.environ
    monkeypatch.setenv("MLFLOW_LOGGING_LEVEL", "DEBUG")  # the user's choice is kept
    with quiet_libraries():
        assert os.environ["MLFLOW_LOGGING_LEVEL"] == "DEBUG"
    assert os.environ["MLFLOW_LOGGING_LEVEL"] == "DEBUG"


SIGNAL_SPEC = """
name = "tiny"
[data]
path = "{csv}"
[backtest]
protocol = "day-ahead"
start = "2023-01-08"
end = "2023-01-09"
target = "load"
[tracking]
enabled = true
tracking_uri = "{uri}"
[models.gru]
model = "gru"
hidden_size = 4
context_length = 24
max_epochs = 100000
early_stopping_patience = 100000
"""


@pytest.mark.parametrize(
    ("sig", "name", "code"), [("SIGTERM", "SIGTERM", 143), ("SIGINT", "SIGINT", 130)]
)
def test_a_signal_during_a_fit_ends_with_one_line_and_no_running_mlflow_run(
    tmp_path, csv, sig, name, code
):
    import signal
    import subprocess
    import sys
    import time

    path, _ = csv
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    spec = tmp_path / "spec.toml"
    spec.write_text(SIGNAL_SPEC.format(csv=path, uri=uri))
    script = "import sys; from forecast.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", script, "run", str(spec), "--output", str(tmp_path / "out")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:  # until the fit has run two epochs
        line = proc.stderr.readline()
        lines.append(line)
        if " epoch 2/" in line or not line:
            break
    proc.send_signal(getattr(signal, sig))
    out, rest = proc.communicate(timeout=120)
    assert any(" epoch 2/" in line for line in lines), "".join(lines) + rest
    assert proc.returncode == code
    assert rest.splitlines() == [f"forecast run: interrupted ({name})"], rest
    assert out == ""

    import mlflow

    client = mlflow.MlflowClient(uri)
    runs = [r for e in client.search_experiments() for r in client.search_runs([e.experiment_id])]
    assert runs and all(r.info.status == "KILLED" for r in runs)  # none left RUNNING
    reasons = {r.data.tags.get("error") for r in runs}
    assert reasons <= {f"KeyboardInterrupt: {name}"}
