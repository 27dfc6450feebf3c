"""A day-ahead spec whose ensemble blends naive and seasonal naive, for the weights_by tests."""

from pathlib import Path
from typing import Any

from tests.conftest import make_series


def blend_spec(folder: Path, weights_by: str, weights: list[list[float]]) -> dict[str, Any]:
    """Return the tables of a spec over three weeks of hourly load written into ``folder``."""
    path = folder / "load.csv"
    df = make_series(24 * 21, tz="UTC").rename_axis("timestamp").reset_index()
    df.to_csv(path, index=False)
    return {
        "name": f"by-{weights_by}",
        "data": {"path": str(path), "timezone": "Europe/Berlin"},
        "backtest": {
            "protocol": "day-ahead",
            "start": "2023-01-15",
            "end": "2023-01-20",
            "target": "load",
        },
        "models": {
            "last-value": {"model": "naive"},
            "daily": {"model": "seasonal-naive", "season": "1D"},
            "blend": {
                "model": "ensemble",
                "members": ["last-value", "daily"],
                "weights_by": weights_by,
                "weights": weights,
            },
        },
    }
