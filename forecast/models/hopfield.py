"""Hopfield forecaster: modern-Hopfield pooling of the context window (Ramsauer et al., 2020)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from torch import nn

from forecast.base import FrameLike
from forecast.models._params import none_or_positive
from forecast.models.declare import declare_params, param
from forecast.models.neural import NeuralForecaster
from forecast.models.transformer import encoder_weights
from forecast.nn.hopfield import HopfieldPooling


@declare_params()
class HopfieldForecaster(NeuralForecaster):
    """Forecaster that retrieves from the context window with learned Hopfield queries.

    Each context step becomes a stored pattern (embedded, with positions); a learned static
    state pattern per head retrieves ``softmax(beta K q) V``, optionally iterated; the pooled
    vector feeds the direct multi-horizon head. The parameters after ``positional`` are
    those every neural forecaster shares (:mod:`forecast.models.neural_params`);
    ``num_layers`` is the depth of the per-step embedding; ``windowing="tbptt"`` is not
    available.

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`forecast.models.neural.NeuralForecaster` (also for the resolved
        options ``dropout_``, ``normalize_``, ...).

    Examples
    --------
    >>> from forecast.models.hopfield import HopfieldForecaster
    >>> model = HopfieldForecaster(context_length=168, hidden_size=64, n_heads=4)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    >>> model.association_weights().shape  # doctest: +SKIP
    (1, 4, 168)
    """

    n_heads: int = param(
        default=4, type="int", doc="Heads (learned queries); must divide ``hidden_size``."
    )
    beta: float | None = param(
        default=None,
        type="float or None",
        doc="Inverse temperature of the retrieval; None: ``1 / sqrt(hidden_size / n_heads)``.",
        check=none_or_positive,
    )
    update_steps: int = param(
        default=1,
        type="int",
        doc="Hopfield updates per retrieval; the retrieved pattern is the next query.",
    )
    positional: Literal["sinusoidal", "learned"] = param(
        default="sinusoidal",
        type='{"sinusoidal", "learned"}',
        doc="Positions added to the embedded steps.",
    )

    def _build_encoder(self, input_size: int) -> nn.Module:
        return HopfieldPooling(
            input_size,
            hidden_size=self.hidden_size,
            num_layers=self.num_layers,
            n_heads=self.n_heads,
            beta=self.beta,
            update_steps=self.update_steps,
            dropout=self.dropout_,
            positional=self.positional,
            max_len=self._n_tokens(),
        )

    def association_weights(
        self, history: FrameLike | None = None
    ) -> npt.NDArray[np.float64] | dict[Any, npt.NDArray[np.float64]]:
        """Which context steps the forecast from ``history`` retrieved.

        Parameters
        ----------
        history : DataFrame, long DataFrame or dict of DataFrames, optional
            Data to forecast from, as in :meth:`predict` (default: the training data).

        Returns
        -------
        ndarray of shape (update_steps, n_heads, n_tokens) or dict
            Association weights of every update and head over the context window (the last
            ``context_length`` timestamps of the history, oldest first, in ``n_tokens =
            context_length / patch_length`` patches); each row sums to 1.
            A dict of such arrays, keyed by series id, when the data hold several series.
        """
        return encoder_weights(self, history, HopfieldPooling, HopfieldPooling.association_weights)
