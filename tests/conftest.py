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


# Settings of a tiny, fast neural fit shared by the neural-option tests.
def neural_families() -> list:
    """The six neural estimator classes, for tests that run over every family."""
    from forecast.models.hopfield import HopfieldForecaster
    from forecast.models.orthogonal import OrthogonalRNNForecaster
    from forecast.models.recurrent import ElmanForecaster, GRUForecaster, LSTMForecaster
    from forecast.models.transformer import TransformerForecaster

    return [
        ElmanForecaster,
        LSTMForecaster,
        GRUForecaster,
        OrthogonalRNNForecaster,
        TransformerForecaster,
        HopfieldForecaster,
    ]


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


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config, items):
    """Every test that starts Ray (through ``ray_local``) carries the ``ray`` marker."""
    for item in items:
        if "ray_local" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ray)


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray with two CPUs for the module's tests, shut down after them."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
