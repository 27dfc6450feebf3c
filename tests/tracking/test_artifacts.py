"""Logged models are loaded as data: tampered MLmodel files are refused and run no code."""

import os
import pickle
import shutil
import sys
from pathlib import Path

import mlflow
import pandas as pd
import pytest
import yaml
from mlflow import MlflowClient

from forecast.batch import main, run_batch
from forecast.batch.run import load_forecaster
from forecast.models.baselines import Naive, SeasonalNaive
from forecast.tracking import ArtifactError, register, track_fit, use_store
from tests.batch.logcheck import errors
from tests.conftest import make_series

FIELD = "flavors.python_function."


@pytest.fixture(scope="module")
def logged(tmp_path_factory, new_store):
    """One store, one logged and registered model, its artifact as a local folder."""
    store = new_store("artifacts")
    folder = tmp_path_factory.mktemp("artifacts")
    data = make_series(n=24 * 9, tz="Europe/Berlin", name="timestamp")
    est = SeasonalNaive(season="1D")
    cb = track_fit(est, data.iloc[: 24 * 7], experiment="art", tracking_uri=store, log_model=True)
    register(cb.model_info.model_uri, "art-model", alias="champion", tracking_uri=store)
    with use_store(store):
        clean = mlflow.artifacts.download_artifacts(
            artifact_uri=f"runs:/{cb.run_id}/model", dst_path=str(folder / "download")
        )
    other = Naive().fit(data * 10.0).save(folder / "other-model")
    latest = data.iloc[-48:]
    latest.to_csv(folder / "latest.csv")
    return {
        "store": store,
        "est": est,
        "run_id": cb.run_id,
        "clean": Path(clean),
        "other": other,
        "dir": folder,
        "latest": latest,
    }


def edit_mlmodel(root, **changes):
    spec = yaml.safe_load((root / "MLmodel").read_text())
    spec["flavors"]["python_function"].update(changes)
    (root / "MLmodel").write_text(yaml.safe_dump(spec))


class Planted:
    """Unpickling this writes the marker: stands for any code in a cloudpickled model."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "ran"))


def tamper(case, root, marker, other):
    """Change the copied artifact ``root``; return the MLmodel field that must be named."""
    plant = f"open({str(marker)!r}, 'w').write('ran')\n"
    if case == "code":
        (root / "code" / "holidays").mkdir(parents=True)
        (root / "code" / "holidays" / "__init__.py").write_text(plant)
        edit_mlmodel(root, code="code")
        return FIELD + "code"
    if case == "loader_module":
        (root / "evil_loader.py").write_text(plant + "def _load_pyfunc(path):\n    pass\n")
        edit_mlmodel(root, loader_module="evil_loader")
        return FIELD + "loader_module"
    if case == "python_model":
        (root / "python_model.pkl").write_bytes(pickle.dumps(Planted(marker)))
        edit_mlmodel(
            root,
            loader_module="mlflow.pyfunc.model",  # MLflow's own loader, which unpickles it
            python_model="python_model.pkl",
            cloudpickle_version="3.0.0",
        )
        return FIELD + "python_model"
    if case == "other_flavor":
        (root / "model.pkl").write_bytes(pickle.dumps(Planted(marker)))
        spec = yaml.safe_load((root / "MLmodel").read_text())
        spec["flavors"]["sklearn"] = {
            "pickled_model": "model.pkl",
            "serialization_format": "pickle",
        }
        (root / "MLmodel").write_text(yaml.safe_dump(spec))
        return "flavors.sklearn"
    if case == "data_dotdot":
        shutil.copytree(other, root.parent / "other")
        edit_mlmodel(root, data="../other")
        return FIELD + "data"
    if case == "data_absolute":
        edit_mlmodel(root, data=str(other))
        return FIELD + "data"
    if case == "data_symlink":
        shutil.rmtree(root / "data" / "estimator")
        (root / "data" / "estimator").symlink_to(other, target_is_directory=True)
        return FIELD + "data"
    raise AssertionError(case)


CASES = [
    "code",
    "loader_module",
    "python_model",
    "other_flavor",
    "data_dotdot",
    "data_absolute",
    "data_symlink",
]


@pytest.fixture(params=CASES)
def tampered(request, logged, tmp_path):
    root = tmp_path / "art" / "model"
    shutil.copytree(logged["clean"], root)
    marker = tmp_path / "marker"
    field = tamper(request.param, root, marker, logged["other"])
    return root, field, marker


@pytest.fixture
def no_pyfunc_load(monkeypatch):
    """Fail the test if anything calls mlflow.pyfunc.load_model."""

    def refuse(*args, **kwargs):
        raise AssertionError("mlflow.pyfunc.load_model was called")

    monkeypatch.setattr(mlflow.pyfunc, "load_model", refuse)


def test_clean_artifact_forecasts_as_the_estimator(logged, no_pyfunc_load):
    history = logged["latest"]
    expected = logged["est"].predict(horizon=24, history=history)
    for model in ["models:/art-model@champion", f"runs:/{logged['run_id']}/model"]:
        est, predict = load_forecaster(model, logged["store"])
        pd.testing.assert_frame_equal(predict(history, 24), expected)
        assert type(est) is SeasonalNaive
    est, predict = load_forecaster(logged["clean"])
    pd.testing.assert_frame_equal(predict(history, 24), expected)


def test_clean_artifact_on_the_batch_path(logged, tmp_path, no_pyfunc_load):
    result = run_batch(
        "models:/art-model@champion",
        logged["dir"] / "latest.csv",
        tmp_path / "a.csv",
        horizon=24,
        tracking_uri=logged["store"],
        track=False,
    )
    local = run_batch(
        logged["clean"], logged["dir"] / "latest.csv", tmp_path / "b.csv", horizon=24, track=False
    )
    assert result.rows == 24 and result.sha256 == local.sha256


def test_tampered_artifact_is_refused_by_load_forecaster(tampered, no_pyfunc_load):
    root, field, marker = tampered
    with pytest.raises(ArtifactError, match=f"MLmodel field '{field}'") as info:
        load_forecaster(root)
    assert "\n" not in str(info.value)
    assert not marker.exists()
    assert not any(str(root.parent) in entry for entry in sys.path)


def test_tampered_artifact_is_refused_by_the_batch_command(
    tampered, logged, tmp_path, capsys, no_pyfunc_load
):
    root, field, marker = tampered
    out = tmp_path / "out.csv"
    argv = ["--model", str(root), "--input", str(logged["dir"] / "latest.csv")]
    code = main([*argv, "--output", str(out), "--no-track"])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    message = errors(captured.err)  # one ERROR line among the timestamped log lines
    assert message.count("\n") == 1 and f"MLmodel field '{field}'" in message
    assert not out.exists() and not marker.exists()
    with pytest.raises(ArtifactError, match=field):
        run_batch(root, logged["dir"] / "latest.csv", out, track=False)
    assert not marker.exists()


def test_tampered_artifact_in_the_store_is_refused(logged, tmp_path, no_pyfunc_load):
    root = tmp_path / "model"
    shutil.copytree(logged["clean"], root)
    marker = tmp_path / "marker"
    tamper("code", root, marker, logged["other"])
    client = MlflowClient(logged["store"])
    run = client.create_run(client.get_run(logged["run_id"]).info.experiment_id)
    client.log_artifacts(run.info.run_id, str(root), "model")
    with pytest.raises(ArtifactError, match=FIELD + "code"):
        load_forecaster(f"runs:/{run.info.run_id}/model", logged["store"])
    assert not marker.exists()


def test_mlmodel_that_is_not_yaml_or_missing_is_refused(logged, tmp_path):
    root = tmp_path / "model"
    shutil.copytree(logged["clean"], root)
    (root / "MLmodel").write_text("flavors: [unclosed\n")
    with pytest.raises(ArtifactError, match="not valid YAML"):
        load_forecaster(root)
    os.remove(root / "MLmodel")
    (root / "MLmodel").symlink_to(logged["clean"] / "MLmodel")
    with pytest.raises(ArtifactError, match="not a plain file"):
        load_forecaster(root)
