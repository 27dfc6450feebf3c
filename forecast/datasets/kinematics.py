"""Forward kinematics of a BVH skeleton: joint channels to 3-D joint positions.

Conventions (those of the BVH format as written by the CMU and most exporters):

* A joint's rotation channels are Euler angles in **degrees**, composed in the order the
  ``CHANNELS`` line lists them: ``Zrotation Yrotation Xrotation`` gives the local rotation
  ``R = Rz(z) @ Ry(y) @ Rx(x)`` (active matrices acting on column vectors), i.e. rotations
  about the joint's own, moving axes in the listed order.
* A joint's position channels (usually only the root's) translate it in its parent's
  frame, added to its ``OFFSET``; a joint without them sits at its ``OFFSET``.
* World rotation and position follow the parent: ``W_j = W_p @ R_j`` and
  ``p_j = p_p + W_p @ (offset_j + translation_j)``; an ``End Site`` sits at
  ``p_j + W_j @ end_site``.

Positions are in file units (CMU: inches scaled by about 0.45; the vertical axis is Y).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from forecast.datasets.bvh import BvhJoint
from forecast.datasets.rotations import axis_rotmat

__all__ = ["forward_kinematics", "skeleton_names", "skeleton_parents"]

_CHANNELS = {f"{a}{kind}" for a in "XYZ" for kind in ("position", "rotation")}


def _check_skeleton(joints: Sequence[BvhJoint]) -> dict[str, int]:
    """Position of each joint by name; parents must come before their children."""
    if not len(joints):
        raise ValueError("the skeleton has no joints")
    where: dict[str, int] = {}
    for k, joint in enumerate(joints):
        if joint.name in where:
            raise ValueError(
                f"joint name {joint.name!r} appears twice (positions {where[joint.name]} and {k})"
            )
        unknown = [c for c in joint.channels if c not in _CHANNELS]
        if unknown:
            raise ValueError(f"joint {joint.name!r} has unknown channel(s) {unknown}")
        if (joint.parent is None) != (k == 0):
            raise ValueError(
                f"joint {k} ({joint.name!r}): only the first joint is the root (parent None), "
                f"found parent {joint.parent!r}"
            )
        if joint.parent is not None and joint.parent not in where:
            raise ValueError(
                f"joint {joint.name!r} names parent {joint.parent!r}, which does not come "
                "before it in the joint list"
            )
        where[joint.name] = k
    return where


def skeleton_names(joints: Sequence[BvhJoint], *, end_sites: bool = False) -> list[str]:
    """Names of the points :func:`forward_kinematics` returns, in its order.

    Parameters
    ----------
    joints : sequence of BvhJoint
        The skeleton in file order (``read_bvh(path).joints``).
    end_sites : bool, default=False
        Append one ``<joint>_end`` per joint with an ``End Site``, in joint order.

    Returns
    -------
    list of str
    """
    _check_skeleton(joints)
    names = [j.name for j in joints]
    if end_sites:
        names += [f"{j.name}_end" for j in joints if j.end_site is not None]
    return names


def skeleton_parents(joints: Sequence[BvhJoint], *, end_sites: bool = False) -> list[int]:
    """Parent of each point of :func:`forward_kinematics` as an index (-1 for the root).

    Parameters
    ----------
    joints : sequence of BvhJoint
        The skeleton in file order.
    end_sites : bool, default=False
        As in :func:`forward_kinematics`; an end site's parent is its joint.

    Returns
    -------
    list of int
        The bones are the pairs ``(i, parents[i])`` with ``parents[i] >= 0``.
    """
    where = _check_skeleton(joints)
    parents = [-1 if j.parent is None else where[j.parent] for j in joints]
    if end_sites:
        parents += [k for k, j in enumerate(joints) if j.end_site is not None]
    return parents


def _channel_values(joints: Sequence[BvhJoint], motion: pd.DataFrame | np.ndarray) -> np.ndarray:
    """Motion as a float array ``(n_frames, n_channels)`` in skeleton channel order."""
    names = [f"{j.name}_{c}" for j in joints for c in j.channels]
    if isinstance(motion, pd.DataFrame):
        missing = [c for c in names if c not in motion.columns]
        if missing:
            raise ValueError(
                f"motion lacks {len(missing)} channel column(s) of the skeleton, e.g. "
                f"{missing[:5]} (columns are '<joint>_<channel>', as read_bvh names them)"
            )
        values = motion[names].to_numpy(dtype=float)
    elif isinstance(motion, np.ndarray):
        if motion.ndim != 2 or motion.shape[1] != len(names):
            raise ValueError(
                f"motion as an array must have shape (n_frames, {len(names)}) (one column per "
                f"channel of the skeleton, in file order), got {motion.shape}"
            )
        values = motion.astype(float)
    else:
        raise TypeError(f"motion must be a DataFrame or an ndarray, got {type(motion).__name__}")
    bad = ~np.isfinite(values)
    if bad.any():
        frame, col = np.argwhere(bad)[0]
        raise ValueError(
            f"motion has a non-finite value ({values[frame, col]}) at frame {frame}, channel "
            f"{names[col]!r}; {int(bad.sum())} in all"
        )
    return values


def forward_kinematics(
    joints: Sequence[BvhJoint],
    motion: pd.DataFrame | np.ndarray,
    *,
    end_sites: bool = False,
) -> np.ndarray:
    """World positions of the joints of a BVH skeleton for every frame.

    Parameters
    ----------
    joints : sequence of BvhJoint
        The skeleton in file order (``read_bvh(path).joints``): names, parents, offsets,
        channels (see the module notes for the conventions).
    motion : DataFrame or ndarray
        Channel values, one row per frame: a frame with a column ``<joint>_<channel>`` for
        every channel of the skeleton (``read_bvh(path).motion``, or a forecast with the
        same columns; other columns are ignored), or an array ``(n_frames, n_channels)``
        with the channels in file order. Rotations in degrees.
    end_sites : bool, default=False
        Append the positions of the ``End Site`` points after the joints (names and parents
        from :func:`skeleton_names` and :func:`skeleton_parents`).

    Returns
    -------
    ndarray of shape (n_frames, n_points, 3)
        Positions in file units; ``n_points`` is the number of joints (plus end sites).

    Raises
    ------
    ValueError
        On a skeleton whose parents do not precede their children, a missing channel
        column, an array of the wrong width or a non-finite value (named by frame and
        channel).
    TypeError
        When ``motion`` is neither a DataFrame nor an array.

    Examples
    --------
    >>> from forecast.datasets import read_bvh
    >>> bvh = read_bvh("131_01.bvh.gz")  # doctest: +SKIP
    >>> forward_kinematics(bvh.joints, bvh.motion).shape  # doctest: +SKIP
    (994, 31, 3)
    """
    where = _check_skeleton(joints)
    values = _channel_values(joints, motion)
    n_frames, n_joints = len(values), len(joints)
    position = np.empty((n_frames, n_joints, 3))
    rotation = np.empty((n_frames, n_joints, 3, 3))
    column = 0
    for k, joint in enumerate(joints):
        shift = np.tile(np.asarray(joint.offset, dtype=float), (n_frames, 1))  # (F, 3)
        local = np.broadcast_to(np.eye(3), (n_frames, 3, 3))  # (F, 3, 3)
        for channel in joint.channels:
            axis, kind = channel[0].lower(), channel[1:]
            if kind == "position":
                shift[:, "xyz".index(axis)] += values[:, column]
            else:
                local = local @ axis_rotmat(axis, np.deg2rad(values[:, column]))
            column += 1
        if joint.parent is None:
            position[:, k], rotation[:, k] = shift, local
        else:
            p = where[joint.parent]
            position[:, k] = position[:, p] + np.einsum("fij,fj->fi", rotation[:, p], shift)
            rotation[:, k] = rotation[:, p] @ local
    if not end_sites:
        return position
    ends = [
        position[:, k] + rotation[:, k] @ np.asarray(j.end_site, dtype=float)
        for k, j in enumerate(joints)
        if j.end_site is not None
    ]
    return np.concatenate([position, np.stack(ends, axis=1)], axis=1) if ends else position
