"""The shared base of the neural forecasters.

A family (LSTM, transformer, ...) subclasses :class:`NeuralForecaster`, lists every
parameter in its own ``__init__`` (scikit-learn style) and implements one method,
``_build_encoder(input_size) -> nn.Module``. Windows, heads, training, roll-out, seeding,
checkpoints and persistence live here and in the modules it calls.
"""

from __future__ import annotations

import copy
import numbers
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import torch
from torch import nn

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation as V
from forecast.frames.quantiles import check_levels, point_level
from forecast.models._batching import (
    PREDICT_CHUNK,
    change_scale,
    context_windows,
    data_fingerprint,
    rollout,
    training_data,
)
from forecast.models._params import check_params
from forecast.nn.decoder import DecoderHead
from forecast.nn.ensemble import EnsembleNet
from forecast.nn.heads import ForecastNet, PointHead, QuantileHead
from forecast.training.device import resolve_device
from forecast.training.loop import TrainConfig, seeded, train
from forecast.training.losses import lead_weights
from forecast.training.splits import default_split, held_out, length_reason, min_length

# Parameters every neural estimator takes, with their defaults (same everywhere).
COMMON_PARAMS = dict(
    context_length=168, horizon=24, hidden_size=64, num_layers=1, dropout="auto",
    windowing="sliding", tbptt_steps=None, strategy="direct", max_epochs=30, batch_size=256,
    learning_rate=2e-3, optimizer="adam", weight_decay=0.0, lr_scheduler=None,
    gradient_clip=1.0, validation_fraction=0.1, early_stopping_patience=5, device="auto",
    random_state=None, verbose=0, checkpoint_dir=None, future_covariates=None,
    past_covariates=None, calendar=False, country=None, timezone=None, fill_gaps=False,
    nan_policy="raise", normalization="auto", reference=None, validation_size=None,
    n_ensemble=1, train_origins="auto", linear_skip="auto", quantiles=None, residual=False,
    validation_series=None, patch_length=1, input_differences="auto",
    micro_batch_size=None, loss="mse", target_transform=None, horizon_weight="auto",
)  # fmt: skip

# With train_origins="auto", at most this many steps (over all series) end a training window.
AUTO_ORIGINS = 12_000
# What dropout="auto" and horizon_weight="auto" resolve to with residual=True (chosen on the
# CMU mocap validation split; without residual they are 0 and None).
AUTO_RESIDUAL_DROPOUT = 0.5
AUTO_RESIDUAL_HORIZON_WEIGHT = 1.5

# Parameters that may change between an interrupted fit and its resumption.
# micro_batch_size changes memory, not the mathematics (like device: only rounding), so a fit
# stopped for lack of memory may resume with smaller slices.
_RESUMABLE = (
    "max_epochs",
    "early_stopping_patience",
    "verbose",
    "checkpoint_dir",
    "device",
    "micro_batch_size",
)


def store_params(estimator: BaseForecaster, arguments: dict) -> None:
    """Store the arguments of ``__init__`` verbatim (pass ``locals()``)."""
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


class NeuralForecaster(BaseForecaster):
    """Base of the neural forecasters: an encoder over context windows and a direct head.

    Parameters
    ----------
    context_length : int
        Steps of history the network reads (``L``).
    horizon : int
        Steps the head forecasts at once. ``predict`` slices shorter horizons and rolls
        longer ones out in blocks, feeding forecasts back as inputs.
    hidden_size, num_layers
        Width and depth of the encoder.
    dropout : float or "auto"
        Dropout of the encoder, in [0, 1). ``"auto"`` (default): ``AUTO_RESIDUAL_DROPOUT``
        (0.5) with ``residual=True``, else 0 (chosen on the CMU mocap validation split, where
        a residual network stops early and overfits its far leads without it).
    windowing : {"sliding", "tbptt"}
        ``"sliding"``: samples are ``L`` steps of context and the next ``horizon`` steps,
        state from zero. ``"tbptt"``: each series is read as long streams in chunks of
        ``tbptt_steps``; the state is carried across chunks and detached between them, and
        every step with a complete target horizon carries a loss (recurrent encoders only).
        With streams, ``context_length`` is only the warm-up read from zero state before a
        forecast; once the trained recurrence has forgotten its initial state (typically
        within a few days of hourly steps), a longer warm-up gives the same forecast, so the
        length of memory is set by training, not by ``context_length``.
    tbptt_steps : int, optional
        Chunk length for ``windowing="tbptt"`` (default ``context_length``).
    strategy : {"direct", "recursive", "seq2seq"}
        ``"direct"``: all ``horizon`` steps in one pass. ``"recursive"``: a one-step head,
        rolled out step by step at prediction time. ``"seq2seq"``: a GRU decoder
        (:class:`forecast.nn.decoder.DecoderHead`) started from the encoder's summary reads
        the last observed value, then its own forecast of each step (also in training: no
        teacher forcing), with ``residual=True`` adding a change per step (Res-sup.,
        Martinez et al. 2017); sliding windows and point forecasts only.
    max_epochs, batch_size, learning_rate : int, int, float
        Optimisation length, samples (or parallel streams) per step, step size.
    optimizer : str
        Name understood by :func:`forecast.training.optim.build_optimizer`.
    weight_decay : float
        L2 penalty.
    lr_scheduler : {None, "cosine", "plateau", "step"}
        Learning-rate schedule, stepped per epoch.
    gradient_clip : float or None
        Maximal gradient norm over all parameters (None: no clipping).
    validation_fraction : float
        Last fraction of each series held out (no training target inside it) for early
        stopping and best-weights restore; 0 watches the training loss instead. When several
        series are given (dict or long frame) and some are too short for a tail plus one
        training window, those are trained on whole without a tail (``untailed_series_``)
        and the others keep theirs; they need only ``context_length + horizon`` rows. If no
        series has room for a tail, whole series are held out instead, as with
        ``validation_series``: ``k = max(1, round(n * validation_fraction))`` of the ``n``
        series (at most ``n - 1``), spread evenly over the order given and ending with the
        last, at positions ``ceil((j + 1) n / k) - 1`` for ``j = 0 .. k - 1``. A single
        series, or ``validation_size``, always keeps its tail.
    early_stopping_patience : int or None
        Epochs without improvement before stopping (None: never stop early).
    device : {"auto", "cpu", "cuda"}
        ``"auto"`` picks CUDA when available.
    random_state : int or None
        Seed of weight initialisation, dropout and data order.
    verbose : int
        0: silent; otherwise a progress bar when stderr is a terminal.
    checkpoint_dir : str or None
        Folder for a checkpoint written after every epoch; a fit with a checkpoint present
        (same parameters and data) resumes from it.
    future_covariates, past_covariates, calendar, country, timezone, fill_gaps, nan_policy
        Covariates and input handling, see :class:`forecast.base.BaseForecaster`.
    normalization : {"auto", "window", None}
        ``"window"``: each context window's targets are centred and scaled by their own mean
        and standard deviation before the encoder reads them and the forecast is mapped back
        (RevIN-style), so forecasts follow the level of the recent data rather than of the
        training years. ``None``: only the global scaling fitted on the training data.
        ``"auto"``: ``"window"`` for sliding windows, ``None`` for truncated BPTT (streams
        have no window). Residual models keep ``"window"`` too: on the CMU mocap validation
        split ``None`` was worse at every horizon (the forecast change is then scaled by the
        window's spread, so quiet windows get small changes).
    reference : int, str or None
        Season of a seasonal reference the head forecasts the difference to: steps (int) or
        a duration such as ``"7D"`` or ``"1D"`` (whole multiples of the data frequency, at
        most ``context_length``). The forecast of step ``j`` is the last observed value at
        the same phase of the season plus a learned correction. Needs sliding windows.
    validation_size : int, str or None
        Length of the validation tail of each series, in steps (int) or as a duration such
        as ``"90D"``; replaces ``validation_fraction`` when given.
    validation_series : int, float, list or None
        Hold out whole series (of a dict or long-frame input) for early stopping instead of
        a tail of each: an int ``k``, the last ``k`` series in the order given; a float in
        (0, 1), that fraction of the series (rounded, at least one), again the last ones; a
        list, the series with these keys. Training uses the other series whole, validation
        every window of the held-out ones, so each series needs only ``context_length +
        horizon`` steps (many short sequences, such as motion-capture takes). Replaces
        ``validation_fraction``; not with ``validation_size``. None (default): tails, see
        ``validation_fraction`` for series too short for one.
    residual : bool
        Forecast changes relative to the last observed value of each target channel (in
        scaled units) and add that value back: a reference (as with ``reference``) whose
        value for every step is the last observed one (``season_ = 1``), so the network
        starts from a zero-velocity forecast (Martinez et al. 2017). The encoder still reads
        the values themselves, and with sliding windows also their step changes (see
        ``input_differences``). With ``strategy="recursive"`` each step adds a change to the
        step before it. Works with every windowing (truncated-BPTT streams too); not with
        ``reference``.
    n_ensemble : int
        Networks trained with seeds ``seed_, seed_ + 1, ...`` whose forecasts are averaged.
        ``history_``, ``n_epochs_`` and ``best_epoch_`` describe the first member.
    linear_skip : {"auto", True, False}
        Add a linear map from each target channel's normalised context to its forecast (a
        linear model on lags, learned jointly and initialised at zero) to the network's output.
        Needs sliding windows; ``"auto"``: on for sliding windows, off for truncated BPTT
        (residual models included: chosen on the CMU mocap validation split).
    train_origins : "auto", None, int, str or list of str
        Which steps may end the context of a training window. None: every step. An int
        ``k``: every ``k``-th step (fewer, less redundant windows per epoch). ``"auto"``
        (default): every step while the series hold at most ``AUTO_ORIGINS`` (12,000)
        steps in all, else every ``k``-th step with the smallest ``k`` that keeps at most
        that many (hourly 2019-2022: every 3rd hour; quarter-hours: every 12th step), so an
        epoch costs about the same on long data; truncated BPTT reads every step.
        ``"HH:MM"`` or a list of them: the steps that end at these local times (in
        ``timezone``, else the index's zone), as the origins of a forecast issued then;
        e.g. ``"12:00"`` trains on the origins of the day-ahead market protocol only.
        Validation windows are chosen the same way. Sliding windows only weigh these
        origins; with truncated BPTT every step is read but only these carry a loss.
    quantiles : tuple of float or None
        Sorted, distinct levels in (0, 1) such as ``(0.1, 0.5, 0.9)``: the head forecasts
        one value per level, trained with the pinball loss (early stopping watches the
        validation pinball loss), and the levels never cross (cumulative softplus gaps
        around the level nearest 0.5). That level (the median when 0.5 is given) is the
        point forecast, also what a recursive roll-out feeds back. ``predict(h,
        quantiles=True)`` adds the columns ``<column>_q<level>``. None: a point head
        trained on squared error.
    input_differences : {"auto", True, False}
        Let the encoder also read each context step's change from the step before, per
        target channel (of the globally scaled values, divided by ``change_scale_``), next to
        the values themselves, so velocities are inputs at unit scale rather than something
        the encoder must work out from values that vary far more across a window than
        between two steps. Needs sliding windows. ``"auto"``: on with ``residual=True`` and
        sliding windows, else off (on the CMU mocap validation split it lowered the error at
        every horizon, see ``experiments/results/cmu_mocap.md``).
    patch_length : int
        Steps per encoder token (PatchTST-style, Nie et al. 2023): the encoder reads the
        context as ``context_length / patch_length`` tokens, each holding the inputs of
        ``patch_length`` consecutive steps, so a long context of fine steps (a week of
        quarter-hours: 672 steps, patches of 4: 168 tokens) costs what the coarse one does;
        the head still forecasts every step. ``context_length`` must be a multiple of it;
        sliding windows only. 1 (default): one token per step.
    micro_batch_size : int or None
        Read each training batch in even slices of at most this many windows (streams with
        ``windowing="tbptt"``), backpropagating each slice's loss weighted by its share of
        the batch (its windows, or its loss-bearing steps), then clip and step once per
        batch: the step is that of the whole ``batch_size`` batch (up to float rounding;
        with ``dropout`` the masks are drawn per slice) while only one slice's activations
        are held, so peak memory falls. Validation and prediction also read at most this
        many windows at a time. None: the whole batch at once.
    loss : {"mse", "mae"}
        Training loss of a point head, also watched by early stopping: mean squared error
        or mean absolute error of the (scaled) targets. MAE weighs large errors less and
        tracks relative errors such as MAPE more closely on series of steady level.
        Quantile heads always train the pinball loss (leave ``"mse"`` with ``quantiles``).
    target_transform : {None, "difference"}
        ``"difference"``: the network forecasts each step's change from the step before (a
        velocity, in units of ``change_scale_``, the root mean square one-step change of
        each channel) and the forecast is the last observed value plus their running sum;
        ``loss`` is taken of these changes, so every horizon step weighs alike, as when a
        model is fitted to differenced data and its forecasts are integrated back. The
        encoder reads the values and their step changes (``input_differences="auto"``);
        ``normalization`` and ``linear_skip`` ``"auto"`` are off with it (the configuration
        that scored best at short horizons on the CMU mocap validation split). Not with
        ``residual``, ``reference``, ``quantiles`` or ``strategy="seq2seq"``. None: forecast
        the values.
    horizon_weight : "auto", None, float or sequence of float
        Weight of each forecast lead in the training loss (and the loss early stopping
        watches), normalised to mean 1 (``horizon_weight_``). None: every lead alike. A
        number ``p >= 0``: lead ``k`` (1-based) weighs ``k ** -p``, so the near leads, whose
        errors are small, are not drowned by the far ones. A sequence: one weight per lead
        of the head (``horizon`` values; 1 with ``strategy="recursive"``). ``"auto"``
        (default): ``AUTO_RESIDUAL_HORIZON_WEIGHT`` (1.5) with ``residual=True``, else
        None: the error of a residual forecast grows with the lead like that of the last
        value (zero velocity), and weighing every lead alike left the near leads of motion
        worse than zero velocity (CMU mocap validation split,
        ``experiments/results/cmu_mocap.md``).

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
    normalize_ : bool
        Whether window normalisation is applied.
    season_ : int or None
        Season of the seasonal reference in steps (1 with ``residual=True``).
    residual_ : bool
        Whether the network forecasts changes from the last observed value.
    difference_ : bool
        Whether it forecasts step changes that are summed (``target_transform``).
    validation_series_ : list or None
        Keys of the series held out whole, by ``validation_series`` or by the rule under
        ``validation_fraction`` (None: tails).
    untailed_series_ : list or None
        Keys of the series too short for a validation tail, trained on whole without one
        while the others keep theirs (None: none).
    change_scale_ : ndarray of shape (n_targets,) or None
        Root mean square of the one-step changes of each target channel (scaled units) over
        the training series, by which the step changes read and forecast are divided (None:
        neither).
    skip_ : bool
        Whether the linear skip path is part of the network.
    dropout_ : float
        The encoder's dropout (``dropout`` resolved).
    horizon_weight_ : ndarray of shape (head_horizon_,) or None
        Weights of the leads in the training loss, mean 1 (None: alike).
    validation_steps_ : int or None
        Validation tail per series in steps when ``validation_size`` was given.
    quantiles_ : tuple of float or None
        The quantile levels of the head (None: a point head).
    """

    # ------------------------------------------------------------ subclass hook
    def _build_encoder(self, input_size: int) -> nn.Module:
        """Return the encoder for ``input_size`` features per step (subclasses)."""
        raise NotImplementedError

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

    def _check_train_lengths(self, lengths: dict) -> None:
        held, untailed = self._default_split(list(lengths.values()))
        if held is None and not untailed:
            super()._check_train_lengths(lengths)
            return
        context, h, frac, _, _ = self._length_terms()
        need = min_length(context, h, frac, None, True)  # one window: no tail
        reason = length_reason(
            context,
            h,
            self.strategy == "recursive",
            frac,
            None,
            True,
            self._min_train_length(),
            held=held is not None,
        )
        for key, rows in lengths.items():
            V.check_length(rows, need, key, reason)

    def _default_split(self, lengths: list[int]) -> tuple[list[int] | None, list[int]]:
        """Whole series held out and series without a tail by default (``default_split``)."""
        if getattr(self, "validation_series", None) is not None or self.validation_size is not None:
            return None, []
        return default_split(lengths, self._min_train_length(), self.validation_fraction)

    def _length_terms(self) -> tuple:
        tail = None
        if self.validation_size is not None:
            tail = self._steps(self.validation_size, "validation_size")
        whole = getattr(self, "validation_series", None) is not None
        h = self._head_horizon()
        return int(self.context_length), h, self.validation_fraction, tail, whole

    # ------------------------------------------------------------- parameters
    def _check_params(self) -> None:
        check_params(self)

    def _seed(self) -> int:
        if self.random_state is None:
            return int(np.random.default_rng().integers(2**31))
        if isinstance(self.random_state, np.random.Generator):
            return int(self.random_state.integers(2**31))
        if isinstance(self.random_state, np.random.RandomState):
            return int(self.random_state.randint(2**31))
        return int(self.random_state)

    # -------------------------------------------------------------------- fit
    def _build_module(self) -> None:
        """Build ``module_`` (untrained, on CPU) from the fitted shapes and ``seed_``."""
        members = [self._build_member(self.seed_ + i) for i in range(self._n_members())]
        self.module_ = members[0] if len(members) == 1 else EnsembleNet(members)

    def _n_members(self) -> int:
        return int(getattr(self, "n_ensemble", 1) or 1)

    def _build_member(self, seed: int) -> ForecastNet:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            scale = getattr(self, "change_scale_", None)
            changes = scale if self._differences() else None
            steps = scale if getattr(self, "difference_", False) else None
            width = self.n_inputs_ + (0 if changes is None else self.n_outputs_)
            encoder = self._build_encoder(width * self._patch())
            levels = self._quantile_levels()
            if self.strategy == "seq2seq":
                head = DecoderHead(
                    encoder.output_size,
                    self.head_horizon_,
                    self.n_outputs_,
                    self.n_future_,
                    residual=getattr(self, "residual_", False),
                )
            elif levels:
                head = QuantileHead(
                    encoder.output_size,
                    self.head_horizon_,
                    self.n_outputs_,
                    self.n_future_,
                    n_quantiles=len(levels),
                    middle=point_level(levels),
                )
            else:
                head = PointHead(
                    encoder.output_size, self.head_horizon_, self.n_outputs_, self.n_future_
                )
            return ForecastNet(
                encoder,
                head,
                n_targets=self.n_outputs_,
                normalize=getattr(self, "normalize_", False),
                season=getattr(self, "season_", None),
                context=self.context_length if getattr(self, "skip_", False) else None,
                patch=self._patch(),
                change_scale=None if changes is None else torch.as_tensor(changes),
                step_scale=None if steps is None else torch.as_tensor(steps),
            )

    def _patch(self) -> int:
        return int(getattr(self, "patch_length", 1))

    def _n_tokens(self) -> int:
        """Return the encoder tokens per context window (``context_length / patch_length``)."""
        return int(self.context_length) // self._patch()

    def _steps(self, value, name: str) -> int:
        """Turn an int or a duration string into a whole number of steps of ``freq_``."""
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
            return int(value)
        if isinstance(value, str):
            try:
                span, step = pd.Timedelta(value), pd.Timedelta(self.freq_)
            except (TypeError, ValueError) as err:
                raise ValueError(
                    f"{name}={value!r} must be an int >= 1 or a duration such as '7D' that is a "
                    f"whole multiple of the data frequency {self.freq_.freqstr}"
                ) from err
            if span > pd.Timedelta(0) and span % step == pd.Timedelta(0):
                return int(span // step)
        raise ValueError(
            f"{name}={value!r} must be an int >= 1 or a duration such as '7D' that is a whole "
            f"multiple of the data frequency {self.freq_.freqstr}"
        )

    def _origin_masks(self, series: list[SeriesArrays]) -> list[np.ndarray] | None:
        """Per series, which steps may be the origin of a training window (None: all)."""
        spec = self.train_origins
        if isinstance(spec, str) and spec == "auto":
            total = sum(len(s.y) for s in series)
            stride = -(-total // AUTO_ORIGINS)
            if self.windowing != "sliding" or stride <= 1:
                return None
            spec = stride
        if spec is None:
            return None
        if isinstance(spec, numbers.Integral) and not isinstance(spec, bool) and spec >= 1:
            return [np.arange(len(s.y)) % int(spec) == int(spec) - 1 for s in series]
        times = [spec] if isinstance(spec, str) else list(spec)
        clock = re.compile(r"([01]?\d|2[0-3]):[0-5]\d")
        wanted = {
            pd.Timedelta(f"{t}:00") for t in times if isinstance(t, str) and clock.fullmatch(t)
        }
        if not times or len(wanted) != len(set(times)):
            raise ValueError(
                "train_origins must be 'auto', None, an int >= 1, 'HH:MM' or a list of 'HH:MM', "
                f"got {spec!r}"
            )
        masks = []
        for s in series:
            ends = s.index + pd.Timedelta(self.freq_)  # the step ending then is the origin
            if self.timezone is not None and ends.tz is not None:
                ends = ends.tz_convert(self.timezone)
            clock = ends - ends.normalize()
            masks.append(np.asarray(clock.isin(list(wanted))))
        return masks

    def _resolve_options(self) -> None:
        """Fix the resolved options (``normalize_``, ``season_``, ``skip_``, ...) from params."""
        mode = self.normalization
        difference = getattr(self, "target_transform", None) == "difference"
        if mode == "auto":
            mode = "window" if self.windowing == "sliding" and not difference else None
        self.normalize_ = mode == "window"
        self.season_ = None
        if self.reference is not None:
            self.season_ = self._steps(self.reference, "reference")
            if self.season_ > self.context_length:
                raise ValueError(
                    f"reference={self.reference!r} is {self.season_} steps, longer than "
                    f"context_length={self.context_length}: the reference must lie in the context"
                )
        skip = self.linear_skip
        auto_skip = self.windowing == "sliding" and not difference
        self.skip_ = auto_skip if skip == "auto" else bool(skip)
        self.residual_ = bool(getattr(self, "residual", False))
        self.difference_ = difference
        if self.residual_ or difference:
            self.season_ = 1  # the last observed value is the reference of every step
        self.dropout_ = self._dropout_from_params()
        weight = getattr(self, "horizon_weight", None)
        if isinstance(weight, str) and weight == "auto":
            weight = AUTO_RESIDUAL_HORIZON_WEIGHT if self.residual_ else None
        self.horizon_weight_ = lead_weights(weight, self.head_horizon_)
        self.validation_steps_ = None
        if self.validation_size is not None:
            self.validation_steps_ = self._steps(self.validation_size, "validation_size")

    def _dropout_from_params(self) -> float:
        """Return ``dropout`` with ``"auto"`` resolved (by ``residual``)."""
        if isinstance(self.dropout, str) and self.dropout == "auto":
            return AUTO_RESIDUAL_DROPOUT if getattr(self, "residual", False) else 0.0
        return float(self.dropout)

    def _dropout(self) -> float:
        """Return the encoder's dropout: ``dropout_``, else from the params (older folders)."""
        value = getattr(self, "dropout_", None)
        return self._dropout_from_params() if value is None else float(value)

    def _differences(self) -> bool:
        """Whether the encoder reads step changes (``input_differences``, resolved)."""
        spec = getattr(self, "input_differences", False)
        if spec == "auto":
            moves = getattr(self, "residual_", False) or getattr(self, "difference_", False)
            return moves and self.windowing == "sliding"
        return bool(spec)

    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
        self._check_params()
        first = series[0]
        self.device_ = resolve_device(self.device)
        self.seed_ = self._seed()
        self.n_outputs_ = first.y.shape[1]
        self.n_past_ = 0 if first.past is None else first.past.shape[1]
        self.n_future_ = 0 if first.future is None else first.future.shape[1]
        self.n_inputs_ = self.n_outputs_ + self.n_past_ + self.n_future_
        self.head_horizon_ = self._head_horizon()
        quantiles = getattr(self, "quantiles", None)
        self.quantiles_ = None if quantiles is None else check_levels(quantiles)
        self._resolve_options()
        scaled = self._differences() or self.difference_
        self.change_scale_ = change_scale(series) if scaled else None
        self._build_module()
        if self.windowing == "tbptt" and not self.module_.recurrent:
            raise ValueError(
                f"windowing='tbptt' needs a recurrent encoder; {type(self).__name__} is not "
                "recurrent: use windowing='sliding'"
            )
        held, untailed = self._validation_split(series)
        train_data, val_data = training_data(
            series,
            context=self.context_length,
            horizon=self.head_horizon_,
            windowing=self.windowing,
            tbptt_steps=self.tbptt_steps or self.context_length,
            batch_size=self.batch_size,
            validation_fraction=self.validation_fraction,
            validation_steps=self.validation_steps_,
            origins=self._origin_masks(series),
            held_out=held,
            untailed=untailed,
        )
        if len(train_data) == 0:
            raise ValueError(
                f"no training window: train_origins={self.train_origins!r} selects no step that "
                f"ends a context of {self.context_length} steps followed by {self.head_horizon_} "
                "target steps before the validation tail"
            )
        weight = self.horizon_weight_
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
            micro_batch_size=getattr(self, "micro_batch_size", None),
            loss=getattr(self, "loss", "mse"),
            step_scale=tuple(map(float, self.change_scale_)) if self.difference_ else None,
            lead_weight=None if weight is None else tuple(map(float, weight)),
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

    def _validation_split(self, series: list[SeriesArrays]) -> tuple[list[int] | None, list[int]]:
        """Positions of the series held out whole (None: tails) and of those without a tail.

        Sets ``validation_series_`` and ``untailed_series_`` (their keys, None when empty).
        """
        spec = getattr(self, "validation_series", None)
        if spec is None:
            held, untailed = self._default_split([len(s.y) for s in series])
        else:
            held, untailed = held_out(spec, [s.key for s in series]), []
        self.validation_series_ = None if held is None else [series[i].key for i in held]
        self.untailed_series_ = [series[i].key for i in untailed] or None
        return held, untailed

    def _signature(self, series: list[SeriesArrays]) -> str:
        params = {k: v for k, v in self.get_params().items() if k not in _RESUMABLE}
        shapes = (self.n_inputs_, self.n_outputs_, self.n_future_, self.head_horizon_)
        return (
            f"{type(self).__name__}|{sorted(params.items())!r}|{shapes}|{data_fingerprint(series)}"
        )

    # ---------------------------------------------------------------- predict
    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        out = self._predict_quantiles(series, horizon)
        return out if out.ndim == 3 else out[..., point_level(self.quantiles_)]

    def _quantile_levels(self) -> tuple[float, ...]:
        return tuple(getattr(self, "quantiles_", None) or ())

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
        chunk = min(PREDICT_CHUNK, getattr(self, "micro_batch_size", None) or PREDICT_CHUNK)
        return rollout(self.module_, x, future, horizon, self.head_horizon_, chunk, point=point)

    # ------------------------------------------------------------ persistence
    def __getstate__(self) -> dict:
        state = dict(super().__getstate__())
        for name, value in state.items():
            if isinstance(value, nn.Module) and any(
                p.device.type != "cpu" for p in value.parameters()
            ):
                state[name] = copy.deepcopy(value).cpu()
        return state
