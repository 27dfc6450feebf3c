"""Settings chosen for a task, to unpack into a neural forecaster's constructor.

:data:`MOTION_BEST` is the configuration of the CMU mocap benchmark (50 observed frames of
40 ms, 25 forecast), chosen on its validation split (the last training take of each action
held out; ``experiments/cmu_mocap_sota.py``) and scored once on the test takes; every
family takes it. The options of the state-of-the-art models (``dct_input``,
``dct_output``, ``channel_mixing``, ``velocity_weight``, ``channel_weight``) were measured
there too and are left out: none lowered the validation error by more than the spread
between seeds (``docs/results/motion.md``).
"""

from __future__ import annotations

from typing import Any

MOTION_BEST: dict[str, Any] = {
    "context_length": 50,
    "horizon": 25,
    "hidden_size": 128,
    "residual": True,
    "loss": "mae",
}
"""The motion configuration: ``GRUForecaster(**MOTION_BEST, random_state=0)``.

``residual=True`` brings the motion settings of the ``"auto"`` parameters
(:data:`forecast.models.MOTION_PRESET`); ``loss="mae"`` is what lowered the validation error
of every family (by 6-7 % of the ratio to zero velocity): the CMU takes hold single-frame
glitches of the hand joints, jumps of about 3 rad and back, which a squared error lets
dominate training and an absolute error does not (LTD trains with an absolute error too).
"""
