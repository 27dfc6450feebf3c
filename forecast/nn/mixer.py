"""DCT-space mixers: the networks of LTD (Mao et al. 2019) and siMLPe (Guo et al. 2023).

Both read a whole trajectory at once. The context window of ``T`` steps is padded with its
last step over the ``h`` steps to forecast (future-known covariates take their known values
there), and the ``n = T + h`` steps of each input channel become the first ``k`` coefficients
of their orthonormal DCT (:func:`forecast.nn.dct.dct_basis`; ``k = n`` is a change of basis,
fewer smooth the trajectory). A stack of blocks mixes the coefficients of a channel
(temporal mixing) and the channels of a coefficient (channel mixing, a learned dense matrix
rather than a skeleton graph); the blocks' output is added to the input coefficients, so the
network starts from "repeat the last observed step" and learns the correction; the inverse
transform turns the coefficients back into ``n`` steps: the reconstructed context followed by
the forecast.

* :class:`GraphConv` and :class:`GraphBlock` are LTD's layers: ``att @ (x @ W) + b`` over
  nodes (channels) ``x`` of ``k`` features, two per residual block with batch
  normalisation over every (channel, feature), tanh and dropout.
* :class:`TemporalBlock` is siMLPe's: a linear map over the coefficients of each channel and
  a layer norm over channels, no non-linearity, in a residual block between two linear maps
  over channels.
* :class:`forecast.nn.progressive.ProgressiveMixer` is PGBIG's: stages that each refine the
  whole window, trained on progressively less smoothed targets.

:class:`DCTMixerNet` puts either stack between the transforms; its ``forward`` has the calls
of :class:`forecast.nn.net.ForecastNet`, so the training loop, the roll-out, ensembles and the
ONNX export treat it alike.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from forecast.nn.dct import dct_basis
from forecast.nn.heads import monotone_quantiles
from forecast.nn.progressive import ProgressiveMixer, progressive_targets
from forecast.nn.reference import window_stats

MIXERS = ("gcn", "mlp", "pgbig")


class GraphConv(nn.Module):
    """Dense graph convolution over channels: ``att @ (x @ W) + b``.

    Parameters
    ----------
    n_nodes : int
        Nodes ``N`` (channels); ``att`` is a learned ``(N, N)`` matrix.
    in_features, out_features : int
        Features per node before and after (``W`` is ``(in_features, out_features)``).
    """

    def __init__(self, n_nodes: int, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.att = nn.Parameter(torch.empty(n_nodes, n_nodes))
        self.bias = nn.Parameter(torch.empty(out_features))
        bound = 1.0 / math.sqrt(out_features)  # LTD's initialisation, every tensor alike
        for tensor in (self.weight, self.att, self.bias):
            nn.init.uniform_(tensor, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        """Map ``x`` (B, N, in_features) to (B, N, out_features)."""
        return self.att @ (x @ self.weight) + self.bias


class _NormActDrop(nn.Module):
    """Batch norm over every (node, feature) of (B, N, F), then tanh and dropout."""

    def __init__(self, n_nodes: int, features: int, dropout: float) -> None:
        super().__init__()
        self.norm = nn.BatchNorm1d(n_nodes * features)
        self.drop = nn.Dropout(dropout)

    def forward(self, y: Tensor) -> Tensor:
        batch, nodes, features = y.shape
        y = self.norm(y.reshape(batch, nodes * features)).reshape(batch, nodes, features)
        return self.drop(torch.tanh(y))


class GraphBlock(nn.Module):
    """Two graph convolutions of ``features`` per node with a residual connection."""

    def __init__(self, n_nodes: int, features: int, dropout: float) -> None:
        super().__init__()
        self.conv1 = GraphConv(n_nodes, features, features)
        self.post1 = _NormActDrop(n_nodes, features, dropout)
        self.conv2 = GraphConv(n_nodes, features, features)
        self.post2 = _NormActDrop(n_nodes, features, dropout)

    def forward(self, x: Tensor) -> Tensor:
        """Map ``x`` (B, N, F) to ``x`` plus the two convolutions of it (B, N, F)."""
        return x + self.post2(self.conv2(self.post1(self.conv1(x))))


class GraphMixer(nn.Module):
    """LTD's network on coefficients (B, N, k): in, ``num_layers`` blocks, ``n_out`` outputs."""

    def __init__(
        self,
        n_nodes: int,
        k: int,
        hidden_size: int,
        num_layers: int,
        dropout: float,
        n_out: int = 1,
    ) -> None:
        super().__init__()
        self.n_out = int(n_out)
        self.conv_in = GraphConv(n_nodes, k, hidden_size)
        self.post_in = _NormActDrop(n_nodes, hidden_size, dropout)
        self.blocks = nn.Sequential(
            *(GraphBlock(n_nodes, hidden_size, dropout) for _ in range(num_layers))
        )
        self.conv_out = GraphConv(n_nodes, hidden_size, k * self.n_out)

    def forward(self, c: Tensor) -> Tensor:
        """Return the ``n_out`` corrections (B, N, n_out, k) of coefficients ``c`` (B, N, k)."""
        y = self.conv_out(self.blocks(self.post_in(self.conv_in(c))))  # (B, N, n_out * k)
        return y.reshape(c.shape[0], c.shape[1], self.n_out, c.shape[2])


class TemporalBlock(nn.Module):
    """siMLPe's block: ``x + LayerNorm(x @ A)``, ``A`` a (k, k) map over coefficients.

    The layer norm runs over the channels of each coefficient.
    """

    def __init__(self, channels: int, k: int) -> None:
        super().__init__()
        self.temporal = nn.Linear(k, k)
        self.norm = nn.LayerNorm(channels)
        nn.init.xavier_uniform_(self.temporal.weight, gain=1e-8)  # starts as the identity
        nn.init.zeros_(self.temporal.bias)

    def forward(self, x: Tensor) -> Tensor:
        """Map ``x`` (B, H, k) to (B, H, k)."""
        y = self.temporal(x)  # (B, H, k)
        return x + self.norm(y.transpose(1, 2)).transpose(1, 2)


class TemporalMixer(nn.Module):
    """siMLPe's network on coefficients (B, N, k): channels in, blocks, ``n_out`` outputs."""

    def __init__(
        self, n_nodes: int, k: int, hidden_size: int, num_layers: int, n_out: int = 1
    ) -> None:
        super().__init__()
        self.n_out = int(n_out)
        self.channels_in = nn.Linear(n_nodes, hidden_size)
        self.blocks = nn.Sequential(*(TemporalBlock(hidden_size, k) for _ in range(num_layers)))
        self.channels_out = nn.Linear(hidden_size, n_nodes * self.n_out)
        nn.init.xavier_uniform_(self.channels_out.weight, gain=1e-8)  # starts at no correction
        nn.init.zeros_(self.channels_out.bias)

    def forward(self, c: Tensor) -> Tensor:
        """Return the ``n_out`` corrections (B, N, n_out, k) of coefficients ``c`` (B, N, k)."""
        batch, nodes, k = c.shape
        h = self.channels_in(c.transpose(1, 2)).transpose(1, 2)  # (B, H, k)
        h = self.blocks(h)  # (B, H, k)
        y = self.channels_out(h.transpose(1, 2))  # (B, k, N * n_out)
        return y.reshape(batch, k, nodes, self.n_out).permute(0, 2, 3, 1)  # (B, N, n_out, k)


class DCTMixerNet(nn.Module):
    """Context windows in, the whole padded window's trajectory out, mixed in a DCT basis.

    Parameters
    ----------
    n_inputs : int
        Inputs per step ``I``: the ``C`` targets first, the future-known covariates last.
    n_targets : int
        Target channels ``C``.
    n_future : int
        Future-known covariates ``F`` (the last ``F`` inputs), whose known values fill the
        padded steps.
    context, horizon : int
        Steps ``T`` read and ``h`` forecast.
    n_coefficients : int, optional
        Coefficients ``k`` kept, ``1 <= k <= T + h``; None: all ``T + h``.
    hidden_size, num_layers : int
        Width (features per channel of the graph convolutions, or channels of the temporal
        blocks) and number of blocks.
    dropout : float
        Dropout after each graph convolution's activation (``"gcn"`` and ``"pgbig"``).
    mixer : {"gcn", "mlp", "pgbig"}
        LTD's graph blocks, siMLPe's temporal blocks or PGBIG's stages (``num_layers`` of
        them, ``hidden_size`` channels per joint; the inputs are (x, y, z) triples).
    normalize : bool
        Centre and scale the target channels of each window by their own mean and standard
        deviation before the transform, and map the output back.
    observed_loss : bool
        Tell the training loop to score the whole window (``forward(..., window=True)``
        against the context's targets followed by the horizon's), not the forecast alone.
    n_quantiles : int
        Levels ``Q`` of a quantile forecast (1: a point forecast). Each level has its own
        correction; level ``middle`` adds it to the padded window's coefficients (the
        residual), the others are spreads around it made non-crossing by
        :func:`forecast.nn.heads.monotone_quantiles`.
    middle : int
        The level that is the point forecast.
    """

    basis: Tensor  # buffers, registered in __init__
    residual_level: Tensor
    recurrent = False  # no state across calls: truncated BPTT does not apply
    windowed = True  # every forecast reads its whole window
    decodes = False

    def __init__(
        self,
        n_inputs: int,
        n_targets: int,
        n_future: int,
        context: int,
        horizon: int,
        n_coefficients: int | None = None,
        hidden_size: int = 256,
        num_layers: int = 12,
        dropout: float = 0.5,
        mixer: str = "gcn",
        normalize: bool = False,
        observed_loss: bool = False,
        n_quantiles: int = 1,
        middle: int = 0,
    ) -> None:
        super().__init__()
        if mixer not in MIXERS:
            raise ValueError(f"mixer must be one of {MIXERS}, got {mixer!r}")
        if not 1 <= n_targets <= n_inputs or not 0 <= n_future <= n_inputs - n_targets:
            raise ValueError(
                f"{n_inputs} inputs cannot hold {n_targets} targets and {n_future} future "
                "covariates"
            )
        self.n_targets, self.n_future = int(n_targets), int(n_future)
        self.context, self.horizon = int(context), int(horizon)
        n = self.context + self.horizon
        self.k = n if n_coefficients is None else int(n_coefficients)
        self.normalize = bool(normalize)
        self.observed_loss = bool(observed_loss)
        self.n_quantiles, self.middle = int(n_quantiles), int(middle)
        if not 0 <= self.middle < self.n_quantiles:
            raise ValueError(f"middle={middle} is not one of the {n_quantiles} levels")
        self.register_buffer(  # (Q, 1): which level carries the residual
            "residual_level",
            nn.functional.one_hot(torch.tensor(self.middle), self.n_quantiles).float()[:, None],
            persistent=False,
        )
        self.register_buffer("basis", dct_basis(n, self.k).clone(), persistent=False)  # (k, n)
        self.mixer: nn.Module
        q = self.n_quantiles
        self.n_stages = 1  # targets the training loop supervises (PGBIG: one per stage)
        if mixer == "gcn":
            self.mixer = GraphMixer(n_inputs, self.k, hidden_size, num_layers, dropout, q)
        elif mixer == "pgbig":
            if q > 1:
                raise ValueError("PGBIG's stages forecast a point, not quantiles")
            self.mixer = ProgressiveMixer(n_inputs, self.k, hidden_size, num_layers, dropout)
            self.n_stages = int(num_layers)
        else:
            self.mixer = TemporalMixer(n_inputs, self.k, hidden_size, num_layers, q)

    def padded(self, x: Tensor, future: Tensor | None = None) -> Tensor:
        """Return the window ``x`` (B, T, I) padded over the horizon: (B, T + h, I).

        Each input repeats its last value, except the future-known covariates, which take
        their values ``future`` (B, h, F) when given.
        """
        pad = x[:, -1:].expand(-1, self.horizon, -1)
        if self.n_future and future is not None:
            pad = torch.cat([pad[..., : -self.n_future], future.to(x.dtype)], dim=-1)
        return torch.cat([x, pad], dim=1)

    def forward_window(
        self, x: Tensor, future: Tensor | None = None, every_stage: bool = False
    ) -> Tensor:
        """Return the trajectory of the target channels over the padded window (B, T + h, C).

        The first ``T`` steps reconstruct the context, the last ``h`` are the forecast;
        (B, T + h, C, Q) with quantiles; (B, S, T + h, C) with ``every_stage``: the window
        after each of PGBIG's ``S`` stages, the last one being the forecast.
        """
        c = self.n_targets
        stats = None
        if self.normalize:
            stats = window_stats(x[..., :c])  # (B, 1, C) each
            x = torch.cat([(x[..., :c] - stats[0]) / stats[1], x[..., c:]], dim=-1)
        coefficients = torch.einsum("kn,bni->bik", self.basis, self.padded(x, future))  # (B, I, k)
        if every_stage:  # (B, C, S, k), each stage's guess as a correction of the input
            levels = self.mixer(coefficients, every_stage=True)[:, :c]
        else:
            levels = self.mixer(coefficients)[:, :c]  # (B, C, Q, k)
        levels = levels + coefficients[:, :c, None] * self.residual_level  # the middle level
        out = torch.einsum("kn,bcqk->bncq", self.basis, levels)  # (B, T + h, C, Q)
        if every_stage:
            out = out.permute(0, 3, 1, 2)  # (B, S, T + h, C)
            if stats is not None:
                out = out * stats[1][:, None] + stats[0][:, None]
            return out
        if self.n_quantiles == 1:
            out = out[..., 0]  # (B, T + h, C)
        else:
            out = monotone_quantiles(out, self.middle)
        if stats is not None:
            level, scale = stats  # (B, 1, C) each; scale > 0 keeps the order of levels
            if out.dim() == 4:
                level, scale = level[..., None], scale[..., None]
            out = out * scale + level
        return out

    def forward(
        self,
        x: Tensor,
        future: Tensor | None = None,
        state: object = None,
        window: bool = False,
        every_stage: bool = False,
    ) -> tuple[Tensor, None]:
        """Forecast from context windows.

        Parameters
        ----------
        x : Tensor of shape (B, T, I)
            Context windows (``T`` = ``context``).
        future : Tensor of shape (B, horizon, F), optional
            Future-known covariates of the forecast steps.
        state : None
            Accepted for the common call; the network carries no state.
        window : bool
            Return the whole window (B, T + h, C) instead of the forecast (B, h, C).
        every_stage : bool
            With ``mixer="pgbig"``: return the output of every stage, (B, S, T + h, C) with
            ``window``, (B, S, h, C) without.

        Returns
        -------
        forecast : Tensor of shape (B, horizon, C), or (B, T + horizon, C) with ``window``
            (a trailing axis of ``Q`` levels with quantiles)
        state : None
        """
        if x.shape[1] != self.context:
            raise ValueError(f"the network reads windows of {self.context} steps, got {x.shape[1]}")
        out = self.forward_window(x, future, every_stage=every_stage)
        if not window:
            out = out[:, :, self.context :] if every_stage else out[:, self.context :]
        return out, None

    def stage_targets(self, window: Tensor) -> Tensor:
        """Return what each stage is trained on, (B, S, T + h, C), from the true window.

        The last stage's target is ``window`` (B, T + h, C) itself, each earlier one's is
        smoothed once more (:func:`forecast.nn.progressive.progressive_targets`).
        """
        return progressive_targets(window, self.context, self.n_stages)

    def param_groups(self) -> list[dict[str, object]]:
        """One plain parameter group (nothing is constrained)."""
        return [{"params": [p for p in self.parameters() if p.requires_grad]}]

    def epoch_metrics(self) -> dict[str, float]:
        """No per-epoch diagnostics."""
        return {}
