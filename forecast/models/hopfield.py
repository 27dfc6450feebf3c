"""Hopfield forecaster: modern-Hopfield pooling of the context window (Ramsauer et al., 2020)."""

from __future__ import annotations

import numpy as np
from torch import nn

from forecast.models.neural import NeuralForecaster, store_params
from forecast.models.transformer import encoder_inputs, per_series
from forecast.nn.hopfield import HopfieldPooling


class HopfieldForecaster(NeuralForecaster):
    """Forecaster that retrieves from the context window with learned Hopfield queries.

    Each context step becomes a stored pattern (embedded, with positions); a learned static
    state pattern per head retrieves ``softmax(beta K q) V``, optionally iterated; the pooled
    vector feeds the direct multi-horizon head.

    Parameters
    ----------
    n_heads : int
        Heads (learned queries); must divide ``hidden_size``.
    beta : float, optional
        Inverse temperature of the retrieval; ``None``: ``1 / sqrt(hidden_size / n_heads)``.
    update_steps : int
        Hopfield updates per retrieval; the retrieved pattern is the next query.
    positional : {"sinusoidal", "learned"}
        Positions added to the embedded steps.
    **common
        The parameters every neural forecaster shares (``context_length``, ``horizon``,
        ``hidden_size``, ``max_epochs``, ...), with the same defaults; see
        :class:`forecast.models.neural.NeuralForecaster`. ``num_layers`` is the depth of the
        per-step embedding; ``windowing="tbptt"`` is not available.

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`NeuralForecaster`.

    Examples
    --------
    >>> from forecast.models.hopfield import HopfieldForecaster
    >>> model = HopfieldForecaster(context_length=168, hidden_size=64, n_heads=4)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    >>> model.association_weights().shape  # doctest: +SKIP
    (1, 4, 168)
    """

    def __init__(
        self,
        *,
        n_heads=4,
        beta=None,
        update_steps=1,
        positional="sinusoidal",
        context_length=168,
        horizon=24,
        hidden_size=64,
        num_layers=1,
        dropout="auto",
        windowing="sliding",
        tbptt_steps=None,
        strategy="direct",
        max_epochs=30,
        batch_size=256,
        learning_rate=0.002,
        optimizer="adam",
        weight_decay=0.0,
        lr_scheduler=None,
        gradient_clip=1.0,
        validation_fraction=0.1,
        early_stopping_patience=5,
        device="auto",
        random_state=None,
        verbose=0,
        checkpoint_dir=None,
        future_covariates=None,
        past_covariates=None,
        calendar=False,
        country=None,
        timezone=None,
        fill_gaps=False,
        nan_policy="raise",
        normalization="auto",
        reference=None,
        validation_size=None,
        n_ensemble=1,
        train_origins="auto",
        linear_skip="auto",
        quantiles=None,
        residual=False,
        validation_series=None,
        patch_length=1,
        input_differences="auto",
        micro_batch_size=None,
        loss="mse",
        target_transform=None,
        horizon_weight="auto",
    ) -> None:
        store_params(self, locals())

    def _check_params(self) -> None:
        super()._check_params()
        if self.beta is not None and not self.beta > 0:
            raise ValueError(f"beta must be None or > 0, got {self.beta!r}")

    def _build_encoder(self, input_size: int) -> nn.Module:
        return HopfieldPooling(
            input_size,
            hidden_size=self.hidden_size,
            num_layers=self.num_layers,
            n_heads=self.n_heads,
            beta=self.beta,
            update_steps=self.update_steps,
            dropout=self._dropout(),
            positional=self.positional,
            max_len=self._n_tokens(),
        )

    def association_weights(self, history=None) -> np.ndarray | dict:
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
        x, keys, kind = encoder_inputs(self, history)
        self.module_.eval()
        return per_series(self.module_.encoder.association_weights(x), keys, kind)
