"""CMU-mocap takes as 3-D joint positions: the data of the literature's 3-D protocol.

Since LTD's 3-D model (Mao et al. 2019), MSR-GCN (Dang et al. 2021) and PGBIG (Ma et al.
2022), motion-prediction networks on CMU read and forecast joint *positions*. Their data
loaders turn every exp-map frame into the positions of the 38 joints of the CMU skeleton
(:func:`~forecast.datasets.cmu_joint_positions`: the root at the origin, global position
and orientation dropped), keep every 2nd frame, and model the 25 joints that move relative
to the root (:data:`~forecast.datasets.cmu_skeleton.PREDICTED_JOINTS`).

Unit: the papers' "millimetres", the skeleton file's length unit times 70
(:data:`~forecast.datasets.cmu_skeleton.CMU_OFFSET_SCALE`). A CMU skeleton unit is
1/0.45 inch (ASF ``length 0.45``), about 56.4 mm, so one such "mm" is about 0.81 real
millimetres (a real millimetre is about 1.24 of them; the femur, 7.6 units, is 532 "mm"
or about 430 real mm). We keep the convention so that every figure compares with theirs.

Columns name joint and axis: ``j{k}_pos_x``, ``j{k}_pos_y``, ``j{k}_pos_z`` for joint ``k``
of the 38 (``y`` is up), which no exp-map column (``j{k}_x``) can be mistaken for.
:func:`~forecast.frames.positions.check_position_columns` is the one check of such columns,
used by the 3-D protocol and by the position loss of the neural forecasters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from forecast.datasets.cmu_skeleton import CMU_N_JOINTS, PREDICTED_JOINTS, cmu_joint_positions
from forecast.frames.positions import AXES, check_position_columns

__all__ = ["check_position_columns", "position_columns", "positions_array", "positions_frame"]


def position_columns(joints: Iterable[int] = PREDICTED_JOINTS) -> list[str]:
    """Column names of the positions of ``joints``: ``j{k}_pos_x, j{k}_pos_y, j{k}_pos_z``.

    Parameters
    ----------
    joints : iterable of int, default=PREDICTED_JOINTS
        Joint indices of the 38-joint CMU skeleton, in the order wanted.

    Returns
    -------
    list of str
    """
    chosen = [int(j) for j in joints]
    bad = [j for j in chosen if not 0 <= j < CMU_N_JOINTS]
    if bad:
        raise ValueError(f"joints must lie in 0 .. {CMU_N_JOINTS - 1}, got {bad}")
    return [f"j{j}_pos_{a}" for j in chosen for a in AXES]


def positions_frame(expmap: pd.DataFrame, joints: Sequence[int] = PREDICTED_JOINTS) -> pd.DataFrame:
    """Turn a CMU exp-map take (117 columns) into a frame of joint positions.

    Parameters
    ----------
    expmap : DataFrame
        A take as :func:`~forecast.datasets.read_expmap` returns it (all 117 columns).
    joints : sequence of int, default=PREDICTED_JOINTS
        Joints whose positions are kept, in order (``range(38)`` for all).

    Returns
    -------
    DataFrame
        Same index, columns :func:`position_columns` of ``joints`` in the papers' millimetres;
        ``attrs`` as the input's plus ``representation="positions"``.
    """
    columns = position_columns(joints)
    xyz = cmu_joint_positions(expmap.to_numpy(dtype=float))  # (T, 38, 3)
    values = xyz[:, list(joints), :].reshape(len(expmap), -1)
    frame = pd.DataFrame(values, index=expmap.index, columns=columns)
    frame.attrs = {**expmap.attrs, "representation": "positions", "unit": "mm (skeleton x 70)"}
    return frame


def positions_array(frame: pd.DataFrame) -> np.ndarray:
    """Positions of a checked frame as ``(T, n_joints, 3)``."""
    joints = check_position_columns(list(frame.columns))
    return frame.to_numpy(dtype=float).reshape(len(frame), len(joints), 3)
