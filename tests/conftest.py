import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

torch.set_num_threads(1)  # tiny models: a second thread only spin-waits

DATA_DIR = Path(
    os.environ.get("FORECAST_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data")
)


@pytest.fixture(scope="session", autouse=True)
def _temporary_folder(tmp_path_factory):
    """What the code under test puts in the temporary folder (the default batch locks) goes
    to a folder of pytest's own, removed with its other temporary folders: a test run leaves
    nothing in /tmp."""
    folder = tmp_path_factory.mktemp("tmp")
    saved = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = str(folder), str(folder)
    yield folder
    tempfile.tempdir = saved[0]
    if saved[1] is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved[1]


@pytest.fixture
def seed():
    torch.manual_seed(0)
    return 0


@pytest.fixture
def data_dir():
    if not DATA_DIR.is_dir():
        pytest.skip(f"real data folder {DATA_DIR} not found (set FORECAST_DATA_DIR)")
    return DATA_DIR


def neural_families() -> list:
    """The neural estimator classes of the registry, for tests that run over every family.

    The seven families (Elman, LSTM, GRU, orthogonal RNN, transformer, Hopfield, DCT mixer);
    the networks with a reference model are variants of two of them, not families.
    """
    from forecast.models.neural import NeuralForecaster
    from forecast.models.referenced import ReferenceResidualMixin
    from forecast.persistence.registry import all_estimators

    return [
        cls
        for _, cls in all_estimators()
        if issubclass(cls, NeuralForecaster) and not issubclass(cls, ReferenceResidualMixin)
    ]


# Settings of a tiny, fast neural fit shared by the neural-option tests.
TINY_NEURAL = dict(
    context_length=24,
    horizon=6,
    hidden_size=4,
    max_epochs=2,
    batch_size=32,
    learning_rate=0.01,
    random_state=0,
)


def make_series(n=400, freq="h", channels=1, tz=None, start="2023-01-01", seed=0, name=None):
    """A small synthetic series with a daily cycle and noise."""
    rng = np.random.default_rng(seed)
    index = pd.date_range(start, periods=n, freq=freq, tz=tz, name=name)
    t = np.arange(n)
    cols = {}
    for c in range(channels):
        cols[f"y{c}" if channels > 1 else "load"] = (
            10 + 3 * np.sin(2 * np.pi * t / 24 + c) + 0.3 * rng.standard_normal(n)
        )
    return pd.DataFrame(cols, index=index)


@pytest.fixture
def series():
    return make_series()


@pytest.fixture(scope="session")
def new_store(tmp_path_factory):
    """Factory ``new_store(name) -> tracking URI`` of fresh, empty SQLite MLflow stores.

    Each store is a copy of one per-session template database, built on first use: MLflow's
    schema setup takes ~10 s, a copy of the migrated file milliseconds.
    """
    import shutil

    template = tmp_path_factory.getbasetemp() / "mlflow-template.db"

    def make(name):
        if not template.exists():
            from mlflow import MlflowClient

            MlflowClient(f"sqlite:///{template}").search_experiments()
        folder = tmp_path_factory.mktemp(name)
        shutil.copy(template, folder / "mlflow.db")
        return f"sqlite:///{folder / 'mlflow.db'}"

    return make


# The long tier: tests too long for the default run (`python -m pytest` in at most 5 minutes on
# 2 cores) whose coverage is not in it otherwise; CI runs them as a second step (`python -m
# pytest -m long`, .ci/run). Node ids or their prefixes (a module, a test and its parameters).
LONG = {
    # the README's first forecast: 100 epochs of three GRUs, its MAE checked against the README
    "tests/docs/test_readme.py::test_python_block_runs_as_written": "the README's GRU",
    "tests/docs/test_loop_demo.py": "the quick demo, 14 batch runs, scores, promote, update",
    "tests/serve/test_mlflow_models.py": "a registered model logged, served, refused (processes)",
    # the tests that read one mypy run of a snippet (module fixture mypy_output)
    "tests/test_typing.py::test_mypy_reports_a_misspelled_and_a_mistyped_parameter_and_attribute": (
        "mypy"
    ),
    "tests/test_typing.py::test_type_checkers_see_the_runtime_signature_of_every_estimator": (
        "mypy"
    ),
    "tests/test_typing.py::test_a_misspelled_attribute_is_an_error_on_every_estimator": "mypy",
    "tests/test_typing.py::test_type_checkers_see_every_lazy_name_and_no_catch_all": "mypy",
    "tests/frames/test_vintage_forecasts.py::"
    "test_changing_a_vintage_issued_after_an_origin_never_changes_its_forecast": "hypothesis",
    "tests/batch/test_batch.py::test_module_entry_point_in_a_subprocess": "a process",
    "tests/batch/test_schedule.py::test_two_overlapping_runs_one_writes_the_other_exits_75": (
        "two batch processes"
    ),
    "tests/training/test_interrupts.py::"
    "test_a_signal_during_a_fit_ends_with_one_line_and_no_running_mlflow_run": "processes",
    "tests/onnx/test_torch_free.py::test_runtime_forecasts_without_torch": "a process",
    "tests/onnx/test_torch_free.py::test_cli_batch_and_the_service_run_an_export_without_torch": (
        "processes"
    ),
    "tests/onnx/test_refusals.py::test_the_service_refuses_a_bad_export_and_describes_a_good_one": (
        "service processes"
    ),
    "tests/persistence/test_save_rule.py::"
    "test_a_killed_save_leaves_the_model_and_its_temporary_is_removed": "processes killed",
    # the quick demo again, through the command (test_quick_demo_... runs it in the default run)
    "tests/specs/test_demo.py::test_cli_demo_prints_progress_table_champion_file_and_ui_command": (
        "the quick demo"
    ),
}


def _in_long_tier(nodeid: str) -> str | None:
    for prefix in LONG:
        if nodeid == prefix or nodeid.startswith((f"{prefix}::", f"{prefix}[")):
            return prefix
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config, items):
    """Tests that start Ray (``ray_local``) carry the ``ray`` marker, those of LONG ``long``."""
    matched = set()
    for item in items:
        if "ray_local" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ray)
        prefix = _in_long_tier(item.nodeid)
        if prefix:
            item.add_marker(pytest.mark.long)
            matched.add(prefix)
    if not config.args or config.args == config.getini("testpaths"):  # the whole suite
        missing = sorted(set(LONG) - matched)
        if missing:
            raise pytest.UsageError(f"tests/conftest.py LONG names no test: {missing}")


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray with two CPUs for the module's tests, shut down after them."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
