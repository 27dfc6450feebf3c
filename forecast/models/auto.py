"""What the "auto" parameters of the neural forecasters resolve to, in one place.

:func:`resolve_auto` runs once in ``fit``; the estimator stores its answer as fitted
attributes (``dropout_``, ``horizon_weight_``, ``input_differences_``, ``normalize_``,
``skip_``, ``train_origins_``, ``tbptt_steps_``) and everything later (building the
network, predicting, saving and loading) reads those, never the rule again. A setting given
explicitly is kept as given.

It implements the resolution table of :mod:`forecast.models.neural_params` (the
parameter table's docstring); the two change together.

:data:`MOTION_PRESET` writes the motion column out: ``GRUForecaster(**MOTION_PRESET)`` is
``GRUForecaster(residual=True)`` with every setting that ``residual=True`` switches spelled
out (the same network and forecasts).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from forecast.frames.positions import check_position_columns
from forecast.training.losses import lead_weights

AUTO_ORIGINS = 12_000
"""With ``train_origins="auto"``, at most this many steps (over all series) end a window."""

AUTO_RESIDUAL_DROPOUT = 0.5
"""What ``dropout="auto"`` resolves to with ``residual=True`` (else 0)."""

AUTO_RESIDUAL_HORIZON_WEIGHT = 1.5
"""What ``horizon_weight="auto"`` resolves to with ``residual=True`` (else None)."""

MOTION_PRESET = {
    "residual": True,
    "dropout": AUTO_RESIDUAL_DROPOUT,
    "horizon_weight": AUTO_RESIDUAL_HORIZON_WEIGHT,
    "input_differences": True,
    "normalization": "window",
    "linear_skip": True,
}
"""``residual=True`` and what its "auto" parameters resolve to with sliding windows."""


@dataclass(frozen=True)
class Resolved:
    """The "auto" parameters of one fit, resolved (stored as the fitted attributes named)."""

    dropout: float  # dropout_
    horizon_weight: np.ndarray | None  # horizon_weight_, mean 1 over the head's leads
    input_differences: bool  # input_differences_
    normalize: bool  # normalize_ (normalization == "window")
    linear_skip: bool  # skip_
    train_origins: int | tuple[str, ...] | None  # train_origins_
    tbptt_steps: int  # tbptt_steps_


def resolve_auto(params: Mapping[str, Any], *, n_steps: int, head_horizon: int) -> Resolved:
    """Resolve every "auto" of a neural forecaster's parameters (table: ``neural_params``).

    Parameters
    ----------
    params : mapping
        The estimator's ``get_params()``, checked.
    n_steps : int
        Steps of the training series, all series together.
    head_horizon : int
        Leads the head forecasts at once (1 with ``strategy="recursive"``).

    Returns
    -------
    Resolved
    """
    sliding = params["windowing"] == "sliding"
    residual = bool(params["residual"])
    difference = params["target_transform"] == "difference"
    dropout = params["dropout"]
    if _auto(dropout):
        dropout = AUTO_RESIDUAL_DROPOUT if residual else 0.0
    weight = params["horizon_weight"]
    if _auto(weight):
        weight = AUTO_RESIDUAL_HORIZON_WEIGHT if residual else None
    differences = params["input_differences"]
    if _auto(differences):
        differences = (residual or difference) and sliding
    windows = sliding and not difference  # window normalisation and skip by default
    normalization = params["normalization"]
    skip = params["linear_skip"]
    return Resolved(
        dropout=float(dropout),
        horizon_weight=lead_weights(weight, head_horizon),
        input_differences=bool(differences),
        normalize=(windows if _auto(normalization) else normalization == "window"),
        linear_skip=windows if _auto(skip) else bool(skip),
        train_origins=resolve_origins(params["train_origins"], n_steps, sliding),
        tbptt_steps=int(params["tbptt_steps"] or params["context_length"]),
    )


def resolve_origins(spec: Any, n_steps: int, sliding: bool) -> int | tuple[str, ...] | None:
    """Resolve ``train_origins``: None (every step), a stride, or local clock times.

    ``"auto"``: every ``k``-th step with ``k = ceil(n_steps / AUTO_ORIGINS)`` for sliding
    windows (None while ``k`` is 1), None for truncated-BPTT streams. A clock time or a list
    of them becomes a tuple of ``"HH:MM"``; None and ints stay.
    """
    if _auto(spec):
        stride = -(-n_steps // AUTO_ORIGINS)
        return stride if sliding and stride > 1 else None
    if spec is None:
        return None
    if isinstance(spec, numbers.Integral):
        return int(spec)
    return (spec,) if isinstance(spec, str) else tuple(spec)


def _auto(value: Any) -> bool:
    return isinstance(value, str) and value == "auto"


def channel_weights(
    spec: Any, scale: np.ndarray | None, n_targets: int, power: int
) -> np.ndarray | None:
    """Resolve ``channel_weight`` into one weight per target channel of mean 1 (or None).

    Parameters
    ----------
    spec : None, "scale" or sequence of float
        The parameter (checked).
    scale : ndarray of shape (n_targets,) or None
        Training standard deviation of each target channel (None: targets not scaled).
    n_targets : int
        Target channels.
    power : int
        Exponent of the scale with ``"scale"``: 2 for a squared-error loss, 1 otherwise.

    Returns
    -------
    ndarray of shape (n_targets,) or None
    """
    if spec is None:
        return None
    if isinstance(spec, str):
        weights = np.ones(n_targets) if scale is None else np.asarray(scale, float) ** power
    else:
        weights = np.asarray(spec, dtype=float).reshape(-1)
        if len(weights) != n_targets:
            raise ValueError(
                f"channel_weight has {len(weights)} weight(s) for {n_targets} target column(s)"
            )
    return weights / weights.mean()


def position_weights(est: Any, scale: np.ndarray | None) -> np.ndarray:
    """Resolve the channel weights of ``loss="position"``: each channel's scale to data units.

    The position loss takes the norm of each joint's (x, y, z) error in the data's units, so
    each channel's scaled error is multiplied by that channel's training standard deviation
    (1 when the targets are not scaled) before the norm; the weights are not normalised.

    Parameters
    ----------
    est : NeuralForecaster
        Being fitted: ``columns_`` (the targets), ``channel_weight`` (must be None) and
        ``n_outputs_`` are read.
    scale : ndarray of shape (n_targets,) or None
        Training standard deviation of each target channel.

    Returns
    -------
    ndarray of shape (n_outputs_,)

    Raises
    ------
    ValueError
        When the targets are not ``<joint>_pos_x/y/z`` triples (the message names the
        column) or a ``channel_weight`` is given.
    """
    if est.channel_weight is not None:
        raise ValueError(
            f"channel_weight={est.channel_weight!r} does not combine with loss='position', "
            "which weighs every joint alike in the data's units: leave channel_weight=None"
        )
    check_position_columns(list(est.columns_), "loss='position': the target columns")
    if scale is None:
        return np.ones(est.n_outputs_)
    return np.asarray(scale, dtype=float).copy()
