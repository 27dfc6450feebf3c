"""Saved model folders are data, never code: what save writes, what load accepts."""

import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import forecast
from forecast import models
from forecast.base import BaseForecaster
from forecast.cli import main
from forecast.models.baselines import LinearLagForecaster, Naive, SeasonalNaive
from forecast.models.neural import NeuralForecaster
from forecast.models.recurrent import GRUForecaster, LSTMForecaster
from forecast.persistence import atomic as _folder
from forecast.persistence import manifest as _manifest
from forecast.persistence import registry
from forecast.persistence.format import ModelFormatError
from tests.conftest import make_series
from tests.persistence.test_serialize import same

TINY = {"context_length": 12, "horizon": 4, "hidden_size": 4, "max_epochs": 1, "batch_size": 32}
LAYOUT = {"meta.json", "params.json", "fitted.json", "fitted.npz", "weights.safetensors"}


class MakesMarker:
    """Unpickling this creates the file ``path`` (stands in for any code)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture(scope="module")
def data():
    return make_series(n=24 * 5, tz="Europe/Berlin", start="2023-03-24", name="time")


@pytest.fixture(scope="module")
def lstm(data):
    return LSTMForecaster(**TINY, random_state=0, device="cpu").fit(data)


@pytest.fixture(scope="module")
def saved(lstm, tmp_path_factory):
    return lstm.save(tmp_path_factory.mktemp("saved") / "lstm")


@pytest.fixture
def folder(saved, tmp_path):
    """A fresh copy of the saved LSTM folder, free to tamper with."""
    return Path(shutil.copytree(saved, tmp_path / "model"))


def rehash(path):
    """Rewrite the manifest to match the folder (what an attacker can always do)."""
    meta = json.loads((path / "meta.json").read_text())
    meta["files"] = {
        p.name: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(path.iterdir())
        if p.name != "meta.json"
    }
    (path / "meta.json").write_text(json.dumps(meta))


def edit_meta(path, **fields):
    meta = json.loads((path / "meta.json").read_text())
    meta.update(fields)
    (path / "meta.json").write_text(json.dumps(meta))


def old_format_folder(path, marker, cls="forecast.models.recurrent:LSTMForecaster", params=None):
    """A folder as format 1 wrote it, with a fitted.pkl that creates ``marker``."""
    path.mkdir()
    (path / "meta.json").write_text(json.dumps({"format": 1, "class": cls, "modules": []}))
    (path / "params.json").write_text(json.dumps(params or {"hidden_size": 4}))
    (path / "fitted.pkl").write_bytes(pickle.dumps({"columns_": MakesMarker(marker)}))
    return path


# ------------------------------------------------------------------ layout
def test_saved_folder_is_json_npz_and_safetensors_with_a_manifest(saved, lstm):
    assert {p.name for p in saved.iterdir()} == LAYOUT
    meta = json.loads((saved / "meta.json").read_text())
    assert meta["format"] == "2.0" and meta["estimator"] == "lstm"
    assert meta["forecast_version"] == forecast.__version__
    assert meta["torch_version"] == torch.__version__ and meta["modules"] == ["module_"]
    for name, entry in meta["files"].items():
        content = (saved / name).read_bytes()
        assert entry == {"size": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    history = meta["history"]
    assert history["rows"] == 12 and history["series"] == 1  # context_length rows kept
    assert history["end"] == str(lstm.train_tail_[None].index[-1])
    params = json.loads((saved / "params.json").read_text())
    assert params["hidden_size"] == 4 and params["device"] == "cpu"


def test_history_fingerprint_is_the_tracking_fingerprint_of_the_kept_data(tmp_path, data, saved):
    from forecast.models.baselines import SARIMAXForecaster
    from forecast.tracking import fingerprint

    est = SARIMAXForecaster(order=(1, 0, 0), seasonal_order=(0, 0, 0, 0)).fit(data)
    meta = json.loads((est.save(tmp_path / "m") / "meta.json").read_text())
    assert meta["history"]["sha256"] == fingerprint(data)  # keeps every training row
    assert meta["history"]["rows"] == len(data)
    meta = json.loads((saved / "meta.json").read_text())
    assert meta["history"]["sha256"] == fingerprint(data.iloc[-12:])  # context_length rows


GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "folders"


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_history_fingerprints_saved_by_0_1_0_are_recomputed_unchanged(name):
    from forecast.frames.fingerprint import fingerprint

    meta = json.loads((GOLDEN / name / "meta.json").read_text())
    est = forecast.load(GOLDEN / name)
    tails = est.train_tail_
    single = getattr(est, "input_kind_", None) == "frame" and list(tails) == [None]
    assert meta["history"]["sha256"] == fingerprint(tails[None] if single else tails)


def test_neural_round_trip_gives_identical_forecasts_and_state(saved, lstm, data):
    loaded = LSTMForecaster.load(saved, device="cpu")
    assert type(loaded) is LSTMForecaster and loaded.get_params() == lstm.get_params()
    assert loaded.device_ == "cpu" and not loaded.module_.training
    for key, value in vars(lstm).items():
        if key.endswith("_") and key != "module_":
            same(value, getattr(loaded, key))
    for key, tensor in lstm.module_.state_dict().items():
        assert torch.equal(tensor, loaded.module_.state_dict()[key])
    pd.testing.assert_frame_equal(loaded.predict(horizon=6), lstm.predict(horizon=6))
    history = data.iloc[-30:]
    pd.testing.assert_frame_equal(
        loaded.predict(horizon=4, history=history), lstm.predict(horizon=4, history=history)
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: LinearLagForecaster(lags=(1, 2, "1D"), seasonal_lags=("1D",)),
        lambda: SeasonalNaive(season="1D", n_seasons=2),
        lambda: GRUForecaster(**TINY, random_state=1, device="cpu"),
    ],
    ids=["linear-lag", "seasonal-naive", "gru"],
)
@pytest.mark.parametrize("keys", [(1, "b"), ("north", None)])
def test_several_series_with_int_str_and_none_keys_on_a_naive_index(tmp_path, make, keys):
    frames = {
        k: make_series(n=24 * 4, seed=i, start="2023-01-02") for i, k in enumerate(keys)
    }  # naive timestamps
    est = make().fit(frames)
    loaded = forecast.load(est.save(tmp_path / "m"), device="cpu")
    for key, value in vars(est).items():
        if key.endswith("_") and key != "module_":
            same(value, getattr(loaded, key))
    got, expected = loaded.predict(horizon=5), est.predict(horizon=5)
    assert list(got) == list(keys)
    for key in keys:
        pd.testing.assert_frame_equal(got[key], expected[key])


def test_long_frame_with_covariates_round_trips(tmp_path):
    frames = {s: make_series(n=24 * 4, seed=i, tz="UTC") for i, s in enumerate(["a", "b"])}
    long = pd.concat(
        [
            f.assign(id=k, temp=np.arange(len(f)) * 0.1).rename_axis("time")
            for k, f in frames.items()
        ]
    ).reset_index()
    est = GRUForecaster(**TINY, past_covariates=["temp"], random_state=0).fit(long)
    loaded = BaseForecaster.load(est.save(tmp_path / "m"))
    same(est.train_tail_, loaded.train_tail_)
    same(est.covariate_scaler_, loaded.covariate_scaler_)
    pd.testing.assert_frame_equal(loaded.predict(horizon=3), est.predict(horizon=3))


# -------------------------------------------------------------- pickle attacks
def test_the_payload_runs_code_when_unpickled(tmp_path):
    pickle.loads(pickle.dumps(MakesMarker(tmp_path / "proof")))
    assert (tmp_path / "proof").exists()  # so the tests below would notice a pickle.load


def test_old_format_pickle_is_never_read(tmp_path):
    marker = tmp_path / "marker"
    path = old_format_folder(tmp_path / "old", marker)
    for load in (LSTMForecaster.load, forecast.load, BaseForecaster.load):
        with pytest.raises(ModelFormatError, match=r"meta.json: format 1 .*pickle"):
            load(path)
    assert not marker.exists()


@pytest.mark.parametrize("listed", [False, True], ids=["extra-file", "listed-in-manifest"])
def test_pickle_added_to_a_saved_folder_is_refused(folder, tmp_path, listed):
    marker = tmp_path / "marker"
    (folder / "fitted.pkl").write_bytes(pickle.dumps(MakesMarker(marker)))
    if listed:
        rehash(folder)
    for load in (LSTMForecaster.load, forecast.load):
        with pytest.raises(ModelFormatError, match=r"model/fitted.pkl: not a file of a saved"):
            load(folder)
    assert not marker.exists()


def test_cli_predict_and_batch_refuse_a_pickle(folder, tmp_path, capsys, data, monkeypatch):
    monkeypatch.chdir(tmp_path)  # any MLflow store would land here
    marker = tmp_path / "marker"
    (folder / "fitted.pkl").write_bytes(pickle.dumps(MakesMarker(marker)))
    old = old_format_folder(tmp_path / "old", marker)
    csv = tmp_path / "latest.csv"
    data.to_csv(csv)
    for path in (folder, old):
        assert main(["predict", "--model", str(path), "--horizon", "3"]) == 2
        assert "error:" in capsys.readouterr().err
        batch = ["batch", "--model", str(path), "--input", str(csv), "--output"]
        assert main([*batch, str(tmp_path / "fc.csv"), "--no-track"]) == 1
        err = capsys.readouterr().err
        assert "fitted.pkl" in err or "format 1" in err
    assert not marker.exists() and not (tmp_path / "fc.csv").exists()


def test_pyfunc_model_holds_no_pickle_and_refuses_a_tampered_folder(new_store, tmp_path, data):
    import mlflow
    from mlflow import MlflowClient

    from forecast.tracking import track_fit, use_store

    store = new_store("persistence")
    est = SeasonalNaive(season="1D")
    cb = track_fit(est, data, experiment="persistence", tracking_uri=store, log_model=True)
    model_id = cb.model_info.model_id
    location = MlflowClient(store).get_logged_model(model_id).artifact_location
    root = Path(location.removeprefix("file://"))
    files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    assert not [f for f in files if f.endswith((".pkl", ".pickle", ".pt"))], files
    assert "MLmodel" in files and "data/estimator/meta.json" in files
    with use_store(store):
        got = mlflow.pyfunc.load_model(cb.model_info.model_uri).predict(data, params={"horizon": 3})
    pd.testing.assert_frame_equal(got, est.predict(horizon=3, history=data))

    marker = tmp_path / "marker"
    (root / "data" / "estimator" / "fitted.pkl").write_bytes(pickle.dumps(MakesMarker(marker)))
    with use_store(store), pytest.raises(ModelFormatError, match="fitted.pkl"):
        mlflow.pyfunc.load_model(cb.model_info.model_uri)
    shutil.rmtree(root / "data" / "estimator")
    old_format_folder(root / "data" / "estimator", marker)
    with use_store(store), pytest.raises(ModelFormatError, match="format 1"):
        mlflow.pyfunc.load_model(cb.model_info.model_uri)
    assert not marker.exists()


# ------------------------------------------------------------- class names
def test_class_string_attacks_are_refused(tmp_path, folder):
    marker = tmp_path / "marker"
    command = {"command": f"touch {marker}"}
    old = old_format_folder(tmp_path / "old", marker, cls="os:system", params=command)
    with pytest.raises(ModelFormatError, match="format 1"):
        forecast.load(old)
    for name in ("os:system", "os.system", "forecast.models.recurrent:LSTMForecaster", None):
        edit_meta(folder, estimator=name)
        with pytest.raises(ModelFormatError, match=rf"meta.json: unknown estimator {name!r}"):
            forecast.load(folder)
    assert not marker.exists()


def test_loading_through_a_class_checks_the_class(saved):
    with pytest.raises(TypeError, match=r"holds a LSTMForecaster, not a GRUForecaster"):
        GRUForecaster.load(saved)
    with pytest.raises(TypeError, match=r"holds a LSTMForecaster, not a Naive"):
        Naive.load(saved)
    for load in (BaseForecaster.load, NeuralForecaster.load, forecast.load):
        assert type(load(saved, device="cpu")) is LSTMForecaster


def test_unregistered_classes_cannot_be_saved_until_registered(tmp_path, monkeypatch, data):
    monkeypatch.setattr(registry, "_REGISTERED", {})

    class MyNaive(Naive):
        pass

    est = MyNaive().fit(data)
    with pytest.raises(TypeError, match=r"MyNaive is not a registered .*register_estimator"):
        est.save(tmp_path / "m")
    assert not (tmp_path / "m").exists()
    assert forecast.register_estimator(MyNaive, "my-naive") == "my-naive"
    assert forecast.register_estimator(MyNaive, "my-naive") == "my-naive"  # idempotent
    loaded = forecast.load(est.save(tmp_path / "m"))
    assert type(loaded) is MyNaive and models.get_estimator("my-naive") is MyNaive
    with pytest.raises(ValueError, match="already registered"):
        forecast.register_estimator(type("Other", (Naive,), {}), "my-naive")
    with pytest.raises(ValueError, match="built-in"):
        forecast.register_estimator(MyNaive, "LSTM")
    with pytest.raises(TypeError, match="BaseForecaster subclass"):
        forecast.register_estimator(dict)


# ------------------------------------------------------- manifest and format
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:], "SHA-256 differs"),
        (lambda b: b[: len(b) // 2], r"\d+ bytes, meta.json lists \d+: the file is truncated"),
        (lambda b: b"", "0 bytes, meta.json lists"),
        (lambda b: np.random.default_rng(0).bytes(len(b)), "SHA-256 differs"),
    ],
    ids=["flipped-byte", "truncated", "empty", "random"],
)
def test_damaged_weights_are_named(folder, damage, message):
    weights = folder / "weights.safetensors"
    weights.write_bytes(damage(weights.read_bytes()))
    with pytest.raises(ModelFormatError, match=rf"model/weights.safetensors: {message}"):
        LSTMForecaster.load(folder)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[: len(b) // 2], "not a readable safetensors file"),
        (lambda b: b"", "not a readable safetensors file"),
        (lambda b: np.random.default_rng(0).bytes(len(b)), "not a readable safetensors file"),
    ],
    ids=["truncated", "empty", "random"],
)
def test_damaged_weights_with_a_rewritten_manifest_are_named(folder, damage, message):
    weights = folder / "weights.safetensors"
    weights.write_bytes(damage(weights.read_bytes()))
    rehash(folder)
    with pytest.raises(ModelFormatError, match=rf"model/weights.safetensors: {message}"):
        LSTMForecaster.load(folder)


def test_weights_of_another_model_do_not_fit(folder, tmp_path, data):
    bigger = LSTMForecaster(**{**TINY, "hidden_size": 5}, random_state=0).fit(data)
    other = bigger.save(tmp_path / "other")
    shutil.copy(other / "weights.safetensors", folder / "weights.safetensors")
    rehash(folder)
    with pytest.raises(ModelFormatError, match=r"weights.safetensors: the weights do not fit"):
        LSTMForecaster.load(folder)


def test_missing_and_foreign_files(folder):
    (folder / "notes.txt").write_text("hello")
    with pytest.raises(ModelFormatError, match=r"model/notes.txt: not a file of a saved model"):
        forecast.load(folder)
    (folder / "notes.txt").unlink()
    (folder / "fitted.npz").unlink()
    with pytest.raises(ModelFormatError, match=r"model/fitted.npz: file listed in meta.json is"):
        forecast.load(folder)
    (folder / "meta.json").unlink()
    with pytest.raises(FileNotFoundError, match="meta.json is missing"):
        forecast.load(folder)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        forecast.load(folder / "nowhere")


def test_tampered_state_files_are_named(folder):
    np.savez(folder / "fitted.npz", a0=np.array([MakesMarker("x")], dtype=object))
    rehash(folder)
    with pytest.raises(ModelFormatError, match=r"fitted.npz: not a readable npz .*allow_pickle"):
        forecast.load(folder)


def test_unknown_tags_in_fitted_json_are_named(folder):
    tree = json.loads((folder / "fitted.json").read_text())
    tree["scaler_"] = {"$type": "pickle", "data": "gASV"}
    (folder / "fitted.json").write_text(json.dumps(tree))
    rehash(folder)
    with pytest.raises(ModelFormatError, match=r"fitted.json: scaler_: unknown type tag 'pickle'"):
        forecast.load(folder)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (99, "unknown format 99"),
        ("99.0", "format 99.0 is newer than this version"),
        ("3.0", "format 3.0 is newer"),
        ("two", "unknown format 'two'"),
        (None, "unknown format None"),
    ],
)
def test_unsupported_formats_are_refused(folder, value, message):
    edit_meta(folder, format=value)
    with pytest.raises(ModelFormatError, match=rf"model/meta.json: {message}"):
        forecast.load(folder)


def test_unreadable_manifest_is_named(folder):
    (folder / "meta.json").write_text("{not json")
    with pytest.raises(ModelFormatError, match=r"model/meta.json: not valid JSON"):
        forecast.load(folder)


def test_older_and_newer_minor_formats_load_with_a_warning(folder, saved, lstm, monkeypatch):
    monkeypatch.setattr(_manifest, "FORMAT", (2, 1))
    with pytest.warns(UserWarning, match=r"older format 2.0, which this version \(format 2.1\)"):
        loaded = forecast.load(saved)
    pd.testing.assert_frame_equal(loaded.predict(horizon=3), lstm.predict(horizon=3))
    monkeypatch.undo()
    edit_meta(folder, format="2.7", added_in_2_7={"x": 1})
    with pytest.warns(UserWarning, match=r"newer format 2.7; this version reads format 2.0"):
        forecast.load(folder)


# ------------------------------------------------------------------ params
def test_unknown_parameters_are_refused(folder, tmp_path):
    marker = tmp_path / "marker"
    params = json.loads((folder / "params.json").read_text())
    params["command"] = f"touch {marker}"
    (folder / "params.json").write_text(json.dumps(params))
    rehash(folder)
    with pytest.raises(ModelFormatError, match=r"takes no parameters \['command'\]"):
        forecast.load(folder)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("hidden_size", "big", "hidden_size must be an int >= 1, got 'big'"),
        ("strategy", "magic", "strategy must be one of"),
    ],
)
def test_parameter_values_the_class_rejects_are_refused(folder, name, value, message):
    params = json.loads((folder / "params.json").read_text())
    params[name] = value
    (folder / "params.json").write_text(json.dumps(params))
    rehash(folder)
    with pytest.raises(ModelFormatError, match=rf"model/params.json: {message}"):
        forecast.load(folder)


def test_statistical_parameters_are_checked_by_the_class(tmp_path, data):
    from forecast.models.baselines import SARIMAXForecaster

    est = SARIMAXForecaster(order=(1, 0, 0), seasonal_order=(0, 0, 0, 0)).fit(data)
    path = est.save(tmp_path / "m")
    loaded = forecast.load(path)
    assert loaded.get_params()["order"] == (1, 0, 0)  # tuples stay tuples
    params = json.loads((path / "params.json").read_text())
    params["order"] = "p,d,q"
    (path / "params.json").write_text(json.dumps(params))
    rehash(path)
    with pytest.raises(ModelFormatError, match=r"params.json: order must be a tuple of 3"):
        forecast.load(path)


# ------------------------------------------------------------------ device
def test_device_errors(saved):
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA requested but not available"):
            LSTMForecaster.load(saved, device="cuda")
    with pytest.raises(ValueError, match=r"device must be 'auto', 'cpu', 'cuda' or 'cuda:N'"):
        LSTMForecaster.load(saved, device="tpu")
    assert LSTMForecaster.load(saved, device=torch.device("cpu")).device_ == "cpu"


# ------------------------------------------------------------------- saving
def modes(path):
    return {p.name: p.stat().st_mode & 0o777 for p in [path, *path.iterdir()]}


@pytest.mark.parametrize(
    ("umask", "folder_mode", "file_mode"), [(0o022, 0o755, 0o644), (0o077, 0o700, 0o600)]
)
def test_permissions_follow_the_umask(tmp_path, lstm, umask, folder_mode, file_mode):
    previous = os.umask(umask)
    try:
        path = lstm.save(tmp_path / "deep" / "model")
    finally:
        os.umask(previous)
    got = modes(path)
    assert got.pop("model") == folder_mode
    assert set(got) == LAYOUT and set(got.values()) == {file_mode}
    assert (tmp_path / "deep").stat().st_mode & 0o777 == folder_mode


def test_existing_paths_are_refused_without_overwrite(tmp_path, lstm, saved):
    target = Path(shutil.copytree(saved, tmp_path / "model"))
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    with pytest.raises(FileExistsError, match=r"model exists: pass overwrite=True"):
        lstm.save(target)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    file = tmp_path / "notes.txt"
    file.write_text("keep me")
    for overwrite in (False, True):
        with pytest.raises(FileExistsError, match="notes.txt"):
            lstm.save(file, overwrite=overwrite)
    assert file.read_text() == "keep me"
    other = tmp_path / "photos"
    other.mkdir()
    (other / "cat.jpg").write_bytes(b"\xff")
    with pytest.raises(FileExistsError, match=r"photos is a folder but not a saved model folder"):
        lstm.save(other, overwrite=True)
    assert os.listdir(other) == ["cat.jpg"]
    assert sorted(os.listdir(tmp_path)) == ["model", "notes.txt", "photos"]


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_overwrite_replaces_the_folder_and_leaves_nothing_behind(
    tmp_path, saved, data, monkeypatch, exchange
):
    if not exchange:
        monkeypatch.setattr(_folder, "_renameat2", lambda *a: False)
    target = Path(shutil.copytree(saved, tmp_path / "model"))
    naive = Naive().fit(data)
    assert naive.save(target, overwrite=True) == target
    assert os.listdir(tmp_path) == ["model"]
    assert type(forecast.load(target)) is Naive
    assert {p.name for p in target.iterdir()} == LAYOUT - {"weights.safetensors"}
    empty = tmp_path / "empty"
    empty.mkdir()
    naive.save(empty, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == ["empty", "model"]


def fail_on_call(n, real):
    calls = []

    def fake(*args, **kwargs):
        calls.append(args)
        if len(calls) == n:
            raise OSError("disk full")
        return real(*args, **kwargs)

    return fake


@pytest.mark.parametrize("where", ["writing", "swap", "second-rename"])
def test_failed_overwrite_keeps_the_previous_folder(tmp_path, saved, data, monkeypatch, where):
    target = Path(shutil.copytree(saved, tmp_path / "model"))
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    if where == "writing":
        monkeypatch.setattr(_folder.os, "fsync", fail_on_call(3, os.fsync))
    elif where == "swap":
        monkeypatch.setattr(_folder, "_renameat2", fail_on_call(1, _folder._renameat2))
    else:
        monkeypatch.setattr(_folder, "_renameat2", lambda *a: False)
        monkeypatch.setattr(_folder.os, "rename", fail_on_call(2, os.rename))
    with pytest.raises(OSError, match="disk full"):
        Naive().fit(data).save(target, overwrite=True)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["model"]
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert type(forecast.load(target)) is LSTMForecaster


def test_unsupported_fitted_state_fails_before_writing(tmp_path, data):
    est = Naive().fit(data)
    est.extra_ = {"ok": [1.0], "bad": object()}
    with pytest.raises(TypeError, match=r"cannot save extra_\['bad'\]: type builtins.object"):
        est.save(tmp_path / "m")
    est = Naive().fit(data)
    est.set_params(nan_policy=np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"cannot save parameter 'nan_policy'"):
        est.save(tmp_path / "m")
    assert os.listdir(tmp_path) == []


def test_cli_fit_refuses_an_existing_folder_unless_overwrite(tmp_path, data, capsys):
    csv = tmp_path / "load.csv"
    data.to_csv(csv)
    fit = ["fit", "--model", "naive", "--data", str(csv), "--out", str(tmp_path / "m")]
    assert main(fit) == 0
    assert main(fit) == 2
    assert "exists: pass --overwrite" in capsys.readouterr().err
    assert main([*fit, "--overwrite"]) == 0
    assert sorted(os.listdir(tmp_path)) == ["load.csv", "m"]
