"""Training losses of the neural forecasters: point, pinball, step-change, lead-weighted.

Every loss is ``loss(pred, target, mask)``, a mean over the elements of a batch; ``mask``
``(B, k)`` marks the chunk steps of truncated-BPTT streams that carry a loss. The lead axis
(the horizon step of each forecast) is the second last of a point forecast ``(..., h, C)``
and the third last of a quantile forecast ``(..., h, C, Q)``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor


def masked_mean(err: Tensor, mask: Tensor | None = None, weight: Tensor | None = None) -> Tensor:
    """Mean of elementwise losses; with ``mask`` (B, k) only unmasked chunk steps count.

    ``weight``, broadcastable to ``err``, multiplies each element first (weights of mean 1
    keep the loss on the scale of the unweighted one).
    """
    if weight is not None:
        err = err * weight
    if mask is None:
        return torch.mean(err)
    keep = mask.to(err.dtype).view(*mask.shape, *([1] * (err.dim() - mask.dim())))
    per_step = err[0, 0].numel()
    return (err * keep).sum() / (keep.sum() * per_step).clamp_min(1.0)


def masked_mse(
    pred: Tensor, target: Tensor, mask: Tensor | None = None, weight: Tensor | None = None
) -> Tensor:
    """Mean squared error; with ``mask`` (B, k) only unmasked chunk steps count."""
    return masked_mean((pred - target) ** 2, mask, weight)


def masked_mae(
    pred: Tensor, target: Tensor, mask: Tensor | None = None, weight: Tensor | None = None
) -> Tensor:
    """Mean absolute error; with ``mask`` (B, k) only unmasked chunk steps count."""
    return masked_mean((pred - target).abs(), mask, weight)


def masked_position(
    pred: Tensor, target: Tensor, mask: Tensor | None = None, weight: Tensor | None = None
) -> Tensor:
    """Mean per-joint position error: the Euclidean norm of each (x, y, z) triple's error.

    The channels (last axis, ``3 * J``) are the joints' x, y and z in turn. ``weight``
    multiplies each element of the error before the norm: per channel, the factor that turns
    the scaled targets back into the data's units (the same for the three axes of a joint,
    so the distance is that of the data), times a weight per lead (which then weighs the
    distance). The mean is over joints, steps and windows (``mask`` as in
    :func:`masked_mean`): the "MPJPE" of the motion-prediction literature.
    """
    err = pred - target
    if weight is not None:
        err = err * weight
    if err.shape[-1] % 3:
        raise ValueError(f"a position loss needs (x, y, z) triples: {err.shape[-1]} channels")
    dist = torch.linalg.vector_norm(err.unflatten(-1, (-1, 3)), dim=-1)  # (..., J)
    return masked_mean(dist, mask)


# Point losses by name (the ``loss`` parameter of the neural estimators).
LOSSES = {"mse": masked_mse, "mae": masked_mae, "position": masked_position}


class PinballLoss:
    """Pinball loss averaged over quantile levels: ``pred`` (..., C, Q), ``target`` (..., C).

    Parameters
    ----------
    quantiles : sequence of float
        The levels of the last axis of ``pred``.
    """

    def __init__(self, quantiles: Sequence[float]) -> None:
        self.levels = torch.tensor([float(q) for q in quantiles])

    def __call__(
        self, pred: Tensor, target: Tensor, mask: Tensor | None = None, weight: Tensor | None = None
    ) -> Tensor:
        """Masked mean pinball loss (``mask`` and ``weight`` as in :func:`masked_mean`)."""
        levels = self.levels.to(device=pred.device, dtype=pred.dtype)
        diff = target.unsqueeze(-1) - pred  # (..., C, Q)
        return masked_mean(torch.maximum(levels * diff, (levels - 1.0) * diff), mask, weight)


class StepChangeLoss:
    """A point loss of the forecast's step changes instead of its values.

    The change of horizon step ``k`` is ``y[k] - y[k - 1]``, with ``y[0]`` the last observed
    value, which forecast and target share; so the error of the changes is the step change
    of the error, ``e[k] - e[k - 1]`` with ``e[0] = 0``, divided by ``scale`` per channel.
    ``pred`` and ``target`` are ``(..., horizon, C)``.

    Parameters
    ----------
    base : callable
        ``base(pred, target, mask, weight)``, one of :data:`LOSSES`.
    scale : sequence of float
        Typical size of a one-step change per channel (positive).
    """

    def __init__(self, base: Callable[..., Tensor], scale: Sequence[float]) -> None:
        self.base = base
        self.scale = torch.as_tensor([float(s) for s in scale])

    def __call__(
        self, pred: Tensor, target: Tensor, mask: Tensor | None = None, weight: Tensor | None = None
    ) -> Tensor:
        """Loss of the scaled step changes (``mask`` and ``weight`` as in :func:`masked_mean`)."""
        scale = self.scale.to(device=pred.device, dtype=pred.dtype)
        err = pred - target  # (..., h, C)
        change = torch.diff(err, dim=-2, prepend=torch.zeros_like(err[..., :1, :])) / scale
        return self.base(change, torch.zeros_like(change), mask, weight)


class VelocityLoss:
    """A point loss plus ``weight`` times the same loss of the forecast's step changes.

    The velocity term is that of :class:`StepChangeLoss`: the step change of the error,
    ``e[k] - e[k - 1]`` with ``e[0] = 0`` (forecast and target share the last observed
    value), divided by ``scale`` per channel; it penalises a forecast that has the right
    positions on average but the wrong speed or jitter (the velocity loss of the
    motion-prediction literature). ``pred`` and ``target`` are ``(..., horizon, C)``.

    Parameters
    ----------
    base : callable
        ``base(pred, target, mask, weight)``, one of :data:`LOSSES`.
    weight : float
        Weight of the velocity term (> 0).
    scale : sequence of float
        Typical size of a one-step change per channel (positive).
    """

    def __init__(self, base: Callable[..., Tensor], weight: float, scale: Sequence[float]) -> None:
        self.base = base
        self.weight = float(weight)
        self.changes = StepChangeLoss(base, scale)

    def __call__(
        self, pred: Tensor, target: Tensor, mask: Tensor | None = None, weight: Tensor | None = None
    ) -> Tensor:
        """Loss of the values plus the weighted loss of their step changes."""
        values = self.base(pred, target, mask, weight)
        return values + self.weight * self.changes(pred, target, mask, weight)


class LeadWeightedLoss:
    """A loss whose elements at forecast lead ``k`` and channel ``c`` are weighted.

    Each element is multiplied by ``weights[k] * channels[c]`` (either factor 1 when not
    given).

    Parameters
    ----------
    base : callable
        ``base(pred, target, mask, weight)``: a point, pinball or step-change loss.
    weights : sequence of float or None
        One non-negative weight per lead (mean 1 keeps the loss's scale).
    lead_axis : int
        Axis of ``pred`` that holds the leads: -2 for point forecasts ``(..., h, C)``, -3
        for quantile forecasts ``(..., h, C, Q)``; the channels are the axis after it.
    channels : sequence of float, optional
        One non-negative weight per target channel (mean 1 keeps the loss's scale).
    """

    def __init__(
        self,
        base: Callable[..., Tensor],
        weights: Sequence[float] | None,
        lead_axis: int = -2,
        channels: Sequence[float] | None = None,
    ) -> None:
        self.base = base
        self.weights = None if weights is None else torch.as_tensor([float(w) for w in weights])
        self.channels = None if channels is None else torch.as_tensor([float(w) for w in channels])
        self.lead_axis = int(lead_axis)

    def __call__(self, pred: Tensor, target: Tensor, mask: Tensor | None = None) -> Tensor:
        """Return the base loss with each element weighted (``mask`` as in ``base``)."""
        weight = None
        for axis, factor in ((self.lead_axis, self.weights), (self.lead_axis + 1, self.channels)):
            if factor is None:
                continue
            shape = [1] * pred.dim()
            shape[axis] = -1
            term = factor.to(device=pred.device, dtype=pred.dtype).view(shape)
            weight = term if weight is None else weight * term
        return self.base(pred, target, mask, weight)


def lead_weights(spec: object, horizon: int, name: str = "horizon_weight") -> np.ndarray | None:
    """Resolve a lead weighting into ``horizon`` weights of mean 1 (None: every lead alike).

    Parameters
    ----------
    spec : None, float or sequence of float
        None: equal weights. A number ``p >= 0``: lead ``k`` (1-based) weighs ``k ** -p``, so
        near leads weigh more (``p = 1``: in proportion to ``1 / k``). A sequence: one
        non-negative weight per lead, not all zero.
    horizon : int
        Leads of the forecast the loss reads.
    name : str
        Parameter name used in error messages.

    Returns
    -------
    ndarray of shape (horizon,) or None
    """
    if spec is None:
        return None
    if isinstance(spec, numbers.Real) and not isinstance(spec, bool):
        power = float(spec)
        if not (np.isfinite(power) and power >= 0):
            raise ValueError(f"{name}={spec!r}: a decay exponent must be a finite number >= 0")
        weights = np.arange(1, horizon + 1, dtype=float) ** -power
    elif isinstance(spec, Sequence | np.ndarray) and not isinstance(spec, str):
        try:
            weights = np.asarray(spec, dtype=float).reshape(-1)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name} must hold numbers, got {spec!r}") from err
        if len(weights) != horizon:
            raise ValueError(
                f"{name} has {len(weights)} weight(s); the network forecasts {horizon} "
                f"lead(s), one weight each"
            )
        bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
        if len(bad):
            raise ValueError(
                f"{name} must be finite and >= 0: lead {bad[0] + 1} has {float(weights[bad[0]])}"
            )
        if not weights.sum() > 0:
            raise ValueError(f"{name} must not be all zero")
    else:
        raise ValueError(
            f"{name} must be 'auto', None, a decay exponent >= 0 or one weight per lead, "
            f"got {spec!r}"
        )
    return weights / weights.mean()


def training_loss(
    quantiles: Sequence[float] | None,
    loss: str = "mse",
    step_scale: Sequence[float] | None = None,
    lead_weight: Sequence[float] | None = None,
    velocity: tuple[float, Sequence[float]] | None = None,
    channel_weight: Sequence[float] | None = None,
) -> Callable[..., Tensor]:
    """Return the training loss: the pinball loss of ``quantiles``, else ``LOSSES[loss]``.

    With ``step_scale`` (per channel) the point loss reads the forecast's step changes
    (:class:`StepChangeLoss`); with ``velocity``, a weight and a scale per channel, the
    point loss adds that of the step changes (:class:`VelocityLoss`); with ``lead_weight``
    (one weight per lead) and ``channel_weight`` (one per target channel) each lead's and
    channel's elements are weighted (:class:`LeadWeightedLoss`).
    """
    base: Callable[..., Tensor]
    moves = velocity is not None and velocity[0] > 0
    if quantiles:
        if moves:
            raise ValueError("the velocity term is for point forecasts, not quantiles")
        base = PinballLoss(quantiles)
    elif loss not in LOSSES:
        raise ValueError(f"loss must be one of {tuple(LOSSES)}, got {loss!r}")
    else:
        if loss == "position" and step_scale is not None:
            raise ValueError("the position loss is of positions, not of their step changes")
        base = LOSSES[loss] if step_scale is None else StepChangeLoss(LOSSES[loss], step_scale)
        if moves and velocity is not None:
            if step_scale is not None:
                raise ValueError("a loss of step changes has no separate velocity term")
            weight, scale = velocity
            if loss == "position":  # changes of positions in the data's units, as the values
                scale = [1.0] * len(scale)
            base = VelocityLoss(base, weight, scale)
    if lead_weight is None and channel_weight is None:
        return base
    axis = -3 if quantiles else -2
    return LeadWeightedLoss(base, lead_weight, lead_axis=axis, channels=channel_weight)
