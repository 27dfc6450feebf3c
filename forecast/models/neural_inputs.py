"""A network's forecast as a differentiable function of its inputs (the neural explanation hook).

:meth:`NeuralForecaster._decompose <forecast.models.neural.NeuralForecaster._decompose>`
answers :func:`forecast.explain` with :func:`differentiable_forecast`: a
:class:`~forecast.frames.decomposition.DifferentiableForecast` whose function maps the
network's inputs of one forecast, the context window ``(L, I)`` (scaled targets, past
covariates, future-known covariates and calendar features of the last ``L`` steps) and the
future-known inputs of the forecast steps ``(H, F)``, to the whole forecast ``(H, C)`` in the
units of the data: the same blocks as :func:`forecast.frames.context.roll_out`, each
block's forecast fed back as the next inputs, then the target scaler undone
(:class:`RolledForecast`). Its baseline is every input at zero (:data:`BASELINE`); the
explanation integrates the gradients along the straight path from there.

Zero in the scaled space is each target's and covariate's training mean; for the calendar
features it is the mean of the sine and cosine over a cycle and "no holiday" for the flags.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from torch import Tensor, nn

from forecast.base import BaseForecaster
from forecast.frames import validation
from forecast.frames.context import context_windows
from forecast.frames.decomposition import (
    LAG,
    PAST,
    DifferentiableForecast,
    Inputs,
    join,
    known_kinds,
    known_names,
)
from forecast.frames.pipeline import check_roll_out
from forecast.frames.quantiles import point_level
from forecast.frames.series import SeriesArrays

#: The baseline input of a network's forecast, as ``explain`` reports it.
BASELINE = (
    "every network input at zero in the scaled space: each target and covariate at its "
    "training mean, calendar sines and cosines at their cycle mean, no holiday"
)


class RolledForecast(nn.Module):
    """The whole forecast of a fitted network, in the units of the data.

    Parameters
    ----------
    net : torch.nn.Module
        The fitted :class:`~forecast.nn.net.ForecastNet` (or ensemble); each forecast runs
        it in eval mode and gives it back in the mode it had.
    horizon, head_horizon : int
        Steps forecast, and steps one pass of ``net`` forecasts.
    mean, scale : Tensor of shape (C,)
        The target scaler (zeros and ones for unscaled targets).
    point : int, optional
        Level fed back and explained for a quantile network (the median).
    """

    def __init__(
        self,
        net: nn.Module,
        horizon: int,
        head_horizon: int,
        mean: Tensor,
        scale: Tensor,
        point: int | None = None,
    ):
        super().__init__()
        self.net, self.horizon, self.head_horizon, self.point = net, horizon, head_horizon, point
        self.mean: Tensor
        self.scale: Tensor
        self.register_buffer("mean", mean)
        self.register_buffer("scale", scale)

    def forward(self, x: Tensor, future: Tensor | None = None) -> Tensor:
        """Forecast ``(B, horizon * C)`` (step-major) from windows ``(B, L, I)``."""
        was_training = self.net.training
        self.net.eval()
        try:
            out = self._roll(x, future)  # (B, H, C)
        finally:
            self.net.train(was_training)
        return (out * self.scale + self.mean).reshape(len(out), -1)

    def _roll(self, x: Tensor, future: Tensor | None) -> Tensor:
        context, blocks, done = x.shape[1], [], 0
        while done < self.horizon:
            f = None
            if future is not None:
                f = future[:, done : done + self.head_horizon]  # (B, <=h_head, F)
                if f.shape[1] < self.head_horizon:  # heads read step j for output j only
                    pad = f[:, -1:].expand(-1, self.head_horizon - f.shape[1], -1)
                    f = torch.cat([f, pad], dim=1)
            pred, _ = self.net(x, f)  # (B, h_head, C) or (B, h_head, C, Q)
            if pred.dim() == 4:
                pred = pred[..., self.point]  # (B, h_head, C)
            take = min(self.head_horizon, self.horizon - done)
            blocks.append(pred[:, :take])
            done += take
            if done < self.horizon:
                fed = pred[:, :take]
                if future is not None:
                    fed = torch.cat([fed, future[:, done - take : done]], dim=-1)  # (B, take, I)
                x = torch.cat([x, fed], dim=1)[:, -context:]
        return torch.cat(blocks, dim=1)


def rolled_forecast(
    model: BaseForecaster, net: nn.Module, horizon: int, head_horizon: int
) -> RolledForecast:
    """Return the :class:`RolledForecast` of ``net`` with the target scaler of ``model``."""
    scaler = model.scaler_
    n_c = len(model.columns_)
    mean = np.zeros(n_c) if scaler is None else scaler.mean_
    scale = np.ones(n_c) if scaler is None else scaler.scale_
    levels = model._quantile_levels()
    return RolledForecast(
        net,
        horizon,
        head_horizon,
        torch.as_tensor(mean, dtype=torch.float32),
        torch.as_tensor(scale, dtype=torch.float32),
        point_level(levels) if levels else None,
    ).to(next(net.parameters()).device)


def network_inputs(
    model: BaseForecaster, s: SeriesArrays, context: int, times: pd.DatetimeIndex
) -> Inputs:
    """Name the window's inputs ``(L, I)`` and then the forecast steps' known inputs ``(H, F)``."""
    past_index = s.index[-context:]
    kinds = [LAG] * len(model.columns_) + [PAST] * len(model.past_covariates_)
    names = list(model.columns_) + list(model.past_covariates_)
    width = 0 if s.future is None else s.future.shape[1]
    future_kinds = known_kinds(model, width)
    kinds, names = kinds + future_kinds, names + known_names(model, past_index, width)
    window = Inputs(
        kind=np.tile(np.asarray(kinds, dtype=object), context),
        name=np.tile(np.asarray(names, dtype=object), context),
        time=past_index.repeat(len(names)),
        step=np.repeat(np.arange(-context + 1, 1), len(names)),
    )
    if not width:
        return window
    known = names[len(names) - width :]
    steps = Inputs(
        kind=np.tile(np.asarray(future_kinds, dtype=object), len(times)),
        name=np.tile(np.asarray(known, dtype=object), len(times)),
        time=times.repeat(width),
        step=np.repeat(np.arange(1, len(times) + 1), width),
    )
    return join([window, steps])


def differentiable_forecast(
    model: BaseForecaster,
    net: nn.Module,
    context: int,
    head_horizon: int,
    s: SeriesArrays,
    horizon: int,
) -> DifferentiableForecast:
    """Return the forecast of ``horizon`` steps from ``s`` as a function of the network's inputs.

    Parameters
    ----------
    model : BaseForecaster
        The fitted neural estimator (its columns, covariates, calendar and target scaler).
    net : torch.nn.Module
        Its fitted network.
    context, head_horizon : int
        Steps of a window, and steps one pass of ``net`` forecasts.
    s : SeriesArrays
        The arrays of the forecast.
    horizon : int
        Steps forecast.

    Raises
    ------
    ValueError
        If the forecast would roll out past covariates
        (:func:`~forecast.frames.pipeline.check_roll_out`).
    """
    check_roll_out(horizon, head_horizon, model.past_covariates_)
    times = validation.future_index(s.index[-1], model.freq_, horizon)
    x_np, f_np = context_windows([s], context, horizon)
    function = rolled_forecast(model, net, horizon, head_horizon)
    device = function.mean.device
    values: tuple[Tensor, ...] = (torch.from_numpy(x_np).to(device),)  # (1, L, I)
    if f_np is not None:
        values = (*values, torch.from_numpy(f_np).to(device))  # (1, H, F)
    names = network_inputs(model, s, context, times)
    return DifferentiableForecast(
        baseline_text=BASELINE,
        function=function,
        values=values,
        baselines=tuple(torch.zeros_like(t) for t in values),
        kind=names.kind,
        name=names.name,
        time=names.time,
        step=names.step,
        shape=(horizon, len(model.columns_)),
    )
