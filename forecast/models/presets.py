"""Settings chosen for a task, to unpack into a neural forecaster's constructor.

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
