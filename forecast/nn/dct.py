"""Temporal DCT bases: trajectories as a few smooth coefficients, and mixing across channels.

The motion-prediction models that followed Res-sup. (LTD, Mao et al. 2019; MSR-GCN, PGBIG,
siMLPe) describe a whole trajectory by the first coefficients of its discrete cosine
transform: a smooth path needs few of them, and a forecast built from them cannot jitter.
The pieces here give every encoder of the library the same two options:

* **DCT input** (:func:`dct_tokens`): the context window, padded with its last step repeated
  over the horizon, is read as ``k`` tokens, token ``j`` holding coefficient ``j`` (the
  ``j``-th lowest temporal frequency) of every input channel, instead of one token a step.
* **DCT output** (:class:`~forecast.nn.heads.DirectHead` with ``coefficients``): the head
  forecasts ``k`` coefficients per channel and the horizon steps are their inverse
  transform; with a residual network these are changes from the last observed value, so the
  residual lives in the DCT basis (the DCT of the last value repeated is its first
  coefficient alone).

:class:`ChannelMixing` is the other ingredient of those models, a linear map across
channels (joints), for the one path of the network that reads each channel on its own (the
linear skip).

The transform is the orthonormal DCT-II: row ``j`` of the ``(n, n)`` matrix is
``s_j cos(pi (2 t + 1) j / (2 n))`` for ``t = 0 .. n - 1`` with ``s_0 = sqrt(1 / n)`` and
``s_j = sqrt(2 / n)``; the matrix is orthogonal, so its transpose inverts it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import torch
from torch import Tensor, nn


@lru_cache(maxsize=32)
def dct_basis(n: int, k: int | None = None) -> Tensor:
    """Return the first ``k`` rows of the orthonormal DCT-II matrix of length ``n``.

    Parameters
    ----------
    n : int
        Steps of the trajectory.
    k : int, optional
        Coefficients kept (the lowest frequencies), ``1 <= k <= n``; None: all ``n``.

    Returns
    -------
    Tensor of shape (k, n)
        ``basis @ x`` gives the coefficients of a trajectory ``x`` of ``n`` steps and
        ``basis.T @ c`` the trajectory of coefficients ``c`` (exact when ``k = n``).
        Cached per ``(n, k)`` (the network reads it on every forward pass): do not modify
        it in place.
    """
    k = n if k is None else int(k)
    if not 1 <= k <= n:
        raise ValueError(f"a DCT of {n} steps has 1 to {n} coefficients, asked for {k}")
    t = torch.arange(n, dtype=torch.float64)
    j = torch.arange(k, dtype=torch.float64)[:, None]
    scale = torch.full((k, 1), math.sqrt(2.0 / n), dtype=torch.float64)
    scale[0] = math.sqrt(1.0 / n)
    return (scale * torch.cos(math.pi * (2 * t + 1) * j / (2 * n))).to(torch.float32)


def pad_last(x: Tensor, steps: int) -> Tensor:
    """Append ``steps`` copies of the last step of windows ``x`` (B, T, I): (B, T + steps, I)."""
    return torch.cat([x, x[:, -1:].expand(-1, steps, -1)], dim=1)


def dct_tokens(x: Tensor, basis: Tensor) -> Tensor:
    """Coefficients of windows padded with their last step: (B, T, I) to (B, k, I).

    Parameters
    ----------
    x : Tensor of shape (B, T, I)
        Context windows (every input channel is transformed along time).
    basis : Tensor of shape (k, n)
        :func:`dct_basis` of the padded length ``n >= T``; the window is padded with its
        last step to ``n`` steps.

    Returns
    -------
    Tensor of shape (B, k, I)
        Row ``j`` holds coefficient ``j`` of every channel.
    """
    steps = basis.shape[1] - x.shape[1]
    if steps < 0:
        raise ValueError(f"a basis of {basis.shape[1]} steps cannot hold windows of {x.shape[1]}")
    return torch.einsum("kn,bni->bki", basis.to(x.dtype), pad_last(x, steps))


class ChannelMixing(nn.Module):
    """Add a linear map across channels to a forecast: ``y + y @ W`` per step.

    ``W`` (C, C) starts at zero, so the module starts as the identity and learns how each
    channel's forecast should move with the others' (the joints of a skeleton move
    together).

    Parameters
    ----------
    n_channels : int
        Channels ``C`` of the last axis.
    """

    def __init__(self, n_channels: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(int(n_channels), int(n_channels)))

    def forward(self, y: Tensor) -> Tensor:
        """Map ``y`` (..., C) to ``y + y @ W`` (..., C)."""
        return y + y @ self.weight
