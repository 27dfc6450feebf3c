"""Forecast heads: the encoder's summary to the forecast of every horizon step.

A head maps the encoder's summary ``(..., H)`` plus the future-known covariates of the
horizon steps ``(..., horizon, F)`` to the forecast. The point head returns
``(..., horizon, C)``; heads with several outputs per value (quantiles, distribution
parameters) keep a trailing dimension, ``(..., horizon, C, Q)``.

Contract shared by every head: the output at horizon step ``j`` depends on the summary and
on the covariates of step ``j`` only, so a forecast for fewer steps than the head was built
for may pad the covariates of the unused steps with anything.
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from forecast.nn.dct import dct_basis


class DirectHead(nn.Module):
    """Direct multi-horizon head: all ``horizon`` steps from one summary vector.

    ``out[..., j, c, q] = direct(summary)[j, c, q] + g([summary, future[..., j, :]])[c, q]``
    where ``direct`` is linear and ``g`` a small per-step MLP that lets the known covariates
    of each target step (calendar, holidays, weather forecasts) shift its forecast.

    Parameters
    ----------
    input_size : int
        Width ``H`` of the summary.
    horizon : int
        Steps forecast at once.
    n_outputs : int
        Target channels ``C``.
    n_future : int
        Future-known covariates per step ``F`` (0: none).
    n_params : int
        Outputs per value ``Q`` (1 for a point forecast).
    coefficients : int, optional
        With it, ``direct`` forecasts this many coefficients ``k`` of a temporal DCT over the
        ``horizon`` steps per channel (and level), and the steps are their inverse transform
        (:func:`forecast.nn.dct.dct_basis`): a smooth trajectory of ``k`` degrees of freedom.
        The covariate path still adds a value per step.
    """

    basis: Tensor  # (k, horizon), a buffer registered only with coefficients

    def __init__(
        self,
        input_size: int,
        horizon: int,
        n_outputs: int,
        n_future: int = 0,
        n_params: int = 1,
        coefficients: int | None = None,
    ) -> None:
        super().__init__()
        self.horizon, self.n_outputs, self.n_future, self.n_params = (
            horizon,
            n_outputs,
            n_future,
            n_params,
        )
        self.coefficients = None if coefficients is None else int(coefficients)
        width = horizon if self.coefficients is None else self.coefficients
        if self.coefficients is not None:
            basis = dct_basis(horizon, self.coefficients).clone()  # its own copy of the cached one
            self.register_buffer("basis", basis, persistent=False)
        self.direct = nn.Linear(input_size, width * n_outputs * n_params)
        self.covariate = None
        if n_future:
            self.covariate = nn.Sequential(
                nn.Linear(input_size + n_future, input_size),
                nn.GELU(),
                nn.Linear(input_size, n_outputs * n_params),
            )

    def forward(self, summary: Tensor, future: Tensor | None = None) -> Tensor:
        """Map ``summary`` (..., H) and ``future`` (..., horizon, F) to (..., horizon, C, Q)."""
        lead = summary.shape[:-1]
        if self.coefficients is None:
            out = self.direct(summary).view(*lead, self.horizon, self.n_outputs, self.n_params)
        else:
            coef = self.direct(summary).view(*lead, self.coefficients, self.n_outputs, -1)
            out = torch.einsum("kh,...kcq->...hcq", self.basis, coef)
        if self.covariate is None:
            return out
        if future is None:
            raise ValueError(f"this head needs future covariates of width {self.n_future}")
        steps = summary.unsqueeze(-2).expand(*lead, self.horizon, summary.shape[-1])  # (..., h, H)
        extra = self.covariate(torch.cat([steps, future], dim=-1))  # (..., h, C*Q)
        return out + extra.view(*lead, self.horizon, self.n_outputs, self.n_params)


class PointHead(DirectHead):
    """Direct point-forecast head: (..., H) and (..., horizon, F) to (..., horizon, C).

    Parameters
    ----------
    input_size : int
        Width ``H`` of the summary.
    horizon : int
        Steps forecast at once (1 for a one-step head rolled out recursively).
    n_outputs : int
        Target channels ``C``.
    n_future : int
        Future-known covariates per step ``F`` (0: none).
    coefficients : int, optional
        Forecast this many temporal DCT coefficients (see :class:`DirectHead`).
    """

    def __init__(
        self,
        input_size: int,
        horizon: int,
        n_outputs: int,
        n_future: int = 0,
        coefficients: int | None = None,
    ) -> None:
        super().__init__(input_size, horizon, n_outputs, n_future, 1, coefficients)

    def forward(self, summary: Tensor, future: Tensor | None = None) -> Tensor:
        """Map ``summary`` (..., H) and ``future`` (..., horizon, F) to (..., horizon, C)."""
        return super().forward(summary, future).squeeze(-1)


def monotone_quantiles(raw: Tensor, middle: int) -> Tensor:
    """Map unconstrained outputs (..., Q) to increasing quantiles (..., Q).

    Output ``middle`` is taken as it is; the levels above it add, and the levels below it
    subtract, cumulative sums of ``softplus`` of their own outputs, so the quantiles never
    cross and the middle one (the point forecast) is a plain linear output.
    """
    gaps = F.softplus(raw)  # (..., Q), > 0
    centre = raw[..., middle : middle + 1]  # (..., 1)
    up = torch.cumsum(gaps[..., middle + 1 :], dim=-1)  # (..., Q - middle - 1)
    down = torch.flip(torch.cumsum(torch.flip(gaps[..., :middle], [-1]), dim=-1), [-1])
    return torch.cat([centre - down, centre, centre + up], dim=-1)


class QuantileHead(DirectHead):
    """Direct quantile head: (..., H) and (..., horizon, F) to (..., horizon, C, Q).

    One output per target value and quantile level, made non-crossing by
    :func:`monotone_quantiles` around the level nearest 0.5.

    Parameters
    ----------
    input_size : int
        Width ``H`` of the summary.
    horizon : int
        Steps forecast at once.
    n_outputs : int
        Target channels ``C``.
    n_future : int
        Future-known covariates per step ``F`` (0: none).
    n_quantiles : int
        Levels ``Q``.
    middle : int
        Index of the level that is the point forecast.
    coefficients : int, optional
        Forecast this many temporal DCT coefficients (see :class:`DirectHead`).
    """

    def __init__(
        self,
        input_size: int,
        horizon: int,
        n_outputs: int,
        n_future: int = 0,
        n_quantiles: int = 1,
        middle: int = 0,
        coefficients: int | None = None,
    ) -> None:
        super().__init__(input_size, horizon, n_outputs, n_future, n_quantiles, coefficients)
        if not 0 <= middle < n_quantiles:
            raise ValueError(f"middle={middle} is not one of the {n_quantiles} levels")
        self.middle = int(middle)

    def forward(self, summary: Tensor, future: Tensor | None = None) -> Tensor:
        """Map ``summary`` (..., H) and ``future`` (..., horizon, F) to (..., horizon, C, Q)."""
        return monotone_quantiles(super().forward(summary, future), self.middle)


def __getattr__(name: str) -> object:
    """``forecast.nn.heads.ForecastNet``: moved to :mod:`forecast.nn.net`, removed in 0.3.0.

    The versions are those of ``forecast._compat`` (``DEPRECATED_IN``, ``REMOVED_IN``),
    written out: that module imports ``forecast.tuning`` late, which sits above ``nn``.
    """
    if name == "ForecastNet":
        from forecast.nn.net import ForecastNet  # deprecated alias: only when asked for

        warnings.warn(
            "forecast.nn.heads.ForecastNet is deprecated in forecast 0.2.0 and will be removed "
            "in 0.3.0: the class moved to forecast.nn.net; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return ForecastNet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
