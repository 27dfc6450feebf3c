"""What a fresh process loads: the command line and untracked runs start without MLflow or Ray.

MLflow and Ray take seconds to import, so ``forecast --help``, ``fit``/``predict``, a batch
forecast from a saved folder with ``track=False`` and a spec without ``[tracking]`` must not
load them; and the public names of 0.1.0 import without a deprecation warning. One subprocess
runs every case (each new interpreter costs seconds of torch and pandas imports).
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import make_series
from tests.specs.test_spec import SPEC


def test_a_fresh_process_runs_untracked_paths_without_mlflow_or_ray(tmp_path):
    data = tmp_path / "load.csv"
    make_series(24 * 10).to_csv(data, index_label="time")
    spec_data = tmp_path / "spec.csv"
    df = make_series(24 * 21, tz="UTC")
    df["tso"] = df["load"] + 0.5
    df.rename_axis("timestamp").reset_index().to_csv(spec_data, index=False)
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(csv=spec_data))
    model, out = tmp_path / "m", tmp_path / "out"
    script = f"""
import contextlib, io, sys, warnings
warnings.simplefilter("error", DeprecationWarning)
import forecast
from forecast import backtest, compare, ConformalForecaster, EnsembleForecaster
from forecast.models import get_estimator, register_estimator
from forecast.persistence import load, save
from forecast.training import train, TrainConfig
assert get_estimator("conformal") is ConformalForecaster
assert get_estimator("ensemble") is EnsembleForecaster
assert get_estimator("GRUForecaster") is forecast.GRUForecaster
warnings.resetwarnings()
from forecast.batch import run_batch
from forecast.cli import build_parser, main
from forecast.specs.spec import run_spec
with contextlib.redirect_stdout(io.StringIO()):
    for argv in (["--help"], ["batch", "--help"], ["data", "--help"]):
        try:
            build_parser().parse_args(argv)
        except SystemExit:
            pass
    assert main(["fit", "--model", "naive", "--data", {str(data)!r}, "--out", {str(model)!r}]) == 0
    assert main(["predict", "--model", {str(model)!r}, "--horizon", "3"]) == 0
    result = run_batch({str(model)!r}, {str(data)!r}, {str(out / "f.csv")!r}, track=False)
    assert result.rows == 24, result.rows
    run_spec({str(spec)!r}, {str(out / "spec")!r}, progress=False)
print(sorted(m for m in ("mlflow", "ray") if m in sys.modules))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


HEAVY = ("torch", "mlflow", "pandas", "sklearn", "ray")


def test_help_and_usage_errors_import_nothing_heavy():
    script = f"""
import os, sys
assert "OMP_WAIT_POLICY" not in os.environ
import forecast
assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"  # OpenMP told not to spin
assert "GRUForecaster" in dir(forecast) and "_HOMES" not in dir(forecast)
from forecast.cli import main
codes = []
usage = (["fit", "--model", "x"], ["nosuch"], ["--threads", "0"])
for argv in (["--help"], ["fit", "--help"], *usage):
    try:
        main(argv)
    except SystemExit as stop:
        codes.append(stop.code)
print(codes, sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)
"""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "[0, 0, 2, 2, 2] []"


# every command and sub-command: `forecast X --help` parses without torch, pandas or MLflow
HELP = [
    [], ["demo"], ["fit"], ["predict"], ["backtest"], ["run"], ["tune"], ["data"],
    ["data", "list"], ["data", "fetch"], ["batch"], ["score"], ["update"], ["promote"], ["serve"],
]  # fmt: skip


def test_every_commands_help_imports_nothing_heavy():
    from forecast.cli import build_parser

    listed = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert sorted(listed) == sorted(argv[0] for argv in HELP if len(argv) == 1)
    script = f"""
import contextlib, io, sys
from forecast.cli import main
seen = []
for argv in {HELP!r}:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            main([*argv, "--help"])
        except SystemExit as stop:
            assert stop.code == 0, (argv, stop.code)
    assert out.getvalue().startswith("usage: " + " ".join(["forecast", *argv])), argv
    seen.append(sorted(m for m in {HEAVY!r} if m in sys.modules))
print(seen)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr([[]] * len(HELP))


def test_loading_a_saved_neural_model_imports_no_sympy(tmp_path):
    # torch imports its compiler (torch._dynamo, sympy: seconds) when a dispatch mode of
    # ours is entered unless told not to; loading a folder and forecasting compile nothing
    from forecast import GRUForecaster

    model = GRUForecaster(context_length=24, horizon=6, hidden_size=4, max_epochs=1)
    model.fit(make_series(24 * 6)).save(tmp_path / "gru")
    script = f"""
import sys
import forecast
model = forecast.load({str(tmp_path / "gru")!r})
assert len(model.predict(horizon=6)) == 6
print(sorted(m for m in ("sympy", "torch._dynamo") if m in sys.modules))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_users_openmp_wait_policy_is_kept():
    script = "import os, forecast; print(os.environ['OMP_WAIT_POLICY'])"
    env = {**os.environ, "OMP_WAIT_POLICY": "ACTIVE"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.stdout.strip() == "ACTIVE", done.stderr
