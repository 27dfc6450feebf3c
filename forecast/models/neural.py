"""The shared base of the neural forecasters.

A family (LSTM, transformer, ...) subclasses :class:`NeuralForecaster`, declares the
parameters it adds as :func:`forecast.models.declare.param` fields (the shared ones are
those of :class:`forecast.models.neural_params.NeuralParams`) and implements one method,
``_build_encoder(input_size) -> nn.Module``. Windows, heads, training, roll-out, seeding,
checkpoints and persistence live here and in the modules it calls (lengths and the
validation split: :mod:`forecast.models.neural_lengths`; ``update``:
:mod:`forecast.models.neural_update`).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import numpy as np
import torch
from torch import nn

from forecast.base import SeriesArrays
from forecast.frames.quantiles import check_levels, point_level
from forecast.frames.steps import origin_masks, steps
from forecast.models._batching import (
    PREDICT_CHUNK,
    change_scale,
    context_windows,
    data_fingerprint,
    rollout,
    training_data,
)
from forecast.models._params import builtin_ints, check_params, floats, seed_of
from forecast.models.auto import (  # noqa: F401 (the constants were public here in 0.1.0)
    AUTO_ORIGINS,
    AUTO_RESIDUAL_DROPOUT,
    AUTO_RESIDUAL_HORIZON_WEIGHT,
    channel_weights,
    position_weights,
    resolve_auto,
)
from forecast.models.declare import declare_params
from forecast.models.legacy import fill_0_1_0
from forecast.models.neural_lengths import NeuralLengths
from forecast.models.neural_params import NeuralParams
from forecast.models.neural_update import ContinueTraining
from forecast.models.onnx_export import OnnxExportMixin
from forecast.nn.decoder import DecoderHead
from forecast.nn.ensemble import EnsembleNet
from forecast.nn.heads import PointHead, QuantileHead
from forecast.nn.net import ForecastNet
from forecast.training.device import resolve_device
from forecast.training.loop import TrainConfig, seeded, train

# Parameters that may change between an interrupted fit and its resumption. micro_batch_size
# changes memory, not the maths (like device: rounding), so an out-of-memory fit resumes smaller.
_RESUMABLE = (
    "max_epochs",
    "early_stopping_patience",
    "verbose",
    "checkpoint_dir",
    "device",
    "micro_batch_size",
)


@declare_params()
class NeuralForecaster(NeuralParams, ContinueTraining, OnnxExportMixin, NeuralLengths):
    """Base of the neural forecasters: an encoder over context windows and a direct head.

    Every ``"auto"`` parameter is resolved once in ``fit``
    (:func:`forecast.models.auto.resolve_auto`; the table is in
    :mod:`forecast.models.neural_params`) into the fitted attributes below; building the
    network, predicting, saving and loading read those, never the rule.

    Attributes
    ----------
    module_ : ForecastNet
        The fitted network.
    history_ : dict of lists
        ``train_loss``, ``val_loss`` (with validation), ``lr`` and encoder extras per epoch.
    n_epochs_, best_epoch_ : int
        Epochs run, and the (0-based) epoch whose weights were kept.
    device_ : str
        Device trained on.
    n_inputs_, n_outputs_, n_past_, n_future_, head_horizon_ : int
        Shapes of the network, enough to rebuild it with :meth:`_build_module`.
    seed_ : int
        Seed actually used (drawn when ``random_state`` is None).
    dropout_ : float
        The encoder's dropout (``dropout`` resolved).
    horizon_weight_ : ndarray of shape (head_horizon_,) or None
        Weights of the leads in the training loss, mean 1 (None: alike).
    channel_weight_ : ndarray of shape (n_outputs_,) or None
        Weights of the target channels in the training loss, mean 1 (None: alike); with
        ``loss="position"`` each channel's factor back to the data's units.
    input_differences_ : bool
        Whether the encoder also reads the step changes (``input_differences`` resolved).
    normalize_ : bool
        Whether window normalisation is applied (``normalization`` resolved).
    skip_ : bool
        Whether the linear skip path is part of the network (``linear_skip`` resolved).
    train_origins_ : int, tuple of str or None
        The steps that may end a training window (``train_origins`` resolved): every
        ``k``-th step, the steps ending at these local times, or None (every step).
    tbptt_steps_ : int
        Chunk length of truncated-BPTT streams (``tbptt_steps`` resolved).
    season_ : int or None
        Season of the seasonal reference in steps (1 with ``residual=True``).
    residual_ : bool
        Whether the network forecasts changes from the last observed value.
    difference_ : bool
        Whether it forecasts step changes that are summed (``target_transform``).
    change_scale_ : ndarray of shape (n_targets,) or None
        Root mean square of the one-step changes of each target channel (scaled units) over
        the training series, which divides the step changes read, forecast and penalised by
        ``velocity_weight`` (None: none of them).
    validation_series_ : list or None
        Keys of the series held out whole, by ``validation_series`` or by the rule under
        ``validation_fraction`` (None: tails).
    untailed_series_ : list or None
        Keys of the series too short for a validation tail, trained on whole without one
        while the others keep theirs (None: none).
    validation_steps_ : int or None
        Validation tail per series in steps when ``validation_size`` was given.
    quantiles_ : tuple of float or None
        The quantile levels of the head (None: a point head).
    """

    # ------------------------------------------------------------ subclass hook
    def _build_encoder(self, input_size: int) -> nn.Module:
        """Return the encoder for ``input_size`` features per step (subclasses)."""
        raise NotImplementedError

    # ------------------------------------------------------------- parameters
    def _check_params(self) -> None:
        check_params(self)

    def _seed(self) -> int:
        return seed_of(self.random_state)

    def _resolve_options(self, series: list[SeriesArrays]) -> None:
        """Set every resolved option (``dropout_``, ``normalize_``, ...) from the params."""
        n_steps = sum(len(s.y) for s in series)
        auto = resolve_auto(self.get_params(), n_steps=n_steps, head_horizon=self.head_horizon_)
        self.dropout_ = auto.dropout
        self.horizon_weight_ = auto.horizon_weight
        self.input_differences_ = auto.input_differences
        self.normalize_ = auto.normalize
        self.skip_ = auto.linear_skip
        self.train_origins_ = auto.train_origins
        self.tbptt_steps_ = auto.tbptt_steps
        self.residual_ = bool(self.residual)
        self.difference_ = self.target_transform == "difference"
        self.season_ = None
        if self.residual_ or self.difference_:
            self.season_ = 1  # the last observed value is the reference of every step
        elif self.reference is not None:
            self.season_ = steps(self.reference, "reference", self.freq_)
            if self.season_ > self.context_length:
                raise ValueError(
                    f"reference={self.reference!r} is {self.season_} steps, longer than "
                    f"context_length={self.context_length}: the reference must lie in the context"
                )
        self.validation_steps_ = None
        if self.validation_size is not None:
            self.validation_steps_ = steps(self.validation_size, "validation_size", self.freq_)
        scaled = self.input_differences_ or self.difference_ or self.velocity_weight > 0
        scale = getattr(self.scaler_, "scale_", None)
        power = 2 if self.loss == "mse" else 1
        self.channel_weight_ = channel_weights(self.channel_weight, scale, self.n_outputs_, power)
        if self.loss == "position":
            self.channel_weight_ = position_weights(self, scale)
        self.change_scale_ = change_scale(series) if scaled else None

    # ---------------------------------------------------------------- network
    def _build_module(self) -> None:
        """Build ``module_`` (untrained, on CPU) from the fitted attributes alone.

        Loading calls it too: a model saved by 0.1.0 first gets the fitted attributes it
        lacks, by the rules of 0.1.0 (:func:`forecast.models.legacy.fill_0_1_0`).
        """
        fill_0_1_0(self)
        with builtin_ints(self):  # numpy integer parameters: torch's layers take only int
            members = [self._build_member(self.seed_ + i) for i in range(int(self.n_ensemble))]
        self.module_ = members[0] if len(members) == 1 else EnsembleNet(list(members))

    def _build_member(self, seed: int) -> nn.Module:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            scale = self.change_scale_
            width = self.n_inputs_ + (self.n_outputs_ if self.input_differences_ else 0)
            encoder = self._build_encoder(width * self.patch_length)
            assert isinstance(encoder.output_size, int)  # every encoder sets it
            return ForecastNet(
                encoder,
                self._build_head(encoder.output_size),
                n_targets=self.n_outputs_,
                normalize=self.normalize_,
                season=self.season_,
                context=self.context_length if self.skip_ else None,
                patch=self.patch_length,
                change_scale=torch.as_tensor(scale) if self.input_differences_ else None,
                step_scale=torch.as_tensor(scale) if self.difference_ else None,
                dct_input=self.dct_input,
                mixing=bool(self.channel_mixing),
            )

    def _build_head(self, size: int) -> nn.Module:
        """Return the head reading the encoder's summary of ``size`` features."""
        shape = (size, self.head_horizon_, self.n_outputs_, self.n_future_)
        levels = self._quantile_levels()
        k = self.dct_output
        if self.strategy == "seq2seq":
            return DecoderHead(*shape, residual=self.residual_)
        if levels:
            middle = point_level(levels)
            return QuantileHead(*shape, n_quantiles=len(levels), middle=middle, coefficients=k)
        return PointHead(*shape, coefficients=k)

    def _n_tokens(self) -> int:
        """Return the encoder tokens per window: ``dct_input`` or ``context_length / patch``."""
        return int(self.dct_input or int(self.context_length) // int(self.patch_length))

    # -------------------------------------------------------------------- fit
    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        self._check_params()
        first = series[0]
        self.device_ = resolve_device(self.device)
        self.seed_ = self._seed()
        self.n_outputs_ = first.y.shape[1]
        self.n_past_ = 0 if first.past is None else first.past.shape[1]
        self.n_future_ = 0 if first.future is None else first.future.shape[1]
        self.n_inputs_ = self.n_outputs_ + self.n_past_ + self.n_future_
        self.head_horizon_ = self._head_horizon()
        self.quantiles_ = None if self.quantiles is None else check_levels(self.quantiles)
        self._resolve_options(series)
        self._build_module()
        if self.windowing == "tbptt" and not self.module_.recurrent:
            raise ValueError(
                f"windowing='tbptt' needs a recurrent encoder; {type(self).__name__} is not "
                "recurrent: use windowing='sliding'"
            )
        if self.time_reversal and self.n_future_:
            raise ValueError(
                f"time_reversal=True cannot reverse the {self.n_future_} future-known covariates "
                "(calendar features or columns): fit on the targets alone (calendar=False, no "
                "future columns)"
            )
        held, untailed = self._validation_split(series)
        train_data, val_data = self._training_data(series, held, untailed)
        if len(train_data) == 0:
            raise ValueError(
                f"no training window: train_origins={self.train_origins!r} selects no step that "
                f"ends a context of {self.context_length} steps followed by {self.head_horizon_} "
                "target steps before the validation tail"
            )
        change_scales = floats(self.change_scale_)
        config = TrainConfig(
            max_epochs=self.max_epochs,
            batch_size=self.batch_size,
            learning_rate=self.learning_rate,
            optimizer=self.optimizer,
            weight_decay=self.weight_decay,
            lr_scheduler=self.lr_scheduler,
            gradient_clip=self.gradient_clip,
            early_stopping_patience=self.early_stopping_patience,
            verbose=self.verbose,
            checkpoint_dir=self.checkpoint_dir,
            signature=self._signature(series),
            quantiles=self.quantiles_,
            micro_batch_size=self.micro_batch_size,
            loss=self.loss,
            step_scale=change_scales if self.difference_ else None,
            lead_weight=floats(self.horizon_weight_),
            velocity=None if change_scales is None else (self.velocity_weight, change_scales),
            channel_weight=floats(self.channel_weight_),
        )
        members = self.module_.members if isinstance(self.module_, EnsembleNet) else [self.module_]
        results = []
        for i, member in enumerate(members):
            member_config = config
            if i and config.checkpoint_dir:
                member_config = replace(config, checkpoint_dir=f"{config.checkpoint_dir}/member{i}")
            with seeded(self.seed_ + i, self.device_) as rng:
                results.append(
                    train(member, train_data, val_data, member_config, callbacks, rng, self.device_)
                )
        self.module_.to(self.device_)
        self.history_ = results[0].history
        self.n_epochs_ = results[0].n_epochs
        self.best_epoch_ = results[0].best_epoch

    def _training_data(
        self, series: list[SeriesArrays], held: list[int] | None, untailed: list[int]
    ) -> tuple[Any, Any]:
        """Training samples and validation windows of ``fit`` (a hook: subclasses add inputs).

        ``held`` and ``untailed`` are the positions of :meth:`_validation_split`.
        """
        return training_data(
            series,
            context=self.context_length,
            horizon=self.head_horizon_,
            windowing=self.windowing,
            tbptt_steps=self.tbptt_steps_,
            batch_size=self.batch_size,
            validation_fraction=self.validation_fraction,
            validation_steps=self.validation_steps_,
            origins=origin_masks(self.train_origins_, series, self.freq_, self.timezone),
            held_out=held,
            untailed=untailed,
            time_reversal=self.time_reversal,
        )

    def _head_future(
        self, series: list[SeriesArrays], future: np.ndarray | None, horizon: int
    ) -> np.ndarray | None:
        """Return what the head reads for the forecast steps, ``(n, horizon, F)`` (a hook)."""
        return future

    def _signature(self, series: list[SeriesArrays]) -> str:
        params = {k: v for k, v in self.get_params().items() if k not in _RESUMABLE}
        shapes = (self.n_inputs_, self.n_outputs_, self.n_future_, self.head_horizon_)
        return (
            f"{type(self).__name__}|{sorted(params.items())!r}|{shapes}|{data_fingerprint(series)}"
        )

    # ---------------------------------------------------------------- predict
    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        out = self._predict_quantiles(series, horizon)
        return out if out.ndim == 3 else out[..., point_level(self._quantile_levels())]

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(getattr(self, "quantiles_", None) or ())  # absent before fit

    def _predict_quantiles(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Forecasts ``(n, horizon, C, Q)`` of a quantile head (``(n, horizon, C)`` without)."""
        if horizon > self.head_horizon_ and self.n_past_:
            raise ValueError(
                f"horizon={horizon} exceeds the {self.head_horizon_} step(s) the network forecasts "
                f"at once, so forecasts would be fed back as inputs, but the past covariates "
                f"{self.past_covariates_} are unknown after the last timestamp: forecast at most "
                f"{self.head_horizon_} steps or refit with horizon >= {horizon}"
            )
        levels = self._quantile_levels()
        point = point_level(levels) if levels else None
        x, future = context_windows(series, self.context_length, horizon)
        future = self._head_future(series, future, horizon)
        chunk = min(PREDICT_CHUNK, self.micro_batch_size or PREDICT_CHUNK)
        out = rollout(self.module_, x, future, horizon, self.head_horizon_, chunk, point=point)
        if not np.isfinite(out).all():  # diverged weights, or a recursive rollout that blew up
            raise RuntimeError(
                f"{type(self).__name__} forecasts NaN/inf: the network diverged; refit with a "
                "lower learning_rate, gradient_clip set, or data of a sane scale"
            )
        return out

    # ------------------------------------------------------------ persistence
    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        for name, value in state.items():
            if isinstance(value, nn.Module) and any(
                p.device.type != "cpu" for p in value.parameters()
            ):
                state[name] = copy.deepcopy(value).cpu()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if "module_" in state:  # a fitted model pickled by 0.1.0 may lack resolved options
            fill_0_1_0(self)
