"""An ensemble of forecasting networks whose forecasts are averaged.

Members are trained one after the other (each with its own seed) by the ordinary training
loop; the ensemble only exists to forecast and to be saved as one module.
"""

from __future__ import annotations

from typing import cast

import torch
from torch import Tensor, nn


class EnsembleNet(nn.Module):
    """Average the forecasts of several :class:`~forecast.nn.net.ForecastNet` members.

    Parameters
    ----------
    members : sequence of torch.nn.Module
        Networks with ``forward(x, future, state) -> (forecast, state)`` and the same output
        shape.
    """

    def __init__(self, members: list[nn.Module]) -> None:
        super().__init__()
        if not members:
            raise ValueError("an ensemble needs at least one member")
        self.members = nn.ModuleList(members)

    @property
    def encoder(self) -> nn.Module:
        """The first member's encoder (for diagnostics such as attention weights)."""
        return cast(nn.Module, self.members[0].encoder)  # ModuleList items are untyped

    @property
    def recurrent(self) -> bool:
        """Whether the members' encoders carry state (they all share one architecture)."""
        return bool(getattr(self.members[0], "recurrent", False))

    def forward(
        self, x: Tensor, future: Tensor | None = None, state: object = None
    ) -> tuple[Tensor, None]:
        """Mean forecast of the members from context windows ``x`` (B, T, I): (B, h, C).

        ``state`` must be None: members do not share hidden states.
        """
        if state is not None:
            raise ValueError("an ensemble forecasts from windows; it carries no state")
        preds = [member(x, future)[0] for member in self.members]  # each (B, h, C)
        return torch.stack(preds).mean(dim=0), None
