"""The export folder: round trip, overwrite rules, and tampered or oversized files refused."""

from __future__ import annotations

import json
import os

import pytest
from sklearn.exceptions import NotFittedError

from tests.conftest import make_series
from tests.onnx.helpers import TINY, assert_same_forecast

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from forecast.models.recurrent import ElmanForecaster  # noqa: E402
from forecast.onnx import metadata as M  # noqa: E402
from forecast.onnx.metadata import OnnxFormatError, read_folder  # noqa: E402
from forecast.onnx.runtime import OnnxForecaster  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    data = make_series(n=150, tz="UTC", name="stamp")
    return ElmanForecaster(**TINY, quantiles=(0.2, 0.5, 0.8)).fit(data), data


@pytest.fixture
def folder(fitted, tmp_path):
    return fitted[0].to_onnx(tmp_path / "export")


def _manifest(folder):
    return json.loads((folder / M.MANIFEST).read_text())


def _write(folder, record):
    (folder / M.MANIFEST).write_text(json.dumps(record))


def test_round_trip_keeps_metadata_and_forecasts(fitted, folder, tmp_path):
    model, data = fitted
    assert sorted(os.listdir(folder)) == sorted([M.MANIFEST, M.NETWORK])
    runtime = OnnxForecaster.load(folder)
    assert runtime.columns_ == ["load"] and runtime.tz_ == "UTC"
    assert runtime.quantiles_ == (0.2, 0.5, 0.8) and runtime.freq_ == model.freq_
    assert runtime.metadata_["target_scaler"]["mean"] == [float(model.scaler_.mean_[0])]
    assert runtime.get_params()["horizon"] == model.horizon
    want = model.predict(horizon=4, history=data.iloc[-30:], quantiles=True)
    got = runtime.predict(horizon=4, history=data.iloc[-30:], quantiles=True)
    assert_same_forecast(want, got)
    assert got.index.name == "stamp"
    # a copy of the folder elsewhere forecasts alike (nothing refers to the old path)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in os.listdir(folder):
        (copy / name).write_bytes((folder / name).read_bytes())
    assert_same_forecast(got, OnnxForecaster.load(copy).predict(4, data.iloc[-30:], quantiles=True))


def test_overwrite_only_replaces_an_export_folder(fitted, folder, tmp_path):
    model, _ = fitted
    with pytest.raises(FileExistsError, match="overwrite=True"):
        model.to_onnx(folder)
    before = (folder / M.NETWORK).stat().st_mtime_ns
    assert model.to_onnx(folder, overwrite=True) == folder
    assert (folder / M.NETWORK).stat().st_mtime_ns >= before
    assert sorted(os.listdir(folder.parent)) == ["export"]  # no staging folder left
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError):
        model.to_onnx(other, overwrite=True)
    assert (other / "notes.txt").read_text() == "keep"
    # an export folder with a file of the user's in it is not the export's alone: kept whole
    (folder / "notes.txt").write_text("keep")
    network = (folder / M.NETWORK).read_bytes()
    with pytest.raises(FileExistsError, match=r"exists and is not an ONNX export folder \(only"):
        model.to_onnx(folder, overwrite=True)
    assert (folder / "notes.txt").read_text() == "keep"
    assert (folder / M.NETWORK).read_bytes() == network
    assert sorted(os.listdir(folder.parent)) == ["export", "mine"]


def test_unfitted_and_unexportable_models_are_refused(tmp_path):
    with pytest.raises(NotFittedError):
        ElmanForecaster(**TINY).to_onnx(tmp_path / "a")
    data = make_series(n=120).rename(columns={"load": 7})
    model = ElmanForecaster(**TINY).fit(data)
    with pytest.raises(ValueError, match=r"to_onnx: target columns \[7\] are not all strings"):
        model.to_onnx(tmp_path / "b")
    assert not (tmp_path / "b").exists()


def test_tampered_network_is_refused(folder):
    data = bytearray((folder / M.NETWORK).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / M.NETWORK).write_bytes(bytes(data))
    with pytest.raises(OnnxFormatError, match="SHA-256 differs"):
        OnnxForecaster.load(folder)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r["metadata"].update(context_length=-3), "not positive"),
        (lambda r: r["metadata"].update(columns=["load", "extra"]), "disagree"),
        (lambda r: r["metadata"].update(surprise=1), "unknown fields"),
        (lambda r: r["metadata"].pop("freq"), "lacks"),
        (lambda r: r["metadata"].update(nan_policy="drop"), "nan_policy"),
        (lambda r: r["metadata"]["target_scaler"].update(scale=[0.0]), "positive"),
        (lambda r: r["metadata"].update(quantiles=[1.5]), "quantiles"),
        (lambda r: r["metadata"].update(calendar="yes"), "calendar has type str"),
        (lambda r: r.update(format="pickle"), "expected 'forecast-onnx'"),
        (lambda r: r["files"][M.NETWORK].update(bytes=2**40), "over the cap"),
    ],
)
def test_bad_metadata_is_refused(folder, edit, message):
    record = _manifest(folder)
    edit(record)
    _write(folder, record)
    with pytest.raises(OnnxFormatError, match=message):
        OnnxForecaster.load(folder)


def test_json_must_be_strict_and_small(folder):
    text = (folder / M.MANIFEST).read_text()
    (folder / M.MANIFEST).write_text(text.replace('"scale": [', '"scale": [NaN, ', 1))
    with pytest.raises(OnnxFormatError, match="not strict JSON"):
        read_folder(folder)
    (folder / M.MANIFEST).write_text(text[:-1] + ', "format": "forecast-onnx"}')
    with pytest.raises(OnnxFormatError, match="duplicate key"):
        read_folder(folder)
    (folder / M.MANIFEST).write_text(" " * (M.MAX_MANIFEST_BYTES + 1))
    with pytest.raises(OnnxFormatError, match="more than the cap"):
        read_folder(folder)
    (folder / M.MANIFEST).write_text("[" * 50 + "]" * 50)
    with pytest.raises(OnnxFormatError, match="deeper"):
        read_folder(folder)


def test_network_size_cap_and_links_are_refused(folder, tmp_path):
    with pytest.raises(OnnxFormatError, match="over the cap"):
        OnnxForecaster.load(folder, max_network_bytes=100)
    outside = tmp_path / "outside.onnx"
    outside.write_bytes((folder / M.NETWORK).read_bytes())
    (folder / M.NETWORK).unlink()
    (folder / M.NETWORK).symlink_to(outside)
    with pytest.raises(OnnxFormatError, match="links are not followed"):
        OnnxForecaster.load(folder)
    link = tmp_path / "link"
    link.symlink_to(folder)
    with pytest.raises(OnnxFormatError, match="not a folder"):
        read_folder(link)


def test_a_graph_with_other_inputs_is_refused(folder):
    record = _manifest(folder)
    record["metadata"]["inputs"] = ["x", "future"]
    record["metadata"]["n_future"] = 2
    record["metadata"]["n_inputs"] += 2
    _write(folder, record)
    with pytest.raises(OnnxFormatError, match="the graph reads"):
        OnnxForecaster.load(folder)
