"""The interval columns of a conformal forecast: point forecasts plus calibrated bounds.

A function of a :class:`forecast.ConformalForecaster` (``model``) shared by its two predict
paths (``predict`` and ``predict_origins``), in either calibration mode: given the rows of
point forecasts and, per row, the groups of the score table and the miscoverage levels, it
returns one column per quantile level asked for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from forecast.frames.quantiles import central_levels, check_coverage, quantile_column
from forecast.probabilistic.table import ScoreTable, bounds


def interval_columns(
    model: Any,
    values: np.ndarray,
    table: ScoreTable,
    gk: Any,
    steps: Any,
    times: Any,
    alpha: Any,
    levels: tuple[float, ...],
) -> dict[str, np.ndarray]:
    """Return the interval columns for rows of point forecasts ``values`` (n, C).

    Row ``i`` is forecast step ``steps[i]`` for the timestamp ``times[i]``; it is scored by
    the groups ``table.group[gk[i]]`` at the miscoverage levels ``alpha[i]`` (one per
    coverage of ``model``). The columns are ``<column>_q<level>`` for each target column
    and each of ``levels``, in that order.
    """
    n, _ = values.shape
    alpha = np.broadcast_to(alpha, (n, len(model._alphas())))
    hours = model._hours(times)
    step = np.asarray(steps) if model.per_step else np.zeros(n, dtype=np.int64)
    wanted = set(levels)
    out = {}
    for c, column in enumerate(model.columns_):
        groups = table.group[gk, c, step, hours]  # (n,)
        for i, coverage in enumerate(check_coverage(model.coverage)):
            low_level, high_level = central_levels((coverage,))
            low, high = bounds(table, groups, alpha[:, i], model.method)
            if low_level in wanted:
                out[quantile_column(column, low_level)] = values[:, c] + low
            if high_level in wanted:
                out[quantile_column(column, high_level)] = values[:, c] + high
    ordered = [quantile_column(c, q) for c in model.columns_ for q in levels]
    return {name: out[name] for name in ordered}
