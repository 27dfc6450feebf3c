"""Settings chosen for a task, to unpack into a neural forecaster's constructor.

:data:`DAY_AHEAD_LOAD` is the German day-ahead load configuration of
:class:`~forecast.models.referenced.ReferencedHopfieldForecaster` (chosen on 2022).

:data:`MOTION_BEST` is the configuration of the CMU mocap benchmark (50 observed frames of
40 ms, 25 forecast), for every family. It was chosen on the validation split (the last
training take of each action held out, scored on every window of those takes;
``experiments/cmu_mocap_sota.py``) and scored on the test takes. The options of the
state-of-the-art models (``dct_input``, ``dct_output``, ``channel_mixing``,
``velocity_weight``, ``channel_weight``) and ``loss="mae"`` were measured there and are left
out: none lowered the validation error by more than the spread between seeds
(``docs/results/motion.md``).
"""

from __future__ import annotations

from typing import Any

from forecast.models.baselines.linear import LinearLagForecaster

MOTION_BEST: dict[str, Any] = {
    "context_length": 50,
    "horizon": 25,
    "hidden_size": 128,
    "residual": True,
}
"""The motion configuration: ``GRUForecaster(**MOTION_BEST, random_state=0)``.

``residual=True`` brings the motion settings of the ``"auto"`` parameters (input step
changes, window normalisation, linear skip, ``horizon_weight=1.5``, ``dropout=0.5``;
:data:`forecast.models.MOTION_PRESET` spells them out).
"""

LTD: dict[str, Any] = {
    "context_length": 10,
    "horizon": 25,
    "mixer": "gcn",
    "n_coefficients": None,
    "hidden_size": 256,
    "num_layers": 12,
    "dropout": 0.5,
    "normalization": None,
    "observed_loss": True,
    "loss": "mae",
    "channel_weight": "scale",
    "batch_size": 16,
    "learning_rate": 5e-4,
    "lr_scheduler": "exponential",
    "gradient_clip": 1.0,
    "max_epochs": 50,
    "validation_fraction": 0.0,
    "early_stopping_patience": None,
    "train_origins": None,
}
"""LTD's CMU recipe (Mao et al. 2019): ``DCTMixerForecaster(**LTD, random_state=0)``.

Read from the authors' code (``main_cmu.py``, ``utils/opt.py``, ``utils/model.py``): the last
10 observed frames padded with the last one to 35, all 35 DCT coefficients, 12 residual
graph-convolution blocks of width 256 with dropout 0.5, the absolute error over all 35
frames summed over the joint angles in radians (``channel_weight="scale"``), every window
of every training take, Adam at 5e-4 decayed by 0.96 every two epochs, batches of 16, 50
epochs, gradient norm clipped at 1, and the weights of the epoch with the lowest training
loss. One difference: the network reads the angles standardised per channel (every
estimator of the toolkit scales its targets), where LTD reads them raw.
"""

MOTION_BEST_3D: dict[str, Any] = {
    **MOTION_BEST,
    "context_length": 10,
    "horizon": 25,
    "loss": "position",
}
"""The motion configuration on the 3-D protocol: ``GRUForecaster(**MOTION_BEST_3D)``.

:data:`MOTION_BEST` over the window of the 3-D papers (10 observed frames, 25 forecast) and
trained with the mean per-joint position error (``loss="position"``), for the 75 columns of
the 25 predicted joints (``load("cmu-mocap", positions=True)``); every family takes it
(``experiments/cmu_mocap_3d.py``, ``--preset gru`` .. ``hopfield``).
"""

LTD_3D: dict[str, Any] = {**LTD, "loss": "position", "channel_weight": None}
"""LTD's CMU recipe in 3-D (``main_cmu_3d.py``): ``DCTMixerForecaster(**LTD_3D, random_state=0)``.

The network and schedule of :data:`LTD` (10 observed frames padded to 35, all 35 DCT
coefficients, 12 graph-convolution blocks of width 256, dropout 0.5, Adam 5e-4 decayed 0.96
every two epochs, batches of 16, 50 epochs, gradients clipped at norm 1, every window, the
weights of the lowest training loss) over joint positions instead of angles: the 75 columns of
the 25 predicted joints (``load("cmu-mocap", positions=True)``), trained with the mean per-joint
position error over all 35 frames (``loss="position"``), as LTD's ``mpjpe_error_p3d``. As in
the angle preset, the network reads the positions standardised per channel where LTD reads
them raw; the loss is in the data's millimetres either way.
"""

SIMLPE: dict[str, Any] = {
    "context_length": 50,
    "horizon": 10,
    "mixer": "mlp",
    "n_coefficients": None,
    "num_layers": 48,
    "normalization": None,
    "observed_loss": False,
    "loss": "mae",
    "velocity_weight": 1.0,
    "channel_weight": "scale",
    "batch_size": 256,
    "learning_rate": 3e-4,
    "gradient_clip": None,
    "validation_fraction": 0.0,
    "early_stopping_patience": None,
    "train_origins": None,
}
"""siMLPe's recipe (Guo et al. 2023, its H3.6M configuration) for the motion channels.

50 observed frames, 10 forecast per pass (longer horizons roll out by 10 frames), 48
temporal blocks between linear maps across channels, the error of the forecast frames plus
that of their velocities. ``hidden_size`` is the number of channels the blocks carry: set it
to the number of target channels as siMLPe does (64 for CMU). siMLPe trains 40,000 steps
(``max_epochs`` is left to the data) and scores 3-D positions where this scores angles.
"""

SIMLPE_3D: dict[str, Any] = {
    **SIMLPE,
    "context_length": 10,
    "horizon": 25,
    "loss": "position",
    "channel_weight": None,
    "hidden_size": 75,
    "batch_size": 64,
    "max_epochs": 30,
}
"""siMLPe's network on the 3-D protocol: ``DCTMixerForecaster(**SIMLPE_3D, random_state=0)``.

:data:`SIMLPE` over the window of the 3-D papers (10 observed frames, 25 forecast in one pass),
trained with the mean per-joint position error plus that of the velocities
(``loss="position"``, ``velocity_weight=1``), 75 channels in the blocks (the position
columns of the 25 predicted joints), batches of 64, 30 epochs
(``experiments/cmu_mocap_3d.py --preset simlpe3d``).
"""

PGBIG_3D: dict[str, Any] = {
    "context_length": 10,
    "horizon": 25,
    "mixer": "pgbig",
    "n_coefficients": None,
    "hidden_size": 16,
    "num_layers": 4,
    "dropout": 0.3,
    "normalization": None,
    "observed_loss": True,
    "loss": "position",
    "channel_weight": None,
    "batch_size": 16,
    "learning_rate": 5e-3,
    "lr_scheduler": "tenfold",
    "gradient_clip": None,
    "max_epochs": 50,
    "validation_fraction": 0.0,
    "early_stopping_patience": None,
    "train_origins": None,
}
"""PGBIG's CMU recipe in 3-D (Ma et al. 2022): ``DCTMixerForecaster(**PGBIG_3D, random_state=0)``.

Read from the authors' code (``main_cmu_3d.py``, ``model/stage_4.py``, ``model/BaseModel.py``
and the CMU run's ``option.json``): the last 10 observed frames padded with the last one to
35, all 35 DCT coefficients, 4 stages of separable graph convolutions (an encoder of one
residual block, a decoder of two) with 16 channels per joint and dropout 0.3, every stage
trained with the mean per-joint position error over all 35 frames against its own target
(the truth for the last stage, the forecast steps smoothed by a running mean once, twice and
three times for the stages before), every window of every training take, Adam at 5e-3
falling tenfold over 50 epochs, batches of 16, no gradient clipping (their bound of 10,000
never binds). Differences: each stage adds its output to the window it reads (the toolkit's
residual; PGBIG's stages map it through learned 1x1 skips), the network reads positions
standardised per channel, the rate falls after each epoch rather than before, and the weights
kept are those of the lowest training loss, where PGBIG's script keeps the epoch with the
lowest error on the test takes.
"""

DAY_AHEAD_LOAD: dict[str, Any] = {
    "reference_model": LinearLagForecaster(calendar=True, country="DE", timezone="Europe/Berlin"),
    "reference_input": True,
    "horizon": 38,
    "hidden_size": 32,
    "n_ensemble": 5,
    "calendar": True,
    "country": "DE",
    "timezone": "Europe/Berlin",
}
"""German day-ahead load: ``ReferencedHopfieldForecaster(**DAY_AHEAD_LOAD, random_state=0)``.

Five Hopfield networks of width 32 (``n_ensemble=5``, forecasts averaged), each correcting
the forecast of ``LinearLagForecaster`` with the German calendar (``reference_model``; the
network also reads it, ``reference_input``), a 38-step head that covers the 35-37 hours from
12:00 on D-1 to the end of D without roll-out, the calendar and German holidays as inputs.
Chosen on 2022 (trained on 2019-2021), where it tied with three networks of width 64 at
2.282 % (LinearLag 2.290 %). On 2023 it scores 2.276 %, behind the LinearLag forecast it
corrects (2.247 %): ``docs/results/day-ahead.md``, "A network that corrects the linear model".
"""
