"""Orthogonal RNN forecaster: an Elman recurrence with ``W_h`` kept on the Stiefel manifold."""

from __future__ import annotations

from torch import nn

from forecast.models.neural import NeuralForecaster, store_params
from forecast.nn.orthogonal import OrthogonalRNN


class OrthogonalRNNForecaster(NeuralForecaster):
    """Forecaster over an orthogonal RNN trained with the Cayley update (Wisdom et al., 2016).

    ``h_t = f(W_h h_{t-1} + W_x x_t + b)`` with ``W_h`` orthogonal at initialisation and after
    every optimizer step, so the recurrence keeps its eigenvalues on the unit circle.

    Parameters
    ----------
    nonlinearity : {"relu", "tanh"}
        Activation ``f`` of the recurrence. ``"relu"`` follows Wisdom et al.; on the
        delayed-recall task of ``experiments/long_memory.py`` only ``"tanh"`` learned to
        carry values across 100+ steps.
    stiefel_lr : float, optional
        Learning rate of the Cayley update of ``W_h`` (``None``: ``learning_rate``). LR
        schedules scale it too.
    stiefel_rmsprop : bool
        Scale the gradient of ``W_h`` RMSprop-style before the Cayley update.
    init : {"random", "identity"}
        Initial ``W_h``: Haar-random orthogonal, or the identity.
    **common
        The parameters every neural forecaster shares (``context_length``, ``horizon``,
        ``hidden_size``, ``windowing``, ``max_epochs``, ...), with the same defaults; see
        :class:`forecast.models.neural.NeuralForecaster`.

    Attributes
    ----------
    orthogonality_error_ : float
        ``max |W_h^T W_h - I|`` over the layers after training; ``history_`` holds it per
        epoch under ``"orthogonality_error"``.
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`NeuralForecaster`.

    Examples
    --------
    >>> from forecast.models.orthogonal import OrthogonalRNNForecaster
    >>> model = OrthogonalRNNForecaster(context_length=168, hidden_size=64, random_state=0)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    >>> model.orthogonality_error_ < 1e-4  # doctest: +SKIP
    True
    """

    def __init__(
        self,
        *,
        nonlinearity="relu",
        stiefel_lr=None,
        stiefel_rmsprop=False,
        init="random",
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
        if self.stiefel_lr is not None and not self.stiefel_lr > 0:
            raise ValueError(f"stiefel_lr must be None or > 0, got {self.stiefel_lr!r}")

    def _build_encoder(self, input_size: int) -> nn.Module:
        return OrthogonalRNN(
            input_size,
            self.hidden_size,
            self.num_layers,
            nonlinearity=self.nonlinearity,
            dropout=self._dropout(),
            init=self.init,
            stiefel_lr=self.stiefel_lr,
            stiefel_rmsprop=self.stiefel_rmsprop,
        )

    def _fit(self, series: list, callbacks: list) -> None:
        super()._fit(series, callbacks)
        self.orthogonality_error_ = self.module_.encoder.orthogonality_error()
