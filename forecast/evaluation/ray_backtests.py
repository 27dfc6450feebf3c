"""Backtests on Ray: one task per model of a comparison.

Used by :func:`forecast.evaluation.compare.compare` with ``engine="ray"``. A backtest is a pure
function of (estimator parameters, data, settings), so running it in a worker gives the
same forecasts and scores as in the calling process.
"""

from __future__ import annotations

from typing import Any

from forecast.evaluation.backtest import backtest
from forecast.evaluation.memory import PeakRSS
from forecast.parallel.engine import ray_session


def backtest_task(
    estimator: Any, data: Any, backtest_kwargs: dict[str, Any]
) -> tuple[Any, float, bool]:
    """Backtest ``estimator`` on ``data``; return the result and the peak memory (MiB).

    The third value says whether the peak is this backtest's alone (Linux) or the worker
    process's since it started.
    """
    memory = PeakRSS()
    memory.start()
    result = backtest(estimator, data, **backtest_kwargs)
    return result, memory.peak_mb(), memory.per_block


def run_backtests(
    named: dict[str, Any],
    data: Any,
    backtest_kwargs: dict[str, Any],
    address: str | None,
    num_cpus: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Backtest every model as a Ray task; return ``results`` and ``memory`` like ``compare``.

    Returns
    -------
    results : dict of str to BacktestResult
        In the order of ``named``.
    memory : dict
        ``{"peak_rss_mb" or "process_peak_rss_mb": {model: MiB}}``.
    """
    with ray_session(address, num_cpus) as ray:
        task = ray.remote(num_cpus=1)(backtest_task)
        shared = ray.put(data)
        refs = {k: task.remote(est, shared, backtest_kwargs) for k, est in named.items()}
        outcomes = dict(zip(refs, ray.get(list(refs.values())), strict=True))
    results = {k: outcome[0] for k, outcome in outcomes.items()}
    per_block = all(outcome[2] for outcome in outcomes.values())
    column = "peak_rss_mb" if per_block else "process_peak_rss_mb"
    return results, {column: {k: outcome[1] for k, outcome in outcomes.items()}}
