"""Per-window normalisation and seasonal references: what a forecast is measured against.

Two small, parameter-free pieces the forecasting network wraps around its encoder and head:

* **Window normalisation** (RevIN-style, Kim et al. 2022, without the affine part): each
  context window's target channels are centred on their own mean and divided by their own
  standard deviation before the encoder reads them, and the forecast is mapped back with the
  same two numbers. A level shift between training and forecasting years (German load fell
  by several percent in 2022-2023) then moves the forecast with it instead of biasing it.
* **Seasonal reference**: the head forecasts the difference to the last observed value at
  the same phase of a season of ``m`` steps (``m = 168``: the same hour last week for hourly
  data), so it learns corrections to a seasonal naive forecast instead of the whole profile.
  For horizon step ``j`` (1-based) the reference is ``y[T - m * ceil(j / m) + j]`` with ``T``
  the last context step, i.e. the most recent observed step congruent to ``T + j`` modulo
  ``m``; it needs ``m <= L``.
* **Step changes**: each context step's change from the step before, divided by a typical
  one-step change per channel, as extra encoder inputs next to the values, so a residual
  network reads velocities at unit scale instead of differencing values that vary far more
  across a window than between two steps.
"""

from __future__ import annotations

import torch
from torch import Tensor

EPS = 1e-5


def window_stats(target: Tensor) -> tuple[Tensor, Tensor]:
    """Level and scale of each window's target channels.

    Parameters
    ----------
    target : Tensor of shape (B, L, C)
        The target channels of the context windows.

    Returns
    -------
    level, scale : Tensors of shape (B, 1, C)
        Mean and standard deviation (population, plus a small epsilon) over the ``L`` steps.
    """
    level = target.mean(dim=1, keepdim=True)  # (B, 1, C)
    var = target.var(dim=1, keepdim=True, unbiased=False)  # (B, 1, C)
    return level, torch.sqrt(var + EPS)


def reference_positions(context: int, horizon: int, season: int) -> Tensor:
    """Context positions of the seasonal reference of each horizon step.

    Parameters
    ----------
    context : int
        Steps in the context window ``L``.
    horizon : int
        Steps forecast ``h``.
    season : int
        Season length ``m`` in steps, ``1 <= m <= L``.

    Returns
    -------
    Tensor of shape (h,), int64
        Position ``p_j`` in ``0 .. L-1`` of the reference of step ``j = 1 .. h``.
    """
    if not 1 <= season <= context:
        raise ValueError(f"a seasonal reference of {season} steps needs context_length >= {season}")
    j = torch.arange(1, horizon + 1)
    back = season * torch.div(j + season - 1, season, rounding_mode="floor")  # m * ceil(j / m)
    return context - 1 + j - back


def seasonal_reference(target: Tensor, horizon: int, season: int) -> Tensor:
    """Return the seasonal naive forecast of each window, ``(B, h, C)``.

    Parameters
    ----------
    target : Tensor of shape (B, L, C)
        The target channels of the context windows.
    horizon : int
        Steps forecast.
    season : int
        Season length in steps (at most ``L``).

    Returns
    -------
    Tensor of shape (B, horizon, C)
    """
    pos = reference_positions(target.shape[1], horizon, season).to(target.device)
    return target[:, pos]  # (B, h, C)


def step_changes(target: Tensor, scale: Tensor) -> Tensor:
    """Each step's change from the step before, divided by a per-channel scale.

    Parameters
    ----------
    target : Tensor of shape (B, L, C)
        The target channels of the context windows.
    scale : Tensor of shape (C,)
        Typical size of a one-step change of each channel (positive).

    Returns
    -------
    Tensor of shape (B, L, C)
        ``(target[:, t] - target[:, t - 1]) / scale`` for ``t >= 1``; zero at ``t = 0``, whose
        step before lies outside the window.
    """
    change = torch.diff(target, dim=1, prepend=target[:, :1])  # (B, L, C), first step 0
    return change / scale
