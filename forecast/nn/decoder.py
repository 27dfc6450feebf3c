"""A recurrent decoder head: the horizon rolled out step by step on its own forecasts.

The encoder-decoder of the motion-prediction literature (Martinez et al. 2017, "Res-sup."):
the encoder's summary of the context sets the decoder's initial state; at each horizon step
a GRU cell reads the previous step's value (the last observed one at the first step, then its
own forecast, never the truth: no teacher forcing) and the covariates known for the step, and
a linear map of its state gives the step's value. With ``residual=True`` that map is a change
added to the previous value (the residual connection of Res-sup.).

Outputs are in the units :class:`forecast.nn.net.ForecastNet` expects from a head: with
``residual=True`` offsets from the last observed value (the network's last-value reference adds
it back), otherwise the values themselves.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn


class DecoderHead(nn.Module):
    """GRU decoder over the horizon: (..., H), (..., h, F) and the last value (..., C).

    Parameters
    ----------
    input_size : int
        Width ``H`` of the encoder's summary.
    horizon : int
        Steps decoded.
    n_outputs : int
        Target channels ``C``.
    n_future : int
        Future-known covariates per step ``F`` (0: none).
    residual : bool
        Each step's output is a change added to the previous step's value; the head returns
        the cumulative change from the last observed value.
    """

    decodes = True  # ForecastNet passes the last observed value as ``start``

    def __init__(
        self,
        input_size: int,
        horizon: int,
        n_outputs: int,
        n_future: int = 0,
        residual: bool = True,
    ) -> None:
        super().__init__()
        self.horizon, self.n_outputs, self.n_future = horizon, n_outputs, n_future
        self.residual = bool(residual)
        self.init = nn.Linear(input_size, input_size)
        self.cell = nn.GRUCell(n_outputs + n_future, input_size)
        self.out = nn.Linear(input_size, n_outputs)

    def forward(self, summary: Tensor, future: Tensor | None, start: Tensor) -> Tensor:
        """Decode ``horizon`` steps.

        Parameters
        ----------
        summary : Tensor of shape (B, H)
            The encoder's summary of the context.
        future : Tensor of shape (B, horizon, F) or None
            Future-known covariates of the decoded steps.
        start : Tensor of shape (B, C)
            The last observed value (the first decoder input).

        Returns
        -------
        Tensor of shape (B, horizon, C)
            Offsets from ``start`` (``residual=True``) or values.
        """
        if self.n_future and future is None:
            raise ValueError(f"this head needs future covariates of width {self.n_future}")
        state = torch.tanh(self.init(summary))  # (B, H)
        value, outputs = start, []
        for j in range(self.horizon):
            step = (
                value
                if future is None or not self.n_future
                else torch.cat([value, future[:, j]], dim=-1)
            )
            state = self.cell(step, state)  # (B, H)
            value = value + self.out(state) if self.residual else self.out(state)  # (B, C)
            outputs.append(value)
        out = torch.stack(outputs, dim=1)  # (B, horizon, C)
        return out - start.unsqueeze(1) if self.residual else out
