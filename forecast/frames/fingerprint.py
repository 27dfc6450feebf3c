"""Content hash of a frame or a dict of frames, free of MLflow (persistence uses it too).

The hash covers what a forecaster sees: column names, the timestamps (as UTC nanoseconds
plus the time zone name) and every value, numbers as float64 (so an integer column read
from CSV and the same numbers as floats hash alike). Frames equal in content have equal
fingerprints however they were built or stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from hashlib import _Hash


def _is_number(dtype: np.dtype[Any] | pd.api.extensions.ExtensionDtype) -> bool:
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _hash_frame(frame: pd.DataFrame, sha: _Hash) -> None:
    index = frame.index
    header = {
        "columns": [str(c) for c in frame.columns],
        "dtypes": ["number" if _is_number(t) else str(t) for t in frame.dtypes],
        "index": type(index).__name__,
        "tz": str(getattr(index, "tz", None)),
        "rows": len(frame),
    }
    sha.update(json.dumps(header, sort_keys=True).encode())
    if isinstance(index, pd.DatetimeIndex):
        sha.update(np.ascontiguousarray(index.as_unit("ns").asi8).tobytes())
    else:
        sha.update(pd.util.hash_pandas_object(index).to_numpy().tobytes())
    for column in frame.columns:
        values = frame[column]
        if _is_number(values.dtype):
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
            arr = np.where(np.isnan(arr), np.nan, arr)  # one NaN bit pattern
            sha.update(np.ascontiguousarray(arr).tobytes())
        else:
            sha.update(pd.util.hash_pandas_object(values, index=False).to_numpy().tobytes())


def fingerprint(data: pd.DataFrame | Mapping[Any, pd.DataFrame]) -> str:
    """Return the SHA-256 content hash of a frame or a dict of frames.

    Parameters
    ----------
    data : DataFrame or dict of DataFrames
        The data an estimator is fitted on or forecasts from.

    Returns
    -------
    str
        64 hexadecimal characters; equal for equal content.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"load": [1.0, 2.0]}, index=pd.date_range("2024", periods=2, freq="h"))
    >>> fingerprint(df) == fingerprint(df.copy())
    True
    """
    sha = hashlib.sha256()
    if isinstance(data, Mapping):
        for key in sorted(data, key=str):
            sha.update(f"series {key!s}\n".encode())
            _hash_frame(data[key], sha)
    elif isinstance(data, pd.DataFrame):
        _hash_frame(data, sha)
    else:
        raise TypeError(f"cannot fingerprint {type(data).__name__}: expected a DataFrame or dict")
    return sha.hexdigest()
