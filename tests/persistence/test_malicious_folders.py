"""Loading refuses what it cannot trust, cheaply: every failure is one ModelFormatError.

Folders are copies of the golden folders (no fitting here); each test tampers with one and
rewrites the manifest to match, as anyone who can write the folder can.
"""

import hashlib
import io
import json
import os
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors

import forecast
from forecast.frames.writes import WriteRefused
from forecast.persistence.errors import ModelFormatError

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "folders"
MiB = 1 << 20


def rehash(path, **fields):
    """Rewrite ``path``'s manifest to list its files as they are now (plus ``fields``)."""
    meta = json.loads((path / "meta.json").read_text())
    meta.update(fields)
    meta["files"] = {
        p.name: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(path.iterdir())
        if p.is_file() and p.name != "meta.json"
    }
    (path / "meta.json").write_text(json.dumps(meta))


def copy(name, tmp_path):
    return Path(shutil.copytree(GOLDEN / name, tmp_path / name))


@pytest.fixture
def lstm(tmp_path):
    return copy("LSTMForecaster", tmp_path)


def refused(path, fragment):
    """Load ``path``; assert one ModelFormatError naming ``fragment``; return peak bytes."""
    tracemalloc.start()
    try:
        with pytest.raises(ModelFormatError, match=fragment):
            forecast.load(path, device="cpu")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------- links
def test_a_linked_weights_file_is_refused(lstm, tmp_path):
    other = copy("GRUForecaster", tmp_path)
    (lstm / "weights.safetensors").unlink()
    os.symlink(other / "weights.safetensors", lstm / "weights.safetensors")
    refused(lstm, r"LSTMForecaster/weights.safetensors: is a symbolic link")


def test_a_link_does_not_disclose_the_size_of_another_file(lstm, tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(b"x" * 1234)
    (lstm / "params.json").unlink()
    os.symlink(secret, lstm / "params.json")
    with pytest.raises(ModelFormatError) as info:
        forecast.load(lstm, device="cpu")
    assert "symbolic link" in str(info.value) and "1234" not in str(info.value)


def test_a_linked_manifest_and_a_linked_nested_folder_are_refused(tmp_path):
    model = copy("ConformalForecaster", tmp_path)
    inner = Path(shutil.move(model / "estimator_", tmp_path / "elsewhere"))
    os.symlink(inner, model / "estimator_")
    refused(model, r"ConformalForecaster/estimator_: is a symbolic link")
    lstm = copy("LSTMForecaster", tmp_path)
    shutil.move(lstm / "meta.json", tmp_path / "meta.json")
    os.symlink(tmp_path / "meta.json", lstm / "meta.json")
    refused(lstm, r"LSTMForecaster/meta.json: is a symbolic link")


# -------------------------------------------------------------- sizes, caps
def test_a_sparse_gigabyte_manifest_is_refused_before_reading(lstm):
    os.truncate(lstm / "meta.json", 1 << 30)
    assert refused(lstm, r"meta.json: 1073741824 bytes, too large") < 4 * MiB


def test_a_listed_file_of_another_size_is_refused_before_reading(lstm):
    os.truncate(lstm / "fitted.npz", 1 << 30)  # sparse: the manifest lists the old size
    assert refused(lstm, r"fitted.npz: 1073741824 bytes, meta.json lists") < 4 * MiB


def test_json_over_its_cap_is_refused_before_reading(lstm):
    meta = json.loads((lstm / "meta.json").read_text())
    os.truncate(lstm / "params.json", 64 * MiB)
    meta["files"]["params.json"]["size"] = 64 * MiB
    (lstm / "meta.json").write_text(json.dumps(meta))
    assert refused(lstm, r"params.json: 67108864 bytes, more than the 1048576") < 4 * MiB


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"hidden_size": NaN}', "bare NaN"),
        ('{"hidden_size": Infinity}', "bare Infinity"),
        ('{"hidden_size": 1' + "0" * 5000 + "}", "not valid JSON"),
        ('{"a": "\\ud800', "not valid JSON"),
    ],
    ids=["deep", "nan", "infinity", "long-int", "broken"],
)
def test_malformed_json_is_one_model_format_error(lstm, text, fragment):
    (lstm / "params.json").write_text(text)
    rehash(lstm)
    refused(lstm, rf"params.json: .*{fragment}")


def test_json_of_too_many_values_is_refused_before_parsing(lstm):
    (lstm / "fitted.json").write_text("[" + "0," * 1_100_000 + "0]")
    rehash(lstm)
    assert refused(lstm, r"fitted.json: more than 1000000 JSON values") < 8 * MiB


# -------------------------------------------------------------------- npz
def _npz(members: dict[str, bytes], compression=zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _npy(array: np.ndarray, shape=None) -> bytes:
    buffer = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False}
    np.lib.format.write_array_header_1_0(buffer, {**header, "shape": shape or array.shape})
    return buffer.getvalue() + array.tobytes()


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def test_a_member_inflating_to_a_gigabyte_is_refused_before_inflating(lstm):
    members = _members(lstm / "fitted.npz")
    members["a0.npy"] = _npy(np.zeros(1, "u1"), shape=(1 << 30,)) + bytes(1 << 20)
    (lstm / "fitted.npz").write_bytes(_npz(members, zipfile.ZIP_DEFLATED))
    rehash(lstm)
    assert refused(lstm, r"fitted.npz: not a readable npz file .*compressed") < 8 * MiB


def test_a_declared_shape_larger_than_the_member_is_refused(lstm):
    members = _members(lstm / "fitted.npz")
    members["a0.npy"] = _npy(np.zeros(4), shape=(1 << 27,))
    (lstm / "fitted.npz").write_bytes(_npz(members))
    rehash(lstm)
    assert refused(lstm, r"fitted.npz: .*shape \(134217728,\) of float64 does not fit") < 4 * MiB


@pytest.mark.parametrize(
    ("member", "fragment"),
    [("../evil.npy", "not an array name"), ("a0.npy", "duplicate")],
)
@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_odd_member_names_are_refused(lstm, member, fragment):
    members = list(_members(lstm / "fitted.npz").items()) + [(member, _npy(np.zeros(1)))]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    (lstm / "fitted.npz").write_bytes(buffer.getvalue())
    rehash(lstm)
    refused(lstm, rf"fitted.npz: .*{fragment}")


def test_an_unreferenced_member_is_refused_without_being_inflated(lstm, monkeypatch):
    members = _members(lstm / "fitted.npz")
    members["a999.npy"] = _npy(np.arange(3.0))
    (lstm / "fitted.npz").write_bytes(_npz(members))
    rehash(lstm)
    read = []
    from forecast.persistence import arrays

    original = arrays.LazyArrays.__getitem__
    monkeypatch.setattr(
        arrays.LazyArrays, "__getitem__", lambda self, k: read.append(k) or original(self, k)
    )
    refused(lstm, r"fitted.npz: members \['a999'\] belong to no fitted attribute")
    assert read and "a999" not in read


# ---------------------------------------------------------------- weights
def test_shapes_from_params_are_checked_before_the_module_is_allocated(lstm):
    params = json.loads((lstm / "params.json").read_text())
    params["hidden_size"] = 8000  # about 1 GB of LSTM weights, a few kB in the file
    (lstm / "params.json").write_text(json.dumps(params))
    rehash(lstm)
    refused(lstm, r"weights.safetensors: the parameters ask for a larger model")


@pytest.mark.parametrize(
    "name, key, zone",
    [("fitted.json", "tz_", "Europe.Berlin"), ("params.json", "timezone", "Mars/Olympus")],
)
def test_a_zone_that_names_no_time_zone_is_refused_at_load(lstm, name, key, zone):
    tree = json.loads((lstm / name).read_text())
    tree[key] = zone
    (lstm / name).write_text(json.dumps(tree))
    rehash(lstm)
    refused(lstm, rf"LSTMForecaster/{name}: {key} '{zone}' is not a time zone$")


def set_entry(folder, name, key, value):
    """Set one top-level entry of a JSON file of ``folder`` and re-pin the manifest."""
    tree = json.loads((folder / name).read_text())
    tree[key] = value
    (folder / name).write_text(json.dumps(tree))
    rehash(folder)


@pytest.mark.parametrize(
    "key, value",
    [("columns_", [None]), ("columns_", [[]]), ("columns_", []), ("columns_", ["load", "load"]),
     ("past_covariates_", "load"), ("future_covariates_", [True])],
)  # fmt: skip
def test_column_lists_that_name_no_columns_are_refused_at_load(lstm, key, value):
    set_entry(lstm, "fitted.json", key, value)
    refused(lstm, rf"LSTMForecaster/fitted.json: {key} .* is not a list of distinct column names")


@pytest.mark.parametrize(
    "key, value, fragment",
    [
        ("calendar", 1, r"input.size\(-1\) must be equal to input_size"),
        ("nan_policy", None, r"nan_policy must be one of \('raise', 'interpolate'\), got None"),
    ],
)  # fmt: skip
def test_parameters_that_change_the_networks_inputs_are_refused_at_load(lstm, key, value, fragment):
    set_entry(lstm, "params.json", key, value)
    refused(lstm, rf"LSTMForecaster: the loaded model cannot forecast: .*{fragment}")


@pytest.mark.parametrize(
    "runtime, fragment",
    [("onnx", r"an ONNX export.*OnnxForecaster\.load"), ("tflite", "unknown runtime 'tflite'")],
)
def test_a_folder_of_another_runtime_names_its_loader(lstm, runtime, fragment):
    rehash(lstm, runtime=runtime)
    refused(lstm, fragment)


def test_weights_of_another_shape_are_refused(lstm):
    params = json.loads((lstm / "params.json").read_text())
    params["hidden_size"] += 1
    (lstm / "params.json").write_text(json.dumps(params))
    rehash(lstm)
    refused(lstm, r"weights.safetensors: the weights do not fit the model")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused(lstm, value):
    tensors = load_tensors((lstm / "weights.safetensors").read_bytes())
    first = sorted(tensors)[0]
    tensors[first].view(-1)[0] = value
    (lstm / "weights.safetensors").write_bytes(save_tensors(tensors))
    rehash(lstm)
    refused(lstm, rf"weights.safetensors: tensor '{first}' holds NaN or infinite weights")


def test_a_huge_safetensors_header_length_is_refused(lstm):
    data = (lstm / "weights.safetensors").read_bytes()
    (lstm / "weights.safetensors").write_bytes((1 << 40).to_bytes(8, "little") + data[8:])
    rehash(lstm)
    refused(lstm, r"weights.safetensors: not a readable safetensors file")


# ----------------------------------------------------------------- nested
def test_nested_names_cannot_replace_fitted_attributes(lstm, tmp_path):
    shutil.copytree(GOLDEN / "Naive", lstm / "scaler_")
    pin = hashlib.sha256((lstm / "scaler_" / "meta.json").read_bytes()).hexdigest()
    rehash(lstm, nested={"scaler_": pin})
    refused(lstm, r"LSTMForecaster/meta.json: nested model folder 'scaler_' is not the fitted")


def test_nested_folders_only_where_the_class_has_that_estimator_parameter(tmp_path):
    model = copy("ConformalForecaster", tmp_path)
    shutil.copytree(model / "estimator_", model / "calibration_")
    meta = json.loads((model / "meta.json").read_text())
    meta["nested"]["calibration_"] = meta["nested"]["estimator_"]
    (model / "meta.json").write_text(json.dumps(meta))
    refused(model, r"nested model folder 'calibration_' is not the fitted")


def test_fold_lists_only_for_an_estimator_parameter(tmp_path):
    model = copy("ConformalForecaster", tmp_path)
    (model / "calibration_folds_").mkdir()
    shutil.copytree(model / "estimator_", model / "calibration_folds_" / "0")
    meta = json.loads((model / "meta.json").read_text())
    meta["nested"]["calibration_folds_"] = [meta["nested"]["estimator_"]]
    (model / "meta.json").write_text(json.dumps(meta))
    refused(model, r"nested model folder 'calibration_folds_' is not the fitted")


# -------------------------------------------------- overwrite, checkpoints
def test_overwrite_never_replaces_a_folder_of_another_tool(tmp_path):
    model = forecast.load(GOLDEN / "Naive", device="cpu")
    other = tmp_path / "other"
    other.mkdir()
    (other / "meta.json").write_text(json.dumps({"format": "2.0", "tool": "someone else"}))
    (other / "data.csv").write_text("precious")
    with pytest.raises(FileExistsError, match="not a saved model folder"):
        model.save(other, overwrite=True)
    assert (other / "data.csv").read_text() == "precious"
    (other / "meta.json").write_text("not json at all")
    with pytest.raises(FileExistsError, match="not a saved model folder") as info:
        model.save(other, overwrite=True)
    assert isinstance(info.value, WriteRefused)  # the one refusal of every writer


def test_overwrite_refuses_our_folder_with_foreign_files_or_a_link(tmp_path):
    model = forecast.load(GOLDEN / "Naive", device="cpu")
    ours = model.save(tmp_path / "ours")
    (ours / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="notes.txt is not listed"):
        model.save(ours, overwrite=True)
    assert (ours / "notes.txt").exists()
    (ours / "notes.txt").unlink()
    os.symlink(ours, tmp_path / "link")
    with pytest.raises(FileExistsError, match="symbolic link"):
        model.save(tmp_path / "link", overwrite=True)
    assert model.save(ours, overwrite=True) == ours  # a folder of ours is replaced
    nested = forecast.load(GOLDEN / "EnsembleForecaster", device="cpu").save(tmp_path / "ens")
    (nested / "estimators_" / "1" / "extra").write_text("x")
    with pytest.raises(FileExistsError, match="extra is not listed"):
        model.save(nested, overwrite=True)


def test_checkpoint_dir_is_not_taken_from_the_folder(tmp_path):
    model = forecast.load(GOLDEN / "GRUForecaster", device="cpu")
    model.set_params(checkpoint_dir=str(tmp_path / "another-run"))
    loaded = forecast.load(model.save(tmp_path / "gru"), device="cpu")
    assert loaded.checkpoint_dir is None


# ----------------------------------------------------------- property test
def _mutate(data: bytes, kind: str, where: float, value: int) -> bytes:
    if not data:
        return data
    i = int(where * (len(data) - 1))
    if kind == "flip":
        return data[:i] + bytes([data[i] ^ (1 + value % 255)]) + data[i + 1 :]
    return data[:i]


def _mutate_json(data: bytes, path: list[int], value) -> bytes:
    tree = json.loads(data)
    node = tree
    for step in path:
        if isinstance(node, dict) and node:
            key = sorted(node)[step % len(node)]
            if not isinstance(node[key], dict | list) or step % 3 == 0:
                node[key] = value
                break
            node = node[key]
        elif isinstance(node, list) and node:
            j = step % len(node)
            if not isinstance(node[j], dict | list) or step % 3 == 0:
                node[j] = value
                break
            node = node[j]
    return json.dumps(tree).encode()


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(-3, 3), max_size=3),
    st.fixed_dictionaries({"$type": st.sampled_from(["ndarray", "frame", "tuple", "x"])}),
)
FILES = ["meta.json", "params.json", "fitted.json", "fitted.npz", "weights.safetensors"]


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    name=st.sampled_from(FILES),
    kind=st.sampled_from(["flip", "truncate", "json"]),
    where=st.floats(0, 1),
    value=st.integers(0, 255),
    path=st.lists(st.integers(0, 50), min_size=1, max_size=6),
    replacement=JSON_VALUES,
    rewrite_manifest=st.booleans(),
)
def test_mutated_folders_load_correctly_or_raise_model_format_error(
    tmp_path_factory, name, kind, where, value, path, replacement, rewrite_manifest
):
    folder = copy("LSTMForecaster", tmp_path_factory.mktemp("m"))
    target = folder / name
    data = target.read_bytes()
    if kind == "json" and name.endswith(".json"):
        data = _mutate_json(data, path, replacement)
    else:
        data = _mutate(data, "flip" if kind == "json" else kind, where, value)
    target.write_bytes(data)
    if rewrite_manifest and name != "meta.json":
        rehash(folder)
    try:
        model = forecast.load(folder, device="cpu")
    except ModelFormatError:
        return
    except FileNotFoundError:
        assert name == "meta.json"  # a manifest mutated away is "not a model folder"
        return
    history = model.train_tail_[None]
    forecasts = model.predict(model.horizon, history=history)
    assert forecasts.shape[0] == model.horizon
    for tensor in model.module_.state_dict().values():
        assert torch.isfinite(tensor).all()


# ------------------------------------------------------------ MLflow artifacts
def test_forecast_load_points_uris_and_mlflow_folders_to_the_checked_loader(tmp_path):
    for uri in ("models:/power-load-de@champion", "runs:/0123/model"):
        with pytest.raises(FileNotFoundError, match="is a model URI.*tracking.load_artifact"):
            forecast.load(uri)
    artifact = tmp_path / "artifact"  # an MLflow model whose MLmodel adds code to run
    (artifact / "code" / "holidays").mkdir(parents=True)
    marker = tmp_path / "ran"
    planted = f"open({str(marker)!r}, 'w').write('ran')\n"
    (artifact / "code" / "holidays" / "__init__.py").write_text(planted)
    (artifact / "MLmodel").write_text(
        "flavors:\n  python_function:\n    loader_module: forecast.tracking.pyfunc\n"
        "    code: code\n    data: data/estimator\n"
    )
    with pytest.raises(FileNotFoundError, match="is an MLflow model.*without running any"):
        forecast.load(artifact)
    assert not marker.exists()
