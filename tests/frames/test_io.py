import errno
import gzip
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from forecast.frames import io as io_module
from forecast.frames.io import read_frame, write_frame
from forecast.frames.writes import WriteRefused
from tests.conftest import make_series


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_round_trip_keeps_tz_aware_index(tmp_path, suffix):
    df = make_series(30, tz="Europe/Berlin")
    path = write_frame(df, tmp_path / f"load{suffix}")
    back = read_frame(path)
    assert list(back.columns) == ["load"]
    assert (back.index == df.index).all()
    pd.testing.assert_series_equal(back["load"], df["load"], check_names=False, check_index=False)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_rewrite_is_byte_identical_and_leaves_no_temporary_file(tmp_path, suffix):
    df = make_series(30, tz="UTC")
    first = write_frame(df, tmp_path / f"a{suffix}").read_bytes()
    second = write_frame(df, tmp_path / f"a{suffix}").read_bytes()
    assert first == second
    assert [p.name for p in tmp_path.iterdir()] == [f"a{suffix}"]


def test_failed_write_keeps_the_old_file(tmp_path):
    path = write_frame(make_series(10), tmp_path / "a.parquet")
    before = path.read_bytes()
    bad = make_series(10)
    bad["load"] = [object()] * 10  # pyarrow cannot convert this column
    with pytest.raises((TypeError, ValueError)):  # pyarrow: ArrowTypeError or ArrowInvalid
        write_frame(bad, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.parquet"]


def test_read_errors_name_file_and_value(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_frame(tmp_path / "missing.csv")
    path = tmp_path / "bad.csv"
    path.write_text("timestamp,load\n2023-01-01 00:00,1\nnot a time,2\n")
    with pytest.raises(ValueError, match="'not a time'"):
        read_frame(path)
    path.write_text("when,load\n2023-01-01 00:00,1\n")
    with pytest.raises(ValueError, match="no time column"):
        read_frame(path)
    with pytest.raises(ValueError, match="unknown file type"):
        read_frame(_touch(tmp_path / "x.json"))


def _touch(path):
    path.write_text("{}")
    return path


BERLIN = "Europe/Berlin"


@pytest.fixture
def dst_csv(tmp_path):
    """Berlin local time across the October 2023 switch: +02:00, then +01:00."""
    df = make_series(6, tz=BERLIN, start="2023-10-29 00:00", name="timestamp")
    path = tmp_path / "local.csv"
    df.to_csv(path)
    return path, df


def test_several_offsets_are_read_in_the_given_zone_or_utc_or_refused(dst_csv):
    from forecast.frames.io import MixedOffsetsError

    path, df = dst_csv
    local = read_frame(path, timezone=BERLIN)
    assert str(local.index.tz) == BERLIN and (local.index == df.index).all()
    assert [t.strftime("%H:%M%z") for t in local.index[1:4]] == [
        "01:00+0200",
        "02:00+0200",
        "02:00+0100",
    ]
    utc = read_frame(path)  # the default keeps the old reading: exact instants in UTC
    assert str(utc.index.tz) == "UTC" and (utc.index == df.index).all()
    with pytest.raises(MixedOffsetsError) as err:
        read_frame(path, mixed_offsets="raise")
    assert str(err.value) == (
        f"{path}: column 'timestamp' has 2 different UTC offsets (+02:00, +01:00; "
        "'2023-10-29 02:00:00+02:00' is followed by '2023-10-29 02:00:00+01:00'), as local time "
        "has across a daylight-saving change: pass timezone= (CLI --timezone), e.g. "
        "'Europe/Berlin', to read them in that zone"
    )


def test_one_offset_is_kept_or_converted(tmp_path):
    df = make_series(3, tz="UTC", start="2023-03-26 00:00", name="timestamp")
    path = tmp_path / "utc.csv"
    df.to_csv(path)
    assert str(read_frame(path, mixed_offsets="raise").index.tz) == "UTC"
    local = read_frame(path, timezone=BERLIN)
    assert [t.isoformat() for t in local.index] == [
        "2023-03-26T01:00:00+01:00",
        "2023-03-26T03:00:00+02:00",
        "2023-03-26T04:00:00+02:00",
    ]


def test_parquet_tz_aware_index_and_column_are_converted(tmp_path):
    df = make_series(4, tz="UTC", start="2023-10-29 00:00", name="timestamp")
    df.to_parquet(tmp_path / "index.parquet")
    df.reset_index().to_parquet(tmp_path / "column.parquet")
    for name in ("index.parquet", "column.parquet"):
        back = read_frame(tmp_path / name, timezone=BERLIN)
        assert [t.strftime("%H%z") for t in back.index] == [
            "02+0200",
            "02+0100",
            "03+0100",
            "04+0100",
        ]
        assert list(back.columns) == ["load"]


def test_zone_errors_name_the_problem(tmp_path):
    naive = tmp_path / "naive.csv"
    make_series(3, name="timestamp").to_csv(naive)
    local = read_frame(naive, timezone=BERLIN)  # naive stamps are local times in the zone
    assert local.index.equals(make_series(3).index.tz_localize(BERLIN).rename("timestamp"))
    skipped = tmp_path / "skipped.csv"
    skipped.write_text("timestamp,load\n2023-03-26 01:00,1\n2023-03-26 02:00,2\n")
    with pytest.raises(
        ValueError,
        match=r"skipped.csv: column 'timestamp': the naive timestamp 2023-03-26 02:00:00 is "
        r"read as local time in Europe/Berlin and does not exist there",
    ):
        read_frame(skipped, timezone=BERLIN)
    assert read_frame(naive).index.tz is None  # without a zone naive stays naive
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        read_frame(naive, timezone="Mars/Olympus")
    half = tmp_path / "half.csv"
    half.write_text("timestamp,load\n2023-10-29T01:00+02:00,1\n2023-10-29 02:00,2\n")
    with pytest.raises(
        ValueError,
        match="with and without a UTC offset, the first without at row 1: '2023-10-29 02:00'",
    ):
        read_frame(half)


def test_csv_timestamps_are_iso_with_offsets_and_read_back(tmp_path, dst_csv):
    _, df = dst_csv
    path = write_frame(df, tmp_path / "out.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == "timestamp,load"
    assert [line.split(",")[0] for line in lines[3:5]] == [
        "2023-10-29T02:00:00+02:00",
        "2023-10-29T02:00:00+01:00",
    ]
    assert (read_frame(path, timezone=BERLIN).index == df.index).all()
    naive = write_frame(make_series(2, name="t"), tmp_path / "naive.csv").read_text()
    assert naive.splitlines()[1].startswith("2023-01-01T00:00:00,")
    fine = make_series(2, freq="250ms", tz="UTC")
    assert "T00:00:00.250000+00:00," in write_frame(fine, tmp_path / "ms.csv").read_text()


def test_csv_quirks_that_are_valid_still_read(tmp_path):
    """Quoted delimiters and line breaks, blank lines, short rows and gzip are fine."""
    text = (
        'timestamp,load,note\n2023-01-01 00:00,1,"a, b"\n\n'
        '2023-01-01 01:00,2,"two\nlines"\n2023-01-01 02:00,3\n'
    )
    plain = tmp_path / "ok.csv"
    plain.write_text(text)
    zipped = tmp_path / "ok.csv.gz"
    zipped.write_bytes(gzip.compress(text.encode()))
    for path in (plain, zipped):
        frame = read_frame(path)
        assert list(frame.columns) == ["load", "note"]
        assert frame["load"].tolist() == [1, 2, 3]
        assert frame["note"].iloc[:2].tolist() == ["a, b", "two\nlines"]
        assert frame["note"].isna().tolist() == [False, False, True]
    header_only = tmp_path / "header.csv"
    header_only.write_text("timestamp,load\n")
    assert read_frame(header_only).shape == (0, 1)


# ------------------------------------------------- temporaries: named, cleaned, never named
def _temporaries(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".forecast-tmp-"))


def test_a_folder_or_a_file_of_someone_elses_at_the_target_is_kept(tmp_path):
    target = tmp_path / "a.csv"
    (target / "inside").mkdir(parents=True)
    with pytest.raises(WriteRefused, match=r"a.csv exists and is not a table of the same columns"):
        write_frame(make_series(5), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]
    assert list(target.iterdir()) == [target / "inside"]
    for name, content in [("b.csv", "time,other\n1,2\n"), ("c.csv", "my notes\n"), ("d.csv", "")]:
        (tmp_path / name).write_text(content)
        with pytest.raises(WriteRefused, match=name):
            write_frame(make_series(5), tmp_path / name)
        assert (tmp_path / name).read_text() == content
    first = write_frame(make_series(5), tmp_path / "e.parquet")  # the same columns: replaced
    write_frame(make_series(5, seed=1), first)
    got = read_frame(first)
    np.testing.assert_array_equal(got["load"], make_series(5, seed=1)["load"])
    write_frame(make_series(5), tmp_path / "f.csv")
    with pytest.raises(WriteRefused, match="f.csv"):  # other columns: another table
        write_frame(make_series(5, channels=2), tmp_path / "f.csv")


def test_write_error_without_a_file_name_gets_the_target(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(io_module.os, "fsync", full)
    with pytest.raises(OSError, match=r"No space left on device: '.*b\.parquet'$"):
        write_frame(make_series(5), tmp_path / "b.parquet")
    assert list(tmp_path.iterdir()) == []


def test_stale_temporaries_of_the_target_are_removed_and_others_kept(tmp_path):
    dead = _dead_pid()
    stale = tmp_path / f".forecast-tmp-a.csv-{dead}-x1y2z3"
    stale.write_bytes(b"half")
    old = tmp_path / f".forecast-tmp-a.csv-{os.getpid()}-old1"  # live pid, but too old
    old.write_bytes(b"half")
    ancient = time.time() - io_module.STALE_AFTER_S - 60
    os.utime(old, (ancient, ancient))
    live = tmp_path / f".forecast-tmp-a.csv-{os.getpid()}-live1"  # a writer right now
    live.write_bytes(b"half")
    other = tmp_path / f".forecast-tmp-a.csv-1-{dead}-x1"  # of the target "a.csv-1"
    other.write_bytes(b"half")
    mine = tmp_path / "notes.txt"
    mine.write_text("keep")
    write_frame(make_series(5), tmp_path / "a.csv")
    assert not stale.exists() and not old.exists()
    assert live.exists() and other.exists() and mine.read_text() == "keep"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


_SLOW_WRITE = """
import os, sys, time
import pandas as pd
from forecast.frames import io
os.fsync = lambda fd: time.sleep(120)  # hangs once the bytes are in the temporary
io.write_table(pd.DataFrame({"timestamp": ["a", "b"], "load": [1.0, 2.0]}), sys.argv[1])
"""


def _killed_mid_write(code: str, target, folder) -> list[str]:
    """Run ``code`` writing ``target``; SIGKILL it once its temporary appears."""
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)])
    try:
        deadline = time.monotonic() + 60
        while not _temporaries(folder) and proc.poll() is None:
            assert time.monotonic() < deadline, "no temporary appeared"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()  # reaped: its pid is gone
    return _temporaries(folder)


def test_sigkill_mid_write_keeps_the_old_file_and_the_next_write_cleans_up(tmp_path):
    target = write_frame(make_series(5), tmp_path / "a.csv")
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    left = _killed_mid_write(_SLOW_WRITE, target, tmp_path)
    assert len(left) == 1 and left[0].startswith(".forecast-tmp-a.csv-")
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before  # never a partial target
    write_frame(make_series(6), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]
    assert len(read_frame(target)) == 6
