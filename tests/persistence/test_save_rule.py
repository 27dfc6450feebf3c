"""One rule for what may be written over a saved model: nothing that ``load`` would refuse.

``save`` runs the load's own check on the complete temporary folder before the rename; a
save that cannot succeed leaves the old folder byte for byte and no temporary beside it.
The loop's state (``lineage_``, ``n_updates_``, ``updated_through_``) is checked on load like
every other fitted attribute, and so is its agreement with the manifest's summary.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import forecast
from forecast import LSTMForecaster, Naive
from forecast.frames.io import TEMPORARY_PREFIX
from forecast.persistence.errors import ModelFormatError

from .test_malicious_folders import rehash

HOURS = pd.date_range("2024-01-01", periods=200, freq="h", tz="Europe/Berlin")


def hourly() -> pd.DataFrame:
    t = np.arange(len(HOURS))
    return pd.DataFrame({"load": 50 + np.sin(2 * np.pi * t / 24)}, index=HOURS)


def tiny_lstm() -> LSTMForecaster:
    return LSTMForecaster(
        context_length=24, horizon=6, hidden_size=4, max_epochs=1, batch_size=32, random_state=0
    )


def snapshot(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` by relative path (the folder byte for byte)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.parent.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]


def refused_over(good, bad, path: Path, match: str) -> None:
    """Save ``good`` at ``path``; saving ``bad`` over it raises and leaves it byte for byte."""
    good.save(path)
    before, forecast_before = snapshot(path), good.predict(6)
    with pytest.raises(ModelFormatError, match=match):
        bad.save(path, overwrite=True)
    assert snapshot(path) == before and not temporaries(path)
    pd.testing.assert_frame_equal(forecast.load(path).predict(6), forecast_before)


# --------------------------------------------------------------- what is never written
def test_non_finite_weights_are_never_written_over_a_good_folder(tmp_path):
    good = tiny_lstm().fit(hourly())
    bad = tiny_lstm().fit(hourly())
    with torch.no_grad():
        next(bad.module_.parameters()).fill_(float("nan"))
    refused_over(good, bad, tmp_path / "model", r"would not load .*NaN or infinite weights")
    with pytest.raises(ModelFormatError, match="nothing was written"):
        bad.save(tmp_path / "new")
    assert not (tmp_path / "new").exists() and not temporaries(tmp_path / "new")


def test_a_manifest_over_its_cap_is_never_written(tmp_path):
    good = Naive().fit(hourly())
    bad = Naive().fit(hourly())
    record = dict(bad.lineage_[0], kind="update", rule="extend", fingerprint="f" * 64)
    bad.lineage_ = [bad.lineage_[0], *[record] * 6000]  # past the 1 MiB of meta.json
    bad.n_updates_ = 6000
    refused_over(good, bad, tmp_path / "model", r"meta.json: \d+ bytes, too large")


@pytest.mark.parametrize(
    ("attribute", "value", "match"),
    [
        ("n_updates_", -1, "n_updates_=-1 does not count"),
        ("n_updates_", 3, "n_updates_=3 does not count the 0 update"),
        ("updated_through_", "2024-01-09", "updated_through_ must be a timestamp"),
        ("updated_through_", pd.Timestamp("2020-01-01", tz="UTC"), "does not end where"),
        ("lineage_", [], "lineage_ must be a non-empty list"),
        ("lineage_", [{"kind": "update", "rule": "x", "rows": 1}], "must be the fit record"),
    ],
)
def test_loop_state_that_fails_the_load_checks_is_never_written(tmp_path, attribute, value, match):
    good = Naive().fit(hourly())
    bad = Naive().fit(hourly())
    setattr(bad, attribute, value)
    refused_over(good, bad, tmp_path / "model", match)


# ------------------------------------------------------------------ checked on load
def test_a_rehashed_folder_with_inconsistent_loop_state_is_refused(tmp_path):
    model = Naive().fit(hourly().iloc[:100]).update(hourly().iloc[100:])
    path = model.save(tmp_path / "model")
    fitted = json.loads((path / "fitted.json").read_text())
    fitted["n_updates_"] = 7  # consistent-looking: the manifest is rewritten to match
    (path / "fitted.json").write_text(json.dumps(fitted))
    rehash(path)
    with pytest.raises(ModelFormatError, match="n_updates_=7 does not count the 1 update"):
        forecast.load(path)


def test_the_manifest_lineage_must_agree_with_the_state(tmp_path):
    model = Naive().fit(hourly().iloc[:100]).update(hourly().iloc[100:])
    path = model.save(tmp_path / "model")
    meta = json.loads((path / "meta.json").read_text())
    meta["lineage"]["records"][-1]["rows"] = 1
    (path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelFormatError, match="'lineage' does not agree"):
        forecast.load(path)


def test_a_key_given_twice_in_params_json_is_refused(tmp_path):
    path = Naive().fit(hourly()).save(tmp_path / "model")
    text = (path / "params.json").read_text()
    assert text.startswith("{")
    first = text.splitlines()[1]  # ' "some_param": value,' of the indented file
    (path / "params.json").write_text(text.replace(first, f"{first}\n{first}", 1))
    rehash(path)
    with pytest.raises(ModelFormatError, match="appears twice in one object"):
        forecast.load(path)


def test_a_model_folder_that_is_a_link_is_refused(tmp_path):
    path = Naive().fit(hourly()).save(tmp_path / "model")
    os.symlink(path, tmp_path / "current")
    with pytest.raises(ModelFormatError, match="current: is a symbolic link"):
        forecast.load(tmp_path / "current")
    assert forecast.load(path).n_updates_ == 0


# ------------------------------------------------------------------- a killed save
_KILLED_SAVE = """
import os, signal, sys
import numpy as np, pandas as pd
import forecast.persistence.atomic as atomic
from forecast import Naive

index = pd.date_range("2024-01-01", periods=48, freq="h")
model = Naive().fit(pd.DataFrame({"load": np.arange(48.0)}, index=index))
real = atomic._write_files

def write_then_die(folder, files):
    real(folder, files)
    os.kill(os.getpid(), signal.SIGKILL)  # killed after writing, before the rename

atomic._write_files = write_then_die
model.save(sys.argv[1], overwrite=True)
"""


@pytest.mark.parametrize("then", ["load", "save"])
def test_a_killed_save_leaves_the_model_and_its_temporary_is_removed(tmp_path, then):
    model = Naive().fit(pd.DataFrame({"load": np.arange(48.0)}, index=HOURS[:48].tz_localize(None)))
    path = model.save(tmp_path / "model")
    before = snapshot(path)
    script = textwrap.dedent(_KILLED_SAVE)
    done = subprocess.run([sys.executable, "-c", script, str(path)], check=False)
    assert done.returncode == -signal.SIGKILL
    assert snapshot(path) == before and len(temporaries(path)) == 1  # what the kill left
    if then == "load":
        forecast.load(path)
    else:
        model.save(path, overwrite=True)
    assert not temporaries(path)
    assert forecast.load(path).predict(3).shape == (3, 1)


# ------------------------------------------------------------------ column names
@pytest.mark.parametrize("name", [("a", "b"), None, np.nan, True, 1.5])
def test_column_names_a_folder_cannot_keep_are_refused_at_fit(name):
    frame = pd.DataFrame({name: np.arange(48.0)}, index=HOURS[:48])
    with pytest.raises(TypeError, match="column names must be str"):
        Naive().fit(frame)


def test_numpy_integer_parameters_fit_save_and_load(tmp_path):
    model = LSTMForecaster(
        context_length=np.int64(24), horizon=np.int64(6), hidden_size=np.int64(4),
        max_epochs=np.int64(1), batch_size=np.int64(32), random_state=0,
    ).fit(hourly())  # fmt: skip
    assert type(model.hidden_size) is np.int64  # stored verbatim (clone compares identity)
    loaded = forecast.load(model.save(tmp_path / "model"))
    assert loaded.hidden_size == 4
    pd.testing.assert_frame_equal(loaded.predict(6), model.predict(6))
