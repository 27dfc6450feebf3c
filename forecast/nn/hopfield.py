"""Hopfield pooling: a learned static query retrieves from the context window's patterns.

The modern Hopfield network of Ramsauer et al. (2020) stores patterns ``K`` (one row per
context step) and updates a state pattern ``xi`` with (Aryaman's notes, eq. 6.7)::

    p      = softmax(beta K xi)       association of xi with every stored pattern, sums to 1
    xi_new = K^T p                    retrieved pattern (in the key space)

After ``update_steps`` updates the last association ``p`` pools the values: ``z = V^T p``.
With one learned static query this is attention pooling over time (notes, sec. 6.3: "a
Hopfield layer is de facto pooling over the sequence"); ``beta`` is the inverse temperature
(``1 / sqrt(d_k)`` by default): large ``beta`` retrieves the single most similar pattern.

Stored patterns come from the context window: ``Y = LayerNorm(MLP(x) + PE)`` (positions so
that retrieval can tell the steps apart), ``K = Y W_K`` and ``V = Y W_V`` per head.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from forecast.nn.transformer import PositionalEncoding


def hopfield_retrieve(
    query: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    beta: float,
    update_steps: int = 1,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Retrieve from stored patterns with the modern-Hopfield update.

    Parameters
    ----------
    query : Tensor of shape (B, nh, d_k) or (nh, d_k)
        Initial state pattern per head (broadcast over the batch when 2-d).
    keys : Tensor of shape (B, nh, T, d_k)
        Stored patterns.
    values : Tensor of shape (B, nh, T, d_v)
        What each stored pattern returns.
    beta : float
        Inverse temperature.
    update_steps : int
        Number of updates ``xi <- K^T softmax(beta K xi)``; at least 1.

    Returns
    -------
    pooled : Tensor of shape (B, nh, d_v)
        ``V^T p`` with the association ``p`` of the last update.
    weights : Tensor of shape (B, update_steps, nh, T)
        The association ``p`` of every update; sums to 1 over ``T``.
    """
    if update_steps < 1:
        raise ValueError(f"update_steps must be >= 1, got {update_steps}")
    xi = query.expand(keys.shape[0], *query.shape[-2:])  # (B, nh, d_k)
    weights = []
    for _ in range(update_steps):
        scores = torch.einsum("bhtd,bhd->bht", keys, xi)  # (B, nh, T)
        p = torch.softmax(beta * scores, dim=-1)  # (B, nh, T)
        xi = torch.einsum("bht,bhtd->bhd", p, keys)  # (B, nh, d_k)
        weights.append(p)
    pooled = torch.einsum("bht,bhtd->bhd", p, values)  # (B, nh, d_v)
    return pooled, torch.stack(weights, dim=1)


class HopfieldPooling(nn.Module):
    """Encode a context window into one vector by Hopfield retrieval with learned queries.

    Parameters
    ----------
    input_size : int
        Features per time step.
    hidden_size : int
        Width of the stored patterns and of the output; split over the heads.
    num_layers : int
        Linear layers of the per-step embedding (GELU between them).
    n_heads : int
        Heads, each with its own learned query, keys and values; must divide ``hidden_size``.
    beta : float, optional
        Inverse temperature; default ``1 / sqrt(hidden_size / n_heads)``.
    update_steps : int
        Hopfield updates per retrieval (the retrieved pattern becomes the next query).
    dropout : float
        Dropout on the embedded patterns.
    positional : {"sinusoidal", "learned"}
        Positional encoding added to the embedded steps.
    max_len : int, optional
        Longest input; required for learned positions.

    Attributes
    ----------
    output_size : int
        ``hidden_size``.
    recurrent : bool
        False; ``forward`` returns ``state=None``.
    """

    recurrent = False

    def __init__(
        self,
        input_size: int,
        hidden_size: int = 64,
        num_layers: int = 1,
        n_heads: int = 4,
        beta: float | None = None,
        update_steps: int = 1,
        dropout: float = 0.0,
        positional: str = "sinusoidal",
        max_len: int | None = None,
    ) -> None:
        super().__init__()
        if hidden_size % n_heads:
            raise ValueError(f"hidden_size={hidden_size} must be divisible by n_heads={n_heads}")
        if update_steps < 1:
            raise ValueError(f"update_steps must be >= 1, got {update_steps}")
        self.output_size = hidden_size
        self.n_heads = n_heads
        self.update_steps = update_steps
        d_k = hidden_size // n_heads
        self.beta = float(beta) if beta is not None else 1.0 / math.sqrt(d_k)
        layers: list[nn.Module] = [nn.Linear(input_size, hidden_size)]
        for _ in range(num_layers - 1):
            layers += [nn.GELU(), nn.Linear(hidden_size, hidden_size)]
        self.embed = nn.Sequential(*layers)
        self.position = PositionalEncoding(hidden_size, positional, max_len)
        self.norm = nn.LayerNorm(hidden_size)
        self.drop = nn.Dropout(dropout)
        self.keys = nn.Linear(hidden_size, hidden_size, bias=False)
        self.values = nn.Linear(hidden_size, hidden_size, bias=False)
        self.query = nn.Parameter(torch.randn(n_heads, d_k))  # static state pattern per head
        self.out = nn.Linear(hidden_size, hidden_size)

    def _retrieve(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, t, _ = x.shape
        y = self.drop(self.norm(self.embed(x) + self.position(t)))  # (B, T, D)
        k = self.keys(y).view(b, t, self.n_heads, -1).transpose(1, 2)  # (B, nh, T, d_k)
        v = self.values(y).view(b, t, self.n_heads, -1).transpose(1, 2)  # (B, nh, T, d_k)
        return hopfield_retrieve(self.query, k, v, self.beta, self.update_steps)

    def forward(self, x: torch.Tensor, state: None = None) -> tuple[torch.Tensor, None]:
        """Pool a batch of context windows.

        Parameters
        ----------
        x : Tensor of shape (B, T, input_size)
            Context windows.
        state : None
            Ignored (not recurrent).

        Returns
        -------
        y : Tensor of shape (B, 1, hidden_size)
            The pooled vector (one step, so the head's ``y[:, -1]`` reads it).
        state : None
        """
        pooled, _ = self._retrieve(x)  # (B, nh, d_k)
        z = self.out(pooled.reshape(x.shape[0], -1))  # (B, D)
        return z[:, None, :], None

    @torch.no_grad()
    def association_weights(self, x: torch.Tensor) -> torch.Tensor:
        """Which context steps each head retrieved.

        Parameters
        ----------
        x : Tensor of shape (B, T, input_size)
            Context windows.

        Returns
        -------
        Tensor of shape (B, update_steps, n_heads, T)
            Softmax associations of every update; each row sums to 1 over the T steps.
        """
        return self._retrieve(x)[1]
