"""Folders from 0.1.0: the fitted attributes an older saved neural model may lack.

A neural model saved by forecast 0.1.0 stores some resolved options as fitted attributes
and others not: ``input_differences_``, ``train_origins_`` and ``tbptt_steps_`` are always
missing, and folders written before a feature existed also lack its attribute
(``dropout_``, ``horizon_weight_``, ``residual_``, ``difference_``, ``change_scale_``,
``normalize_``, ``season_``, ``skip_``, ``quantiles_``). :func:`fill_0_1_0` fills what is
missing, once, when such a model is loaded (or unpickled), from its saved parameters and
fitted attributes by the rules 0.1.0 applied, frozen here: a saved model never depends on a
rule of the code that loads it (:mod:`forecast.models.auto` may change; this file may not).

======================  ====================================================================
attribute               0.1.0 rule
======================  ====================================================================
``residual_``,          False (saved before residual and difference targets existed)
``difference_``
``season_``             None (no seasonal reference)
``normalize_``,         False (no window normalisation, no linear skip)
``skip_``
``change_scale_``       None (no step changes read or forecast)
``quantiles_``          None (a point head)
``dropout_``            ``dropout``; ``"auto"``: 0.5 with ``residual``, else 0.0
``horizon_weight_``     ``horizon_weight``; ``"auto"``: 1.5 with ``residual_``, else None;
                        as lead weights of mean 1 over ``head_horizon_``
``input_differences_``  ``input_differences``; ``"auto"``: ``residual_`` or ``difference_``,
                        with ``windowing="sliding"``
``train_origins_``      ``train_origins``; ``"auto"``: every ``k``-th step with ``k =
                        ceil(n / 12000)``, ``n`` the training steps (``scaler_``'s samples
                        seen), None when ``k`` is 1 or with ``windowing="tbptt"``
``tbptt_steps_``        ``tbptt_steps`` or ``context_length``
======================  ====================================================================
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from forecast.training.losses import lead_weights

_ABSENT_MEANS = {
    "residual_": False,
    "difference_": False,
    "season_": None,
    "normalize_": False,
    "skip_": False,
    "change_scale_": None,
    "quantiles_": None,
}


def fill_0_1_0(est: Any) -> list[str]:
    """Set the fitted attributes ``est`` lacks by the 0.1.0 rules (see the module's table).

    Parameters
    ----------
    est : NeuralForecaster
        A fitted neural forecaster restored from a folder or a pickle.

    Returns
    -------
    list of str
        The names of the attributes set (empty for a model saved by this version).
    """
    state = vars(est)
    filled = []

    def fill(name: str, value: Any) -> None:
        setattr(est, name, value)
        filled.append(name)

    for name, value in _ABSENT_MEANS.items():
        if name not in state:
            fill(name, value)
    if "dropout_" not in state:
        fill("dropout_", _dropout(est.dropout, est.residual))
    if "horizon_weight_" not in state:
        weight = est.horizon_weight
        if _auto(weight):
            weight = 1.5 if est.residual_ else None
        fill("horizon_weight_", lead_weights(weight, est.head_horizon_))
    if "input_differences_" not in state:
        spec = est.input_differences
        if _auto(spec):
            spec = (est.residual_ or est.difference_) and est.windowing == "sliding"
        fill("input_differences_", bool(spec))
    if "train_origins_" not in state:
        n_steps = int(np.max(est.scaler_.n_samples_seen_))
        fill("train_origins_", _origins(est.train_origins, n_steps, est.windowing))
    if "tbptt_steps_" not in state:
        fill("tbptt_steps_", int(est.tbptt_steps or est.context_length))
    return filled


def _dropout(spec: Any, residual: bool) -> float:
    if _auto(spec):
        return 0.5 if residual else 0.0
    return float(spec)


def _origins(spec: Any, n_steps: int, windowing: str) -> int | tuple[str, ...] | None:
    if _auto(spec):
        stride = -(-n_steps // 12_000)
        return stride if windowing == "sliding" and stride > 1 else None
    if spec is None:
        return None
    if isinstance(spec, numbers.Integral):
        return int(spec)
    return (spec,) if isinstance(spec, str) else tuple(spec)


def _auto(value: Any) -> bool:
    return isinstance(value, str) and value == "auto"
