"""The shared base of the neural forecasters.

A family (LSTM, transformer, ...) subclasses :class:`NeuralForecaster`, lists every
parameter in its own ``__init__`` (scikit-learn style) and implements one method,
``_build_encoder(input_size) -> nn.Module``. Windows, heads, training, roll-out, seeding,
checkpoints and persistence live here and in the modules it calls.
"""

from __future__ import annotations

import copy
import numbers

import numpy as np
import torch
from torch import nn

from forecast.base import BaseForecaster, SeriesArrays
from forecast.models._batching import context_windows, data_fingerprint, rollout, training_data
from forecast.nn.heads import ForecastNet, PointHead
from forecast.training import SCHEDULERS, TrainConfig, resolve_device, seeded, train

# Parameters every neural estimator takes, with their defaults (same everywhere).
COMMON_PARAMS = dict(
    context_length=168, horizon=24, hidden_size=64, num_layers=1, dropout=0.0,
    windowing="sliding", tbptt_steps=None, strategy="direct", max_epochs=30, batch_size=64,
    learning_rate=1e-3, optimizer="adam", weight_decay=0.0, lr_scheduler=None,
    gradient_clip=1.0, validation_fraction=0.1, early_stopping_patience=5, device="auto",
    random_state=None, verbose=0, checkpoint_dir=None, future_covariates=None,
    past_covariates=None, calendar=False, country=None, timezone=None, fill_gaps=False,
    nan_policy="raise",
)  # fmt: skip

# Parameters that may change between an interrupted fit and its resumption.
_RESUMABLE = ("max_epochs", "early_stopping_patience", "verbose", "checkpoint_dir", "device")


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
    hidden_size, num_layers, dropout
        Width, depth and dropout of the encoder.
    windowing : {"sliding", "tbptt"}
        ``"sliding"``: samples are ``L`` steps of context and the next ``horizon`` steps,
        state from zero. ``"tbptt"``: each series is read as long streams in chunks of
        ``tbptt_steps``; the state is carried across chunks and detached between them, and
        every step with a complete target horizon carries a loss (recurrent encoders only).
    tbptt_steps : int, optional
        Chunk length for ``windowing="tbptt"`` (default ``context_length``).
    strategy : {"direct", "recursive"}
        ``"direct"``: all ``horizon`` steps in one pass. ``"recursive"``: a one-step head,
        rolled out step by step at prediction time.
    max_epochs, batch_size, learning_rate : int, int, float
        Optimisation length, samples (or parallel streams) per step, step size.
    optimizer : str
        Name understood by :func:`forecast.optim.build_optimizer`.
    weight_decay : float
        L2 penalty.
    lr_scheduler : {None, "cosine", "plateau", "step"}
        Learning-rate schedule, stepped per epoch.
    gradient_clip : float or None
        Maximal gradient norm over all parameters (None: no clipping).
    validation_fraction : float
        Last fraction of each series held out (no training target inside it) for early
        stopping and best-weights restore; 0 watches the training loss instead.
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
        h, frac = self._head_horizon(), self.validation_fraction
        need = self.context_length + h  # one training window
        if frac <= 0:
            return need
        n = need + h  # the training part needs `need` steps, the validation tail at least `h`
        while n - max(h, int(round(n * frac))) < need:
            n += 1
        return n

    def _length_reason(self) -> str:
        h, frac, n = self._head_horizon(), self.validation_fraction, self._min_train_length()
        target = f"horizon={h}" if self.strategy != "recursive" else "1 (strategy='recursive')"
        window = f"one training window of context_length={self.context_length} + {target}"
        if frac <= 0:
            return window
        tail = max(h, int(round(n * frac)))
        return (
            f"{window}, then a validation tail of {tail} step(s): validation_fraction={frac} of "
            f"{n} rows, at least one horizon of {h}; lower validation_fraction to need fewer rows"
        )

    # ------------------------------------------------------------- parameters
    def _check_params(self) -> None:
        def integer(name, low=1, optional=False):
            value = getattr(self, name)
            if optional and value is None:
                return
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")

        for name in (
            "context_length",
            "horizon",
            "hidden_size",
            "num_layers",
            "max_epochs",
            "batch_size",
        ):
            integer(name)
        integer("tbptt_steps", optional=True)
        integer("early_stopping_patience", optional=True)
        choices = {
            "windowing": ("sliding", "tbptt"),
            "strategy": ("direct", "recursive"),
            "lr_scheduler": SCHEDULERS,
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if not 0 <= self.validation_fraction < 1:
            raise ValueError(
                f"validation_fraction must be in [0, 1), got {self.validation_fraction!r}"
            )
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate!r}")
        if self.gradient_clip is not None and not self.gradient_clip >= 0:
            raise ValueError(f"gradient_clip must be None or >= 0, got {self.gradient_clip!r}")

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
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed_)
            encoder = self._build_encoder(self.n_inputs_)
            head = PointHead(
                encoder.output_size, self.head_horizon_, self.n_outputs_, self.n_future_
            )
            self.module_ = ForecastNet(encoder, head)

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
        self._build_module()
        if self.windowing == "tbptt" and not self.module_.recurrent:
            raise ValueError(
                f"windowing='tbptt' needs a recurrent encoder; {type(self).__name__} is not "
                "recurrent: use windowing='sliding'"
            )
        train_data, val_data = training_data(
            series,
            context=self.context_length,
            horizon=self.head_horizon_,
            windowing=self.windowing,
            tbptt_steps=self.tbptt_steps or self.context_length,
            batch_size=self.batch_size,
            validation_fraction=self.validation_fraction,
        )
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
        )
        with seeded(self.seed_, self.device_) as rng:
            result = train(self.module_, train_data, val_data, config, callbacks, rng, self.device_)
        self.history_ = result.history
        self.n_epochs_ = result.n_epochs
        self.best_epoch_ = result.best_epoch

    def _signature(self, series: list[SeriesArrays]) -> str:
        params = {k: v for k, v in self.get_params().items() if k not in _RESUMABLE}
        shapes = (self.n_inputs_, self.n_outputs_, self.n_future_, self.head_horizon_)
        return (
            f"{type(self).__name__}|{sorted(params.items())!r}|{shapes}|{data_fingerprint(series)}"
        )

    # ---------------------------------------------------------------- predict
    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        if horizon > self.head_horizon_ and self.n_past_:
            raise ValueError(
                f"horizon={horizon} exceeds the {self.head_horizon_} step(s) the network forecasts "
                f"at once, so forecasts would be fed back as inputs, but the past covariates "
                f"{self.past_covariates_} are unknown after the last timestamp: forecast at most "
                f"{self.head_horizon_} steps or refit with horizon >= {horizon}"
            )
        x, future = context_windows(series, self.context_length, horizon)
        return rollout(self.module_, x, future, horizon, self.head_horizon_)

    # ------------------------------------------------------------ persistence
    def __getstate__(self) -> dict:
        state = dict(super().__getstate__())
        for name, value in state.items():
            if isinstance(value, nn.Module) and any(
                p.device.type != "cpu" for p in value.parameters()
            ):
                state[name] = copy.deepcopy(value).cpu()
        return state
