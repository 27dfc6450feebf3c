"""A forecasting network that corrects a reference forecast given with the covariates.

:class:`ReferencedNet` wraps a :class:`~forecast.nn.net.ForecastNet`. The last ``C`` channels
of the future-known covariates of every window are a reference forecast of its ``C``
targets (the forecast of another model issued at the window's last step, in the network's
scaled units); the network's own output, less the window level it adds back, is a
correction added to it::

    forecast = reference + (net(x, covariates) - level)

``level`` is the mean of the window's targets when the wrapped network normalises windows
(its output is then ``(head + skip) * scale + level``, so the correction is
``(head + skip) * scale``), else 0. At initialisation the head and skip path are near
zero, so the network starts from the reference and learns what it leaves, as boosted
trees learn the residuals of a ridge. With ``reference_input`` the head also reads the
reference, normalised like the window, as one more covariate per target channel; with
``base=False`` as well, the reference is only read, not added: the network forecasts on its
own and may use the reference as an input.
"""

from __future__ import annotations

from typing import cast

import torch
from torch import Tensor, nn

from forecast.nn.reference import window_stats


class ReferencedNet(nn.Module):
    """Add a network's correction to a reference forecast read from the covariates.

    Parameters
    ----------
    net : torch.nn.Module
        A :class:`~forecast.nn.net.ForecastNet` (``n_targets``, ``normalize``, a head
        with ``horizon``); with ``reference_input`` its head reads ``C`` more covariates.
    reference_input : bool
        Also give the head the reference (window-normalised) as covariates.
    base : bool
        Add the network's output to the reference (False: needs ``reference_input``).
    """

    def __init__(self, net: nn.Module, reference_input: bool = False, base: bool = True) -> None:
        super().__init__()
        self.net = net
        self.n_targets = int(cast(int, net.n_targets))
        self.reference_input = bool(reference_input)
        self.base = bool(base)
        if not (self.base or self.reference_input):
            raise ValueError("ReferencedNet with base=False needs reference_input=True")
        if self.n_targets < 1:
            raise ValueError("ReferencedNet needs a network with n_targets >= 1")

    @property
    def recurrent(self) -> bool:
        """False: the reference belongs to a window's last step, so windows are needed."""
        return False

    @property
    def encoder(self) -> nn.Module:
        """The wrapped network's encoder (for diagnostics such as association weights)."""
        return cast(nn.Module, self.net.encoder)

    def forward(
        self, x: Tensor, future: Tensor | None = None, state: object = None
    ) -> tuple[Tensor, object]:
        """Forecast ``(B, h, C)`` (or ``(B, h, C, Q)``) from windows and covariates.

        Parameters
        ----------
        x : Tensor of shape (B, L, I)
            Context windows, targets first.
        future : Tensor of shape (B, h, F + C)
            Future-known covariates of the forecast steps, then the reference forecast.
        state : optional
            Passed to the wrapped network.
        """
        c = self.n_targets
        if future is None or future.shape[-1] < c:
            got = None if future is None else tuple(future.shape)
            raise ValueError(
                f"ReferencedNet needs the reference in the last {c} covariates, got {got}"
            )
        reference = future[..., -c:]  # (B, h, C)
        covariates: Tensor | None = future[..., :-c]
        level = torch.zeros_like(x[:, :1, :c])  # (B, 1, C)
        scale = torch.ones_like(level)
        if bool(self.net.normalize):
            level, scale = window_stats(x[..., :c])
        if self.reference_input:
            covariates = torch.cat([future[..., :-c], (reference - level) / scale], dim=-1)
        elif covariates is not None and covariates.shape[-1] == 0:
            covariates = None
        out, state = self.net(x, covariates, state)
        if not self.base:
            return out, state
        correction = out - (level.unsqueeze(-1) if out.dim() == 4 else level)
        base = reference.unsqueeze(-1) if out.dim() == 4 else reference
        return base + correction, state

    def param_groups(self) -> list[dict[str, object]]:
        """Return the wrapped network's parameter groups (:meth:`ForecastNet.param_groups`)."""
        groups = self.net.param_groups  # nn.Module attributes are typed Tensor | Module
        return cast(list[dict[str, object]], groups())  # type: ignore[operator]

    def epoch_metrics(self) -> dict[str, float]:
        """Return the wrapped network's per-epoch diagnostics."""
        report = self.net.epoch_metrics
        return cast(dict[str, float], report())  # type: ignore[operator]
