"""Shared plumbing of the metric functions: shape checks and the NaN policy."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

Axis = int | tuple[int, ...] | None
NAN_POLICIES = ("omit", "raise", "propagate")


def _same_shape(
    a: ArrayLike, b: ArrayLike, names: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray]:
    """Convert ``a`` and ``b`` to float arrays; raise unless their shapes agree."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} has shape {a.shape} but {names[1]} has shape {b.shape}")
    return a, b


def _first(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (C order), for error messages."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _pairs(
    y_true: ArrayLike, y_pred: ArrayLike, nan_policy: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float arrays of equal shape and the mask of the pairs that count."""
    t, p = _same_shape(y_true, y_pred, ("y_true", "y_pred"))
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    missing = np.isnan(t) | np.isnan(p)
    if nan_policy == "raise" and missing.any():
        where = _first(missing)
        which = "y_true" if np.isnan(t[where]) else "y_pred"
        raise ValueError(f"{which} has NaN at index {where} ({int(missing.sum())} NaN pair(s))")
    mask = np.ones(t.shape, bool) if nan_policy == "propagate" else ~missing
    return t, p, mask


def _mean(values: np.ndarray, mask: np.ndarray, axis: Axis) -> float | np.ndarray:
    """Mean of ``values`` over ``axis`` counting only ``mask``; NaN where nothing counts."""
    total = np.sum(np.where(mask, values, 0.0), axis=axis)
    count = np.sum(mask, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)
    return float(out) if np.ndim(out) == 0 else out


def _aligned(
    arrays: Mapping[str, ArrayLike], nan_policy: str
) -> tuple[list[np.ndarray], np.ndarray]:
    """Float arrays of one shape (named by ``arrays``' keys) and the mask of what counts.

    The generalisation of :func:`_pairs` to several arrays: an entry counts when none of
    the arrays is NaN there (``"omit"``), or always (``"propagate"``).
    """
    names = list(arrays)
    values = [np.asarray(a, dtype=float) for a in arrays.values()]
    for name, value in zip(names[1:], values[1:], strict=True):
        if value.shape != values[0].shape:
            raise ValueError(
                f"{names[0]} has shape {values[0].shape} but {name} has shape {value.shape}"
            )
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    nans = [np.isnan(v) for v in values]
    missing = np.logical_or.reduce(nans)
    if nan_policy == "raise" and missing.any():
        where = _first(missing)
        which = next(n for n, m in zip(names, nans, strict=True) if m[where])
        raise ValueError(f"{which} has NaN at index {where} ({int(missing.sum())} NaN entries)")
    mask = np.ones(values[0].shape, bool) if nan_policy == "propagate" else ~missing
    return values, mask
