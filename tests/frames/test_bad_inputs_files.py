"""The bad-input corpus, part 2: data files, datasets, model folders, model URIs, CLI, batch.

Same machinery as ``test_bad_inputs.py`` (see its docstring), with a corpus of its own.
Every case writes its files, or copies the module's fitted model, into ``tmp_path``, so the
file check there covers them too: a damaged folder is left as it was, a payload never runs
(``absent``), and a failed command leaves no output file. ``command`` cases run
``forecast.cli.main`` in-process and expect exit code 2 (``forecast predict``/``fit``) or 1
(``forecast batch``) with one line on stderr.

Sections: data files (:func:`forecast.frames.io.read_frame`, ``write_frame``),
datasets, damaged or malicious model folders (each damage through ``forecast.load``, the
class method, ``forecast predict`` and ``forecast batch``), model classes, model URIs and
MLflow, batch inputs, CLI commands.
"""

from __future__ import annotations

import gzip
import hashlib
import io
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
from forecast import GRUForecaster, LSTMForecaster, ModelFormatError, Naive
from forecast.cli import main as cli_main
from forecast.datasets import load
from forecast.frames.io import read_frame, write_frame
from tests.conftest import make_series
from tests.frames.test_bad_inputs import (
    Call,
    CommandFailed,
    Corpus,
    check,
    command,
    series,
    with_column,
)

CORPUS = Corpus()
case, add_case = CORPUS.case, CORPUS.add


def pytest_generate_tests(metafunc):
    CORPUS.parametrize(metafunc)


def test_bad_input(bad_case, tmp_path, capsys, request):
    check(bad_case, tmp_path, capsys, request)


def test_corpus_size():
    assert len(CORPUS.cases) >= 70


# ------------------------------------------------------------------------------ fixtures
TINY = dict(context_length=4, horizon=2, hidden_size=4, max_epochs=1, device="cpu")


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    """A fitted tiny LSTM saved as ``lstm/`` and its latest data as ``latest.csv``."""
    folder = tmp_path_factory.mktemp("bad-files")
    data = make_series(n=24 * 4, tz="Europe/Berlin", name="timestamp")
    LSTMForecaster(**TINY, random_state=0).fit(data).save(folder / "lstm")
    data.iloc[-24:].to_csv(folder / "latest.csv")
    return folder


@pytest.fixture(scope="module")
def lstm_folder(shared) -> Path:
    return shared / "lstm"


@pytest.fixture(scope="module")
def latest_csv(shared) -> Path:
    return shared / "latest.csv"


@pytest.fixture(scope="module")
def pyfunc_folder(shared) -> Path:
    """The LSTM as a local MLflow pyfunc model (what ``log_model`` stores, without a store)."""
    import mlflow.pyfunc

    target = shared / "pyfunc"
    estimator = shutil.copytree(shared / "lstm", shared / "staging" / "estimator")
    mlflow.pyfunc.save_model(
        target, loader_module="forecast.tracking.pyfunc", data_path=estimator, pip_requirements=[]
    )
    return target


def test_the_fixtures_work(lstm_folder, latest_csv, pyfunc_folder, tmp_path, capsys):
    """Control: intact, what the cases damage loads, fits, predicts and batch-forecasts."""
    import mlflow.pyfunc

    assert type(forecast.load(lstm_folder)) is LSTMForecaster
    wrapper = mlflow.pyfunc.load_model(str(pyfunc_folder)).unwrap_python_model()
    assert type(wrapper.estimator) is LSTMForecaster
    predict = ["predict", "--model", str(lstm_folder), "--horizon", "2"]
    assert cli_main([*predict, "--data", str(latest_csv)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3  # header and two steps
    fit = ["fit", "--model", "naive", "--data", str(latest_csv), "--out", str(tmp_path / "m")]
    assert cli_main(fit) == 0 and type(forecast.load(tmp_path / "m")) is Naive
    out = tmp_path / "out.csv"
    for model in (lstm_folder, pyfunc_folder):
        batch = ["batch", "--model", str(model), "--input", str(latest_csv), "--output"]
        assert cli_main([*batch, str(out), "--no-track"]) == 0
        assert len(out.read_text().splitlines()) == 3


# --------------------------------------------------------------------------------- files
def _file(tmp_path: Path, name: str, content: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def _read(tmp_path: Path, name: str, content: bytes | str, **options) -> Call:
    path = _file(tmp_path, name, content)
    return Call(lambda: read_frame(path, **options))


@case(FileNotFoundError, r"input file .*nope\.csv does not exist")
def file_missing(tmp_path):
    return Call(lambda: read_frame(tmp_path / "nope.csv"))


@case(ValueError, r"load\.txt: unknown file type '\.txt'; expected \.csv or \.parquet")
def file_unknown_suffix(tmp_path):
    return _read(tmp_path, "load.txt", "timestamp,load\n")


@case(ValueError, r"c\.csv: no time column; pass time_column= one of \['x', 'load'\]")
def file_csv_without_time_column(tmp_path):
    return _read(tmp_path, "c.csv", "x,load\n1,2\n")


@case(
    ValueError,
    r"b\.csv: column 'timestamp' has a value that is not a timestamp: 'notadate' at row 1",
)
def file_csv_bad_timestamp(tmp_path):
    return _read(tmp_path, "b.csv", "timestamp,load\n2023-01-01 00:00,1\nnotadate,2\n")


@case(ValueError, r"time_column= one of \['timestamp', 'load'\] \(looked for \['when'\]\)")
def file_csv_named_time_column_absent(tmp_path):
    return _read(tmp_path, "d.csv", "timestamp,load\n2023-01-01 00:00,1\n", time_column="when")


@case(ValueError, r"empty\.csv: no header line: the file is empty or holds only blank lines")
def file_csv_empty(tmp_path):
    return _read(tmp_path, "empty.csv", b"")


@case(ValueError, r"blank\.csv: no header line")
def file_csv_only_blank_lines(tmp_path):
    return _read(tmp_path, "blank.csv", "\n\n\n")


@case(ValueError, r"binary\.csv: not UTF-8 text: byte 0xff at line 1, column 2 cannot be decoded")
def file_csv_binary(tmp_path):
    return _read(tmp_path, "binary.csv", b"\x00\xff\xfe garbage \x00\n\x01,\x02\n")


@case(ValueError, r"latin1\.csv: not UTF-8 text: byte 0xe4 at line 3, column 24 .*save it as UTF-8")
def file_csv_latin1(tmp_path):
    text = "timestamp,load\n2023-01-01 00:00,1\n2023-01-01 01:00,2 # Tr\xe4ger\n"
    return _read(tmp_path, "latin1.csv", text.encode("latin-1"))


@case(ValueError, r"excel\.csv: not UTF-8 text: it starts with a UTF-16 byte-order mark")
def file_csv_utf16(tmp_path):
    return _read(tmp_path, "excel.csv", "timestamp,load\n2023-01-01 00:00,1\n".encode("utf-16"))


@case(ValueError, r"quote\.csv: a quoted field in the row starting on line 2 is never closed")
def file_csv_unterminated_quote(tmp_path):
    return _read(tmp_path, "quote.csv", 'timestamp,load\n2023-01-01 00:00,"1\n')


@case(ValueError, r"late\.csv: a quoted field in the row starting on line 4 is never closed")
def file_csv_unterminated_quote_far_from_the_end(tmp_path):
    rows = "".join(f"2023-01-02 {h:02d}:00,{h}\n" for h in range(24)) * 400  # > csv's limit
    text = 'timestamp,load\n2023-01-01 00:00,1\n\n2023-01-01 01:00,"2\n' + rows
    return _read(tmp_path, "late.csv", text)


@case(ValueError, r"ragged\.csv: line 2 has 4 fields, but the header \(line 1\) has 2")
def file_csv_ragged_first_row(tmp_path):  # pandas would shift the surplus into the index
    text = "timestamp,load\n2023-01-01 00:00,1,5,6\n2023-01-01 01:00,2\n"
    return _read(tmp_path, "ragged.csv", text)


@case(ValueError, r"ragged\.csv: line 4 has 3 fields, but the header \(line 1\) has 2")
def file_csv_ragged_later_row(tmp_path):
    text = "timestamp,load\n2023-01-01 00:00,1\n2023-01-01 01:00,2\n2023-01-01 02:00,3,5\n"
    return _read(tmp_path, "ragged.csv", text)


@case(ValueError, r"comma\.csv: line 2 has 3 fields, but the header \(line 1\) has 2")
def file_csv_trailing_delimiter_on_every_row(tmp_path):
    text = "timestamp,load\n2023-01-01 00:00,1,\n2023-01-01 01:00,2,\n"
    return _read(tmp_path, "comma.csv", text)


@case(ValueError, r"zipped\.csv\.gz: line 3 has 3 fields, but the header \(line 1\) has 2")
def file_csv_gz_ragged_row(tmp_path):
    text = "timestamp,load\n2023-01-01 00:00,1\n2023-01-01 01:00,2,5\n"
    return _read(tmp_path, "zipped.csv.gz", gzip.compress(text.encode()))


@case(ValueError, r"plain\.csv\.gz: not a readable compressed file \(Not a gzipped file")
def file_csv_gz_not_gzip(tmp_path):
    return _read(tmp_path, "plain.csv.gz", "timestamp,load\n2023-01-01 00:00,1\n")


@case(ValueError, r"cut\.csv\.gz: not a readable compressed file \(Compressed file ended")
def file_csv_gz_truncated(tmp_path):
    data = gzip.compress(series(2000).rename_axis("timestamp").to_csv().encode())
    return _read(tmp_path, "cut.csv.gz", data[: len(data) // 2])


def _parquet_bytes() -> bytes:
    buffer = io.BytesIO()
    series(500).to_parquet(buffer)
    return buffer.getvalue()


@case(ValueError, r"garbage\.parquet: not a readable Parquet file \(Parquet magic bytes not found")
def file_parquet_garbage(tmp_path):
    return _read(tmp_path, "garbage.parquet", b"this is not a parquet file")


@case(ValueError, r"empty\.parquet: not a readable Parquet file \(Parquet file size is 0 bytes")
def file_parquet_empty(tmp_path):
    return _read(tmp_path, "empty.parquet", b"")


@case(ValueError, r"cut\.parquet: not a readable Parquet file")
def file_parquet_truncated(tmp_path):
    data = _parquet_bytes()
    return _read(tmp_path, "cut.parquet", data[: len(data) // 2])


@case(ValueError, r"noise\.parquet: not a readable Parquet file")
def file_parquet_damaged_inside(tmp_path):  # pyarrow raises a bare OSError here
    data = bytearray(_parquet_bytes())
    data[4:20] = b"\xff" * 16  # the first page header, after the magic bytes
    return _read(tmp_path, "noise.parquet", bytes(data))


@case(ValueError, r"out\.xlsx: unknown output type '\.xlsx'")
def file_write_unknown_suffix(tmp_path):
    frame = series()
    return Call(lambda: write_frame(frame, tmp_path / "out.xlsx"), (frame,))


@case(ValueError, r"out\.parquet: cannot write as Parquet: .*Conversion failed for column obj")
def file_write_parquet_unconvertible(tmp_path):
    frame = with_column(series(), "obj", pd.Series([object()] * 48, dtype=object).values)
    return Call(lambda: write_frame(frame, tmp_path / "out.parquet"), (frame,))


# ------------------------------------------------------------------------------ datasets
@case(KeyError, "unknown dataset 'entsoe-fr'; the catalogue has")
def dataset_unknown_name(tmp_path):
    return Call(lambda: load("entsoe-fr", data_dir=tmp_path))


@case(FileNotFoundError, r"dataset 'ett-h1' not found in .*ett_small; set FORECAST_DATA_DIR")
def dataset_not_downloaded(tmp_path):
    return Call(lambda: load("ett-h1", data_dir=tmp_path))


@case(ValueError, "split must be 'train', 'test' or None, got 'validation'")
def dataset_bad_option(tmp_path):
    (tmp_path / "cmu_mocap_expmap").mkdir()
    _file(tmp_path / "cmu_mocap_expmap", "x.txt", "0,0\n")
    return Call(lambda: load("cmu-mocap", data_dir=tmp_path, split="validation"))


ETT_HEADER = "date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT\n"


def _ett(tmp_path: Path, content: bytes | str) -> Call:
    (tmp_path / "ett_small").mkdir()
    _file(tmp_path / "ett_small", "ETTh1.csv", content)
    return Call(lambda: load("ett-h1", data_dir=tmp_path))


@case(
    ValueError,
    r"ETTh1\.csv: not an ETT file: lacks column\(s\) \['date', 'HUFL', .*'OT'\]; "
    r"found \['x', 'y'\]",
)
def dataset_corrupted_file(tmp_path):
    return _ett(tmp_path, "x,y\n1,2\n")


@case(ValueError, r"ETTh1\.csv: not UTF-8 text: byte 0x89 at line 1, column 1")
def dataset_ett_binary(tmp_path):
    return _ett(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00")


@case(
    ValueError,
    r"ETTh1\.csv: column 'OT' has a value that is not a number at 2016-07-01 01:00:00: 'n/v'$",
)
def dataset_ett_text_value(tmp_path):
    return _ett(
        tmp_path, ETT_HEADER + "2016-07-01 00:00,1,2,3,4,5,6,7\n2016-07-01 01:00,1,2,3,4,5,6,n/v\n"
    )


@case(
    ValueError,
    r"ETTh1\.csv: column 'date' has a value that is not a timestamp: '01.07.2016' at row 1",
)
def dataset_ett_bad_date(tmp_path):
    return _ett(tmp_path, ETT_HEADER + "2016-07-01 00:00,1,2,3,4,5,6,7\n01.07.2016,1,2,3,4,5,6,7\n")


@case(ValueError, r"ETTh1\.csv: not an hourly series: 2016-07-01 03:00:00 follows 2016-07-01 01:00")
def dataset_ett_gap(tmp_path):
    rows = [f"2016-07-01 {h:02d}:00,1,2,3,4,5,6,7\n" for h in (0, 1, 3)]
    return _ett(tmp_path, ETT_HEADER + "".join(rows))


# ---------------------------------------------------------- damaged or malicious folders
MARKER = "marker"  # the file the payloads create if anything unpickles them


class MakesMarker:
    """Unpickling this creates the file ``path`` (it stands in for any code)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _rehash(folder: Path) -> None:
    """Rewrite the manifest to match the folder (what anyone who can write it can do)."""
    meta = json.loads((folder / "meta.json").read_text())
    meta["files"] = {
        p.name: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(folder.iterdir())
        if p.name != "meta.json"
    }
    (folder / "meta.json").write_text(json.dumps(meta))


def _edit(folder: Path, name: str, rehash: bool = False, **fields) -> None:
    content = json.loads((folder / name).read_text())
    content.update(fields)
    (folder / name).write_text(json.dumps(content))
    if rehash:
        _rehash(folder)


def _replace(folder: Path, name: str, data: bytes, rehash: bool = False) -> None:
    (folder / name).write_bytes(data)
    if rehash:
        _rehash(folder)


def _weights(folder: Path) -> bytes:
    return (folder / "weights.safetensors").read_bytes()


def _flip_last_byte(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


def _format_1(folder: Path, marker: Path) -> None:
    """Turn ``folder`` into what format 1 wrote: a class path and a fitted.pkl payload."""
    for path in folder.iterdir():
        path.unlink()
    (folder / "meta.json").write_text(json.dumps({"format": 1, "class": "os:system"}))
    (folder / "params.json").write_text(json.dumps({"command": f"touch {marker}"}))
    (folder / "fitted.pkl").write_bytes(pickle.dumps({"columns_": MakesMarker(marker)}))


def _torch_pickle(marker: Path) -> bytes:
    path = marker.with_name("payload.pt")
    torch.save({"module_.weight": MakesMarker(marker)}, path)
    data = path.read_bytes()
    path.unlink()
    return data


def _npz_with_object_array(marker: Path) -> bytes:
    path = marker.with_name("payload.npz")
    np.savez(path, a0=np.array([MakesMarker(marker)], dtype=object))
    data = path.read_bytes()
    path.unlink()
    return data


W = r"model/weights\.safetensors: "
DAMAGES = {  # name: (damage(folder, marker), what the message says)
    "pickle_added": (
        lambda f, m: _replace(f, "fitted.pkl", pickle.dumps(MakesMarker(m))),
        r"model/fitted\.pkl: not a file of a saved model folder",
    ),
    "pickle_listed_in_manifest": (
        lambda f, m: _replace(f, "fitted.pkl", pickle.dumps(MakesMarker(m)), rehash=True),
        r"model/fitted\.pkl: not a file of a saved model folder",
    ),
    "format_1_pickle_and_class_path": (
        _format_1,
        r"model/meta\.json: format 1 folders keep fitted state in a pickle",
    ),
    "class_string": (
        lambda f, m: _edit(f, "meta.json", estimator="os:system"),
        r"model/meta\.json: unknown estimator 'os:system'",
    ),
    "format_99": (
        lambda f, m: _edit(f, "meta.json", format=99),
        r"model/meta\.json: unknown format 99; expected 'MAJOR\.MINOR'",
    ),
    "format_99_0": (
        lambda f, m: _edit(f, "meta.json", format="99.0"),
        r"model/meta\.json: format 99\.0 is newer than this version of forecast reads",
    ),
    "manifest_not_json": (
        lambda f, m: _replace(f, "meta.json", b"{not json"),
        r"model/meta\.json: not valid JSON",
    ),
    "params_unknown_key": (
        lambda f, m: _edit(f, "params.json", rehash=True, command=f"touch {m}"),
        r"model/params\.json: LSTMForecaster takes no parameters \['command'\]",
    ),
    "params_bad_value": (
        lambda f, m: _edit(f, "params.json", rehash=True, hidden_size="big"),
        r"model/params\.json: hidden_size must be an int >= 1, got 'big'",
    ),
    "weights_flipped_byte": (
        lambda f, m: _replace(f, "weights.safetensors", _flip_last_byte(_weights(f))),
        W + "SHA-256 differs from meta.json: the file is corrupted or was modified",
    ),
    "weights_truncated": (
        lambda f, m: _replace(f, "weights.safetensors", _weights(f)[:100]),
        W + r"100 bytes, meta\.json lists \d+: the file is truncated or was modified",
    ),
    "weights_empty": (
        lambda f, m: _replace(f, "weights.safetensors", b""),
        W + r"0 bytes, meta\.json lists \d+",
    ),
    "weights_random_rehashed": (
        lambda f, m: _replace(
            f, "weights.safetensors", np.random.default_rng(0).bytes(len(_weights(f))), True
        ),
        W + "not a readable safetensors file",
    ),
    "weights_truncated_rehashed": (
        lambda f, m: _replace(f, "weights.safetensors", _weights(f)[:100], rehash=True),
        W + "not a readable safetensors file",
    ),
    "weights_torch_pickle_rehashed": (
        lambda f, m: _replace(f, "weights.safetensors", _torch_pickle(m), rehash=True),
        W + "not a readable safetensors file",
    ),
    "npz_object_array_rehashed": (
        lambda f, m: _replace(f, "fitted.npz", _npz_with_object_array(m), rehash=True),
        r"model/fitted\.npz: not a readable npz file .*allow_pickle",
    ),
    "fitted_json_pickle_tag_rehashed": (
        lambda f, m: _edit(f, "fitted.json", True, scaler_={"$type": "pickle", "data": "gASV"}),
        r"model/fitted\.json: scaler_: unknown type tag 'pickle'",
    ),
}


def _via_load(folder: Path, tmp_path: Path, latest: Path) -> Call:
    return Call(lambda: forecast.load(folder, device="cpu"))


def _via_class(folder: Path, tmp_path: Path, latest: Path) -> Call:
    return Call(lambda: LSTMForecaster.load(folder, device="cpu"))


def _via_predict(folder: Path, tmp_path: Path, latest: Path) -> Call:
    out = tmp_path / "forecast.csv"
    return command(cli_main, "predict", "--model", folder, "--horizon", 2, "--output", out)


def _via_batch(folder: Path, tmp_path: Path, latest: Path) -> Call:
    out = tmp_path / "out" / "{date}.csv"
    return command(
        cli_main, "batch", "--model", folder, "--input", latest, "--output", out, "--no-track"
    )


ENTRIES = {  # name: (error, message prefix, call)
    "load": (ModelFormatError, "", _via_load),
    "class_load": (ModelFormatError, "", _via_class),
    "cli_predict": (CommandFailed, r"^exit 2: forecast predict: error: .*", _via_predict),
    "cli_batch": (
        CommandFailed,
        r"^exit 1: forecast batch: error: /.*",  # the file at fault, no type name
        _via_batch,
    ),
}


def _damaged(damage, entry):
    def build(tmp_path, lstm_folder, latest_csv):
        folder = Path(shutil.copytree(lstm_folder, tmp_path / "model"))
        marker = tmp_path / MARKER
        damage(folder, marker)
        call = entry(folder, tmp_path, latest_csv)
        call.absent = (marker,)
        return call

    return build


for _damage, (_make, _match) in DAMAGES.items():
    for _entry, (_error, _prefix, _call) in ENTRIES.items():
        add_case(f"model_{_damage}_via_{_entry}", _error, _prefix + _match, _damaged(_make, _call))


# ------------------------------------------------------------------------ model classes
def _copy(tmp_path: Path, folder: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "model"))


@case(
    TypeError,
    r"model holds a LSTMForecaster, not a GRUForecaster: load it with LSTMForecaster\.load",
)
def model_lstm_folder_via_gru_class(tmp_path, lstm_folder):
    folder = _copy(tmp_path, lstm_folder)
    return Call(lambda: GRUForecaster.load(folder))


@case(TypeError, r"model holds a LSTMForecaster, not a Naive")
def model_lstm_folder_via_naive_class(tmp_path, lstm_folder):
    folder = _copy(tmp_path, lstm_folder)
    return Call(lambda: Naive.load(folder))


@case(FileNotFoundError, r"model is not a saved model folder: meta\.json is missing")
def model_without_manifest(tmp_path, lstm_folder):
    folder = _copy(tmp_path, lstm_folder)
    (folder / "meta.json").unlink()
    return Call(lambda: forecast.load(folder))


@case(ValueError, r"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got 'tpu'")
def model_unknown_device(tmp_path, lstm_folder):
    folder = _copy(tmp_path, lstm_folder)
    return Call(lambda: forecast.load(folder, device="tpu"))


# ------------------------------------------------------------------ model URIs and MLflow
def _batch(tmp_path: Path, model, latest: Path, *options) -> Call:
    out = tmp_path / "out" / "{date}.csv"
    argv = ["batch", "--model", model, "--input", latest, "--output", out, *options]
    return command(cli_main, *argv)


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: model models:/nope@champion not found: the store "
    r".*mlflow\.db does not exist \(pass --tracking-uri or set MLFLOW_TRACKING_URI\)",
)
def uri_registry_alias_without_store(tmp_path, latest_csv):
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    return _batch(tmp_path, "models:/nope@champion", latest_csv, "--tracking-uri", store)


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: model .*/models/lstm not found: expected an MLflow model "
    r"URI \(models:/name@alias, runs:/id/model\) or a folder with MLmodel or meta\.json \(a "
    r"saved model or an ONNX export\)",
)
def uri_nonexistent_folder(tmp_path, latest_csv):
    return _batch(tmp_path, tmp_path / "models" / "lstm", latest_csv, "--no-track")


def _tampered_pyfunc(tmp_path: Path, pyfunc_folder: Path) -> tuple[Path, Path]:
    folder = Path(shutil.copytree(pyfunc_folder, tmp_path / "pyfunc"))
    marker = tmp_path / MARKER
    (folder / "data" / "estimator" / "fitted.pkl").write_bytes(pickle.dumps(MakesMarker(marker)))
    return folder, marker


@case(ModelFormatError, r"pyfunc/data/estimator/fitted\.pkl: not a file of a saved model folder")
def uri_tampered_pyfunc_via_mlflow(tmp_path, pyfunc_folder):
    import mlflow.pyfunc

    folder, marker = _tampered_pyfunc(tmp_path, pyfunc_folder)
    return Call(lambda: mlflow.pyfunc.load_model(str(folder)), absent=(marker,))


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: /.*pyfunc/data/estimator/fitted\.pkl: "
    "not a file of a saved model folder",
)
def uri_tampered_pyfunc_via_batch(tmp_path, pyfunc_folder, latest_csv):
    folder, marker = _tampered_pyfunc(tmp_path, pyfunc_folder)
    call = _batch(tmp_path, folder, latest_csv, "--no-track")
    call.absent = (marker,)
    return call


# -------------------------------------------------------------------------- batch inputs
def _input(tmp_path: Path, name: str, frame) -> Path:
    path = tmp_path / name
    frame.to_parquet(path) if path.suffix == ".parquet" else frame.to_csv(path)
    return path


def _latest(n: int = 24, **kwargs):
    return make_series(n=n, tz="Europe/Berlin", name="timestamp", **kwargs)


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: input .*dst\.csv: column 'timestamp' has 2 different "
    r"UTC offsets \(\+01:00, \+02:00; '2023-03-26 01:00:00\+01:00' is followed by "
    r"'2023-03-26 03:00:00\+02:00'\), as local time has across a daylight-saving change; "
    r"the model .*/naive-lstm has timezone=None: pass --timezone ZONE .*nothing was written$",
)
def batch_mixed_offsets_without_timezone(tmp_path):
    naive = make_series(n=24 * 4, name="timestamp")  # fitted on naive stamps: no zone
    folder = LSTMForecaster(**TINY, random_state=0).fit(naive).save(tmp_path / "naive-lstm")
    dst = _input(tmp_path, "dst.csv", _latest(start="2023-03-25 12:00"))
    return _batch(tmp_path, folder, dst, "--no-track")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: unknown time zone 'Europe/Bonn'; use an IANA name",
)
def batch_unknown_timezone(tmp_path, lstm_folder, latest_csv):
    return _batch(tmp_path, lstm_folder, latest_csv, "--timezone", "Europe/Bonn", "--no-track")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: output .*\{stem\}\.csv: \{stem\} is not a field of a "
    r"one-file run \(only \{date\}; \{stem\} names the partitions of a folder --input\)",
)
def batch_partition_field_in_a_one_file_output(tmp_path, lstm_folder, latest_csv):
    out = tmp_path / "{stem}.csv"  # would have been written under that literal name
    argv = ["batch", "--model", lstm_folder, "--input", latest_csv, "--output", out, "--no-track"]
    return command(cli_main, *argv)


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: forecast from .*gap\.csv failed: target column 'load' "
    r"has 1 non-finite value\(s\), the first \(nan\) at 2023-01-01 05:00:00\+01:00 "
    r"\(pass --nan-policy interpolate",
)
def batch_nan_with_policy_raise(tmp_path, lstm_folder):
    frame = _latest()
    frame.iloc[5, 0] = np.nan
    gap = _input(tmp_path, "gap.csv", frame)
    return _batch(tmp_path, lstm_folder, gap, "--nan-policy", "raise", "--no-track")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: input .*demand\.csv: the file lacks column\(s\) "
    r"\['load'\]; found \['demand'\]",
)
def batch_wrong_columns(tmp_path, lstm_folder):
    frame = _input(tmp_path, "demand.csv", _latest().rename(columns={"load": "demand"}))
    return _batch(tmp_path, lstm_folder, frame, "--no-track")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: input .*cut\.parquet: not a readable Parquet file",
)
def batch_corrupted_parquet(tmp_path, lstm_folder):
    path = _input(tmp_path, "cut.parquet", _latest())
    path.write_bytes(path.read_bytes()[:300])
    return _batch(tmp_path, lstm_folder, path, "--no-track")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: input .*quote\.csv: a quoted field in the row starting "
    "on line 4 is never closed",
)
def batch_unterminated_quote(tmp_path, lstm_folder):
    path = _input(tmp_path, "quote.csv", _latest())
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(",", ',"', 1)
    path.write_text("".join(lines))
    return _batch(tmp_path, lstm_folder, path, "--no-track")


@case(CommandFailed, r"^exit 1: forecast batch: error: input .*nothing\.csv does not exist$")
def batch_missing_input(tmp_path, lstm_folder):
    return _batch(tmp_path, lstm_folder, tmp_path / "nothing.csv", "--no-track")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: output .*out\.xlsx: unknown file type '\.xlsx'",
)
def batch_unknown_output_type(tmp_path, lstm_folder, latest_csv):
    argv = ["batch", "--model", lstm_folder, "--input", latest_csv, "--no-track"]
    return command(cli_main, *argv, "--output", tmp_path / "out.xlsx")


# ---------------------------------------------------------------------------- CLI commands
def _predict(model: Path, *options) -> Call:
    return command(cli_main, "predict", "--model", model, "--horizon", 2, *options)


@case(
    CommandFailed,
    r"^exit 2: forecast predict: error: .*demand\.csv lacks column\(s\) \['load'\] that the "
    r"model .*lstm needs; found \['demand'\]$",
)
def cli_predict_data_with_wrong_columns(tmp_path, lstm_folder):
    data = _input(tmp_path, "demand.csv", _latest().rename(columns={"load": "demand"}))
    return _predict(lstm_folder, "--data", data)


@case(
    CommandFailed,
    r"^exit 2: forecast predict: error: .*ragged\.csv: line 3 has 3 fields, but the header",
)
def cli_predict_data_with_a_ragged_row(tmp_path, lstm_folder):
    path = _input(tmp_path, "ragged.csv", _latest())
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2].rstrip("\n") + ",7\n"
    path.write_text("".join(lines))
    return _predict(lstm_folder, "--data", path, "--output", tmp_path / "fc.csv")


@case(CommandFailed, r"^exit 2: forecast predict: error: .*nowhere is not a saved model folder")
def cli_predict_missing_model(tmp_path):
    return _predict(tmp_path / "nowhere")


@case(CommandFailed, r"^exit 2: forecast predict: error: horizon must be a positive int, got 0")
def cli_predict_horizon_zero(tmp_path, lstm_folder):
    return command(cli_main, "predict", "--model", lstm_folder, "--horizon", 0)


def _fit(tmp_path: Path, data: Path, *options, out: str = "m") -> Call:
    argv = ["fit", "--model", "naive", "--data", data, "--out", tmp_path / out, *options]
    return command(cli_main, *argv)


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: .*/m exists: pass --overwrite to replace a saved model$",
)
def cli_fit_out_exists(tmp_path, lstm_folder, latest_csv):
    _copy(tmp_path, lstm_folder).rename(tmp_path / "m")
    return _fit(tmp_path, latest_csv)


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: .*notes\.txt is a file, not a saved model folder: not "
    "overwriting it$",
)
def cli_fit_overwrite_refuses_a_file(tmp_path, latest_csv):
    (tmp_path / "notes.txt").write_text("keep me")
    return _fit(tmp_path, latest_csv, "--overwrite", out="notes.txt")


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: .*notes\.txt is a file, not a saved model folder: not "
    "overwriting it$",
)
def cli_fit_overwrite_refuses_a_file_before_reading_data(tmp_path):
    """The refusal comes first: the data file does not even exist (so nothing was fitted)."""
    (tmp_path / "notes.txt").write_text("keep me")
    return _fit(tmp_path, tmp_path / "missing.csv", "--overwrite", out="notes.txt")


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: .*/photos is a folder but not a saved model folder "
    r"\(no meta\.json\): not overwriting it$",
)
def cli_fit_overwrite_refuses_a_folder_before_reading_data(tmp_path):
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.jpg").write_bytes(b"\xff\xd8")
    return _fit(tmp_path, tmp_path / "missing.csv", "--overwrite", out="photos")


@case(CommandFailed, r"^exit 2: forecast fit: error: --param takes KEY=VALUE, got 'hidden_size'$")
def cli_fit_param_without_value(tmp_path, latest_csv):
    return _fit(tmp_path, latest_csv, "--param", "hidden_size")


@case(CommandFailed, r"^exit 2: forecast fit: error: --param takes KEY=VALUE, got '=2'$")
def cli_fit_param_without_key(tmp_path, latest_csv):
    return _fit(tmp_path, latest_csv, "--param", "=2")


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: nan_policy must be one of \('raise', 'interpolate'\), "
    "got 'drop'$",
)
def cli_fit_param_bad_value(tmp_path, latest_csv):
    return _fit(tmp_path, latest_csv, "--param", "nan_policy=drop")


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: unknown parameter 'season' for naive \(Naive\); valid: "
    "fill_gaps, nan_policy$",
)
def cli_fit_param_unknown_name(tmp_path, latest_csv):
    return _fit(tmp_path, latest_csv, "--param", 'season="1D"')


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: unknown parameters 'hiden_size', 'epochs' for lstm "
    r"\(LSTMForecaster\); valid: .*\bhidden_size, .*\bmax_epochs\b",
)
def cli_fit_params_unknown_names(tmp_path, latest_csv):
    argv = ["--param", "hiden_size=4", "--param", "epochs=1"]
    return command(
        cli_main, "fit", "--model", "lstm", "--data", latest_csv, *argv, "--out", tmp_path / "m"
    )


@case(
    CommandFailed,
    r"^exit 2: forecast backtest: error: unknown parameter 'season' for naive \(Naive\); "
    "valid: fill_gaps, nan_policy$",
)
def cli_backtest_param_unknown_name(tmp_path, latest_csv):
    argv = ["backtest", "--model", "naive", "--data", latest_csv, "--param", 'season="1D"']
    return command(cli_main, *argv, "--output", tmp_path / "bt.csv")


@case(CommandFailed, r"^exit 2: forecast fit: error: unknown model 'prophet'; choose one of \[")
def cli_fit_unknown_model(tmp_path, latest_csv):
    argv = ["fit", "--model", "prophet", "--data", latest_csv, "--out", tmp_path / "m"]
    return command(cli_main, *argv)


@case(
    CommandFailed,
    r"^exit 2: forecast fit: error: .*latest\.csv lacks column\(s\) \['price'\]; found \['load'\]$",
)
def cli_fit_unknown_column(tmp_path, latest_csv):
    return _fit(tmp_path, latest_csv, "--columns", "load", "price")


# ------------------------------------------------------------------ outputs over inputs
# An output that resolves to an input is refused before the model loads (the model named
# here does not exist, so a later refusal would read "model ... not found"); the corpus
# check asserts the input's bytes are kept and nothing is left behind.
_NO_MODEL = "no-such-model"


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: output (.*latest\.csv) is the input \1: write the "
    "forecast to another file; nothing was done$",
)
def batch_output_is_the_input(tmp_path):
    latest = _input(tmp_path, "latest.csv", _latest())
    argv = ["batch", "--model", _NO_MODEL, "--input", latest, "--no-track"]
    return command(cli_main, *argv, "--output", latest)


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: output .*hard\.csv is the input .*latest\.csv",
)
def batch_output_is_a_hard_link_to_the_input(tmp_path):
    latest = _input(tmp_path, "latest.csv", _latest())
    os.link(latest, tmp_path / "hard.csv")
    argv = ["batch", "--model", _NO_MODEL, "--input", latest, "--no-track"]
    return command(cli_main, *argv, "--output", tmp_path / "hard.csv")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: output .*/\{date\}\.csv \(.*/2023-01-01\.csv\) can "
    r"expand to the input .*2023-01-01\.csv",
)
def batch_date_pattern_names_the_input(tmp_path):
    dated = _input(tmp_path, "2023-01-01.csv", _latest())
    argv = ["batch", "--model", _NO_MODEL, "--input", dated, "--no-track"]
    return command(cli_main, *argv, "--output", tmp_path / "{date}.csv")


@case(
    CommandFailed,
    r"^exit 1: forecast batch: error: output (.*/parts) \(\1/a\.csv\) for a\.csv is the "
    r"input \1/a\.csv",
)
def batch_partition_folder_is_input_and_output(tmp_path):
    (tmp_path / "parts").mkdir()
    _input(tmp_path, "parts/a.csv", _latest())
    _input(tmp_path, "parts/b.parquet", _latest())
    argv = ["batch", "--model", _NO_MODEL, "--input", tmp_path / "parts", "--no-track"]
    return command(cli_main, *argv, "--output", tmp_path / "parts")


@case(
    CommandFailed,
    r"^exit 2: forecast predict: error: --output (.*latest\.csv) is the --data file \1",
)
def cli_predict_output_is_the_data(tmp_path):
    latest = _input(tmp_path, "latest.csv", _latest())
    return _predict(tmp_path / "no-model", "--data", latest, "--output", latest)


@case(
    CommandFailed,
    r"^exit 2: forecast backtest: error: --output .*link\.csv is the --data file .*latest\.csv",
)
def cli_backtest_output_is_a_link_to_the_data(tmp_path):
    latest = _input(tmp_path, "latest.csv", _latest())
    (tmp_path / "link.csv").symlink_to(latest)
    argv = ["backtest", "--model", "naive", "--data", latest, "--output", tmp_path / "link.csv"]
    return command(cli_main, *argv)
