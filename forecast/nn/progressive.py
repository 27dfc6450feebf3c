"""PGBIG's network: stages that each refine the previous stage's guess of the whole window.

PGBIG (Ma et al. 2022, "Progressively Generating Better Initial Guesses Towards Next Stages
for High-Quality Human Motion Prediction") reads the DCT coefficients of the padded window
(the ``T`` observed frames, the last one repeated over the ``h`` to forecast) as a
``(3, J, k)`` array per sample: the (x, y, z) axes as channels, ``J`` joints as graph nodes,
``k`` coefficients. Each of its stages is an encoder and a decoder of separable graph
convolutions (:class:`SeparableGraphConv`: one learned map over joints, one over channels,
one over coefficients) and returns a new guess of the window's coefficients; the next stage
starts from it. Training supervises every stage: the last against the true window, each
earlier one against a smoother target (:func:`progressive_targets`), so the first stages
learn the slow part of the motion and the later ones the detail.

Here the stages work in the toolkit's residual convention: a stage adds its output to the
guess it reads (PGBIG's stage returns the new guess through learned 1x1 skips, without the
identity), so the untrained network repeats the last observed frame as every other mixer of
:mod:`forecast.nn.mixer` does.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn


class SeparableGraphConv(nn.Module):
    """Graph convolution over joints, channels and coefficients of ``(B, c, J, L)``.

    ``y[b, d, i, m] = sum_{c, j, l} att[i, j] x[b, c, j, l] W[c, d] S[l, m] + bias[m]``.

    Parameters
    ----------
    n_nodes : int
        Joints ``J`` (``att`` is a learned ``(J, J)`` matrix).
    in_channels, out_channels : int
        Channels ``c`` and ``d`` per joint before and after.
    length : int
        Coefficients ``L`` (``S`` is a learned ``(L, L)`` matrix).
    """

    def __init__(self, n_nodes: int, in_channels: int, out_channels: int, length: int) -> None:
        super().__init__()
        self.att = nn.Parameter(torch.empty(n_nodes, n_nodes))
        self.weight = nn.Parameter(torch.empty(in_channels, out_channels))
        self.mix = nn.Parameter(torch.empty(length, length))
        self.bias = nn.Parameter(torch.empty(length))
        bound = 1.0 / math.sqrt(n_nodes)  # PGBIG's initialisation, every tensor alike
        for tensor in (self.att, self.weight, self.mix, self.bias):
            nn.init.uniform_(tensor, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        """Map ``x`` (B, c, J, L) to (B, d, J, L)."""
        batch, channels, joints, length = x.shape
        # batched products over weights expanded without copies: no activation is transposed
        y = torch.bmm(
            self.att.expand(batch * channels, joints, joints),
            x.reshape(batch * channels, joints, length),
        )
        y = torch.bmm(
            self.weight.T.expand(batch, -1, channels), y.view(batch, channels, joints * length)
        )
        return y.view(batch, -1, joints, length) @ self.mix + self.bias


class _ConvNormAct(nn.Module):
    """A separable graph convolution, then batch norm over every unit, tanh and dropout."""

    def __init__(
        self, n_nodes: int, in_channels: int, out_channels: int, length: int, dropout: float
    ) -> None:
        super().__init__()
        self.conv = SeparableGraphConv(n_nodes, in_channels, out_channels, length)
        self.norm = nn.BatchNorm1d(out_channels * n_nodes * length)
        self.dropout = float(dropout)

    def forward(self, x: Tensor) -> Tensor:
        y = torch.tanh(self.norm(self.conv(x).reshape(x.shape[0], -1)))
        if self.training and self.dropout > 0:
            # a uniform draw per unit: twice as fast on CPU as nn.Dropout's Bernoulli draws
            keep = torch.rand_like(y).ge_(self.dropout).div_(1.0 - self.dropout)  # 0 or 1 / (1 - p)
            y = y * keep
        return y.view(x.shape[0], -1, *x.shape[2:])


class SeparableGraphBlock(nn.Module):
    """Two separable graph convolutions with a residual connection (PGBIG's ``GC_Block``)."""

    def __init__(self, n_nodes: int, channels: int, length: int, dropout: float) -> None:
        super().__init__()
        self.first = _ConvNormAct(n_nodes, channels, channels, length, dropout)
        self.second = _ConvNormAct(n_nodes, channels, channels, length, dropout)

    def forward(self, x: Tensor) -> Tensor:
        """Map ``x`` (B, c, J, L) to ``x`` plus the two convolutions of it."""
        return x + self.second(self.first(x))


class _Coder(nn.Module):
    """In-convolution, ``n_blocks`` blocks, out-convolution, plus a 1x1 map of the input."""

    def __init__(
        self,
        n_nodes: int,
        in_channels: int,
        width: int,
        out_channels: int,
        length: int,
        n_blocks: int,
        dropout: float,
    ) -> None:
        super().__init__()
        self.conv_in = _ConvNormAct(n_nodes, in_channels, width, length, dropout)
        self.blocks = nn.Sequential(
            *(SeparableGraphBlock(n_nodes, width, length, dropout) for _ in range(n_blocks))
        )
        self.conv_out = SeparableGraphConv(n_nodes, width, out_channels, length)
        self.skip = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        return self.conv_out(self.blocks(self.conv_in(x))) + self.skip(x)


class ProgressiveStage(nn.Module):
    """One stage: an encoder of one block to ``width`` channels, a decoder of two back to 3.

    The decoder reads the encoding twice over along the coefficient axis (``2 k``) and keeps
    the first ``k`` of its output, as PGBIG's does.
    """

    def __init__(self, n_nodes: int, k: int, width: int, dropout: float) -> None:
        super().__init__()
        self.encoder = _Coder(n_nodes, 3, width, width, k, 1, dropout)
        self.decoder = _Coder(n_nodes, width, width, 3, 2 * k, 2, dropout)

    def forward(self, x: Tensor) -> Tensor:
        """Return the change of the guess ``x`` (B, 3, J, k) this stage makes."""
        k = x.shape[-1]
        z = self.encoder(x)
        return self.decoder(torch.cat([z, z], dim=-1))[..., :k]


class ProgressiveMixer(nn.Module):
    """PGBIG's stages on coefficients (B, N, k), ``N = 3 J`` channels in (x, y, z) triples.

    Parameters
    ----------
    n_nodes : int
        Channels ``N``; a multiple of 3, joint ``j``'s axes in channels ``3 j .. 3 j + 2``.
    k : int
        Coefficients.
    hidden_size : int
        Channels per joint inside a stage (PGBIG's ``d_model``, 16).
    num_layers : int
        Stages (PGBIG has 4).
    dropout : float
        Dropout after each activation.
    """

    def __init__(self, n_nodes: int, k: int, hidden_size: int, num_layers: int, dropout: float):
        super().__init__()
        if n_nodes % 3:
            raise ValueError(
                f"PGBIG's stages read (x, y, z) triples of joint positions: {n_nodes} input "
                "channels are not a multiple of 3"
            )
        if num_layers < 1:
            raise ValueError(f"PGBIG's network needs at least one stage, got {num_layers}")
        self.n_joints = n_nodes // 3
        self.stages = nn.ModuleList(
            ProgressiveStage(self.n_joints, k, hidden_size, dropout) for _ in range(num_layers)
        )

    def forward(self, c: Tensor, every_stage: bool = False) -> Tensor:
        """Return the corrections of coefficients ``c`` (B, N, k): (B, N, S, k).

        ``S`` is 1 (the last stage's guess) or, with ``every_stage``, the number of stages
        (the guess after each, first to last). Each correction is the guess minus ``c``.
        """
        batch, nodes, k = c.shape
        x = c.reshape(batch, self.n_joints, 3, k).transpose(1, 2)  # (B, 3, J, k)
        guess, guesses = x, []
        for stage in self.stages:
            guess = guess + stage(guess)
            guesses.append(guess)
        kept = guesses if every_stage else guesses[-1:]
        out = torch.stack(kept, dim=1) - x[:, None]  # (B, S, 3, J, k)
        return out.permute(0, 3, 2, 1, 4).reshape(batch, nodes, len(kept), k)


def progressive_targets(window: Tensor, context: int, n_stages: int) -> Tensor:
    """Return the target of each stage: the window, smoothed once less for each later stage.

    Smoothing replaces each forecast step ``t >= context`` by the mean of the forecast steps
    ``context .. t`` (the observed steps are kept); stage ``s`` of ``S`` (counted from 1)
    is trained on the window smoothed ``S - s`` times, so the last stage sees the truth.

    Parameters
    ----------
    window : Tensor of shape (B, T + h, C)
        The true window: ``context`` observed steps, then the forecast steps.
    context : int
        Observed steps ``T``.
    n_stages : int
        Stages ``S``.

    Returns
    -------
    Tensor of shape (B, S, T + h, C)
    """
    targets = [window]
    current = window
    counts = torch.arange(1, window.shape[1] - context + 1, dtype=window.dtype)
    counts = counts.to(window.device)[None, :, None]
    for _ in range(n_stages - 1):
        ahead = current[:, context:].cumsum(dim=1) / counts
        current = torch.cat([current[:, :context], ahead], dim=1)
        targets.append(current)
    return torch.stack(targets[::-1], dim=1)
