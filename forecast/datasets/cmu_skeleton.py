"""The CMU-mocap exp-map skeleton of the motion-prediction literature and its forward kinematics.

The CMU-mocap benchmark files (Li et al., 2018; ``load("cmu-mocap")``) hold 117 values a
frame: the global position (columns 0-2), then one exp-map triple per joint for the 38
joints ``j0 .. j37`` (joint ``k`` in columns ``3 + 3k .. 5 + 3k``; ``j0`` is the global
orientation). The papers that report 3-D joint-position errors on this benchmark (LTD,
Mao et al. 2019; MSR-GCN, Dang et al. 2021; PGBIG, Ma et al. 2022) turn these frames into
joint positions with one kinematic tree, whose data this module carries over.

Source of the data (facts, not code): ``_some_variables_cmu`` in
``utils/forward_kinematics.py`` of ``wei-mao-2019/LearnTrajDep`` (the same numbers are in
``Droliven/MSRGCN`` ``datas/forward_kinematics.py`` and ``705062791/PGBIG``
``utils/forward_kinematics.py``). The parent list there is 1-based (``0`` for the root);
here it is 0-based (``-1`` for the root). The bone offsets there are the CMU skeleton's
lengths multiplied by 70, and the papers report the resulting distances as millimetres.

Forward kinematics, as the reference ``fkl_torch`` computes it (row vectors multiplied by
matrices from the left, ``R(r)`` the Rodrigues matrix of
:func:`~forecast.datasets.rotations.expmap_to_rotmat`):

* the global position (columns 0-2) and the global orientation (``j0``) are not used: the
  root sits at the origin with the identity orientation (``fkl_torch`` skips them);
* a joint's orientation is ``W_k = R(r_k) @ W_parent`` and its position
  ``p_k = p_parent + offset_k @ W_parent`` (``offset_k`` a row vector), so the rotation that
  moves a child, written for column vectors, is the transpose ``W_parent.T``.

Joints with a zero offset sit on their parent (16, 20 and 29 on 15; 24 and 27 on 23; 33
and 36 on 32; and 1, 7 and 13 on the root).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from forecast.datasets.rotations import expmap_to_rotmat

__all__ = [
    "CMU_EXPMAP_COLUMNS",
    "CMU_N_COLUMNS",
    "CMU_N_JOINTS",
    "CMU_OFFSETS",
    "CMU_OFFSET_SCALE",
    "CMU_PARENTS",
    "FIXED_JOINTS",
    "PREDICTED_JOINTS",
    "SAME_AS_PARENT",
    "cmu_joint_positions",
]

CMU_N_JOINTS = 38
#: Values of one exp-map frame: global position, then one triple per joint.
CMU_N_COLUMNS = 3 + 3 * CMU_N_JOINTS

#: Parent of each joint (0-based; -1 for the root). Joints 1-6 and 7-12 are the two legs,
#: 13-19 the spine up to the head, 20-28 and 29-37 the two arms.
#: Source: LearnTrajDep ``utils/forward_kinematics.py``, ``_some_variables_cmu`` (minus 1).
CMU_PARENTS: tuple[int, ...] = (
    -1, 0, 1, 2, 3, 4, 5, 0, 7, 8, 9, 10, 11, 0, 13, 14, 15, 16, 17, 18,
    15, 20, 21, 22, 23, 24, 25, 23, 27, 15, 29, 30, 31, 32, 33, 34, 32, 36,
)  # fmt: skip

#: Scale from the CMU skeleton's length units to the literature's millimetres.
CMU_OFFSET_SCALE = 70.0

# Offsets of each joint from its parent, in CMU skeleton units (x, y, z; y is up).
# Source: LearnTrajDep ``utils/forward_kinematics.py``, ``_some_variables_cmu``.
_OFFSETS_CMU_UNITS = (
    (0.0, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (1.65674, -1.80282, 0.62477),
    (2.59720, -7.13576, 0.0),
    (2.49236, -6.84770, 0.0),
    (0.19704, -0.54136, 2.14581),
    (0.0, 0.0, 1.11249),
    (0.0, 0.0, 0.0),
    (-1.61070, -1.80282, 0.62476),
    (-2.59502, -7.12977, 0.0),
    (-2.46780, -6.78024, 0.0),
    (-0.23024, -0.63258, 2.13368),
    (0.0, 0.0, 1.11569),
    (0.0, 0.0, 0.0),
    (0.01961, 2.05450, -0.14112),
    (0.01021, 2.06436, -0.05921),
    (0.0, 0.0, 0.0),
    (0.00713, 1.56711, 0.14968),
    (0.03429, 1.56041, -0.10006),
    (0.01305, 1.62560, -0.05265),
    (0.0, 0.0, 0.0),
    (3.54205, 0.90436, -0.17364),
    (4.86513, 0.0, 0.0),
    (3.35554, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (0.66117, 0.0, 0.0),
    (0.53306, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (0.54120, 0.0, 0.54120),
    (0.0, 0.0, 0.0),
    (-3.49802, 0.75994, -0.32616),
    (-5.02649, 0.0, 0.0),
    (-3.36431, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (-0.73041, 0.0, 0.0),
    (-0.58887, 0.0, 0.0),
    (0.0, 0.0, 0.0),
    (-0.59786, 0.0, 0.59786),
)

#: Offset of each joint from its parent in millimetres, ``(38, 3)`` (read-only): the CMU
#: skeleton's values times :data:`CMU_OFFSET_SCALE`.
CMU_OFFSETS = CMU_OFFSET_SCALE * np.array(_OFFSETS_CMU_UNITS)
CMU_OFFSETS.setflags(write=False)

#: Joints whose forecast position the 3-D papers replace by the truth (``joint_to_ignore``
#: of LearnTrajDep ``utils/data_utils.py`` ``load_data_cmu_3d``, less the duplicates): the
#: root, the two hip roots and the lower back, which barely move relative to the root.
FIXED_JOINTS = (0, 1, 2, 7, 8, 13)
#: Joints at their parent's position (zero offset), joint -> parent; the 3-D papers set
#: their forecast to the parent's (``joint_equal`` in LearnTrajDep ``main_cmu_3d.py``).
SAME_AS_PARENT = {16: 15, 20: 15, 29: 15, 24: 23, 27: 23, 33: 32, 36: 32}
#: The 25 joints the 3-D papers' models predict (their ``dim_used`` / 3), in joint order.
PREDICTED_JOINTS = tuple(
    j for j in range(CMU_N_JOINTS) if j not in FIXED_JOINTS and j not in SAME_AS_PARENT
)

#: Columns of the 117-value frame holding each joint's exp-map triple (joint ``k``:
#: ``3 + 3k``, ``4 + 3k``, ``5 + 3k``).
CMU_EXPMAP_COLUMNS: tuple[tuple[int, int, int], ...] = tuple(
    (3 + 3 * k, 4 + 3 * k, 5 + 3 * k) for k in range(CMU_N_JOINTS)
)


def cmu_joint_positions(expmap: ArrayLike) -> np.ndarray:
    """Joint positions of CMU exp-map frames, in millimetres, without the global motion.

    Parameters
    ----------
    expmap : array_like of shape (..., 117)
        Exp-map frames (global position, then 38 joint triples), any leading axes.

    Returns
    -------
    ndarray of shape (..., 38, 3)
        Position of every joint relative to the root, which is at the origin; the global
        position and orientation (columns 0-5) are ignored, as in the literature's 3-D
        protocol. With all rotations zero the joints are at the cumulative offsets.

    Examples
    --------
    >>> import numpy as np
    >>> rest = cmu_joint_positions(np.zeros(117))
    >>> rest.shape, rest[3].round(2).tolist()  # knee: hip + femur offsets
    ((38, 3), [297.78, -625.7, 43.73])
    """
    x = np.asarray(expmap, dtype=float)
    if x.ndim < 1 or x.shape[-1] != CMU_N_COLUMNS:
        raise ValueError(f"expmap must have shape (..., {CMU_N_COLUMNS}), got {x.shape}")
    lead = x.shape[:-1]
    local = expmap_to_rotmat(x[..., 3:].reshape(*lead, CMU_N_JOINTS, 3))  # (..., 38, 3, 3)
    world = np.empty_like(local)
    world[..., 0, :, :] = np.eye(3)  # global orientation ignored
    positions = np.zeros((*lead, CMU_N_JOINTS, 3))  # root at the origin
    for joint in range(1, CMU_N_JOINTS):
        parent = CMU_PARENTS[joint]
        frame = world[..., parent, :, :]  # (..., 3, 3)
        positions[..., joint, :] = positions[..., parent, :] + CMU_OFFSETS[joint] @ frame
        world[..., joint, :, :] = local[..., joint, :, :] @ frame
    return positions
