"""Reader for the exponential-map motion-capture text files of the CMU and H3.6M benchmarks.

Layout of a row: 3 root-position values, then one exp-map triplet per joint, the first
triplet being the global (root) orientation. CMU-mocap benchmark files (Li et al., 2018)
have 117 columns (38 joints), Human3.6M files (Martinez et al., 2017) 99 (32 joints).

Time axis
---------
The files carry no timestamps. The motion-prediction literature times them as 50 frames
per second, so that after its "every 2nd frame" subsampling one step is 40 ms and the
reported horizons 80/160/320/400/1000 ms are steps 2/4/8/10/25. :func:`read_expmap`
follows that convention by default (``frame_rate=50``); the physical CMU capture rate is
120 Hz (60 Hz after subsampling), available with ``frame_rate=120``. The index is a
``DatetimeIndex`` starting at ``start`` (the Unix epoch by default), so that the
estimators accept it; ``df.index - df.index[0]`` is the elapsed time.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from forecast.datasets._localtime import open_text

__all__ = ["constant_columns", "expmap_columns", "read_expmap", "BENCHMARK_FRAME_RATE"]

#: Frame rate (Hz) the benchmark literature assigns to the rows of the exp-map files.
BENCHMARK_FRAME_RATE = 50.0
#: Standard-deviation threshold below which the benchmark code ignores a dimension.
CONSTANT_TOL = 1e-4
_SKELETONS = {117: "cmu", 99: "h36m"}


def expmap_columns(n_columns: int) -> list[str]:
    """Column names for an exp-map row of ``n_columns`` values.

    Parameters
    ----------
    n_columns : int
        ``3 + 3 * n_joints`` (117 for CMU, 99 for H3.6M).

    Returns
    -------
    list of str
        ``root_x, root_y, root_z`` (global position), then ``j{k}_x, j{k}_y, j{k}_z`` for
        joint ``k = 0 .. n_joints - 1``; ``j0`` is the global orientation.
    """
    if n_columns < 6 or n_columns % 3:
        raise ValueError(f"an exp-map row has 3 + 3 * n_joints values, got {n_columns}")
    names = ["root_x", "root_y", "root_z"]
    for joint in range(n_columns // 3 - 1):
        names += [f"j{joint}_x", f"j{joint}_y", f"j{joint}_z"]
    return names


def constant_columns(frames: Iterable[pd.DataFrame], tol: float = CONSTANT_TOL) -> list[str]:
    """Columns whose standard deviation over all rows of ``frames`` is below ``tol``.

    This is the benchmark's "dimensions to ignore", computed over a whole training set
    (pass every training sequence) rather than one file.

    Parameters
    ----------
    frames : iterable of DataFrame
        Sequences with the same columns.
    tol : float
        Threshold on the population standard deviation (the reference code uses 1e-4).

    Returns
    -------
    list of str
        Constant column names, in column order.
    """
    stacked = pd.concat(list(frames), ignore_index=True)
    std = stacked.to_numpy(dtype=float).std(axis=0)
    return [c for c, s in zip(stacked.columns, std, strict=True) if s < tol]


def read_expmap(
    path: str | Path,
    step: int = 1,
    drop_constant: bool | list[str] = False,
    drop_global: bool = False,
    frame_rate: float = BENCHMARK_FRAME_RATE,
    start: str | pd.Timestamp = "1970-01-01",
) -> pd.DataFrame:
    """Read one exp-map sequence (comma-separated text, gzip or not) as a time-indexed frame.

    Parameters
    ----------
    path : str or Path
        A ``<action>_<n>.txt`` (CMU, 117 columns) or ``<action>_<subaction>.txt`` (H3.6M,
        99 columns) file.
    step : int
        Keep every ``step``-th frame starting with the first; the benchmark uses 2.
    drop_constant : bool or list of str
        ``True`` drops the columns constant within this file (std < 1e-4); a list drops
        those columns (e.g. from :func:`constant_columns` over the training set, as the
        benchmark does). Default keeps everything.
    drop_global : bool
        Drop the global translation and rotation (``root_*`` and ``j0_*``), as the CMU
        benchmark models do.
    frame_rate : float
        Rate of the rows in the file, in Hz (see the module notes: 50 by convention, 120
        for physical CMU time). The index step is ``step / frame_rate`` seconds, rounded
        to the nanosecond (exact for the default).
    start : str or Timestamp
        Timestamp of the first frame.

    Returns
    -------
    DataFrame
        Float columns named as :func:`expmap_columns`, indexed by a regular naive
        ``DatetimeIndex`` named ``time``. ``df.attrs`` holds ``skeleton`` (``"cmu"``,
        ``"h36m"`` or None), ``frame_rate`` (of the returned rows), ``step`` and ``file``.

    Examples
    --------
    >>> df = read_expmap("walking_1.txt.gz", step=2)  # doctest: +SKIP
    >>> df.index.freq  # doctest: +SKIP
    <40 * Millis>
    """
    path = Path(path)
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
        raise ValueError(f"step must be a positive int, got {step!r}")
    if frame_rate <= 0:
        raise ValueError(f"frame_rate must be positive, got {frame_rate}")
    with open_text(path) as handle:
        values = pd.read_csv(handle, header=None, dtype=float).to_numpy()
    if values.shape[0] == 0:
        raise ValueError(f"{path.name}: no frames")
    if np.isnan(values).any():
        row, col = np.argwhere(np.isnan(values))[0]
        raise ValueError(f"{path.name}: missing or non-numeric value at frame {row}, column {col}")
    columns = expmap_columns(values.shape[1])
    values = values[::step]
    period = pd.Timedelta(round(step / frame_rate * 1e9), unit="ns")  # rounded to the ns
    index = pd.date_range(pd.Timestamp(start), periods=len(values), freq=period, name="time")
    frame = pd.DataFrame(values, index=index, columns=columns)
    drop: list[str] = []
    if drop_global:
        drop += columns[:6]
    if drop_constant is True:
        drop += constant_columns([frame])
    elif drop_constant:
        unknown = [c for c in drop_constant if c not in columns]
        if unknown:
            raise ValueError(f"{path.name}: drop_constant names unknown columns {unknown[:5]}")
        drop += list(drop_constant)
    dropped = sorted(set(drop), key=columns.index)
    frame = frame.drop(columns=dropped)
    frame.attrs = {
        "skeleton": _SKELETONS.get(len(columns)),
        "frame_rate": frame_rate / step,
        "step": int(step),
        "file": path.name,
    }
    return frame
