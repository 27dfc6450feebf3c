"""No silent wrong answers: inputs that used to give NaN, shifted or truncated results.

Each case asserts the exception, a message naming what and where, and that the caller's
frame or file is unchanged.
"""

from __future__ import annotations

import gzip
import hashlib
import zipfile

import numpy as np
import pandas as pd
import pytest

from forecast import LinearLagForecaster, Naive
from forecast.frames.io import read_frame
from tests.conftest import make_series

BERLIN = "Europe/Berlin"


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_duplicated_csv_header_column_is_refused(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("timestamp,load,load\n2023-01-01 00:00,1,2\n2023-01-01 01:00,3,4\n")
    before = digest(path)
    with pytest.raises(ValueError, match=r"dup.csv: column 'load' appears twice in the header"):
        read_frame(path)
    assert digest(path) == before


def test_legit_dotted_column_name_is_kept(tmp_path):
    path = tmp_path / "dots.csv"
    path.write_text("timestamp,load,load.1\n2023-01-01 00:00,1,2\n")
    assert list(read_frame(path).columns) == ["load", "load.1"]


def test_gzip_named_csv_is_read(tmp_path):
    path = tmp_path / "packed.csv"
    path.write_bytes(gzip.compress(b"timestamp,load\n2023-01-01 00:00,1\n2023-01-01 01:00,2\n"))
    before = digest(path)
    assert read_frame(path)["load"].tolist() == [1, 2]
    assert digest(path) == before


def test_zip_named_csv_is_refused(tmp_path):
    path = tmp_path / "packed.csv"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data.csv", "timestamp,load\n2023-01-01 00:00,1\n")
    before = digest(path)
    with pytest.raises(ValueError, match=r"packed.csv: a zip archive, not CSV text"):
        read_frame(path)
    assert digest(path) == before


# ------------------------------------------------------------------ values
@pytest.mark.parametrize(
    "values, fragment",
    [
        (np.arange(48) + 1j, "column 'load' has complex dtype complex128"),
        (np.arange(48) % 2 == 0, "column 'load' has non-numeric dtype bool"),
        (np.arange(48).astype(object), "column 'load' has non-numeric dtype object"),
    ],
)
def test_non_real_columns_are_refused(values, fragment):
    frame = pd.DataFrame({"load": values}, index=pd.date_range("2023-01-01", periods=48, freq="h"))
    copy = frame.copy(deep=True)
    with pytest.raises(TypeError, match=fragment):
        Naive().fit(frame)
    pd.testing.assert_frame_equal(frame, copy)


def test_huge_values_are_refused_naming_the_column():
    frame = make_series(24 * 20) * 1e200
    copy = frame.copy(deep=True)
    with pytest.raises(
        ValueError, match=r"target column 'load' has a value of magnitude .*e\+20\d at 2023"
    ):
        LinearLagForecaster().fit(frame)
    pd.testing.assert_frame_equal(frame, copy)


def test_absurd_grid_is_named_before_allocating():
    start = pd.Timestamp("2023-01-01")
    index = pd.DatetimeIndex([start + pd.Timedelta(n, "ns") for n in range(3)] + ["2023-02-01"])
    frame = pd.DataFrame({"load": [1.0, 2, 3, 4]}, index=index)
    copy = frame.copy(deep=True)
    with pytest.raises(ValueError, match=r"irregular timestamps: .* and 2023-02-01 00:00:00 are"):
        Naive().fit(frame)
    pd.testing.assert_frame_equal(frame, copy)
