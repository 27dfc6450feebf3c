"""The export folder is a saved folder of the one format: round trip, overwrite, refusals."""

from __future__ import annotations

import json
import os

import pytest
from sklearn.exceptions import NotFittedError

from tests.conftest import make_series
from tests.onnx.helpers import TINY, assert_same_forecast, rewrite, rewrite_json

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

import forecast  # noqa: E402
from forecast.models.recurrent import ElmanForecaster  # noqa: E402
from forecast.onnx.folder import read_export  # noqa: E402
from forecast.onnx.metadata import LEGACY_MANIFEST, NETWORK  # noqa: E402
from forecast.onnx.runtime import OnnxForecaster  # noqa: E402
from forecast.persistence.errors import ModelFormatError  # noqa: E402

FILES = ["fitted.json", "fitted.npz", "meta.json", "model.onnx", "params.json"]


@pytest.fixture(scope="module")
def fitted():
    data = make_series(n=150, tz="UTC", name="stamp")
    return ElmanForecaster(**TINY, quantiles=(0.2, 0.5, 0.8)).fit(data), data


@pytest.fixture
def folder(fitted, tmp_path):
    return fitted[0].to_onnx(tmp_path / "export")


def test_an_export_is_a_saved_folder_of_the_one_format(fitted, folder, tmp_path):
    model, data = fitted
    assert sorted(os.listdir(folder)) == FILES
    manifest = json.loads((folder / "meta.json").read_text())
    assert manifest["format"] == "2.0" and manifest["runtime"] == "onnx"
    assert manifest["estimator"] == "elman" and manifest["opset"] == 17
    assert sorted(manifest["files"]) == sorted(set(FILES) - {"meta.json"})  # every file hashed
    runtime = OnnxForecaster.load(folder)
    assert runtime.columns_ == ["load"] and runtime.tz_ == "UTC"
    assert runtime.quantiles_ == (0.2, 0.5, 0.8) and runtime.freq_ == model.freq_
    assert (runtime.scaler_.mean_ == model.scaler_.mean_).all()
    assert runtime.get_params()["horizon"] == model.horizon
    want = model.predict(horizon=4, history=data.iloc[-30:], quantiles=True)
    got = runtime.predict(horizon=4, history=data.iloc[-30:], quantiles=True)
    assert_same_forecast(want, got)
    assert got.index.name == "stamp"
    copy = tmp_path / "copy"  # a copy elsewhere forecasts alike: nothing refers to the old path
    copy.mkdir()
    for name in os.listdir(folder):
        (copy / name).write_bytes((folder / name).read_bytes())
    assert_same_forecast(got, OnnxForecaster.load(copy).predict(4, data.iloc[-30:], quantiles=True))


def test_each_loader_names_the_other(fitted, folder, tmp_path):
    with pytest.raises(ModelFormatError, match=r"an ONNX export.*OnnxForecaster\.load"):
        forecast.load(folder)
    fitted[0].save(tmp_path / "saved")
    with pytest.raises(ModelFormatError, match=r"torch modules, not an ONNX export.*to_onnx"):
        OnnxForecaster.load(tmp_path / "saved")


def test_overwrite_only_replaces_an_export_folder(fitted, folder, tmp_path):
    model, _ = fitted
    with pytest.raises(FileExistsError, match="overwrite=True"):
        model.to_onnx(folder)
    assert model.to_onnx(folder, overwrite=True) == folder
    assert sorted(os.listdir(folder.parent)) == ["export"]  # no staging folder left
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError):
        model.to_onnx(other, overwrite=True)
    assert (other / "notes.txt").read_text() == "keep"
    model.save(tmp_path / "saved")  # a saved torch model is not an export: kept
    with pytest.raises(FileExistsError, match="is not an ONNX export folder"):
        model.to_onnx(tmp_path / "saved", overwrite=True)
    assert (tmp_path / "saved" / "weights.safetensors").is_file()
    (folder / "notes.txt").write_text("keep")  # an export with a file of the user's: kept whole
    network = (folder / NETWORK).read_bytes()
    with pytest.raises(FileExistsError, match=r"exists and is not an ONNX export folder \(only"):
        model.to_onnx(folder, overwrite=True)
    assert (folder / "notes.txt").read_text() == "keep"
    assert (folder / NETWORK).read_bytes() == network


def test_an_export_of_the_earlier_format_is_refused_and_replaceable(fitted, tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / LEGACY_MANIFEST).write_text('{"format": "forecast-onnx", "format_version": 1}')
    (old / NETWORK).write_bytes(b"\x08\x07")
    with pytest.raises(ModelFormatError, match=r"earlier format .*export the model again"):
        OnnxForecaster.load(old)
    fitted[0].to_onnx(old, overwrite=True)  # what the message says to do
    assert sorted(os.listdir(old)) == FILES


def test_unfitted_models_are_refused(tmp_path):
    with pytest.raises(NotFittedError):
        ElmanForecaster(**TINY).to_onnx(tmp_path / "a")
    assert not (tmp_path / "a").exists()


def test_a_network_with_a_reference_is_refused_by_name(tmp_path):
    from forecast.models.baselines import SeasonalNaive
    from forecast.models.referenced import ReferencedHopfieldForecaster

    data = make_series(n=150)
    model = ReferencedHopfieldForecaster(
        reference_model=SeasonalNaive(season="1D"), context_length=24, horizon=6,
        hidden_size=4, n_heads=1, max_epochs=1, random_state=0,
    ).fit(data)  # fmt: skip
    with pytest.raises(ValueError, match=r"reference_model=SeasonalNaive is not exported"):
        model.to_onnx(tmp_path / "a")
    assert not (tmp_path / "a").exists()


def test_files_are_checked_as_a_saved_folder_is(folder, tmp_path):
    data = bytearray((folder / NETWORK).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / NETWORK).write_bytes(bytes(data))
    with pytest.raises(ModelFormatError, match="SHA-256 differs from meta.json"):
        OnnxForecaster.load(folder)
    (folder / NETWORK).write_bytes(bytes(data[:-1]))
    with pytest.raises(ModelFormatError, match="truncated or was modified"):
        OnnxForecaster.load(folder)


def test_caps_links_and_extra_files_are_refused(fitted, folder, tmp_path):
    with pytest.raises(ModelFormatError, match="more than the 100 allowed"):
        OnnxForecaster.load(folder, max_network_bytes=100)
    (folder / "extra.bin").write_bytes(b"x")
    with pytest.raises(ModelFormatError, match="extra.bin: not a file of a saved model folder"):
        OnnxForecaster.load(folder)
    (folder / "extra.bin").unlink()
    outside = tmp_path / "outside.onnx"
    outside.write_bytes((folder / NETWORK).read_bytes())
    (folder / NETWORK).unlink()
    (folder / NETWORK).symlink_to(outside)
    with pytest.raises(ModelFormatError, match="symbolic link"):
        OnnxForecaster.load(folder)


def _tz(tree):
    tree["timezone"] = "Mars/Olympus"


@pytest.mark.parametrize(
    "name, edit, message",
    [
        ("params.json", _tz, "timezone 'Mars/Olympus' is not a time zone"),
        ("fitted.json", lambda t: t.update(tz_="Europe/Atlantis"), "tz_ 'Europe/Atlantis' is not"),
        ("params.json", lambda t: t.update(context_length=0), "context_length must be an int"),
        (
            "params.json",
            lambda t: t.update(context_length=30),
            r"'x' has the shape \(any, 24, 1\), the export's state gives \(any, 30, 1\)",
        ),
        ("params.json", lambda t: t.update(nan_policy="drop"), "nan_policy 'drop' is not known"),
        ("params.json", lambda t: t.update(calendar=True), "n_future_ is 0: 0 covariates"),
        ("params.json", lambda t: t.update(surprise=1), r"has unknown entries \['surprise'\]"),
        ("fitted.json", lambda t: t.update(columns_=["load", "x"]), "n_outputs_ is 1, the column"),
        ("fitted.json", lambda t: t.update(head_horizon_=7), r"'forecast' has the shape"),
        (
            "fitted.json",
            lambda t: t.update(quantiles_={"$type": "tuple", "items": [0.2, 1.5, 0.8]}),
            r"quantiles_ must be levels in \(0, 1\)",
        ),
        ("fitted.json", lambda t: t.update(freq_={"$type": "offset", "freq": "3X"}), "fitted.json"),
    ],
)
def test_a_bad_state_is_refused_at_load_in_one_line(folder, name, edit, message):
    rewrite_json(folder, name, edit)  # hashes updated: the state itself is what load checks
    with pytest.raises(ModelFormatError, match=message) as info:
        OnnxForecaster.load(folder)
    assert "\n" not in str(info.value)


def test_json_is_strict_and_capped(folder):
    text = (folder / "params.json").read_text()
    rewrite(folder, "params.json", text.replace('"calendar": false', '"calendar": NaN').encode())
    with pytest.raises(ModelFormatError, match="not strict JSON"):
        read_export(folder)
    rewrite(folder, "params.json", b"[" * 80 + b"]" * 80)
    with pytest.raises(ModelFormatError, match="nested deeper"):
        read_export(folder)
    rewrite(folder, "params.json", b" " * ((1 << 20) + 1))
    with pytest.raises(ModelFormatError, match="more than the 1048576 allowed"):
        read_export(folder)
