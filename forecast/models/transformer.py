"""Transformer forecaster: pre-norm self-attention blocks over the context window."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
import torch
from sklearn.utils.validation import check_is_fitted
from torch import nn

from forecast.base import FrameLike
from forecast.models._batching import context_windows
from forecast.models.declare import declare_params, param
from forecast.models.neural import NeuralForecaster
from forecast.nn.ensemble import EnsembleNet
from forecast.nn.net import ForecastNet
from forecast.nn.transformer import TransformerEncoder

_Encoder = TypeVar("_Encoder", bound=nn.Module)


def encoder_inputs(
    estimator: NeuralForecaster, history: FrameLike | None = None
) -> tuple[torch.Tensor, list[object], str]:
    """Return the context windows a fitted forecaster reads to forecast from ``history``.

    Parameters
    ----------
    estimator : NeuralForecaster
        Fitted.
    history : DataFrame, long DataFrame or dict of DataFrames, optional
        Data to forecast from, read as ``predict`` reads it (the fitted time zone, the grid,
        the NaN policy, scaling and covariates); defaults to the end of the training data.

    Returns
    -------
    x : Tensor of shape (n_series, n_tokens, patch_length * n_inputs)
        What the encoder reads (targets normalised per window when the network does so,
        steps grouped in patches; ``n_tokens = context_length / patch_length``), on the
        device of ``estimator.module_``.
    keys : list
        Series ids in the order of ``x``.
    kind : str
        Container kind of the data (``"frame"``, ``"long"`` or ``"dict"``).
    """
    check_is_fitted(estimator, "module_")
    arrays, frames, kind = estimator._frames_to_arrays(history, 0, None, "the encoder")
    x, _ = context_windows(arrays, estimator.context_length, 0)
    net = estimator.module_
    member = net.members[0] if isinstance(net, EnsembleNet) else net
    assert isinstance(member, ForecastNet)  # an ensemble's members are ForecastNets too
    device = next(member.parameters()).device
    with torch.no_grad():
        tokens = member.encoder_input(torch.from_numpy(x).to(device))
    return tokens, list(frames), kind


def encoder_weights(
    estimator: NeuralForecaster,
    history: FrameLike | None,
    encoder_type: type[_Encoder],
    weights: Callable[[_Encoder, torch.Tensor], torch.Tensor],
) -> npt.NDArray[np.float64] | dict[Any, npt.NDArray[np.float64]]:
    """Return ``weights(encoder, x)`` for the forecast from ``history``, per series.

    Parameters
    ----------
    estimator : NeuralForecaster
        Fitted, with an encoder of ``encoder_type``.
    history : DataFrame, long DataFrame, dict of DataFrames or None
        Data to forecast from, as in :func:`encoder_inputs` (None: the training data).
    encoder_type : type
        The class of ``estimator.module_.encoder``.
    weights : callable
        ``weights(encoder, x)``: the weights the encoder gives the windows ``x``, a tensor
        with the series first, such as ``TransformerEncoder.attention_weights``.

    Returns
    -------
    ndarray or dict
        The weights of the single series of a frame; else a dict of arrays keyed by series id.
    """
    x, keys, kind = encoder_inputs(estimator, history)
    estimator.module_.eval()
    encoder = estimator.module_.encoder
    assert isinstance(encoder, encoder_type)  # built by the estimator's _build_encoder
    arrays = weights(encoder, x).detach().cpu().double().numpy()
    if kind == "frame":
        return arrays[0]
    return {key: a for key, a in zip(keys, arrays, strict=True)}


@declare_params()
class TransformerForecaster(NeuralForecaster):
    """Forecaster over a transformer encoder with a direct multi-horizon head.

    Input projection, positional encoding, ``num_layers`` pre-norm blocks of multi-head
    scaled dot-product attention (torch's fused kernel) and a feed-forward layer; the head
    reads the encoding of the last context step. The parameters after ``causal`` are those
    every neural forecaster shares (:mod:`forecast.models.neural_params`);
    ``windowing="tbptt"`` is not available (the encoder carries no state).

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`forecast.models.neural.NeuralForecaster` (also for the resolved
        options ``dropout_``, ``normalize_``, ...).

    Examples
    --------
    >>> from forecast.models.transformer import TransformerForecaster
    >>> model = TransformerForecaster(context_length=168, hidden_size=64, n_heads=4)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    >>> model.attention_weights().shape  # doctest: +SKIP
    (1, 4, 168, 168)
    """

    n_heads: int = param(
        default=4,
        type="int",
        doc="Attention heads; must divide ``hidden_size`` (the model width ``d_model``).",
    )
    ff_size: int | None = param(
        default=None,
        type="int or None",
        doc="Hidden width of the feed-forward layers (None: ``4 * hidden_size``).",
    )
    positional: Literal["sinusoidal", "learned"] = param(
        default="sinusoidal",
        type='{"sinusoidal", "learned"}',
        doc="Fixed sinusoidal positions or a learned table of ``context_length`` vectors.",
    )
    causal: bool = param(
        default=False,
        type="bool",
        doc="Mask attention so that each step sees only itself and earlier steps.",
    )

    def _build_encoder(self, input_size: int) -> nn.Module:
        return TransformerEncoder(
            input_size,
            d_model=self.hidden_size,
            num_layers=self.num_layers,
            n_heads=self.n_heads,
            ff_size=self.ff_size,
            dropout=self.dropout_,
            positional=self.positional,
            causal=self.causal,
            max_len=self._n_tokens(),
        )

    def attention_weights(
        self, history: FrameLike | None = None
    ) -> npt.NDArray[np.float64] | dict[Any, npt.NDArray[np.float64]]:
        """Attention weights of the forecast from ``history`` (default: the training data).

        Parameters
        ----------
        history : DataFrame, long DataFrame or dict of DataFrames, optional
            Data to forecast from, as in :meth:`predict`.

        Returns
        -------
        ndarray of shape (num_layers, n_heads, n_tokens, n_tokens) or dict
            ``[l, h, i, j]`` is the weight that token ``i`` of the context window (the last
            ``context_length`` timestamps of the history, oldest first, in
            ``n_tokens = context_length / patch_length`` patches) gives token ``j`` in
            block ``l``, head ``h``; rows sum to 1. A dict of such arrays, keyed by series
            id, when the data hold several series. The forecast reads row ``i = -1``.
        """
        return encoder_weights(
            self, history, TransformerEncoder, TransformerEncoder.attention_weights
        )
