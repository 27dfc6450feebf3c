"""Real-data checks (slow): the motion guide's example runs as written and beats zero velocity.

python -m pytest -m slow experiments/test_motion_accuracy.py
"""

import os
import re
from pathlib import Path

import numpy as np
import pytest

from forecast.evaluation.motion import HORIZONS, HORIZONS_MM

DATA = Path(
    os.environ.get("FORECAST_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data")
)
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "motion.md"
# validation split, zero velocity (radians; mm with positions=True), mean of the 7 actions
ZERO_RAD = (0.460, 0.728, 1.210, 1.373, 2.058)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (DATA / "cmu_mocap_expmap").is_dir(), reason=f"no CMU mocap data in {DATA}"
    ),
]


def test_the_motion_guide_example_runs_and_beats_zero_velocity(monkeypatch):
    code = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(), flags=re.M | re.S)[-1]
    monkeypatch.setenv("FORECAST_DATA_DIR", str(DATA))
    namespace: dict = {"__name__": "__docs__"}
    exec(compile(code, "guide/motion.md", "exec"), namespace)
    table = namespace["table"]
    assert list(table.columns) == [*HORIZONS, *HORIZONS_MM, "fit_seconds", "fit_peak_mb"]
    assert len(table) == 7  # one seed, the 7 validation actions
    ratio = table[list(HORIZONS)].mean().to_numpy() / np.array(ZERO_RAD)
    assert (ratio < 0.95).all(), table  # below zero velocity at every horizon
