"""Atomic folder writes: temporaries a killed writer left are cleaned up, errors name the target."""

import os
import signal
import subprocess
import sys
import time

import pytest

from forecast.frames.io import STALE_AFTER_S
from forecast.persistence.atomic import write_folder


def _entries(folder):
    return sorted(p.name for p in folder.iterdir())


def _temporaries(folder):
    return [name for name in _entries(folder) if name.startswith(".forecast-tmp-")]


def _state(folder):
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


_SLOW_SAVE = """
import os, sys, time
from pathlib import Path
from forecast.persistence.atomic import write_folder
os.fsync = lambda fd: time.sleep(120)  # hangs once the first file is in the temporary folder
write_folder(Path(sys.argv[1]), {"a.bin": b"new", "sub": {"b.bin": b"new"}},
             replace=lambda target: None)
"""


@pytest.mark.parametrize("existing", [False, True])
def test_sigkill_mid_write_leaves_the_target_and_the_next_write_cleans_up(tmp_path, existing):
    target = tmp_path / "model"
    if existing:
        write_folder(target, {"a.bin": b"old"})
    before = _state(tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_SAVE, str(target)])
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and not any(
            (tmp_path / name / "a.bin").exists() for name in _temporaries(tmp_path)
        ):
            assert time.monotonic() < deadline, "no temporary folder appeared"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    left = _temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(f".forecast-tmp-model-{proc.pid}-")
    assert {k: v for k, v in _state(tmp_path).items() if not k.startswith(".")} == before
    write_folder(target, {"a.bin": b"next"}, replace=lambda target: None)
    assert _entries(tmp_path) == ["model"]
    assert (target / "a.bin").read_bytes() == b"next"


def test_a_live_writers_temporary_is_kept_an_old_one_removed(tmp_path):
    live = tmp_path / f".forecast-tmp-model-{os.getpid()}-abc123"
    live.mkdir()
    old = tmp_path / f".forecast-tmp-model-{os.getpid()}-def456"
    old.mkdir()
    ancient = time.time() - STALE_AFTER_S - 60
    os.utime(old, (ancient, ancient))
    write_folder(tmp_path / "model", {"a.bin": b"x"})
    assert _entries(tmp_path) == [live.name, "model"]


def test_errors_name_the_target_not_the_temporary(tmp_path):
    target = tmp_path / "model"
    with pytest.raises(FileNotFoundError) as info:
        write_folder(target, {"missing/a.bin": b"x"})  # a name in a folder never made
    assert info.value.filename == str(target / "missing" / "a.bin")
    assert ".forecast-tmp-" not in str(info.value)
    assert _entries(tmp_path) == []


def test_a_failed_replacement_keeps_the_old_folder(tmp_path):
    target = tmp_path / "model"
    write_folder(target, {"a.bin": b"old"})
    before = _state(tmp_path)
    with pytest.raises(FileNotFoundError, match=str(target / "missing")):
        write_folder(target, {"missing/a.bin": b"x"}, replace=lambda target: None)
    assert _state(tmp_path) == before and _entries(tmp_path) == ["model"]
