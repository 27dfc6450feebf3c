"""The arrays of a conformal calibration: sorted scores per group, and their quantiles.

Calibration residuals ``e = y - y_hat`` are grouped by (series, channel, step ahead, hour
of day). A group with too few residuals for the smallest miscoverage falls back to the
(series, channel, step) pool over all hours, then to the (series, channel) pool over all
steps. Each group's scores are kept sorted in one NaN-padded table, so the conformal
quantile at any level is an index lookup; that is what makes the adaptive (ACI) levels,
which change from origin to origin, cheap.

Scores: ``"symmetric"`` sorts ``|e|`` and the interval of miscoverage ``alpha`` is
``y_hat +- s_(k)`` with ``k = ceil((n + 1)(1 - alpha))``; ``"signed"`` sorts ``e`` and the
interval is ``[y_hat + e_(j), y_hat + e_(k)]`` with ``j = floor((n + 1) alpha / 2)`` and
``k = ceil((n + 1)(1 - alpha / 2))`` (split-conformal order statistics, Lei et al. 2018).
Orders outside ``1..n`` are clipped to the extreme score (the finite-sample guarantee would
ask for an infinite bound there), so no interval, adaptive or not, is wider than the largest
calibration residual allows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass
class ScoreTable:
    """Sorted calibration scores and the group of every (series, channel, step, hour).

    Attributes
    ----------
    table : ndarray of shape (G, N)
        Sorted scores of each group, NaN after its ``counts[g]`` entries.
    counts : ndarray of shape (G,)
        Scores per group.
    group : ndarray of shape (K, C, S, D)
        Group of series ``k``, channel ``c``, step ``s + 1`` and hour ``d`` (``D`` is 24, or
        1 without hour groups).
    """

    table: np.ndarray
    counts: np.ndarray
    group: np.ndarray


def min_scores(alphas: Iterable[float], method: str) -> int:
    """Scores a group needs so that the smallest ``alpha`` has an order inside ``1..n``."""
    tail = min(alphas) / (2.0 if method == "signed" else 1.0)
    return max(1, math.ceil(1.0 / tail) - 1)


def build_table(
    residuals: np.ndarray,
    series: np.ndarray,
    channel: np.ndarray,
    step: np.ndarray,
    hour: np.ndarray,
    shape: tuple[int, int, int, int],
    method: str,
    needed: int,
) -> ScoreTable:
    """Group the residuals and sort each group (with the coarser fallbacks).

    Parameters
    ----------
    residuals, series, channel, step, hour : ndarray of shape (n,)
        One entry per calibration value: ``y - y_hat`` and its group coordinates (``step``
        0-based; ``hour`` 0 when there are no hour groups).
    shape : tuple
        ``(K, C, S, D)``.
    method : {"symmetric", "signed"}
        Which scores are kept.
    needed : int
        Fewest scores a group may have before it falls back to a coarser pool.

    Raises
    ------
    ValueError
        If even the (series, channel) pool of some series and channel has fewer than
        ``needed`` scores.
    """
    scores = np.abs(residuals) if method == "symmetric" else np.asarray(residuals, float)
    n_k, n_c, n_s, n_d = shape
    fine = ((series * n_c + channel) * n_s + step) * n_d + hour
    order = np.argsort(fine, kind="stable")
    bounds = np.searchsorted(fine[order], np.arange(n_k * n_c * n_s * n_d + 1))
    groups: list[np.ndarray] = []
    group = np.full(shape, -1, dtype=np.int64)
    for k in range(n_k):
        for c in range(n_c):
            base = (k * n_c + c) * n_s * n_d
            pooled = scores[order[bounds[base] : bounds[base + n_s * n_d]]]
            if len(pooled) < needed:
                raise ValueError(
                    f"calibration left {len(pooled)} residual(s) for series {k} channel {c}; "
                    f"the coverage asked for needs at least {needed}: lengthen calibration or "
                    "lower the coverage"
                )
            pooled_id = None
            for s in range(n_s):
                lo = base + s * n_d
                per_step = scores[order[bounds[lo] : bounds[lo + n_d]]]
                step_id = None
                for d in range(n_d):
                    own = scores[order[bounds[lo + d] : bounds[lo + d + 1]]]
                    if len(own) >= needed and n_d > 1:
                        groups.append(np.sort(own))
                        group[k, c, s, d] = len(groups) - 1
                        continue
                    if len(per_step) >= needed:
                        if step_id is None:
                            groups.append(np.sort(per_step))
                            step_id = len(groups) - 1
                        group[k, c, s, d] = step_id
                        continue
                    if pooled_id is None:
                        groups.append(np.sort(pooled))
                        pooled_id = len(groups) - 1
                    group[k, c, s, d] = pooled_id
    width = max(len(g) for g in groups)
    table = np.full((len(groups), width), np.nan)
    for i, g in enumerate(groups):
        table[i, : len(g)] = g
    counts = np.array([len(g) for g in groups], dtype=np.int64)
    return ScoreTable(table=table, counts=counts, group=group)


def _order_stat(table: ScoreTable, g: np.ndarray, rank: np.ndarray) -> np.ndarray:
    n = table.counts[g]
    return table.table[g, np.clip(rank, 1, n) - 1]


def bounds(
    table: ScoreTable, g: np.ndarray, alpha: np.ndarray, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """Offsets ``(low, high)`` to add to the point forecast, for groups ``g`` and ``alpha``.

    ``g`` and ``alpha`` broadcast together; the result has their common shape.
    """
    n = table.counts[g].astype(float)
    if method == "symmetric":
        rank = np.ceil((n + 1.0) * (1.0 - alpha)).astype(np.int64)
        high = _order_stat(table, g, rank)
        return -high, high
    low = _order_stat(table, g, np.floor((n + 1.0) * alpha / 2.0).astype(np.int64))
    high = _order_stat(table, g, np.ceil((n + 1.0) * (1.0 - alpha / 2.0)).astype(np.int64))
    return low, high


def aci_path(
    table: ScoreTable,
    groups: np.ndarray,
    truth: np.ndarray,
    values: np.ndarray,
    horizon: int,
    alphas: np.ndarray,
    gamma: float,
    method: str,
) -> np.ndarray:
    """Adaptive conformal levels (Gibbs & Candes 2021) along a sequence of forecasts.

    After forecast ``j`` is observed, ``alpha <- alpha + gamma * (alpha_0 - miss_j)`` for
    each nominal ``alpha_0``, ``miss_j`` the fraction of its observed values outside its
    interval at the current ``alpha``.

    Parameters
    ----------
    table : ScoreTable
        The calibration.
    groups, truth, values : ndarray of shape (C, J * horizon)
        Group, actual and point forecast of every value of the ``J`` forecasts, forecast by
        forecast (NaN actuals are not counted).
    horizon : int
        Values per forecast.
    alphas : ndarray of shape (L,)
        Nominal miscoverage levels.
    gamma : float
        Step size.
    method : {"symmetric", "signed"}
        Scores of ``table``.

    Returns
    -------
    ndarray of shape (J + 1, L)
        Row ``j``: the levels after ``j`` forecasts were observed.
    """
    n_forecasts = groups.shape[1] // horizon
    path = np.empty((n_forecasts + 1, len(alphas)))
    path[0] = alpha = np.array(alphas, dtype=float)
    for j in range(n_forecasts):
        rows = slice(j * horizon, (j + 1) * horizon)
        y, f = truth[:, rows], values[:, rows]  # (C, h)
        seen = np.isfinite(y)
        for i in range(len(alphas)):
            low, high = bounds(table, groups[:, rows], np.asarray(alpha[i]), method)
            miss = ((y < f + low) | (y > f + high))[seen]
            if miss.size:
                alpha[i] += gamma * (alphas[i] - miss.mean())
        path[j + 1] = alpha
    return path
