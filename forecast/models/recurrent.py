"""Recurrent forecasters: Elman RNN, LSTM (optionally with peepholes) and GRU."""

from __future__ import annotations

from torch import nn

from forecast.models.neural import NeuralForecaster, store_params
from forecast.nn.recurrent import build_recurrent


class ElmanForecaster(NeuralForecaster):
    """Forecaster over an Elman recurrent network.

    Parameters
    ----------
    nonlinearity : {"tanh", "relu"}
        Activation of the recurrence.
    **common
        The parameters every neural forecaster shares (``context_length``, ``horizon``,
        ``hidden_size``, ``windowing``, ``max_epochs``, ...), with the same defaults; see
        :class:`forecast.models.neural.NeuralForecaster`.

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`NeuralForecaster`.

    Examples
    --------
    >>> from forecast.models.recurrent import ElmanForecaster
    >>> model = ElmanForecaster(context_length=168, hidden_size=64, max_epochs=30, random_state=0)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        nonlinearity="tanh",
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

    def _build_encoder(self, input_size: int) -> nn.Module:
        return build_recurrent(
            "elman",
            input_size,
            self.hidden_size,
            self.num_layers,
            self._dropout(),
            nonlinearity=self.nonlinearity,
        )


class LSTMForecaster(NeuralForecaster):
    """Forecaster over a long short-term memory network.

    Parameters
    ----------
    peephole : bool
        Let the gates read the cell state (peephole LSTM of :mod:`forecast.nn.peephole`).
    **common
        The parameters every neural forecaster shares (``context_length``, ``horizon``,
        ``hidden_size``, ``windowing``, ``max_epochs``, ...), with the same defaults; see
        :class:`forecast.models.neural.NeuralForecaster`.

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`NeuralForecaster`.

    Examples
    --------
    >>> from forecast.models.recurrent import LSTMForecaster
    >>> model = LSTMForecaster(context_length=168, hidden_size=64, max_epochs=30, random_state=0)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        peephole=False,
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

    def _build_encoder(self, input_size: int) -> nn.Module:
        return build_recurrent(
            "lstm",
            input_size,
            self.hidden_size,
            self.num_layers,
            self._dropout(),
            peephole=self.peephole,
        )


class GRUForecaster(NeuralForecaster):
    """Forecaster over a gated recurrent unit network.

    Parameters
    ----------
    **common
        The parameters every neural forecaster shares (``context_length``, ``horizon``,
        ``hidden_size``, ``windowing``, ``max_epochs``, ...), with the same defaults; see
        :class:`forecast.models.neural.NeuralForecaster`.

    Attributes
    ----------
    module_, history_, n_epochs_, best_epoch_, device_
        See :class:`NeuralForecaster`.

    Examples
    --------
    >>> from forecast.models.recurrent import GRUForecaster
    >>> model = GRUForecaster(context_length=168, hidden_size=64, max_epochs=30, random_state=0)
    >>> forecast = model.fit(df).predict(horizon=24)  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
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

    def _build_encoder(self, input_size: int) -> nn.Module:
        return build_recurrent(
            "gru", input_size, self.hidden_size, self.num_layers, self._dropout()
        )
