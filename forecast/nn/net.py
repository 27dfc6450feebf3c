"""The network that joins an encoder to a head: context windows in, forecast out.

:class:`ForecastNet` wraps the parameter-free pieces of :mod:`forecast.nn.reference`
(window normalisation, seasonal and last-value references, step changes), the optional
linear skip path, patches and the temporal DCT options of :mod:`forecast.nn.dct` around an
encoder and one of the heads of :mod:`forecast.nn.heads`.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from forecast.nn.dct import ChannelMixing, dct_basis, dct_tokens
from forecast.nn.reference import seasonal_reference, step_changes, window_stats


def _like(term: Tensor, out: Tensor) -> Tensor:
    """Give a (..., C) term a trailing level axis when ``out`` has one (..., C, Q)."""
    return term.unsqueeze(-1) if out.dim() == term.dim() + 1 else term


class ForecastNet(nn.Module):
    """An encoder and a head: context steps in, forecast out.

    The input at each context step is the (scaled) targets, the past covariates and the
    future-known covariates of that step, ``(B, T, I)``.

    Parameters
    ----------
    encoder : torch.nn.Module
        ``forward(x, state) -> (y, state)`` with ``output_size`` and ``recurrent``.
    head : torch.nn.Module
        ``forward(summary, future) -> forecast``, such as :class:`PointHead`.
    n_targets : int
        Target channels ``C``: the first ``C`` inputs of each step (needed by the two options
        below).
    normalize : bool
        Centre and scale each window's target channels by their own mean and standard
        deviation before the encoder, and map the forecast back (see
        :mod:`forecast.nn.reference`).
    season : int, optional
        Forecast the difference to the seasonal reference of this many steps (the last
        observed value at the same phase), which is added back to the head's output.
        ``season=1`` is the residual connection: the reference of every horizon step is the
        last observed value, so the head forecasts changes from it; it needs only the last
        step, so truncated-BPTT streams support it too (:meth:`forward_steps`).
    context : int, optional
        With ``context`` (the window length ``L``), a linear map from each channel's ``L``
        (normalised) context values to its ``horizon`` forecasts is added to the output
        (a linear autoregressive skip path, initialised at zero, so the encoder and head learn
        what a linear model on lags cannot).
    patch : int
        Steps per encoder token: the encoder reads a window of ``T`` steps as ``T / patch``
        tokens of ``patch * I`` inputs each (non-overlapping patches, oldest first; each
        token lists its steps in time order). ``T`` must be a multiple of ``patch``; the
        normalisation, references and skip path still work on the steps. 1: one token a step.
    change_scale : Tensor of shape (C,), optional
        With it, the encoder also reads each target channel's change from the step before
        (of the globally scaled values, before window normalisation) divided by this scale,
        appended after the other inputs of the step (``I + C`` inputs; see
        :func:`forecast.nn.reference.step_changes`). Kept as a buffer, not a parameter.
    step_scale : Tensor of shape (C,), optional
        With it (and ``season=1``), the head forecasts each horizon step's change from the
        step before in these units, and the forecast is the last observed value plus their
        running sum: the network predicts a velocity and the forecast integrates it
        (``target_transform="difference"`` of the estimators). Kept as a buffer.
    dct_input : int, optional
        With it, the encoder reads the first ``dct_input`` coefficients of a temporal DCT of
        each window of ``T`` steps padded with its last step over the head's horizon
        (``T + horizon`` steps), one token per coefficient, instead of one token per step
        (:func:`forecast.nn.dct.dct_tokens`; after normalisation and step changes; not with
        patches).
    mixing : bool
        Follow the linear skip path, which reads each channel on its own, by a linear map
        across channels (:class:`forecast.nn.dct.ChannelMixing`, starting at the identity);
        needs ``context``.
    """

    change_scale: Tensor  # a buffer, registered only with change_scale

    def __init__(
        self,
        encoder: nn.Module,
        head: nn.Module,
        n_targets: int = 0,
        normalize: bool = False,
        season: int | None = None,
        context: int | None = None,
        patch: int = 1,
        change_scale: Tensor | None = None,
        step_scale: Tensor | None = None,
        dct_input: int | None = None,
        mixing: bool = False,
    ) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = head
        self.n_targets = int(n_targets)
        self.normalize = bool(normalize)
        self.season = None if season is None else int(season)
        self.patch = int(patch)
        self.skip = None
        if context is not None:
            # torch types a Module attribute as Tensor | Module; every head has horizon: int
            self.skip = nn.Linear(int(context), head.horizon)  # type: ignore[arg-type]
            nn.init.zeros_(self.skip.weight)
            nn.init.zeros_(self.skip.bias)
        self.changes = change_scale is not None
        if self.changes:
            scale = torch.as_tensor(change_scale, dtype=torch.float32).reshape(-1)
            if len(scale) != self.n_targets or not bool((scale > 0).all()):
                raise ValueError(
                    f"change_scale needs {self.n_targets} positive values, got {len(scale)}"
                )
            self.register_buffer("change_scale", scale, persistent=False)
        self.integrates = step_scale is not None
        if self.integrates:
            steps = torch.as_tensor(step_scale, dtype=torch.float32).reshape(-1)
            if self.season != 1 or len(steps) != self.n_targets or not bool((steps > 0).all()):
                raise ValueError(
                    f"step_scale needs season=1 and {self.n_targets} positive values, got "
                    f"season={self.season} and {len(steps)} values"
                )
            self.register_buffer("step_scale", steps, persistent=False)
        self.dct_input = None if dct_input is None else int(dct_input)
        if self.dct_input is not None and self.patch > 1:
            raise ValueError("dct_input reads coefficients, not patches: it needs patch=1")
        self.mixing = None
        if mixing:
            if self.skip is None:
                raise ValueError("mixing acts on the linear skip path: it needs context")
            self.mixing = ChannelMixing(self.n_targets)
        needs = self.windowed or self.season is not None or self.decodes
        if needs and self.n_targets < 1:
            raise ValueError("window normalisation and references need n_targets >= 1")

    @property
    def windowed(self) -> bool:
        """Whether forecasts need the whole window (normalisation, skip, seasonal reference).

        The last-value reference (``season=1``) needs only the last step: not windowed.
        Patches and step changes need whole windows too.
        """
        seasonal = self.season is not None and self.season > 1
        patched = self.patch > 1 or self.dct_input is not None
        return self.normalize or seasonal or self.skip is not None or patched or self.changes

    @property
    def decodes(self) -> bool:
        """Whether the head decodes from the last observed value (a recurrent decoder)."""
        return bool(getattr(self.head, "decodes", False))

    @property
    def recurrent(self) -> bool:
        """Whether the encoder carries state across calls (truncated BPTT applies)."""
        return bool(getattr(self.encoder, "recurrent", False))

    def forward(
        self, x: Tensor, future: Tensor | None = None, state: object = None
    ) -> tuple[Tensor, object]:
        """Forecast from the last step of each window.

        Parameters
        ----------
        x : Tensor of shape (B, T, I)
            Context windows.
        future : Tensor of shape (B, horizon, F), optional
            Future-known covariates of the forecast steps.
        state : optional
            Encoder state to start from (zeros when None).

        Returns
        -------
        forecast : Tensor of shape (B, horizon, C), or (B, horizon, C, Q) with a quantile head
        state
            The encoder state after the last step.
        """
        if not self.windowed and self.season is None and not self.decodes:
            y, state = self.encoder(x, state)  # (B, T', H)
            return self.head(y[:, -1], future), state  # (B, horizon, C)
        tokens, target, stats = self._prepare(x)
        y, state = self.encoder(tokens, state)  # (B, T', H)
        if self.decodes:
            out = self.head(y[:, -1], future, target[:, -1])  # (B, horizon, C)
        else:
            out = self.head(y[:, -1], future)  # (B, horizon, C) or (B, horizon, C, Q)
        if self.integrates:  # per-step changes -> offsets from the last value
            out = torch.cumsum(out * self.step_scale, dim=1)  # (B, horizon, C)
        if self.season is not None:
            out = out + _like(seasonal_reference(target, out.shape[1], self.season), out)
        if self.skip is not None:
            lags = target[:, -self.skip.in_features :].transpose(1, 2)  # (B, C, L)
            linear = self.skip(lags).transpose(1, 2)  # (B, h, C)
            if self.mixing is not None:
                linear = self.mixing(linear)
            out = out + _like(linear, out)
        if stats is not None:
            level, scale = stats
            out = out * _like(scale, out) + _like(level, out)  # scale > 0: order is kept
        return out, state

    def tokens(self, x: Tensor) -> Tensor:
        """Group the steps of windows ``(B, T, I)`` into patches ``(B, T / patch, patch * I)``.

        With ``dct_input`` the tokens are the window's DCT coefficients ``(B, k, I)``.
        """
        if self.dct_input is not None:
            horizon = int(self.head.horizon)  # type: ignore[arg-type]
            basis = dct_basis(x.shape[1] + horizon, self.dct_input).to(x.device)
            return dct_tokens(x, basis)
        if self.patch == 1:
            return x
        batch, steps, width = x.shape
        if steps % self.patch:
            raise ValueError(
                f"windows of {steps} steps do not split into patches of {self.patch} steps"
            )
        return x.reshape(batch, steps // self.patch, self.patch * width)

    def encoder_input(self, x: Tensor) -> Tensor:
        """Return what the encoder reads for windows ``x`` (B, T, I): normalised, in patches."""
        return self._prepare(x)[0]

    def _prepare(self, x: Tensor) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor] | None]:
        """Return the encoder tokens, the (normalised) targets (B, T, C) and window statistics.

        The statistics ``(level, scale)``, each ``(B, 1, C)``, are None without window
        normalisation; step changes, when read, are appended to each step's inputs.
        """
        c = self.n_targets
        target = x[..., :c]  # (B, L, C)
        changes = step_changes(target, self.change_scale) if self.changes else None  # (B, L, C)
        stats = None
        if self.normalize:
            stats = window_stats(target)  # (B, 1, C) each
            target = (target - stats[0]) / stats[1]
            x = torch.cat([target, x[..., c:]], dim=-1)
        if changes is not None:
            x = torch.cat([x, changes], dim=-1)  # (B, L, I + C)
        return self.tokens(x), target, stats

    def forward_steps(
        self, x: Tensor, future: Tensor | None = None, state: object = None
    ) -> tuple[Tensor, object]:
        """Forecast from every step of a chunk (truncated BPTT).

        Parameters
        ----------
        x : Tensor of shape (B, k, I)
            One chunk of each stream.
        future : Tensor of shape (B, k, horizon, F), optional
            Future-known covariates of the ``horizon`` steps after each chunk step.
        state : optional
            State carried from the previous chunk.

        Returns
        -------
        forecast : Tensor of shape (B, k, horizon, C)
        state
            The state to carry into the next chunk.
        """
        if self.windowed or self.decodes:
            raise ValueError(
                "window normalisation, seasonal references, patches, step changes and decoders "
                "need context windows; truncated BPTT streams have none (use windowing='sliding')"
            )
        y, state = self.encoder(x, state)  # (B, k, H)
        if y.shape[1] != x.shape[1]:
            raise ValueError("forward_steps needs an encoder that returns one output per step")
        out = self.head(y, future)  # (B, k, horizon, C) or (B, k, horizon, C, Q)
        if self.integrates:
            out = torch.cumsum(out * self.step_scale, dim=2)  # (B, k, horizon, C)
        if self.season == 1:  # residual: each step's own value is its reference
            out = out + _like(x[:, :, None, : self.n_targets], out)
        return out, state

    def param_groups(self) -> list[dict[str, object]]:
        """Parameter groups for :func:`forecast.training.optim.build_optimizer`.

        The encoder's own groups (for example Stiefel-constrained matrices) when it declares
        them, then one plain group with every other parameter.
        """
        declare = getattr(self.encoder, "param_groups", None)
        groups = list(declare()) if callable(declare) else []
        taken = {id(p) for group in groups for p in group["params"]}
        rest = [p for p in self.parameters() if p.requires_grad and id(p) not in taken]
        if rest:
            groups.append({"params": rest})
        return groups

    def epoch_metrics(self) -> dict[str, float]:
        """Diagnostics the encoder reports once per epoch (empty if it reports none)."""
        report = getattr(self.encoder, "epoch_metrics", None)
        return dict(report()) if callable(report) else {}
