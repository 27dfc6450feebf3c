"""Gradient-boosted regression trees kept as plain arrays (fitted by scikit-learn, read by numpy).

:func:`fit_trees` fits a :class:`~sklearn.ensemble.HistGradientBoostingRegressor` and copies its
trees into arrays of node fields; :func:`predict_trees` walks those arrays. A saved model then
holds numbers only (it goes through the loader's ``.npz`` of arrays, never a pickle), and
prediction does not need the fitted scikit-learn object.

The trees are read from the regressor's ``_predictors`` (each a ``TreePredictor`` with a
structured ``nodes`` array), scikit-learn's private layout since version 0.21; the tests check
that :func:`predict_trees` equals the regressor's own ``predict``, so a change there fails them.
Only numerical splits are used (no categorical features): a row goes left when its value is at
most the threshold, or when it is missing and the node sends missing values left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

FIELDS = ("feature", "threshold", "left", "right", "value", "leaf", "missing_left")


@dataclass
class Trees:
    """Trees of one boosted model, padded to ``n_trees`` x ``n_nodes``.

    Attributes
    ----------
    feature, left, right : ndarray of int64, shape (T, N)
        Split feature, left and right child of each node.
    threshold, value : ndarray of float64, shape (T, N)
        Split threshold and (leaf) value of each node.
    leaf, missing_left : ndarray of bool, shape (T, N)
        Whether a node is a leaf, whether missing values go left.
    baseline : float
        The model's constant start.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    leaf: np.ndarray
    missing_left: np.ndarray
    baseline: float


def fit_trees(x: np.ndarray, y: np.ndarray, **params: Any) -> Trees:
    """Fit a ``HistGradientBoostingRegressor(**params)`` on ``(x, y)`` and return its trees."""
    from sklearn.ensemble import HistGradientBoostingRegressor  # start-up: ~0.3 s, fit only

    model = HistGradientBoostingRegressor(**params).fit(x, y)
    nodes = [predictors[0].nodes for predictors in model._predictors]
    n_trees = len(nodes)
    n_nodes = max((len(n) for n in nodes), default=1)
    out = {
        "feature": np.zeros((n_trees, n_nodes), np.int64),
        "threshold": np.zeros((n_trees, n_nodes)),
        "left": np.zeros((n_trees, n_nodes), np.int64),
        "right": np.zeros((n_trees, n_nodes), np.int64),
        "value": np.zeros((n_trees, n_nodes)),
        "leaf": np.ones((n_trees, n_nodes), bool),
        "missing_left": np.zeros((n_trees, n_nodes), bool),
    }
    for t, tree in enumerate(nodes):
        k = len(tree)
        out["feature"][t, :k] = tree["feature_idx"]
        out["threshold"][t, :k] = tree["num_threshold"]
        out["left"][t, :k] = tree["left"]
        out["right"][t, :k] = tree["right"]
        out["value"][t, :k] = tree["value"]
        out["leaf"][t, :k] = tree["is_leaf"].astype(bool)
        out["missing_left"][t, :k] = tree["missing_go_to_left"].astype(bool)
    return Trees(**out, baseline=float(np.ravel(model._baseline_prediction)[0]))


def stack(trees: list[Trees]) -> dict[str, np.ndarray]:
    """Pad a list of models to one array per field, shape ``(M, T, N)``, plus ``baseline (M,)``."""
    n_trees = max(t.feature.shape[0] for t in trees)
    n_nodes = max(t.feature.shape[1] for t in trees)
    out = {}
    for name in FIELDS:
        fill = True if name == "leaf" else 0
        first = getattr(trees[0], name)
        arr = np.full((len(trees), n_trees, n_nodes), fill, dtype=first.dtype)
        for m, t in enumerate(trees):
            a = getattr(t, name)
            arr[m, : a.shape[0], : a.shape[1]] = a
        out[name] = arr
    out["baseline"] = np.array([t.baseline for t in trees])
    return out


def predict_trees(arrays: dict[str, np.ndarray], model: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Predict row ``i`` of ``x`` (n, F) with stacked model ``model[i]`` (see :func:`stack`).

    Padded trees are single leaves of value 0, so they add nothing.
    """
    model = np.asarray(model, dtype=np.int64)
    n = len(x)
    n_trees = arrays["feature"].shape[1]
    m = model[:, None]  # (n, 1)
    t = np.arange(n_trees)[None, :]  # (1, T)
    node = np.zeros((n, n_trees), dtype=np.int64)
    rows = np.arange(n)[:, None]
    for _ in range(arrays["feature"].shape[2]):
        leaf = arrays["leaf"][m, t, node]
        if leaf.all():
            break
        values = x[rows, arrays["feature"][m, t, node]]
        missing = np.isnan(values)
        go_left = np.where(
            missing, arrays["missing_left"][m, t, node], values <= arrays["threshold"][m, t, node]
        )
        child = np.where(go_left, arrays["left"][m, t, node], arrays["right"][m, t, node])
        node = np.where(leaf, node, child)
    return arrays["baseline"][model] + arrays["value"][m, t, node].sum(axis=1)
