"""Scores of quantile and interval forecasts (re-exported by :mod:`forecast.evaluation.metrics`).

Quantile forecasts are arrays with a trailing level axis: ``y_quantiles[..., k]`` is the
forecast of level ``quantiles[k]`` for the actual ``y_true[...]``. Intervals are a pair of
arrays ``lower``/``upper`` of the shape of ``y_true``. ``axis`` refers to the axes of
``y_true``; the level axis is always averaged. The NaN policy is that of the point metrics:
an entry counts only when the actual and every forecast of it are present (``"omit"``).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from forecast.evaluation.nan_policy import Axis, _aligned, _mean
from forecast.frames.quantiles import central_pairs, check_levels


def _levels_and_forecasts(
    y_true: ArrayLike, y_quantiles: ArrayLike, quantiles: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Broadcast a single level to a level axis; check the shapes agree."""
    single = isinstance(quantiles, numbers.Real) and not isinstance(quantiles, bool)
    levels = np.asarray(check_levels((quantiles,) if single else quantiles), dtype=float)
    pred = np.asarray(y_quantiles, dtype=float)
    if single:
        pred = pred[..., None]
    true = np.asarray(y_true, dtype=float)
    if pred.shape != (*true.shape, len(levels)):
        raise ValueError(
            f"y_quantiles has shape {np.shape(y_quantiles)} but y_true has shape {true.shape} and "
            f"there are {len(levels)} level(s): expected {(*true.shape, len(levels))}"
            + ("" if single else " (levels on the last axis)")
        )
    return true, pred, levels


def _pinball_terms(
    y_true: ArrayLike, y_quantiles: ArrayLike, quantiles: ArrayLike, nan_policy: str
) -> tuple[np.ndarray, np.ndarray]:
    true, pred, levels = _levels_and_forecasts(y_true, y_quantiles, quantiles)
    columns = {f"y_quantiles[..., {k}]": pred[..., k] for k in range(len(levels))}
    arrays = {"y_true": true, **columns}
    _, mask = _aligned(arrays, nan_policy)
    diff = true[..., None] - pred  # (..., Q): positive when the actual lies above
    loss = np.maximum(levels * diff, (levels - 1.0) * diff).mean(axis=-1)  # (...)
    return loss, mask


def pinball_loss(
    y_true: ArrayLike,
    y_quantiles: ArrayLike,
    quantiles: ArrayLike,
    *,
    axis: Axis = None,
    nan_policy: str = "omit",
) -> float | np.ndarray:
    """Pinball (quantile) loss, averaged over levels and over ``axis``.

    For level ``q`` and error ``d = y_true - y_pred`` the loss is ``q * d`` when ``d >= 0``
    and ``(q - 1) * d`` otherwise; lower is better, and its expectation is minimised by the
    true ``q``-quantile.

    Parameters
    ----------
    y_true : array_like
        Actuals.
    y_quantiles : array_like
        Forecasts: the shape of ``y_true`` for one level, else with a trailing axis of one
        entry per level.
    quantiles : float or sequence of float
        The level, or the sorted levels in (0, 1) of the last axis of ``y_quantiles``.
    axis : int or tuple of int, optional
        Axes of ``y_true`` to average over; None averages everything.
    nan_policy : {"omit", "raise", "propagate"}
        Treatment of entries with a NaN actual or forecast.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> pinball_loss([10.0, 10.0], [8.0, 13.0], 0.75)  # (0.75 * 2 + 0.25 * 3) / 2
    1.125
    """
    loss, mask = _pinball_terms(y_true, y_quantiles, quantiles, nan_policy)
    return _mean(loss, mask, axis)


def crps(
    y_true: ArrayLike,
    y_quantiles: ArrayLike,
    quantiles: ArrayLike,
    *,
    axis: Axis = None,
    nan_policy: str = "omit",
) -> float | np.ndarray:
    """Continuous ranked probability score approximated from a set of quantiles.

    The standard quantile-score approximation: twice the pinball loss averaged over the
    levels, ``mean_k 2 * pinball(y, q_k; tau_k)``. With many evenly spaced levels it
    approaches the CRPS of the forecast distribution (the integral of ``2 * pinball`` over
    ``tau`` in (0, 1)); with a single level 0.5 it is the absolute error. Same units as
    ``y_true``; lower is better.

    Parameters
    ----------
    y_true, y_quantiles, quantiles, axis, nan_policy
        As in :func:`pinball_loss`.

    Returns
    -------
    float or ndarray
    """
    return 2.0 * pinball_loss(y_true, y_quantiles, quantiles, axis=axis, nan_policy=nan_policy)


def _interval(
    y_true: ArrayLike, lower: ArrayLike, upper: ArrayLike, nan_policy: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    (true, lo, hi), mask = _aligned({"y_true": y_true, "lower": lower, "upper": upper}, nan_policy)
    crossed = (lo > hi) & mask
    if crossed.any():
        where = tuple(int(i) for i in np.argwhere(crossed)[0])
        raise ValueError(
            f"lower exceeds upper at index {where} ({lo[where]} > {hi[where]}): not an interval"
        )
    return true, lo, hi, mask


def coverage(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    axis: Axis = None,
    nan_policy: str = "omit",
) -> float | np.ndarray:
    """Empirical coverage: the fraction of actuals inside ``[lower, upper]`` (bounds count).

    Parameters
    ----------
    y_true, lower, upper : array_like of one shape
        Actuals and the interval bounds.
    axis : int or tuple of int, optional
        Axes to average over; None averages everything.
    nan_policy : {"omit", "raise", "propagate"}
        Treatment of entries where any of the three is NaN.

    Returns
    -------
    float or ndarray
        In [0, 1].
    """
    true, lo, hi, mask = _interval(y_true, lower, upper, nan_policy)
    inside = ((true >= lo) & (true <= hi)).astype(float)
    if nan_policy == "propagate":
        inside = np.where(np.isnan(true) | np.isnan(lo) | np.isnan(hi), np.nan, inside)
    return _mean(inside, mask, axis)


def interval_width(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    axis: Axis = None,
    nan_policy: str = "omit",
) -> float | np.ndarray:
    """Mean width ``upper - lower`` of the intervals whose actual is scored.

    ``y_true`` only selects the entries (those :func:`coverage` counts), so widths and
    coverages describe the same forecasts. Parameters as in :func:`coverage`.
    """
    _, lo, hi, mask = _interval(y_true, lower, upper, nan_policy)
    return _mean(hi - lo, mask, axis)


def winkler_score(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    coverage_level: float,
    *,
    axis: Axis = None,
    nan_policy: str = "omit",
) -> float | np.ndarray:
    """Winkler (interval) score of central intervals of nominal coverage ``coverage_level``.

    With ``alpha = 1 - coverage_level`` the score of one interval is its width plus
    ``2 / alpha`` times the distance by which the actual falls outside it (Gneiting &
    Raftery 2007, the interval score). Lower is better; it rewards narrow intervals and
    penalises misses in proportion to how far they miss.

    Parameters
    ----------
    y_true, lower, upper : array_like of one shape
        Actuals and the interval bounds.
    coverage_level : float
        Nominal coverage in (0, 1), e.g. 0.8 for the 10 %-90 % interval.
    axis, nan_policy
        As in :func:`coverage`.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> winkler_score([5.0, 12.0], [4.0, 4.0], [10.0, 10.0], 0.8)  # (6 + (6 + 10 * 2)) / 2
    16.0
    """
    (level,) = check_levels((coverage_level,), "coverage_level")
    true, lo, hi, mask = _interval(y_true, lower, upper, nan_policy)
    alpha = 1.0 - level
    below = np.maximum(lo - true, 0.0)
    above = np.maximum(true - hi, 0.0)
    return _mean((hi - lo) + (2.0 / alpha) * (below + above), mask, axis)


def interval_scores(
    y_true: ArrayLike, y_quantiles: ArrayLike, quantiles: ArrayLike, *, nan_policy: str = "omit"
) -> dict[float, dict[str, float]]:
    """Coverage, mean width and Winkler score of every central interval of a quantile set.

    Levels ``q < 0.5`` and ``1 - q`` form the central interval of nominal coverage
    ``1 - 2q``; levels without their mirror image are skipped.

    Parameters
    ----------
    y_true : array_like
        Actuals.
    y_quantiles : array_like of shape y_true.shape + (Q,)
        Quantile forecasts, levels on the last axis.
    quantiles : sequence of float
        The ``Q`` sorted levels.
    nan_policy : {"omit", "raise", "propagate"}
        As in :func:`coverage`.

    Returns
    -------
    dict
        ``{nominal coverage: {"coverage": ..., "width": ..., "winkler": ...}}``, sorted by
        nominal coverage.

    Examples
    --------
    >>> interval_scores([5.0, 12.0], [[4.0, 7.0, 10.0], [4.0, 7.0, 10.0]], (0.1, 0.5, 0.9))
    {0.8: {'coverage': 0.5, 'width': 6.0, 'winkler': 16.0}}
    """
    true, pred, levels = _levels_and_forecasts(y_true, y_quantiles, quantiles)
    position = {round(float(q), 10): k for k, q in enumerate(levels)}
    out = {}
    for nominal, lo, hi in central_pairs(levels):
        lower, upper = pred[..., position[lo]], pred[..., position[hi]]
        out[nominal] = {
            "coverage": float(coverage(true, lower, upper, nan_policy=nan_policy)),
            "width": float(interval_width(true, lower, upper, nan_policy=nan_policy)),
            "winkler": float(winkler_score(true, lower, upper, nominal, nan_policy=nan_policy)),
        }
    return out
