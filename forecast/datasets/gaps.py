"""Gap reports: where a regularly sampled frame has missing values."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["find_gaps", "missing_runs"]


def _on_grid(frame: pd.DataFrame, freq: str | pd.Timedelta | None) -> pd.DataFrame:
    index = frame.index
    if not isinstance(index, pd.DatetimeIndex):
        raise TypeError(f"index must be a DatetimeIndex, got {type(index).__name__}")
    if len(index) < 2:
        return frame
    step = freq or index.freq or pd.infer_freq(index)
    if step is None:
        step = pd.Series(index[1:] - index[:-1]).mode().iloc[0]
    grid = pd.date_range(index.min(), index.max(), freq=step, name=index.name)
    return frame if grid.equals(index) else frame.reindex(grid.union(index))


def missing_runs(series: pd.Series, freq: str | pd.Timedelta | None = None) -> pd.DataFrame:
    """List the runs of consecutive missing values of one series.

    Parameters
    ----------
    series : Series
        Values on a DatetimeIndex; timestamps absent from a regular grid count as missing.
    freq : str or Timedelta, optional
        Grid step; inferred from the index when omitted.

    Returns
    -------
    DataFrame
        One row per run with columns ``start``, ``end`` (first and last missing timestamp)
        and ``length`` (number of missing steps), in time order.
    """
    s = _on_grid(series.to_frame(), freq).iloc[:, 0]
    missing = s.isna().to_numpy()
    if not missing.any():
        return pd.DataFrame({"start": s.index[:0], "end": s.index[:0], "length": np.zeros(0, int)})
    edges = np.diff(np.concatenate([[0], missing.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return pd.DataFrame(
        {"start": s.index[starts], "end": s.index[ends], "length": ends - starts + 1}
    )


def find_gaps(
    df: pd.DataFrame, columns: list[Hashable] | None = None, freq: str | pd.Timedelta | None = None
) -> pd.DataFrame:
    """Summarise the missing values of each column; gaps are reported, never filled.

    Parameters
    ----------
    df : DataFrame
        Frame on a (nominally) regular DatetimeIndex. Timestamps missing from the grid
        count as missing values of every column.
    columns : list, optional
        Columns to report (default: all).
    freq : str or Timedelta, optional
        Grid step; inferred from the index when omitted.

    Returns
    -------
    DataFrame
        Indexed by column, with ``n_missing`` (count), ``first`` and ``last`` (first and
        last missing timestamp, NaT when complete), ``n_runs`` (separate gaps) and
        ``longest`` (steps in the longest gap).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> idx = pd.date_range("2023-01-01", periods=6, freq="h", tz="UTC")
    >>> find_gaps(pd.DataFrame({"load": [1, np.nan, np.nan, 4, 5, np.nan]}, index=idx))
          n_missing                     first                      last  n_runs  longest
    load          3 2023-01-01 01:00:00+00:00 2023-01-01 05:00:00+00:00       2        2
    """
    frame = _on_grid(df if columns is None else df[list(columns)], freq)
    rows = {}
    for column in frame.columns:
        runs = missing_runs(frame[column], freq)
        rows[column] = {
            "n_missing": int(runs["length"].sum()),
            "first": runs["start"].iloc[0] if len(runs) else pd.NaT,
            "last": runs["end"].iloc[-1] if len(runs) else pd.NaT,
            "n_runs": len(runs),
            "longest": int(runs["length"].max()) if len(runs) else 0,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def gap_summary(df: pd.DataFrame) -> dict[str, Any]:
    """Plain-dict form of :func:`find_gaps` for ``DataFrame.attrs`` (ISO strings, ints)."""
    table = find_gaps(df)
    out = {}
    for column, row in table.iterrows():
        out[str(column)] = {
            "n_missing": int(row["n_missing"]),
            "first": None if pd.isna(row["first"]) else pd.Timestamp(row["first"]).isoformat(),
            "last": None if pd.isna(row["last"]) else pd.Timestamp(row["last"]).isoformat(),
            "n_runs": int(row["n_runs"]),
        }
    return out
