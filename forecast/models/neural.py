"""The shared base of the neural forecasters, in one class.

A family (LSTM, transformer, ...) subclasses :class:`NeuralForecaster`, declares the
parameters it adds as :func:`forecast.models.declare.param` fields (the shared ones are
those of :class:`forecast.models.neural_params.NeuralParams`) and implements one method,
``_build_encoder(input_size) -> nn.Module``. The class holds the rest: the lengths a fit
and a forecast need and the validation split, the network and its heads, ``fit``,
``update`` (training continues from the fitted weights), the roll-out, ``to_onnx`` and
persistence. The arrays come from the frame pipeline's entry points
(:class:`forecast.frames.pipeline.ForecastPipeline`), the windows from
:mod:`forecast.models._batching`, the training loop from :mod:`forecast.training.loop`.

``update`` (the ``"continue"`` rule of :mod:`forecast.training.update`): the new rows, with
the kept context (``train_tail_``: the last ``context_length`` rows seen) in front, are
scaled by the fitted scalers (never refitted, so the network reads the same units) and cut
into windows by the function that cuts ``fit``'s (the same ``train_origins_``, validation
tail, ``time_reversal`` and loss); every training target lies in the new rows. Training
runs on the current weights with an optimizer rebuilt at the fitted ``learning_rate`` or
the update's own (its moments start from zero, a learning-rate schedule starts over), for
``epochs`` epochs (default ``max_epochs``), stopping early when the validation tail stops
improving, and keeps the best weights. Each update draws its data order from ``seed_`` and
the update's number, so the same updates on the same data give the same weights.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.utils.validation import check_is_fitted
from torch import nn

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.decomposition import DifferentiableForecast
from forecast.frames.pipeline import check_roll_out
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
from forecast.models._params import builtin_ints, check_option, check_params, floats, seed_of
from forecast.models.auto import (  # noqa: F401 (the constants were public here in 0.1.0)
    AUTO_ORIGINS,
    AUTO_RESIDUAL_DROPOUT,
    AUTO_RESIDUAL_HORIZON_WEIGHT,
    channel_weights,
    position_weights,
    resolve_auto,
)
from forecast.models.legacy import fill_0_1_0
from forecast.models.neural_inputs import differentiable_forecast
from forecast.models.neural_params import NeuralParams
from forecast.nn.decoder import DecoderHead
from forecast.nn.ensemble import EnsembleNet
from forecast.nn.heads import PointHead, QuantileHead
from forecast.nn.net import ForecastNet
from forecast.training.device import resolve_device
from forecast.training.loop import TrainConfig, TrainResult, seeded, train
from forecast.training.splits import default_split, held_out, length_reason, min_length
from forecast.training.windows import StreamChunks, WindowDataset

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

_UPDATE_SEED = 7919  # seeds of update n: seed_ + member + 7919 * n (apart from fit's)

Windows = tuple[WindowDataset | StreamChunks, WindowDataset | None]
"""Training samples and validation windows (None: no validation)."""


class NeuralForecaster(NeuralParams, BaseForecaster):
    """Base of the neural forecasters: an encoder over context windows and a direct head.

    Every ``"auto"`` parameter is resolved once in ``fit``
    (:func:`forecast.models.auto.resolve_auto`; the table is in
    :mod:`forecast.models.neural_params`) into the fitted attributes below; building the
    network, predicting, saving and loading read those, never the rule. The parameters are
    those of :class:`~forecast.models.neural_params.NeuralParams` (each family's docstring
    lists them with its own).

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

    # the fitted attributes (documented above; set by fit, update or a saved folder)
    module_: nn.Module
    history_: dict[str, list[float]]
    n_epochs_: int
    best_epoch_: int
    device_: str
    seed_: int
    n_inputs_: int
    n_outputs_: int
    n_past_: int
    n_future_: int
    head_horizon_: int
    quantiles_: tuple[float, ...] | None
    dropout_: float
    horizon_weight_: np.ndarray | None
    channel_weight_: np.ndarray | None
    input_differences_: bool
    normalize_: bool
    skip_: bool
    train_origins_: int | tuple[str, ...] | None
    tbptt_steps_: int
    season_: int | None
    residual_: bool
    difference_: bool
    change_scale_: np.ndarray | None
    validation_series_: list[Any] | None
    untailed_series_: list[Any] | None
    validation_steps_: int | None

    _update_rule = "continue"

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

    # ---------------------------------------------------------------- lengths
    def _head_horizon(self) -> int:
        return 1 if self.strategy == "recursive" else int(self.horizon)

    def _min_history(self) -> int:
        return int(self.context_length)

    def _keep_history(self) -> int | None:
        return int(self.context_length)

    def _min_train_length(self) -> int:
        self._check_params()
        return min_length(*self._length_terms())

    def _length_reason(self) -> str:
        context, h, frac, tail, whole = self._length_terms()
        return length_reason(context, h, self.strategy == "recursive", frac, tail, whole)

    def _check_train_lengths(self, lengths: dict[Any, int]) -> None:
        held, untailed = self._default_split(list(lengths.values()))
        if held is None and not untailed:
            super()._check_train_lengths(lengths)
            return
        context, h, frac, _, _ = self._length_terms()
        need = min_length(context, h, frac, None, True)  # one window: no tail
        recursive = self.strategy == "recursive"
        least = self._min_train_length()
        reason = length_reason(
            context, h, recursive, frac, None, True, least, held=held is not None
        )
        for key, rows in lengths.items():
            validation.check_length(rows, need, key, reason)

    def _default_split(self, lengths: list[int]) -> tuple[list[int] | None, list[int]]:
        """Whole series held out and series without a tail by default (``default_split``)."""
        if self.validation_series is not None or self.validation_size is not None:
            return None, []
        return default_split(lengths, self._min_train_length(), self.validation_fraction)

    def _length_terms(self) -> tuple[int, int, float, int | None, bool]:
        tail = None
        if self.validation_size is not None:
            tail = steps(self.validation_size, "validation_size", self.freq_)
        whole = self.validation_series is not None
        h = self._head_horizon()
        return int(self.context_length), h, self.validation_fraction, tail, whole

    def _validation_split(self, series: list[SeriesArrays]) -> tuple[list[int] | None, list[int]]:
        """Positions of the series held out whole (None: tails) and of those without a tail.

        Tails of each series, whole series held out (``validation_series``), or by default
        whole series when the series are too short for tails
        (:func:`forecast.training.splits.default_split`). Sets ``validation_series_`` and
        ``untailed_series_`` (their keys, None when empty).
        """
        if self.validation_series is None:
            held, untailed = self._default_split([len(s.y) for s in series])
        else:
            held = held_out(self.validation_series, [s.key for s in series])
            untailed = []
        self.validation_series_ = None if held is None else [series[i].key for i in held]
        self.untailed_series_ = [series[i].key for i in untailed] or None
        return held, untailed

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
        data = self._training_data(series, held, untailed)
        if len(data[0]) == 0:
            raise ValueError(
                f"no training window: train_origins={self.train_origins!r} selects no step that "
                f"ends a context of {self.context_length} steps followed by {self.head_horizon_} "
                "target steps before the validation tail"
            )
        signature = self._signature(series)
        config = self._train_config(checkpoint_dir=self.checkpoint_dir, signature=signature)
        result = self._train_members(data, config, callbacks, self.seed_)
        self.history_ = result.history
        self.n_epochs_ = result.n_epochs
        self.best_epoch_ = result.best_epoch

    def _training_data(
        self,
        series: list[SeriesArrays],
        held: list[int] | None = None,
        untailed: Sequence[int] = (),
    ) -> Windows:
        """Training samples and validation windows of ``fit`` and ``update``, cut once.

        The one call of :func:`forecast.models._batching.training_data` with every option;
        ``held`` and ``untailed`` are the positions of :meth:`_validation_split` (an update
        passes none: tails). A hook: subclasses add inputs to the windows.
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

    def _train_config(self, **changes: Any) -> TrainConfig:
        """Return the training settings of the parameters and resolved options, ``changes`` set."""
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
            quantiles=self.quantiles_,
            micro_batch_size=self.micro_batch_size,
            loss=self.loss,
            step_scale=change_scales if self.difference_ else None,
            lead_weight=floats(self.horizon_weight_),
            velocity=None if change_scales is None else (self.velocity_weight, change_scales),
            channel_weight=floats(self.channel_weight_),
        )
        return replace(config, **changes)

    def _train_members(
        self, data: Windows, config: TrainConfig, callbacks: list[Any], seed: int
    ) -> TrainResult:
        """Train each member of ``module_`` (member ``i`` from ``seed + i``); the first's result."""
        members = self.module_.members if isinstance(self.module_, EnsembleNet) else [self.module_]
        results = []
        for i, member in enumerate(members):
            member_config = config
            if i and config.checkpoint_dir:
                member_config = replace(config, checkpoint_dir=f"{config.checkpoint_dir}/member{i}")
            with seeded(seed + i, self.device_) as rng:
                results.append(train(member, *data, member_config, callbacks, rng, self.device_))
        self.module_.to(self.device_)
        return results[0]

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

    # ----------------------------------------------------------------- update
    def _update_frames(
        self,
        new: dict[Any, pd.DataFrame],
        notes: dict[Any, dict[str, Any]],
        history: Any,
        training: dict[str, Any],
        callbacks: list[Any] | None,
    ) -> dict[str, Any]:
        """Train on the new rows from the current weights; return the record's extras."""
        epochs, rate = training.get("epochs"), training.get("learning_rate")
        patience = training.get("early_stopping_patience")
        # the options are the values of parameters for this update: their own checks
        if epochs is not None:
            check_option(self, "max_epochs", epochs, "epochs")
        if rate is not None:
            check_option(self, "learning_rate", rate)
        if patience is not None:
            check_option(self, "early_stopping_patience", patience)
        frames = {}
        for key, rows in new.items():
            if key not in self.train_tail_:
                raise ValueError(f"series {key!r} was not seen in fit")
            frames[key] = self._joined(self.train_tail_[key], rows, notes[key])
        series = self._to_arrays(frames, horizon=0, future=None)
        data = self._training_data(series)
        if len(data[0]) == 0:
            counts = {str(k): len(f) for k, f in new.items()}
            raise ValueError(
                f"update data too short: {counts} new row(s) give no training window of "
                f"{self.context_length} context and {self.head_horizon_} target steps before "
                "the validation tail"
            )
        changes = {"max_epochs": epochs, "early_stopping_patience": patience}
        changes = {k: int(v) for k, v in changes.items() if v is not None}
        config = self._train_config(**changes)
        if rate is not None:
            config = replace(config, learning_rate=float(rate))
        self.device_ = resolve_device(self.device)
        number = int(getattr(self, "n_updates_", 0)) + 1
        seed = self.seed_ + _UPDATE_SEED * number
        result = self._train_members(data, config, list(callbacks or []), seed)
        keep = self._keep_history()
        tails = {k: f if keep is None else f.iloc[-keep:] for k, f in frames.items()}
        self.train_tail_ = {**self.train_tail_, **tails}
        extra: dict[str, Any] = {"epochs": result.n_epochs, "best_epoch": result.best_epoch}
        extra["learning_rate"] = float(config.learning_rate)
        for name in ("train_loss", "val_loss"):
            if result.history.get(name):
                extra[name] = float(result.history[name][result.best_epoch])
        return extra

    # ---------------------------------------------------------------- predict
    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        out = self._predict_quantiles(series, horizon)
        return out if out.ndim == 3 else out[..., point_level(self._quantile_levels())]

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(getattr(self, "quantiles_", None) or ())  # absent before fit

    def _predict_quantiles(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        """Forecasts ``(n, horizon, C, Q)`` of a quantile head (``(n, horizon, C)`` without)."""
        check_roll_out(horizon, self.head_horizon_, self.past_covariates_)
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

    def _decompose(self, series: SeriesArrays, horizon: int) -> DifferentiableForecast:
        """Give the forecast as a differentiable function of the network's inputs (``explain``).

        The window and the forecast steps' known inputs, through the roll-out and the inverse
        scaling, from the baseline of every input at zero
        (:func:`forecast.models.neural_inputs.differentiable_forecast`); ``explain``
        integrates its gradients.
        """
        context, head = int(self.context_length), int(self.head_horizon_)
        return differentiable_forecast(self, self.module_, context, head, series, horizon)

    # ----------------------------------------------------------------- export
    def to_onnx(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Export the fitted network and what a forecast needs to the folder ``path``.

        The folder is a saved model folder of the one format (``meta.json`` listing the
        size and SHA-256 of every file, ``params.json``, ``fitted.json``, ``fitted.npz``)
        whose network is ``model.onnx``; load it with
        :meth:`forecast.onnx.runtime.OnnxForecaster.load`, which forecasts through the same
        frame pipeline as ``predict``, without torch. Needs the extra ``forecast-toolkit[onnx]``.

        Parameters
        ----------
        path : str or path-like
            Folder to create.
        overwrite : bool, default=False
            Replace an existing export folder, one holding the files its manifest lists
            and nothing else; a folder with anything more in it is left as it was.

        Returns
        -------
        Path
            The folder written.

        Raises
        ------
        ValueError
            A setting that cannot be exported (named in the message); nothing is written.
        """
        check_is_fitted(self, "module_")
        # optional extra: onnx and onnxruntime are imported only by an export
        from forecast.onnx.export import export_onnx

        return export_onnx(self, path, overwrite=overwrite)

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
