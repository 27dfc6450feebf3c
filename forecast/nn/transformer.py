"""Transformer encoder: pre-norm blocks of multi-head self-attention and a feed-forward layer.

Following Vaswani et al. (2017) and Aryaman's notes (sec. 4.2, 5):

    h_0 = x W_in + PE                                   input projection + positions
    h   = h + Dropout(MultiHead(LayerNorm(h)))          attention sublayer
    h   = h + Dropout(FF(LayerNorm(h)))                 feed-forward sublayer
    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V   per head, d_k = d_model / n_heads

with a final LayerNorm. Attention runs through torch's fused kernel
(``F.scaled_dot_product_attention``), which does not return the attention weights;
:meth:`TransformerEncoder.attention_weights` recomputes them explicitly when asked.
"""

from __future__ import annotations

import math
from typing import cast

import torch
import torch.nn.functional as F
from torch import nn

POSITIONAL = ("sinusoidal", "learned")


def sinusoidal_encoding(length: int, d_model: int) -> torch.Tensor:
    """Sinusoidal positions ``(length, d_model)``: sin on even, cos on odd dimensions.

    ``PE[pos, 2i] = sin(pos / 10000^(2i/d))`` and ``PE[pos, 2i+1] = cos(pos / 10000^(2i/d))``.
    """
    pos = torch.arange(length, dtype=torch.float32)[:, None]  # (T, 1)
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2) / d_model)  # (ceil(d/2),)
    angles = pos * freq  # (T, ceil(d/2))
    pe = torch.zeros(length, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, : d_model // 2])
    return pe


class PositionalEncoding(nn.Module):
    """Additive position vectors, fixed sinusoids or a learned table.

    Parameters
    ----------
    d_model : int
        Width of the vectors.
    kind : {"sinusoidal", "learned"}
        Fixed sinusoids (any length) or a learned ``(max_len, d_model)`` table.
    max_len : int, optional
        Longest sequence; required for ``"learned"``.
    """

    table: torch.Tensor  # a parameter (learned) or a buffer (sinusoidal, regrown on demand)

    def __init__(self, d_model: int, kind: str = "sinusoidal", max_len: int | None = None) -> None:
        super().__init__()
        if kind not in POSITIONAL:
            raise ValueError(f"positional must be one of {POSITIONAL}, got {kind!r}")
        if kind == "learned" and not max_len:
            raise ValueError("positional='learned' needs max_len (the context length)")
        self.kind = kind
        self.d_model = d_model
        self.max_len = max_len
        if kind == "learned" and max_len:
            self.table = nn.Parameter(0.02 * torch.randn(max_len, d_model))
        else:
            self.register_buffer(
                "table", sinusoidal_encoding(max_len or 512, d_model), persistent=False
            )

    def forward(self, length: int) -> torch.Tensor:
        """Position vectors ``(length, d_model)`` of positions ``0 .. length - 1``."""
        if length > self.table.shape[0]:
            if self.kind == "learned":
                raise ValueError(
                    f"sequence of length {length} is longer than the learned positional table "
                    f"(max_len={self.max_len})"
                )
            self.table = sinusoidal_encoding(2 * length, self.d_model).to(self.table.device)
        return self.table[:length]


class SelfAttention(nn.Module):
    """Multi-head scaled dot-product self-attention with an optional causal mask."""

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(
                f"hidden_size (d_model={d_model}) must be divisible by n_heads={n_heads}"
            )
        self.n_heads = n_heads
        self.dropout = dropout
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(
        self, x: torch.Tensor, causal: bool = False, need_weights: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Attend over ``x`` (B, T, D); return the output (B, T, D) and, if asked, the weights."""
        b, t, d = x.shape
        qkv = self.qkv(x).view(b, t, 3, self.n_heads, d // self.n_heads)  # (B, T, 3, nh, dh)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, nh, T, dh)
        weights = None
        if need_weights:
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, nh, T, T)
            if causal:
                future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
                scores = scores.masked_fill(future, float("-inf"))
            weights = scores.softmax(dim=-1)  # (B, nh, T, T)
            z = weights @ v  # (B, nh, T, dh)
        else:
            p = self.dropout if self.training else 0.0
            z = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=causal)
        z = z.transpose(1, 2).reshape(b, t, d)  # (B, T, D)
        return self.out(z), weights


class TransformerBlock(nn.Module):
    """Pre-norm residual block: self-attention, then a two-layer GELU feed-forward."""

    def __init__(self, d_model: int, n_heads: int, ff_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, dropout)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(
            nn.Linear(d_model, ff_size), nn.GELU(), nn.Dropout(dropout), nn.Linear(ff_size, d_model)
        )
        self.drop = nn.Dropout(dropout)

    def forward(
        self, x: torch.Tensor, causal: bool = False, need_weights: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Map ``x`` (B, T, D) to (B, T, D), with the attention weights if asked."""
        a, weights = self.attn(self.norm1(x), causal, need_weights)
        x = x + self.drop(a)  # (B, T, D)
        x = x + self.drop(self.ff(self.norm2(x)))
        return x, weights


class TransformerEncoder(nn.Module):
    """Stack of pre-norm transformer blocks over an embedded context window.

    Parameters
    ----------
    input_size : int
        Features per time step.
    d_model : int
        Width of the residual stream (``hidden_size`` of the estimator).
    num_layers : int
        Number of blocks.
    n_heads : int
        Attention heads; must divide ``d_model``.
    ff_size : int, optional
        Hidden width of the feed-forward layer (default ``4 * d_model``).
    dropout : float
        Dropout on the embedding, attention weights and residual branches.
    positional : {"sinusoidal", "learned"}
        Positional encoding added after the input projection.
    causal : bool
        Mask attention so step ``t`` sees only steps ``<= t``.
    max_len : int, optional
        Longest input; required for learned positions.

    Attributes
    ----------
    output_size : int
        ``d_model``.
    recurrent : bool
        False: no state is carried; ``forward`` returns ``state=None``.
    """

    recurrent = False

    def __init__(
        self,
        input_size: int,
        d_model: int = 64,
        num_layers: int = 2,
        n_heads: int = 4,
        ff_size: int | None = None,
        dropout: float = 0.0,
        positional: str = "sinusoidal",
        causal: bool = False,
        max_len: int | None = None,
    ) -> None:
        super().__init__()
        self.output_size = d_model
        self.causal = causal
        self.embed = nn.Linear(input_size, d_model)
        self.position = PositionalEncoding(d_model, positional, max_len)
        self.drop = nn.Dropout(dropout)
        ff = ff_size or 4 * d_model
        self.blocks = nn.ModuleList(
            TransformerBlock(d_model, n_heads, ff, dropout) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model)

    def _run(
        self, x: torch.Tensor, need_weights: bool
    ) -> tuple[torch.Tensor, list[torch.Tensor | None]]:
        h = self.drop(self.embed(x) + self.position(x.shape[1]))  # (B, T, D)
        weights: list[torch.Tensor | None] = []
        for block in self.blocks:
            h, w = block(h, self.causal, need_weights)
            weights.append(w)
        return self.norm(h), weights

    def forward(self, x: torch.Tensor, state: None = None) -> tuple[torch.Tensor, None]:
        """Encode a batch of context windows.

        Parameters
        ----------
        x : Tensor of shape (B, T, input_size)
            Context windows.
        state : None
            Ignored (the encoder is not recurrent).

        Returns
        -------
        y : Tensor of shape (B, T, d_model)
            Encoded steps; the forecaster's head reads ``y[:, -1]``.
        state : None
        """
        y, _ = self._run(x, need_weights=False)
        return y, None

    @torch.no_grad()
    def attention_weights(self, x: torch.Tensor) -> torch.Tensor:
        """Attention weights of every block and head, computed explicitly.

        Parameters
        ----------
        x : Tensor of shape (B, T, input_size)
            Context windows.

        Returns
        -------
        Tensor of shape (B, num_layers, n_heads, T, T)
            ``[b, l, h, i, j]`` is the weight query step ``i`` gives key step ``j``; rows sum to 1.
        """
        _, weights = self._run(x, need_weights=True)
        return torch.stack(cast(list[torch.Tensor], weights), dim=1)  # need_weights: no None
