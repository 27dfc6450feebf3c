"""Combinations of estimators chosen for a task: settings and constructors.

:data:`DAY_AHEAD_MEMORY` is :data:`forecast.models.DAY_AHEAD_LOAD` with the linear model
under its analog-day memory as the reference. It lives here, not beside
``DAY_AHEAD_LOAD``, because the memory (:class:`~forecast.combine.AnalogDayForecaster`) is
a combination of estimators, a layer above the networks. :func:`motion_angles` builds the
best estimator of the CMU angle benchmark, a weighted mean of four networks, and
:func:`motion_3d` that of the 3-D benchmark, three or four networks weighed per step.
"""

from __future__ import annotations

from typing import Any

from forecast.combine.analog import AnalogDayForecaster
from forecast.combine.ensemble import EnsembleForecaster
from forecast.models.baselines.linear import LinearLagForecaster
from forecast.models.dct_mixer import DCTMixerForecaster
from forecast.models.presets import (
    DAY_AHEAD_LOAD,
    LTD_3D,
    MOTION_BEST,
    MOTION_BEST_3D,
    PGBIG_3D,
    SIMLPE,
    SIMLPE_3D,
)
from forecast.models.recurrent import GRUForecaster
from forecast.models.transformer import TransformerForecaster

DAY_AHEAD_MEMORY: dict[str, Any] = DAY_AHEAD_LOAD | {
    "reference_model": AnalogDayForecaster(
        LinearLagForecaster(calendar=True, country="DE", timezone="Europe/Berlin"),
        memory_folds=3,
        country="DE",
        timezone="Europe/Berlin",
    ),
}
"""German day-ahead load: ``ReferencedHopfieldForecaster(**DAY_AHEAD_MEMORY, random_state=0)``.

The network of :data:`~forecast.models.DAY_AHEAD_LOAD` (five Hopfield networks of width 32,
a 38-step head, the German calendar) correcting ``LinearLagForecaster`` with the German
calendar under its analog-day memory (``AnalogDayForecaster`` with out-of-fold errors,
``memory_folds=3``, and its default retrieval settings) instead of the bare linear model.
Each training window reads the memory's forecast from its own origin, retrieved from the
stored days observed by then. Chosen on 2022 (trained on 2019-2021), where the three seeds
score 2.145 % against 2.185 % for the memory alone and 2.206 % for the memory over
``DAY_AHEAD_LOAD``. On 2023 (trained on 2019-2022) they score 2.138 %, ahead of
``BoostedLagForecaster`` (2.209 %) but not of the memory alone (2.133 %):
``docs/results/day-ahead.md``, "A network over the memory".
"""


#: siMLPe's network on the angle benchmark, settings chosen on its validation split: 64
#: channels in the blocks (the targets), batches of 64, 30 epochs.
SIMLPE_ANGLES: dict[str, Any] = SIMLPE | {"hidden_size": 64, "batch_size": 64, "max_epochs": 30}


def motion_angles(random_state: int = 0) -> EnsembleForecaster:
    """Return the best estimator of the CMU angle benchmark: four networks averaged.

    Two siMLPe networks (:data:`SIMLPE_ANGLES`, seeds ``random_state`` and
    ``random_state + 1``) weighing 0.4 each, the GRU and the transformer of
    :data:`~forecast.models.MOTION_BEST` (seed ``random_state``) 0.1 each: the weights ranked
    first on the validation split (every window of the held-out takes). 50 observed frames, 25
    forecast, exp-map angles. On the test takes, seeds 0-2: 0.270 / 0.426 / 0.782 / 0.924 /
    1.293 rad on the 8 windows and 11.3 / 21.6 / 42.1 / 52.7 / 103.6 mm in 3-D on every
    window at 80 / 160 / 320 / 400 / 1000 ms (``docs/results/motion.md``, "siMLPe averaged
    with the GRU and the transformer").

    Parameters
    ----------
    random_state : int, default=0
        Seed of the members (the second siMLPe network takes the next one).

    Returns
    -------
    EnsembleForecaster
        Unfitted; members named ``simlpe``, ``simlpe_2``, ``gru`` and ``transformer``.

    Examples
    --------
    >>> from forecast.combine import motion_angles
    >>> model = motion_angles(random_state=0)
    >>> [name for name, _ in model.estimators]
    ['simlpe', 'simlpe_2', 'gru', 'transformer']
    """
    seed = int(random_state)
    return EnsembleForecaster(
        [
            ("simlpe", DCTMixerForecaster(**SIMLPE_ANGLES, random_state=seed)),
            ("simlpe_2", DCTMixerForecaster(**SIMLPE_ANGLES, random_state=seed + 1)),
            ("gru", GRUForecaster(**MOTION_BEST, random_state=seed)),
            ("transformer", TransformerForecaster(**MOTION_BEST, random_state=seed)),
        ],
        weights=[0.4, 0.4, 0.1, 0.1],
    )


#: The graph network of :func:`motion_3d`: LTD's 3-D recipe (:data:`~forecast.models.LTD_3D`)
#: trained 40 of its 50 epochs.
LTD_3D_40: dict[str, Any] = LTD_3D | {"max_epochs": 40}

#: Weights of :func:`motion_3d`, one row per forecast step (1-25, 40 ms each): the GRU's
#: share, the graph network's, siMLPe's network's. Chosen by
#: :func:`forecast.evaluation.motion_positions.step_weights` on the validation split.
MOTION_3D_WEIGHTS: list[list[float]] = [
    [0.7, 0.1, 0.2],  # step 1 (40 ms)
    [0.6, 0.1, 0.3],  # 80 ms
    [0.5, 0.1, 0.4],
    [0.4, 0.15, 0.45],  # 160 ms
    [0.3, 0.2, 0.5],
    [0.25, 0.25, 0.5],
    [0.2, 0.25, 0.55],
    [0.15, 0.3, 0.55],  # 320 ms
    [0.1, 0.3, 0.6],
    [0.1, 0.35, 0.55],  # 400 ms
    [0.05, 0.35, 0.6],
    [0.05, 0.35, 0.6],
    [0.05, 0.4, 0.55],
    [0.05, 0.4, 0.55],  # 560 ms
    [0.0, 0.4, 0.6],
    [0.0, 0.45, 0.55],
    [0.0, 0.45, 0.55],
    [0.0, 0.45, 0.55],
    [0.0, 0.5, 0.5],
    [0.0, 0.5, 0.5],
    [0.0, 0.5, 0.5],
    [0.0, 0.55, 0.45],
    [0.0, 0.55, 0.45],
    [0.0, 0.55, 0.45],
    [0.0, 0.55, 0.45],  # step 25 (1000 ms)
]


#: The fourth network of ``motion_3d(pgbig=True)``: PGBIG's recipe
#: (:data:`~forecast.models.PGBIG_3D`) compressed to 14 epochs, the rate still falling tenfold.
PGBIG_3D_14: dict[str, Any] = PGBIG_3D | {"max_epochs": 14}

#: Weights of ``motion_3d(pgbig=True)``, one row per forecast step (1-25, 40 ms each): the
#: GRU's share, the graph network's, siMLPe's network's, PGBIG's network's. Chosen by
#: :func:`forecast.evaluation.motion_positions.step_weights` on the validation split.
MOTION_3D_PGBIG_WEIGHTS: list[list[float]] = [
    [0.65, 0.05, 0.1, 0.2],  # step 1 (40 ms)
    [0.5, 0.0, 0.15, 0.35],  # 80 ms
    [0.4, 0.0, 0.25, 0.35],
    [0.25, 0.0, 0.3, 0.45],  # 160 ms
    [0.2, 0.0, 0.3, 0.5],
    [0.15, 0.0, 0.3, 0.55],
    [0.1, 0.0, 0.3, 0.6],
    [0.05, 0.0, 0.35, 0.6],  # 320 ms
    [0.05, 0.0, 0.35, 0.6],
    [0.0, 0.05, 0.35, 0.6],  # 400 ms
    [0.0, 0.05, 0.35, 0.6],
    [0.0, 0.05, 0.35, 0.6],
    [0.0, 0.05, 0.35, 0.6],
    [0.0, 0.05, 0.35, 0.6],  # 560 ms
    [0.0, 0.1, 0.35, 0.55],
    [0.0, 0.1, 0.35, 0.55],
    [0.0, 0.1, 0.3, 0.6],
    [0.0, 0.15, 0.3, 0.55],
    [0.0, 0.15, 0.3, 0.55],
    [0.0, 0.15, 0.3, 0.55],
    [0.0, 0.2, 0.25, 0.55],
    [0.0, 0.2, 0.25, 0.55],
    [0.0, 0.2, 0.25, 0.55],
    [0.0, 0.2, 0.25, 0.55],
    [0.0, 0.25, 0.25, 0.5],  # step 25 (1000 ms)
]


def motion_3d(random_state: int = 0, pgbig: bool = False) -> EnsembleForecaster:
    """Return the estimator of the CMU 3-D benchmark: networks weighed by step.

    The GRU of :data:`~forecast.models.MOTION_BEST_3D` weighs most on the first steps, LTD's
    graph network (:data:`LTD_3D_40`) and siMLPe's network
    (:data:`~forecast.models.SIMLPE_3D`) far ahead; :data:`MOTION_3D_WEIGHTS` gives each
    step's weights (``weights_by="step"``), chosen on the validation split (every window of
    the held-out takes; the graph network fitted there for 10 epochs, to spare the cores).
    With ``pgbig=True`` PGBIG's network (:data:`PGBIG_3D_14`) joins as a fourth member, with
    the weights :data:`MOTION_3D_PGBIG_WEIGHTS` chosen the same way; it takes the largest
    share from the second step on, and the graph network's falls to 0-0.25. 10 observed
    frames, 25 forecast, the 75 position columns of ``load("cmu-mocap", positions=True)``.

    On the test takes (seed 0, every window; ``docs/results/motion.md``, "Networks weighed by
    step") at 80 / 160 / 320 / 400 / 560 / 1000 ms:

    - the three networks: 9.9 / 19.6 / 39.7 / 48.7 / 63.7 / 88.6 mm on the six actions, 10.7 /
      20.9 / 40.9 / 49.4 / 63.0 / 83.7 on the five with training takes; 1.03-1.17 times
      PGBIG's published error on the six, 1.005-1.10 times on the five;
    - the four (``pgbig=True``): 9.8 / 19.4 / 38.9 / 47.6 / 62.0 / 86.6 mm on the six, 10.6 /
      20.7 / 40.2 / 48.3 / 61.2 / 81.3 on the five; 1.01-1.14 times PGBIG's error on the six
      and 0.99-1.08 times on the five.

    The graph networks' fits dominate the cost: on one core of a quiet 2-core machine, 40
    epochs of 3.5-4.5 minutes each for LTD's and 14 of 5-8 minutes on two threads for
    PGBIG's, against 20-30 minutes for siMLPe's network and 1.5 for the GRU.

    Parameters
    ----------
    random_state : int, default=0
        Seed of every member.
    pgbig : bool, default=False
        Add PGBIG's network as a fourth member.

    Returns
    -------
    EnsembleForecaster
        Unfitted; members named ``gru``, ``ltd``, ``simlpe`` (and ``pgbig``).

    Examples
    --------
    >>> from forecast.combine import motion_3d
    >>> model = motion_3d(random_state=0)
    >>> [name for name, _ in model.estimators], model.weights_by
    (['gru', 'ltd', 'simlpe'], 'step')
    >>> [name for name, _ in motion_3d(pgbig=True).estimators]
    ['gru', 'ltd', 'simlpe', 'pgbig']
    """
    seed = int(random_state)
    members: list[tuple[str, Any]] = [
        ("gru", GRUForecaster(**MOTION_BEST_3D, random_state=seed)),
        ("ltd", DCTMixerForecaster(**LTD_3D_40, random_state=seed)),
        ("simlpe", DCTMixerForecaster(**SIMLPE_3D, random_state=seed)),
    ]
    weights = MOTION_3D_WEIGHTS
    if pgbig:
        members.append(("pgbig", DCTMixerForecaster(**PGBIG_3D_14, random_state=seed)))
        weights = MOTION_3D_PGBIG_WEIGHTS
    return EnsembleForecaster(members, weights=[list(row) for row in weights], weights_by="step")
