"""Integrated gradients of a neural forecast, roll-out and inverse scaling included.

The explained function maps the network's inputs of one forecast, the context window
``(L, I)`` (scaled targets, past covariates, future-known covariates and calendar features
of the last ``L`` steps) and the future-known inputs of the forecast steps ``(H, F)``, to the
whole forecast ``(H, C)`` in the units of the data: the same blocks as
:func:`forecast.frames.context.roll_out`, each block's forecast fed back as the next
inputs, then the target scaler undone. Integrated gradients (Captum) integrate its gradient
along the straight path from the baseline, every input at zero, to the actual inputs.

Zero in the scaled space is each target's and covariate's training mean; for the calendar
features it is the mean of the sine and cosine over a cycle and "no holiday" for the flags.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch
from torch import Tensor, nn

from forecast.attribution import inputs as X
from forecast.attribution._captum import captum_attr
from forecast.frames.context import context_windows
from forecast.frames.pipeline import check_roll_out
from forecast.frames.quantiles import point_level
from forecast.frames.series import SeriesArrays
from forecast.models.neural import NeuralForecaster
from forecast.training.threads import torch_threads

#: Windows per pass of the network while integrating (memory bound).
INTERNAL_BATCH = 512


class RolledForecast(nn.Module):
    """The whole forecast of a fitted network, in the units of the data.

    Parameters
    ----------
    net : torch.nn.Module
        The fitted :class:`~forecast.nn.net.ForecastNet` (or ensemble), in eval mode.
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
        out = torch.cat(blocks, dim=1) * self.scale + self.mean  # (B, H, C)
        return out.reshape(len(out), -1)


def _rolled(model: NeuralForecaster, horizon: int, device: torch.device) -> RolledForecast:
    scaler = model.scaler_
    n_c = model.n_outputs_
    mean = np.zeros(n_c) if scaler is None else scaler.mean_
    scale = np.ones(n_c) if scaler is None else scaler.scale_
    levels = model._quantile_levels()
    return RolledForecast(
        model.module_,
        horizon,
        model.head_horizon_,
        torch.as_tensor(mean, dtype=torch.float32),
        torch.as_tensor(scale, dtype=torch.float32),
        point_level(levels) if levels else None,
    ).to(device)


def _inputs(model: NeuralForecaster, s: SeriesArrays, times: pd.DatetimeIndex) -> X.Inputs:
    """Name the window's inputs ``(L, I)`` and then the forecast steps' known inputs ``(H, F)``."""
    context = int(model.context_length)
    past_index = s.index[-context:]
    kinds = [X.LAG] * len(model.columns_) + [X.PAST] * len(model.past_covariates_)
    names = list(model.columns_) + list(model.past_covariates_)
    width = 0 if s.future is None else s.future.shape[1]
    known_kinds = X.known_kinds(model, width)
    kinds, names = kinds + known_kinds, names + X.known_names(model, past_index, width)
    window = X.Inputs(
        kind=np.tile(np.asarray(kinds, dtype=object), context),
        name=np.tile(np.asarray(names, dtype=object), context),
        time=past_index.repeat(len(names)),
        step=np.repeat(np.arange(-context + 1, 1), len(names)),
    )
    if not width:
        return window
    known = names[len(names) - width :]
    steps = X.Inputs(
        kind=np.tile(np.asarray(known_kinds, dtype=object), len(times)),
        name=np.tile(np.asarray(known, dtype=object), len(times)),
        time=times.repeat(width),
        step=np.repeat(np.arange(1, len(times) + 1), width),
    )
    return X.join([window, steps])


@torch_threads()  # the thread policy of every prediction
def explain_neural(
    model: NeuralForecaster, s: SeriesArrays, times: pd.DatetimeIndex, n_steps: int = 64
) -> tuple[X.Inputs, np.ndarray, np.ndarray, np.ndarray]:
    """Integrated gradients of one forecast.

    Returns
    -------
    inputs : Inputs
        The ``G = L * I + H * F`` inputs.
    attributions : ndarray of shape (H, C, G)
    forecast, baseline : ndarray of shape (H, C)
    """
    horizon, n_c = len(times), model.n_outputs_
    check_roll_out(horizon, model.head_horizon_, model.past_covariates_)
    x_np, f_np = context_windows([s], int(model.context_length), horizon)
    device = next(model.module_.parameters()).device
    net = _rolled(model, horizon, device)
    was_training = model.module_.training
    model.module_.eval()
    try:
        x = torch.from_numpy(x_np).to(device)  # (1, L, I)
        inputs: tuple[Tensor, ...] = (x,)
        if f_np is not None:
            inputs = (x, torch.from_numpy(f_np).to(device))  # (1, H, F)
        baselines = tuple(torch.zeros_like(t) for t in inputs)
        outputs = horizon * n_c
        with torch.no_grad():
            forecast = net(*inputs)[0].cpu().numpy().astype(np.float64)
            base = net(*baselines)[0].cpu().numpy().astype(np.float64)
        ig = captum_attr().IntegratedGradients(net)
        batch = tuple(t.expand(outputs, *t.shape[1:]) for t in inputs)
        attr = ig.attribute(
            batch,
            baselines=tuple(b.expand(outputs, *b.shape[1:]) for b in baselines),
            target=list(range(outputs)),
            n_steps=n_steps,
            internal_batch_size=INTERNAL_BATCH,
        )
    finally:
        model.module_.train(was_training)
    flat = np.concatenate([a.detach().cpu().numpy().reshape(outputs, -1) for a in attr], axis=1)
    names = _inputs(model, s, times)
    return (
        names,
        flat.astype(np.float64).reshape(horizon, n_c, -1),
        forecast.reshape(horizon, n_c),
        base.reshape(horizon, n_c),
    )
