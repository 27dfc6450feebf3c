"""Settings of a network whose reference is the analog-day memory, chosen for a task.

:data:`DAY_AHEAD_MEMORY` is :data:`forecast.models.DAY_AHEAD_LOAD` with the linear model
under its analog-day memory as the reference. It lives here, not beside
``DAY_AHEAD_LOAD``, because the memory (:class:`~forecast.combine.AnalogDayForecaster`) is
a combination of estimators, a layer above the networks.
"""

from __future__ import annotations

from typing import Any

from forecast.combine.analog import AnalogDayForecaster
from forecast.models.baselines.linear import LinearLagForecaster
from forecast.models.presets import DAY_AHEAD_LOAD

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
