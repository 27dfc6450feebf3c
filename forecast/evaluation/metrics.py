"""Forecast accuracy metrics as plain numpy functions.

Every point metric takes ``y_true`` and ``y_pred`` of the same shape and reduces over
``axis`` (``None``: all axes, giving a float). Arrays of forecasts are laid out
``(n_forecasts, horizon)`` or ``(n_forecasts, horizon, channels)``; :func:`by_horizon` turns
any metric into one value per horizon step.

Missing values
    ``nan_policy="omit"`` (default) drops every pair in which ``y_true`` or ``y_pred`` is
    NaN; a reduction over nothing gives NaN. ``"raise"`` raises a ``ValueError`` naming the
    first NaN; ``"propagate"`` lets NaN through.
Zero denominators
    :func:`mape` raises on a zero actual (``zero_actual="raise"``) unless asked to drop
    those pairs (``zero_actual="omit"``); silently dropping them would flatter a forecast.
    :func:`smape` counts a pair where actual and forecast are both zero as a perfect 0.
    :func:`mase` raises when the in-sample seasonal naive error is zero.

Quantile and interval forecasts
    :func:`pinball_loss`, :func:`crps` (from a set of quantiles), :func:`coverage`,
    :func:`interval_width`, :func:`winkler_score` and :func:`interval_scores` (all of them
    per nominal level) score forecasts with a trailing axis of quantile levels or pairs of
    interval bounds; they follow the same NaN policy.

Percentages (:func:`mape`, :func:`smape`) are in percent. :func:`bias` is
``mean(y_pred - y_true)``: positive means over-forecasting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from forecast.datasets.rotations import expmap_to_euler
from forecast.evaluation.interval_metrics import (  # noqa: F401  (public here)
    coverage,
    crps,
    interval_scores,
    interval_width,
    pinball_loss,
    winkler_score,
)
from forecast.evaluation.nan_policy import NAN_POLICIES, Axis, _first, _mean, _pairs, _same_shape  # noqa: F401


def mse(
    y_true: ArrayLike, y_pred: ArrayLike, *, axis: Axis = None, nan_policy: str = "omit"
) -> float | np.ndarray:
    """Mean squared error.

    Parameters
    ----------
    y_true, y_pred : array_like
        Actuals and forecasts of the same shape.
    axis : int or tuple of int, optional
        Axes to average over; None averages everything.
    nan_policy : {"omit", "raise", "propagate"}
        Treatment of NaN pairs (see the module docstring).

    Returns
    -------
    float or ndarray
    """
    t, p, mask = _pairs(y_true, y_pred, nan_policy)
    return _mean((p - t) ** 2, mask, axis)


def rmse(
    y_true: ArrayLike, y_pred: ArrayLike, *, axis: Axis = None, nan_policy: str = "omit"
) -> float | np.ndarray:
    """Root mean squared error: the square root of :func:`mse` over the same axes."""
    return np.sqrt(mse(y_true, y_pred, axis=axis, nan_policy=nan_policy))


def mae(
    y_true: ArrayLike, y_pred: ArrayLike, *, axis: Axis = None, nan_policy: str = "omit"
) -> float | np.ndarray:
    """Mean absolute error (parameters as in :func:`mse`)."""
    t, p, mask = _pairs(y_true, y_pred, nan_policy)
    return _mean(np.abs(p - t), mask, axis)


def bias(
    y_true: ArrayLike, y_pred: ArrayLike, *, axis: Axis = None, nan_policy: str = "omit"
) -> float | np.ndarray:
    """Mean error ``mean(y_pred - y_true)``; positive when forecasts are too high."""
    t, p, mask = _pairs(y_true, y_pred, nan_policy)
    return _mean(p - t, mask, axis)


def mape(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    axis: Axis = None,
    nan_policy: str = "omit",
    zero_actual: str = "raise",
) -> float | np.ndarray:
    """Mean absolute percentage error, ``100 * mean(|y_pred - y_true| / |y_true|)``.

    Parameters
    ----------
    y_true, y_pred : array_like
        Actuals and forecasts of the same shape.
    axis : int or tuple of int, optional
        Axes to average over; None averages everything.
    nan_policy : {"omit", "raise", "propagate"}
        Treatment of NaN pairs.
    zero_actual : {"raise", "omit"}
        A zero actual makes the ratio undefined: raise a ``ValueError`` naming it, or drop
        those pairs from the mean.

    Returns
    -------
    float or ndarray
        In percent.
    """
    if zero_actual not in ("raise", "omit"):
        raise ValueError(f"zero_actual must be 'raise' or 'omit', got {zero_actual!r}")
    t, p, mask = _pairs(y_true, y_pred, nan_policy)
    zero = (t == 0) & mask
    if zero.any():
        if zero_actual == "raise":
            where = _first(zero)
            raise ValueError(
                f"MAPE is undefined: y_true is 0 at index {where} ({int(zero.sum())} zero "
                "actual(s)); pass zero_actual='omit' to drop them, or use smape/mae"
            )
        mask = mask & ~zero
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(p - t) / np.abs(t)
    return 100.0 * _mean(ratio, mask, axis)


def smape(
    y_true: ArrayLike, y_pred: ArrayLike, *, axis: Axis = None, nan_policy: str = "omit"
) -> float | np.ndarray:
    """Symmetric MAPE, ``100 * mean(2 |y_pred - y_true| / (|y_true| + |y_pred|))``.

    Bounded by 200; a pair with both values 0 counts as 0 (a perfect forecast). Parameters
    as in :func:`mse`.
    """
    t, p, mask = _pairs(y_true, y_pred, nan_policy)
    denom = np.abs(t) + np.abs(p)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(denom > 0, 2.0 * np.abs(p - t) / np.where(denom > 0, denom, 1.0), 0.0)
    ratio = np.where(np.isnan(denom), np.nan, ratio)  # keep NaN for "propagate"
    return 100.0 * _mean(ratio, mask, axis)


def mase(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    y_train: ArrayLike,
    *,
    m: int = 1,
    axis: Axis = None,
    nan_policy: str = "omit",
) -> float | np.ndarray:
    """Mean absolute scaled error: MAE divided by the in-sample seasonal naive MAE.

    The scale is ``mean(|y_train[t] - y_train[t - m]|)`` over the training series (time on
    axis 0; NaN differences skipped), one value per channel when ``y_train`` is
    ``(T, channels)``. It broadcasts against the trailing axes of ``y_true``.

    Parameters
    ----------
    y_true, y_pred : array_like
        Actuals and forecasts of the same shape.
    y_train : array_like of shape (T,) or (T, channels)
        In-sample history the scale is computed on.
    m : int, default=1
        Seasonal lag of the naive scale (1: naive; 24 for hourly data with a daily cycle).
    axis : int or tuple of int, optional
        Axes to average over; None averages everything.
    nan_policy : {"omit", "raise", "propagate"}
        Treatment of NaN pairs in ``y_true``/``y_pred``.

    Returns
    -------
    float or ndarray
    """
    train = np.asarray(y_train, dtype=float)
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 1:
        raise ValueError(f"m must be a positive int, got {m!r}")
    if train.ndim == 0 or len(train) <= m:
        raise ValueError(f"y_train needs more than m={m} rows, got shape {train.shape}")
    diffs = np.abs(train[m:] - train[:-m])
    if np.isnan(diffs).all(axis=0).any():
        raise ValueError(f"y_train has no pair of non-NaN values {m} step(s) apart")
    scale = np.nanmean(diffs, axis=0)
    if np.any(scale == 0):
        raise ValueError(
            f"MASE is undefined: the in-sample naive error at lag m={m} is 0 "
            f"(y_train is periodic/constant) for channel(s) {np.flatnonzero(scale == 0).tolist()}"
        )
    t, p, mask = _pairs(y_true, y_pred, nan_policy)
    return _mean(np.abs(p - t) / scale, mask, axis)


def by_horizon(
    metric: Callable[..., Any],
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    per_channel: bool = False,
    **kwargs: Any,
) -> np.ndarray:
    """Evaluate ``metric`` separately for each horizon step.

    Parameters
    ----------
    metric : callable
        One of this module's metrics (anything accepting ``axis=``).
    y_true, y_pred : array_like of shape (n_forecasts, horizon) or (n_forecasts, horizon, C)
        Forecasts stacked by origin.
    per_channel : bool, default=False
        Keep the channel axis instead of averaging over it.
    **kwargs
        Passed to ``metric`` (e.g. ``y_train`` and ``m`` for :func:`mase`).

    Returns
    -------
    ndarray of shape (horizon,) or (horizon, C)

    Examples
    --------
    >>> import numpy as np
    >>> y_true = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> y_pred = np.array([[1.0, 3.0], [2.0, 6.0]])
    >>> by_horizon(mae, y_true, y_pred).tolist()
    [0.5, 1.5]
    """
    ndim = np.ndim(y_true)
    if ndim not in (2, 3):
        raise ValueError(
            "by_horizon needs arrays shaped (n_forecasts, horizon) or (n_forecasts, horizon, "
            f"channels), got {ndim} dimension(s)"
        )
    axis = 0 if (ndim == 2 or per_channel) else (0, 2)
    return np.asarray(metric(y_true, y_pred, axis=axis, **kwargs))


def euler_angle_error(
    expmap_true: ArrayLike,
    expmap_pred: ArrayLike,
    *,
    skip_dims: int = 6,
    std_threshold: float | None = 1e-4,
) -> np.ndarray:
    """Euler-angle error per frame, as in the human-motion-prediction literature.

    Every exponential-map triple is converted to Euler angles (the benchmark's
    ``rotmat2euler`` convention, :mod:`forecast.datasets.rotations`). The first
    ``skip_dims`` entries (global translation and rotation) are ignored, and so are the
    dimensions whose ground-truth Euler angle barely moves within the sequence (standard
    deviation over its frames at most ``std_threshold``), as the benchmark code does. Each
    frame's error is the Euclidean norm of the Euler-angle difference; it is averaged over
    sequences.

    Parameters
    ----------
    expmap_true, expmap_pred : array_like of shape (n_sequences, n_frames, D) or (n_frames, D)
        Exponential maps, ``D`` a multiple of 3 (one triple per joint).
    skip_dims : int, default=6
        Leading dimensions excluded from the error.
    std_threshold : float or None, default=1e-4
        Per-sequence filter of near-constant dimensions; None keeps all.

    Returns
    -------
    ndarray of shape (n_frames,)
        Mean error per predicted frame, in radians.
    """
    true, pred = _same_shape(expmap_true, expmap_pred, ("expmap_true", "expmap_pred"))
    if true.ndim == 2:
        true, pred = true[None], pred[None]
    if true.ndim != 3 or true.shape[-1] % 3:
        raise ValueError(
            "expected arrays (n_sequences, n_frames, D) or (n_frames, D) with D a multiple of 3, "
            f"got shape {np.shape(expmap_true)}"
        )
    n_seq, n_frames, dims = true.shape
    euler_true = expmap_to_euler(true.reshape(n_seq, n_frames, dims // 3, 3)).reshape(true.shape)
    euler_pred = expmap_to_euler(pred.reshape(n_seq, n_frames, dims // 3, 3)).reshape(true.shape)
    use = np.ones((n_seq, 1, dims), bool)  # (S, 1, D)
    use[..., :skip_dims] = False
    if std_threshold is not None:
        use &= euler_true.std(axis=1, keepdims=True) > std_threshold
    squared = np.where(use, (euler_pred - euler_true) ** 2, 0.0)  # (S, F, D)
    return np.sqrt(squared.sum(axis=-1)).mean(axis=0)  # (F,)
