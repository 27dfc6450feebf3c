"""Rotation conversions: exponential map <-> rotation matrix <-> Euler angles (vectorised).

Every function takes arrays with arbitrary leading dimensions: vectors are ``(..., 3)``,
matrices ``(..., 3, 3)``. Rotation matrices are *active* (``R @ v`` rotates the vector ``v``).

Exponential map
    ``r = theta * a``: rotation by ``theta = |r|`` radians about the unit axis ``a``
    (Rodrigues' formula). :func:`rotmat_to_expmap` returns ``theta`` in ``[0, pi]``.

Euler angles
    The convention of the motion-prediction benchmark code (``rotmat2euler`` in the H3.6M
    and CMU-mocap reference implementations, ported from the SRNN Matlab code). For
    ``E = (E1, E2, E3)``::

        E2 = -arcsin(R[0, 2])
        E1 = arctan2(R[1, 2], R[2, 2])
        E3 = arctan2(R[0, 1], R[0, 0])

    which is the same as ``R = Rx(-E1) @ Ry(-E2) @ Rz(-E3)``, or equivalently
    ``R.T = Rz(E3) @ Ry(E2) @ Rx(E1)``: the *inverse* rotation written as yaw-pitch-roll
    about the fixed z, y and x axes, where ``Rx``, ``Ry``, ``Rz`` are the elementary active
    rotations. Ranges: ``E2`` in ``[-pi/2, pi/2]``, ``E1`` and ``E3`` in ``(-pi, pi]``.
    The benchmark's Euler-angle error is the Euclidean distance between such vectors.

    At exact gimbal lock (``|R[0, 2]| == 1``, a set of measure zero) ``E3`` is set to 0
    as in the reference, but ``E1`` is taken from ``R[1, 0]`` and ``R[1, 1]`` so that
    :func:`euler_to_rotmat` reproduces ``R``; the reference formula there
    (``arctan2(R[0, 1], R[0, 2])``) returns 0 or pi regardless of ``R``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "axis_rotmat",
    "euler_to_rotmat",
    "expmap_to_euler",
    "expmap_to_rotmat",
    "rotmat_to_euler",
    "rotmat_to_expmap",
]

_SMALL = 1e-6  # below this angle (rad) the Taylor series replace sin(t)/t etc.


def _as_vectors(x: np.ndarray, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim < 1 or x.shape[-1] != 3:
        raise ValueError(f"{name} must have shape (..., 3), got {x.shape}")
    return x


def _as_matrices(x: np.ndarray, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[-2:] != (3, 3):
        raise ValueError(f"{name} must have shape (..., 3, 3), got {x.shape}")
    return x


def _skew(v: np.ndarray) -> np.ndarray:
    """Cross-product matrices ``[v]_x`` of vectors ``(..., 3)`` -> ``(..., 3, 3)``."""
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    zero = np.zeros_like(x)
    rows = [
        np.stack([zero, -z, y], axis=-1),
        np.stack([z, zero, -x], axis=-1),
        np.stack([-y, x, zero], axis=-1),
    ]
    return np.stack(rows, axis=-2)


def expmap_to_rotmat(r: np.ndarray) -> np.ndarray:
    """Convert exponential maps (axis-angle vectors) to rotation matrices.

    Parameters
    ----------
    r : array_like of shape (..., 3)
        Rotation vectors; the norm is the angle in radians.

    Returns
    -------
    ndarray of shape (..., 3, 3)
        ``I + sin(t)/t K + (1 - cos(t))/t**2 K @ K`` with ``K = [r]_x`` and ``t = |r|``.
    """
    r = _as_vectors(r, "r")
    theta = np.linalg.norm(r, axis=-1)  # (...)
    small = theta < _SMALL
    safe = np.where(small, 1.0, theta)
    a = np.where(small, 1.0 - theta**2 / 6.0, np.sin(safe) / safe)
    b = np.where(small, 0.5 - theta**2 / 24.0, (1.0 - np.cos(safe)) / safe**2)
    k = _skew(r)  # (..., 3, 3)
    eye = np.broadcast_to(np.eye(3), k.shape)
    return eye + a[..., None, None] * k + b[..., None, None] * (k @ k)


def rotmat_to_expmap(R: np.ndarray) -> np.ndarray:
    """Convert rotation matrices to exponential maps with angle in ``[0, pi]``.

    Parameters
    ----------
    R : array_like of shape (..., 3, 3)
        Rotation matrices.

    Returns
    -------
    ndarray of shape (..., 3)
        Rotation vectors. Near ``pi`` the axis comes from the symmetric part of ``R``
        (well conditioned there), its sign from the antisymmetric part; at exactly ``pi``
        both signs describe the same rotation.
    """
    R = _as_matrices(R, "R")
    # sin(t) * axis from the antisymmetric part, cos(t) from the trace
    v = 0.5 * np.stack(
        [R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]],
        axis=-1,
    )  # (..., 3)
    sin_t = np.linalg.norm(v, axis=-1)
    cos_t = np.clip(0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0), -1.0, 1.0)
    theta = np.arctan2(sin_t, cos_t)  # (...) in [0, pi]

    # branch 1 (cos >= 0, angle up to pi/2): r = v * t / sin(t)
    small = sin_t < _SMALL
    factor = np.where(small, 1.0 + theta**2 / 6.0, theta / np.where(small, 1.0, sin_t))
    r_near = v * factor[..., None]

    # branch 2 (angle beyond pi/2): (R + R^T)/2 - cos(t) I = (1 - cos(t)) a a^T
    sym = 0.5 * (R + np.swapaxes(R, -1, -2)) - cos_t[..., None, None] * np.eye(3)
    diag = np.diagonal(sym, axis1=-2, axis2=-1)  # (..., 3)
    col = np.argmax(diag, axis=-1)  # (...)
    axis = np.take_along_axis(sym, col[..., None, None], axis=-1)[..., 0]  # (..., 3)
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    axis = axis / np.where(norm > 0, norm, 1.0)
    sign = np.where(np.sum(axis * v, axis=-1) < 0, -1.0, 1.0)
    r_far = axis * (sign * theta)[..., None]

    return np.where((cos_t >= 0)[..., None], r_near, r_far)


def _rx(a: np.ndarray) -> np.ndarray:
    c, s, o, z = np.cos(a), np.sin(a), np.ones_like(a), np.zeros_like(a)
    return np.stack(
        [np.stack([o, z, z], -1), np.stack([z, c, -s], -1), np.stack([z, s, c], -1)], -2
    )


def _ry(a: np.ndarray) -> np.ndarray:
    c, s, o, z = np.cos(a), np.sin(a), np.ones_like(a), np.zeros_like(a)
    return np.stack(
        [np.stack([c, z, s], -1), np.stack([z, o, z], -1), np.stack([-s, z, c], -1)], -2
    )


def _rz(a: np.ndarray) -> np.ndarray:
    c, s, o, z = np.cos(a), np.sin(a), np.ones_like(a), np.zeros_like(a)
    return np.stack(
        [np.stack([c, -s, z], -1), np.stack([s, c, z], -1), np.stack([z, z, o], -1)], -2
    )


def axis_rotmat(axis: str, angle: np.ndarray) -> np.ndarray:
    """Active rotation matrices about one coordinate axis.

    Parameters
    ----------
    axis : {"x", "y", "z"}
        The axis (case-insensitive).
    angle : array_like
        Angles in radians, any shape ``S``; positive turns counter-clockwise looking down
        the axis towards the origin (``axis_rotmat("z", pi / 2) @ [1, 0, 0] = [0, 1, 0]``).

    Returns
    -------
    ndarray of shape S + (3, 3)
    """
    elementary = {"x": _rx, "y": _ry, "z": _rz}
    key = axis.lower() if isinstance(axis, str) else axis
    if key not in elementary:
        raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
    return elementary[key](np.asarray(angle, dtype=float))


def euler_to_rotmat(E: np.ndarray) -> np.ndarray:
    """Convert benchmark Euler angles ``(E1, E2, E3)`` to rotation matrices.

    Parameters
    ----------
    E : array_like of shape (..., 3)
        Angles in radians, in the convention of :func:`rotmat_to_euler`.

    Returns
    -------
    ndarray of shape (..., 3, 3)
        ``Rx(-E1) @ Ry(-E2) @ Rz(-E3)``.
    """
    E = _as_vectors(E, "E")
    return _rx(-E[..., 0]) @ _ry(-E[..., 1]) @ _rz(-E[..., 2])


def rotmat_to_euler(R: np.ndarray) -> np.ndarray:
    """Convert rotation matrices to Euler angles as the benchmark's ``rotmat2euler`` does.

    Parameters
    ----------
    R : array_like of shape (..., 3, 3)
        Rotation matrices.

    Returns
    -------
    ndarray of shape (..., 3)
        ``(E1, E2, E3)`` with ``E2 = -arcsin(R[0, 2])``, ``E1 = arctan2(R[1, 2], R[2, 2])``,
        ``E3 = arctan2(R[0, 1], R[0, 0])`` (see the module docstring for the gimbal case).
    """
    R = _as_matrices(R, "R")
    r02 = np.clip(R[..., 0, 2], -1.0, 1.0)
    e2 = -np.arcsin(r02)
    # dividing both arguments by cos(E2) >= 0, as the reference does, leaves arctan2 unchanged
    e1 = np.arctan2(R[..., 1, 2], R[..., 2, 2])
    e3 = np.arctan2(R[..., 0, 1], R[..., 0, 0])
    lock_pos = r02 == 1.0  # E2 = -pi/2: R[1, 0] = sin(-E1), R[1, 1] = cos(-E1)
    lock_neg = r02 == -1.0  # E2 = +pi/2: R[1, 0] = sin(E1), R[1, 1] = cos(E1)
    if lock_pos.any() or lock_neg.any():
        gimbal = np.arctan2(R[..., 1, 0], R[..., 1, 1])
        e1 = np.where(lock_pos, -gimbal, np.where(lock_neg, gimbal, e1))
        e3 = np.where(lock_pos | lock_neg, 0.0, e3)
    return np.stack([e1, e2, e3], axis=-1)


def expmap_to_euler(r: np.ndarray) -> np.ndarray:
    """Convert exponential maps ``(..., 3)`` to benchmark Euler angles ``(..., 3)``.

    Parameters
    ----------
    r : array_like of shape (..., 3)
        Rotation vectors.

    Returns
    -------
    ndarray of shape (..., 3)
        ``rotmat_to_euler(expmap_to_rotmat(r))``.
    """
    return rotmat_to_euler(expmap_to_rotmat(r))
