"""DCT-mixer forecaster: LTD's and siMLPe's networks over whole padded windows."""

from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from forecast.base import SeriesArrays
from forecast.frames.quantiles import point_level
from forecast.models._params import integer, one_of
from forecast.models.declare import declare_params, param
from forecast.models.neural import NeuralForecaster
from forecast.nn.mixer import MIXERS, DCTMixerNet

# Shared options the mixer has no place for, with the value that leaves them off.
_NOT_TAKEN = {
    "strategy": "direct",
    "windowing": "sliding",
    "patch_length": 1,
    "dct_input": None,
    "dct_output": None,
    "channel_mixing": False,
    "residual": False,
    "reference": None,
    "target_transform": None,
}


@declare_params()
class DCTMixerForecaster(NeuralForecaster):
    """Forecaster that mixes the DCT coefficients of the whole padded window.

    The context window of ``context_length`` steps is padded with its last step over the
    ``horizon`` (future-known covariates take their known values), transformed by a DCT
    along time, corrected by a stack of blocks that mix coefficients and channels, and
    transformed back (:class:`forecast.nn.mixer.DCTMixerNet`). The correction is added to
    the padded window's coefficients, so the network starts from the last observed step
    repeated: a residual over the last value, as the motion-prediction models LTD (Mao et
    al. 2019) and siMLPe (Guo et al. 2023) have it; those two are ``mixer="gcn"`` and
    ``mixer="mlp"`` (:data:`forecast.models.LTD` and
    :data:`forecast.models.SIMLPE` hold their settings); PGBIG's stages (Ma et al. 2022) are
    ``mixer="pgbig"`` (:data:`forecast.models.PGBIG_3D`).

    It reads every input channel as a node of the mixer (targets, past and future-known
    covariates, calendar features), so it suits many channels that move together (joint
    angles) as well as one load series with its calendar. ``num_layers`` is the number of
    blocks and ``hidden_size`` their width. The parameters after ``observed_loss`` are
    those every neural forecaster shares (:mod:`forecast.models.neural_params`); these are
    not taken and must keep their defaults: ``strategy``, ``windowing``, ``patch_length``,
    ``dct_input``, ``dct_output``, ``channel_mixing``, ``residual``, ``reference`` and
    ``target_transform``; ``linear_skip`` and ``input_differences`` stay ``"auto"`` (off).
    ``normalization="window"`` (what ``"auto"`` means) centres and scales each window's
    targets before the transform. With ``quantiles`` every level has its own correction
    of the window, non-crossing around the median.

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`forecast.models.neural.NeuralForecaster` (also for the resolved
        options ``dropout_``, ``normalize_``, ...).

    Examples
    --------
    >>> from forecast.models.dct_mixer import DCTMixerForecaster
    >>> model = DCTMixerForecaster(context_length=168, horizon=24, hidden_size=64, num_layers=2)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    """

    mixer: Literal["gcn", "mlp", "pgbig"] = param(
        default="gcn",
        type='{"gcn", "mlp", "pgbig"}',
        doc="""The blocks between the transforms. ``"gcn"``: LTD's residual graph-convolution
        blocks (two dense graph convolutions over the channels each, batch norm, tanh,
        dropout; ``hidden_size`` features per channel). ``"mlp"``: siMLPe's blocks (a linear
        map over the coefficients of each channel and a layer norm over ``hidden_size``
        channels, between linear maps across channels; no non-linearity, no dropout).
        ``"pgbig"``: PGBIG's stages (:mod:`forecast.nn.progressive`; ``num_layers`` stages of
        separable graph convolutions over joints, channels and coefficients, ``hidden_size``
        channels per joint), each refining the window the stage before forecast, each
        trained on its own target, smoother for earlier stages; the targets must be (x, y,
        z) triples of joint positions, without covariates, and the forecast a point.""",
        check=one_of(*MIXERS),
    )
    n_coefficients: int | None = param(
        default=None,
        type="int or None",
        doc="""DCT coefficients kept of the ``context_length + horizon`` steps of the padded
        window; fewer smooth the trajectory. None: all of them (a change of basis).""",
        check=integer(optional=True),
    )
    observed_loss: bool = param(
        default=True,
        type="bool",
        doc="""Train on the whole window: the loss averages the network's reconstruction of the
        ``context_length`` observed steps and its ``horizon`` forecast steps alike, as LTD
        does. False: the forecast steps only. Validation and early stopping watch the
        forecast steps either way.""",
        check=one_of(True, False, says="True or False"),
    )

    def _check_params(self) -> None:
        super()._check_params()
        for name, off in _NOT_TAKEN.items():
            value = getattr(self, name, off)
            if value != off:
                raise ValueError(
                    f"{name}={value!r} is not taken by {type(self).__name__} (the mixer "
                    f"forecasts the whole horizon from the padded window, residually over the "
                    f"last step): leave {name}={off!r}"
                )
        if self.linear_skip is True or self.input_differences is True:
            raise ValueError(
                "linear_skip and input_differences are not taken by DCTMixerForecaster: "
                "leave them 'auto'"
            )
        if self.n_coefficients is not None and self.n_coefficients > (
            self.context_length + self.horizon
        ):
            raise ValueError(
                f"n_coefficients={self.n_coefficients} exceeds the {self.context_length} + "
                f"{self.horizon} steps of the padded window"
            )
        if self.observed_loss and self.horizon_weight not in ("auto", None):
            raise ValueError(
                "horizon_weight weighs the forecast steps, but observed_loss=True trains on "
                "the whole window: give one of them"
            )

    def _resolve_options(self, series: list[SeriesArrays]) -> None:
        super()._resolve_options(series)
        self.skip_ = False  # the mixer has no separate linear path
        self.input_differences_ = False
        self.change_scale_ = None if self.velocity_weight == 0 else self.change_scale_

    def _build_encoder(self, input_size: int) -> nn.Module:
        raise NotImplementedError("DCTMixerForecaster builds its whole network in _build_member")

    def _build_member(self, seed: int) -> nn.Module:
        levels = self._quantile_levels()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = DCTMixerNet(
                self.n_inputs_,
                self.n_outputs_,
                self.n_future_,
                context=self.context_length,
                horizon=self.head_horizon_,
                n_coefficients=self.n_coefficients,
                hidden_size=self.hidden_size,
                num_layers=self.num_layers,
                dropout=self.dropout_,
                mixer=self.mixer,
                normalize=self.normalize_,
                observed_loss=bool(self.observed_loss),
                n_quantiles=max(1, len(levels)),
                middle=point_level(levels) if levels else 0,
            )
        return net
