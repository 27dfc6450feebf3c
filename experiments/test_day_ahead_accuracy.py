"""Real-data accuracy checks (slow): every neural family beats same-hour-last-week.

python -m pytest -m slow experiments/test_day_ahead_accuracy.py
"""

import os
from pathlib import Path

import pytest
from smard_day_ahead import run  # the script next to this file

DATA = Path(
    os.environ.get("FORECAST_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data")
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (DATA / "smard_de_tso_load_hourly").is_dir(), reason=f"no SMARD data in {DATA}"
    ),
]


@pytest.mark.parametrize(
    "family", ["elman", "lstm", "gru", "orthogonal", "transformer", "hopfield"]
)
def test_smard_first_eight_weeks_of_2023(family):
    table = run([family], [True])
    naive = table.loc["same hour last week", "MAPE (%)"]
    model = table.loc[f"{family} + calendar", "MAPE (%)"]
    assert naive == pytest.approx(4.62, abs=0.01)
    assert model < naive, table
