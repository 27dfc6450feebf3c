import pandas as pd
import pytest

from forecast.io import read_frame, write_frame
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
    bad["obj"] = [object()] * 10  # pyarrow cannot convert this column
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
