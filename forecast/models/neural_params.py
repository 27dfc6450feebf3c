"""The parameters every neural forecaster takes, declared once: default, type, check, doc.

:class:`NeuralParams` declares them as typed fields (:func:`forecast.models.declare.param`):
:class:`forecast.models.neural.NeuralForecaster` derives from it and the families add their
own fields in front; ``NEURAL_PARAMS`` is its table of records. Adding a shared parameter is
one field here. The 49 fields are one declaration, most of it their numpydoc text (what
``help()`` shows for every family); the architecture test lists the file as longer than the
size rule's guide for that reason.

What the ``"auto"`` values resolve to, resolved once in ``fit`` by
:func:`forecast.models.auto.resolve_auto` into fitted attributes (``n``: training steps over
all series; ``residual=True`` switches on the settings chosen on the CMU mocap validation
split, :data:`forecast.models.auto.MOTION_PRESET` spells them out):

========================  ==============  =================  ==================  ================
``"auto"`` parameter      sliding         ``residual=True``  ``target_transform  ``windowing=
(fitted attribute)        windows         (sliding)          ="difference"``     "tbptt"``
========================  ==============  =================  ==================  ================
``dropout``               0.0             0.5                0.0                 0.5 with
(``dropout_``)                                                                   ``residual``,
                                                                                 else 0.0
``horizon_weight``        None (alike)    1.5: lead ``k``    None                1.5 with
(``horizon_weight_``)                     weighs k^-1.5                          ``residual``,
                                                                                 else None
``input_differences``     False           True               True                False
(``input_differences_``)
``normalization``         ``"window"``    ``"window"``       None                None
(``normalize_``)
``linear_skip``           True            True               False               False
(``skip_``)
``train_origins``         every k-th      as sliding         as sliding          None (every
(``train_origins_``)      step, k =                                              step)
                          ceil(n/12000),
                          None if k = 1
``tbptt_steps=None``      (unused)        (unused)           (unused)            ``context_length``
(``tbptt_steps_``)
========================  ==============  =================  ==================  ================
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from forecast.models import _params as checks
from forecast.models.auto import (
    AUTO_ORIGINS,
    AUTO_RESIDUAL_DROPOUT,
    AUTO_RESIDUAL_HORIZON_WEIGHT,
)
from forecast.models.declare import Param, declare_params, declared, param
from forecast.training.loop import LOSSES, SCHEDULERS

AUTO_TRUE_FALSE = checks.one_of("auto", True, False, says="'auto', True or False")


@declare_params()
class NeuralParams:
    """The parameters every neural forecaster shares (the base of their constructors)."""

    # ------------------------------------------------------ network and windows
    context_length: int = param(
        default=168,
        type="int",
        doc="Steps of history the network reads (``L``).",
        check=checks.integer(),
    )
    horizon: int = param(
        default=24,
        type="int",
        doc="""Steps the head forecasts at once. ``predict`` slices shorter horizons and rolls
        longer ones out in blocks, feeding forecasts back as inputs.""",
        check=checks.integer(),
    )
    hidden_size: int = param(
        default=64, type="int", doc="Width of the encoder.", check=checks.integer()
    )
    num_layers: int = param(
        default=1, type="int", doc="Depth of the encoder.", check=checks.integer()
    )
    dropout: float | Literal["auto"] = param(
        default="auto",
        type='float or "auto"',
        doc=f"""Dropout of the encoder, in [0, 1) (``dropout_``). ``"auto"``:
        {AUTO_RESIDUAL_DROPOUT} with ``residual=True``, else 0 (chosen on the CMU mocap
        validation split, where a residual network stops early and overfits its far leads
        without it).""",
        check=checks.dropout,
    )
    windowing: Literal["sliding", "tbptt"] = param(
        default="sliding",
        type='{"sliding", "tbptt"}',
        doc="""``"sliding"``: samples are ``L`` steps of context and the next ``horizon`` steps,
        state from zero. ``"tbptt"``: each series is read as long streams in chunks of
        ``tbptt_steps``; the state is carried across chunks and detached between them, and
        every step with a complete target horizon carries a loss (recurrent encoders only).
        With streams, ``context_length`` is only the warm-up read from zero state before a
        forecast; once the trained recurrence has forgotten its initial state (typically
        within a few days of hourly steps), a longer warm-up gives the same forecast, so the
        length of memory is set by training, not by ``context_length``.""",
        check=checks.one_of("sliding", "tbptt"),
    )
    tbptt_steps: int | None = param(
        default=None,
        type="int or None",
        doc="""Chunk length for ``windowing="tbptt"`` (``tbptt_steps_``); None:
        ``context_length``.""",
        check=checks.integer(optional=True),
    )
    strategy: Literal["direct", "recursive", "seq2seq"] = param(
        default="direct",
        type='{"direct", "recursive", "seq2seq"}',
        doc="""``"direct"``: all ``horizon`` steps in one pass. ``"recursive"``: a one-step head,
        rolled out step by step at prediction time. ``"seq2seq"``: a GRU decoder
        (:class:`forecast.nn.decoder.DecoderHead`) started from the encoder's summary reads
        the last observed value, then its own forecast of each step (also in training: no
        teacher forcing), with ``residual=True`` adding a change per step (Res-sup.,
        Martinez et al. 2017); sliding windows and point forecasts only.""",
        check=checks.one_of("direct", "recursive", "seq2seq"),
    )
    # ------------------------------------------------------------- optimisation
    max_epochs: int = param(
        default=30, type="int", doc="Optimisation length in epochs.", check=checks.integer()
    )
    batch_size: int = param(
        default=256,
        type="int",
        doc="""Samples (or parallel streams with ``windowing='tbptt'``) per step. With
        batch-norm layers (the DCT mixer's ``mixer="gcn"`` blocks), which cannot normalise
        one sample in training, a last batch of one window joins the batch before it (the
        epoch then ends on ``batch_size + 1`` windows); every other batch, and every batch
        of the other networks, is as given.""",
        check=checks.integer(),
    )
    learning_rate: float = param(
        default=2e-3, type="float", doc="Step size, > 0.", check=checks.positive
    )
    optimizer: str = param(
        default="adam",
        type="str",
        doc="Name understood by :func:`forecast.training.optim.build_optimizer`.",
    )
    weight_decay: float = param(default=0.0, type="float", doc="L2 penalty.")
    lr_scheduler: Literal["cosine", "plateau", "step", "exponential", "tenfold"] | None = param(
        default=None,
        type='{None, "cosine", "plateau", "step", "exponential", "tenfold"}',
        doc="""Learning-rate schedule, stepped per epoch (``"exponential"``: times ``0.96 ** 0.5``
        each epoch, LTD's decay; ``"tenfold"``: times ``0.1 ** (1 / max_epochs)`` each epoch,
        a tenth of the rate by the end, PGBIG's decay).""",
        check=checks.one_of(*SCHEDULERS),
    )
    gradient_clip: float | None = param(
        default=1.0,
        type="float or None",
        doc="Maximal gradient norm over all parameters (None: no clipping).",
        check=checks.none_or_non_negative,
    )
    validation_fraction: float = param(
        default=0.1,
        type="float",
        doc="""Last fraction of each series held out (no training target inside it) for early
        stopping and best-weights restore; 0 watches the training loss instead. When several
        series are given (dict or long frame) and some are too short for a tail plus one
        training window, those are trained on whole without a tail (``untailed_series_``)
        and the others keep theirs; they need only ``context_length + horizon`` rows. If no
        series has room for a tail, whole series are held out instead, as with
        ``validation_series``: ``k = max(1, round(n * validation_fraction))`` of the ``n``
        series (at most ``n - 1``), spread evenly over the order given and ending with the
        last, at positions ``ceil((j + 1) n / k) - 1`` for ``j = 0 .. k - 1``. A single
        series, or ``validation_size``, always keeps its tail.""",
        check=checks.fraction,
    )
    early_stopping_patience: int | None = param(
        default=5,
        type="int or None",
        doc="Epochs without improvement before stopping (None: never stop early).",
        check=checks.integer(optional=True),
    )
    device: str = param(
        default="auto",
        type='{"auto", "cpu", "cuda"}',
        doc="""``"auto"`` picks CUDA when available (``device_``); ``"cuda:N"`` names a GPU.""",
    )
    random_state: int | np.random.Generator | np.random.RandomState | None = param(
        default=None,
        type="int, numpy Generator, RandomState or None",
        doc="""Seed of weight initialisation, dropout and data order (``seed_``; None: drawn).""",
    )
    verbose: int = param(
        default=0, type="int", doc="0: silent; otherwise a progress bar when stderr is a terminal."
    )
    checkpoint_dir: str | None = param(
        default=None,
        type="str or None",
        doc="""Folder for a checkpoint written after every epoch; a fit with a checkpoint present
        (same parameters and data) resumes from it.""",
    )
    # ----------------------------------------------------------- input handling
    future_covariates: Sequence[str] | None = param(
        default=None,
        type="list of str or None",
        doc="""Columns known in advance (weather forecasts, the operators' own forecast): read
        with the history, and their values at the forecast steps by the head; pass them for
        the horizon with ``predict(..., future=df)``.""",
    )
    past_covariates: Sequence[str] | None = param(
        default=None,
        type="list of str or None",
        doc="""Columns observed only up to now: read with the history (not with horizons the
        network rolls out beyond ``horizon``).""",
    )
    calendar: bool = param(
        default=False,
        type="bool",
        doc="""Add hour, weekday and day of year (cyclic, in local time) and, with ``country``,
        public holidays and bridge days as future-known inputs.""",
    )
    country: str | None = param(
        default=None,
        type="str or None",
        doc="""Holiday calendar of the calendar features, such as ``"DE"`` or ``"DE-BY"``.""",
    )
    timezone: str | None = param(
        default=None,
        type="str or None",
        doc="""Local time zone of the calendar features and of ``train_origins`` clock times
        (None: the index's zone).""",
    )
    fill_gaps: bool = param(
        default=False,
        type="bool",
        doc="Insert missing steps of the regular index and interpolate them.",
    )
    nan_policy: Literal["raise", "interpolate"] = param(
        default="raise",
        type='{"raise", "interpolate"}',
        doc="What NaN or infinite values in the history do: raise, or interpolate in time.",
    )
    # ------------------------------------------------------ forecast references
    normalization: Literal["auto", "window"] | None = param(
        default="auto",
        type='{"auto", "window", None}',
        doc="""``"window"``: each context window's targets are centred and scaled by their own mean
        and standard deviation before the encoder reads them and the forecast is mapped back
        (RevIN-style), so forecasts follow the level of the recent data rather than of the
        training years. ``None``: only the global scaling fitted on the training data.
        ``"auto"``: ``"window"`` for sliding windows, ``None`` for truncated BPTT (streams
        have no window) and with ``target_transform``. Residual models keep ``"window"`` too:
        on the CMU mocap validation split ``None`` was worse at every horizon (the forecast
        change is then scaled by the window's spread, so quiet windows get small changes).
        Resolved into ``normalize_``.""",
        check=checks.one_of("auto", "window", None, says="'auto', 'window' or None"),
    )
    reference: int | str | None = param(
        default=None,
        type="int, str or None",
        doc="""Season of a seasonal reference the head forecasts the difference to: steps (int) or
        a duration such as ``"7D"`` or ``"1D"`` (whole multiples of the data frequency, at
        most ``context_length``; ``season_``). The forecast of step ``j`` is the last
        observed value at the same phase of the season plus a learned correction. Needs
        sliding windows.""",
    )
    validation_size: int | str | None = param(
        default=None,
        type="int, str or None",
        doc="""Length of the validation tail of each series, in steps (int) or as a duration such
        as ``"90D"`` (``validation_steps_``); replaces ``validation_fraction`` when given.""",
    )
    n_ensemble: int = param(
        default=1,
        type="int",
        doc="""Networks trained with seeds ``seed_, seed_ + 1, ...`` whose forecasts are averaged.
        ``history_``, ``n_epochs_`` and ``best_epoch_`` describe the first member.""",
        check=checks.integer(),
    )
    train_origins: int | str | Sequence[str] | None = param(
        default="auto",
        type='"auto", None, int, str or list of str',
        doc=f"""Which steps may end the context of a training window (``train_origins_``). None:
        every step. An int ``k``: every ``k``-th step (fewer, less redundant windows per
        epoch). ``"auto"``: every step while the series hold at most {AUTO_ORIGINS:,} steps
        in all, else every ``k``-th step with the smallest ``k`` that keeps at most that many
        (hourly 2019-2022: every 3rd hour; quarter-hours: every 12th step), so an epoch costs
        about the same on long data; truncated BPTT reads every step. ``"HH:MM"`` or a list
        of them: the steps that end at these local times (in ``timezone``, else the index's
        zone), as the origins of a forecast issued then; e.g. ``"12:00"`` trains on the
        origins of the day-ahead market protocol only. Validation windows are chosen the
        same way. Sliding windows only weigh these origins; with truncated BPTT every step
        is read but only these carry a loss.""",
        check=checks.train_origins,
    )
    linear_skip: bool | Literal["auto"] = param(
        default="auto",
        type='{"auto", True, False}',
        doc="""Add a linear map from each target channel's normalised context to its forecast (a
        linear model on lags, learned jointly and initialised at zero) to the network's
        output (``skip_``). Needs sliding windows; ``"auto"``: on for sliding windows, off
        for truncated BPTT and with ``target_transform`` (residual models included: chosen
        on the CMU mocap validation split).""",
        check=AUTO_TRUE_FALSE,
    )
    quantiles: Sequence[float] | None = param(
        default=None,
        type="tuple of float or None",
        doc="""Sorted, distinct levels in (0, 1) such as ``(0.1, 0.5, 0.9)``: the head forecasts
        one value per level, trained with the pinball loss (early stopping watches the
        validation pinball loss), and the levels never cross (cumulative softplus gaps
        around the level nearest 0.5). That level (the median when 0.5 is given) is the
        point forecast, also what a recursive roll-out feeds back. ``predict(h,
        quantiles=True)`` adds the columns ``<column>_q<level>``. None: a point head
        trained on squared error.""",
        check=checks.quantile_levels,
    )
    residual: bool = param(
        default=False,
        type="bool",
        doc="""Forecast changes relative to the last observed value of each target channel (in
        scaled units) and add that value back: a reference (as with ``reference``) whose
        value for every step is the last observed one (``season_ = 1``), so the network
        starts from a zero-velocity forecast (Martinez et al. 2017). The encoder still reads
        the values themselves, and with sliding windows also their step changes (see
        ``input_differences``). With ``strategy="recursive"`` each step adds a change to the
        step before it. Works with every windowing (truncated-BPTT streams too); not with
        ``reference``. It also switches the motion settings of ``dropout``,
        ``horizon_weight`` and ``input_differences`` left at ``"auto"`` (see the table of
        :mod:`forecast.models.neural_params`).""",
        check=checks.one_of(True, False, says="True or False"),
    )
    validation_series: float | Sequence[Hashable] | None = param(
        default=None,
        type="int, float, list or None",
        doc="""Hold out whole series (of a dict or long-frame input) for early stopping instead of
        a tail of each: an int ``k``, the last ``k`` series in the order given; a float in
        (0, 1), that fraction of the series (rounded, at least one), again the last ones; a
        list, the series with these keys. Training uses the other series whole, validation
        every window of the held-out ones, so each series needs only ``context_length +
        horizon`` steps (many short sequences, such as motion-capture takes). Replaces
        ``validation_fraction``; not with ``validation_size``. None: tails, see
        ``validation_fraction`` for series too short for one.""",
    )
    patch_length: int = param(
        default=1,
        type="int",
        doc="""Steps per encoder token (PatchTST-style, Nie et al. 2023): the encoder reads the
        context as ``context_length / patch_length`` tokens, each holding the inputs of
        ``patch_length`` consecutive steps, so a long context of fine steps (a week of
        quarter-hours: 672 steps, patches of 4: 168 tokens) costs what the coarse one does;
        the head still forecasts every step. ``context_length`` must be a multiple of it;
        sliding windows only. 1: one token per step.""",
        check=checks.integer(),
    )
    input_differences: bool | Literal["auto"] = param(
        default="auto",
        type='{"auto", True, False}',
        doc="""Let the encoder also read each context step's change from the step before, per
        target channel (of the globally scaled values, divided by ``change_scale_``), next to
        the values themselves, so velocities are inputs at unit scale rather than something
        the encoder must work out from values that vary far more across a window than
        between two steps (``input_differences_``). Needs sliding windows. ``"auto"``: on
        with ``residual=True`` or ``target_transform`` and sliding windows, else off (on the
        CMU mocap validation split it lowered the error at every horizon, see
        ``experiments/results/cmu_mocap.md``).""",
        check=AUTO_TRUE_FALSE,
    )
    micro_batch_size: int | None = param(
        default=None,
        type="int or None",
        doc="""Read each training batch in even slices of at most this many windows (streams with
        ``windowing="tbptt"``), backpropagating each slice's loss weighted by its share of
        the batch (its windows, or its loss-bearing steps), then clip and step once per
        batch: the step is that of the whole ``batch_size`` batch (up to float rounding;
        with ``dropout`` the masks are drawn per slice) while only one slice's activations
        are held, so peak memory falls. Validation and prediction also read at most this
        many windows at a time. None: the whole batch at once.""",
        check=checks.none_or_integer,
    )
    loss: Literal["mse", "mae", "position"] = param(
        default="mse",
        type='{"mse", "mae", "position"}',
        doc="""Training loss of a point head, also watched by early stopping: mean squared error
        or mean absolute error of the (scaled) targets. MAE weighs large errors less and
        tracks relative errors such as MAPE more closely on series of steady level.
        ``"position"``: the mean per-joint position error of 3-D positions (the "MPJPE" of
        the motion literature), the Euclidean norm of each joint's (x, y, z) error in the
        data's units; the targets must be ``<joint>_pos_x/y/z`` triples
        (:func:`forecast.frames.positions.check_position_columns`), ``channel_weight`` None
        (the loss weighs every joint alike), and ``velocity_weight`` adds the same error of
        the step changes. Quantile heads always train the pinball loss (leave ``"mse"`` with
        ``quantiles``).""",
        check=checks.one_of(*LOSSES),
    )
    target_transform: Literal["difference"] | None = param(
        default=None,
        type='{None, "difference"}',
        doc="""``"difference"``: the network forecasts each step's change from the step before (a
        velocity, in units of ``change_scale_``, the root mean square one-step change of
        each channel) and the forecast is the last observed value plus their running sum;
        ``loss`` is taken of these changes, so every horizon step weighs alike, as when a
        model is fitted to differenced data and its forecasts are integrated back. The
        encoder reads the values and their step changes (``input_differences="auto"``);
        ``normalization`` and ``linear_skip`` ``"auto"`` are off with it (the configuration
        that scored best at short horizons on the CMU mocap validation split). Not with
        ``residual``, ``reference``, ``quantiles`` or ``strategy="seq2seq"``. None: forecast
        the values.""",
        check=checks.one_of(None, "difference", says="None or 'difference'"),
    )
    horizon_weight: float | Sequence[float] | Literal["auto"] | None = param(
        default="auto",
        type='"auto", None, float or sequence of float',
        doc=f"""Weight of each forecast lead in the training loss (and the loss early stopping
        watches), normalised to mean 1 (``horizon_weight_``). None: every lead alike. A
        number ``p >= 0``: lead ``k`` (1-based) weighs ``k ** -p``, so the near leads, whose
        errors are small, are not drowned by the far ones. A sequence: one weight per lead
        of the head (``horizon`` values; 1 with ``strategy="recursive"``). ``"auto"``:
        {AUTO_RESIDUAL_HORIZON_WEIGHT} with ``residual=True``, else None (the error of a
        residual forecast grows with the lead like that of the last value, zero velocity,
        and weighing every lead alike left the near leads of motion worse than zero
        velocity: CMU mocap validation split, ``experiments/results/cmu_mocap.md``).""",
    )
    dct_input: int | None = param(
        default=None,
        type="int or None",
        doc="""Read each context window as a trajectory in a temporal DCT basis: the window is
        padded with its last step repeated over the horizon (``context_length + horizon``
        steps), transformed along time per input channel (orthonormal DCT-II) and truncated
        to its first ``dct_input`` coefficients, and the encoder reads one token per
        coefficient, lowest frequency first, instead of one per step (the input of LTD, Mao
        et al. 2019, and siMLPe, Guo et al. 2023; :mod:`forecast.nn.dct`). Sliding windows
        without patches; at most ``context_length + horizon``. None: one token a step.""",
        check=checks.integer(optional=True),
    )
    dct_output: int | None = param(
        default=None,
        type="int or None",
        doc="""Forecast the first ``dct_output`` coefficients of a temporal DCT over the horizon
        per channel instead of every step, and return their inverse transform: a smooth
        trajectory of that many degrees of freedom per channel. With ``residual=True`` the
        coefficients are those of the change from the last observed value (the residual in
        the DCT basis of LTD and its successors). Direct strategy; at most ``horizon``.
        None: one output a step.""",
        check=checks.integer(optional=True),
    )
    channel_mixing: bool = param(
        default=False,
        type="bool",
        doc="""Follow the linear skip path (``linear_skip``), a per-channel map of each channel's
        own lags, by a learned linear map across channels that starts at the identity, so the
        linear part of the forecast can move the channels together (joints of a skeleton);
        the encoders mix channels already in their input layer. Needs ``linear_skip``.""",
        check=checks.one_of(True, False, says="True or False"),
    )
    velocity_weight: float = param(
        default=0.0,
        type="float",
        doc="""Add this weight times the loss of the forecast's step changes (velocities, divided
        by ``change_scale_``, each channel's root mean square one-step change) to the
        training loss, as the motion-prediction literature does, so a forecast is also
        trained to move at the right speed. 0: values only. Point forecasts; not with
        ``target_transform="difference"``, whose loss is of step changes already.""",
        check=checks.non_negative,
    )
    time_reversal: bool = param(
        default=False,
        type="bool",
        doc="""Train on every training series a second time, played backwards (its validation
        tail and held-out series excepted), as siMLPe augments motion: a motion reversed in
        time is a motion, so the network sees twice the trajectories at twice the cost of
        an epoch. For series whose dynamics read the same backwards (joint angles); not with
        future-known covariates (calendar features reversed describe no real time).""",
        check=checks.one_of(True, False, says="True or False"),
    )
    channel_weight: Literal["scale"] | Sequence[float] | None = param(
        default=None,
        type='None, "scale" or sequence of float',
        doc="""Weight of each target channel in the training loss (and the loss early stopping
        watches), normalised to mean 1 (``channel_weight_``). None: every channel alike in
        its scaled units, as if each channel mattered equally. ``"scale"``: each channel by
        its training standard deviation (squared for ``loss="mse"``), so the loss is that of
        the data's own units: right when the channels share a unit and the error that counts
        adds them up (joint angles in radians, the load of zones in MW), where an all but
        constant channel should not weigh as much as one that moves. A sequence: one weight
        per target column.""",
        check=checks.channel_weight,
    )


NEURAL_PARAMS: tuple[Param, ...] = declared(NeuralParams)
"""The shared parameters of the neural forecasters, in signature order."""
