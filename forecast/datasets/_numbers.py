"""One column of a data file as numbers, or an error naming the file, column and timestamp."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd


def numeric_column(
    raw: pd.DataFrame, column: str, index: pd.DatetimeIndex, path: Path
) -> npt.NDArray[np.float64]:
    """Return ``raw[column]`` as floats (empty cells are NaN); a non-number raises, named."""
    numbers = pd.to_numeric(raw[column], errors="coerce")
    bad = numbers.isna() & raw[column].notna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise ValueError(
            f"{path}: column {column!r} has a value that is not a number at "
            f"{index[row]}: {raw[column].iloc[row]!r}"
        )
    return numbers.to_numpy(dtype=float)
