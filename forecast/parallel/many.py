"""Local models: one fitted clone of an estimator per series, in parallel on Ray.

Global training (one model over all series) is what ``estimator.fit(long_frame)`` does.
:func:`fit_many` fits a separate model per series instead, the way a utility forecasts each
substation with its own model. Each series gets a :func:`sklearn.base.clone` with the same
parameters (``random_state`` included), so the fitted models, and their forecasts, are the
same whichever engine ran them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import pandas as pd
from sklearn.base import clone

from forecast.frames import validation
from forecast.parallel.engine import (
    check_engine,
    check_resources,
    chunks,
    cluster_cpus,
    ray_session,
)

__all__ = ["fit_many"]

_SHOWN_FAILURES = 5


def fit_many(
    estimator: Any,
    frames: Mapping[Hashable, pd.DataFrame] | pd.DataFrame,
    *,
    engine: str = "sequential",
    address: str | None = None,
    num_cpus: int | None = None,
    tasks_per_cpu: int = 4,
) -> dict[Hashable, Any]:
    """Fit one clone of ``estimator`` per series.

    Parameters
    ----------
    estimator : BaseForecaster
        Template; it is cloned per series and never changed.
    frames : dict of DataFrames, or long DataFrame
        The series: ``{id: frame}``, or a long frame with an ``id`` column.
    engine : {"sequential", "ray"}
        ``"sequential"`` fits in this process; ``"ray"`` fits batches of series as Ray
        tasks (see :func:`forecast.parallel.ray_session` for which Ray is used).
    address : str, optional
        Ray cluster address (default ``RAY_ADDRESS``, else a local Ray); ``"ray"`` only.
    num_cpus : int, optional
        CPUs of a local Ray (default: all); ``"ray"`` only.
    tasks_per_cpu : int
        The series are split into about ``tasks_per_cpu`` tasks per CPU, so that one task
        carries many small fits (a Ray task costs milliseconds) and slow series still
        spread out.

    Returns
    -------
    dict
        ``{id: fitted estimator}``, in the order of ``frames`` (sorted ids for a long frame).

    Raises
    ------
    ValueError
        When fits fail: the message names every failed series (the first five with their
        reason); no partial result is returned.

    Examples
    --------
    >>> from forecast import SeasonalNaive
    >>> from forecast.parallel import fit_many
    >>> models = fit_many(SeasonalNaive(season="1D"), {"a": df_a, "b": df_b})  # doctest: +SKIP
    >>> models["a"].predict(horizon=24)  # doctest: +SKIP
    """
    check_resources(address, num_cpus)  # before the engine: a bad value is named without Ray
    check_engine(engine)
    if isinstance(tasks_per_cpu, bool) or not isinstance(tasks_per_cpu, int) or tasks_per_cpu < 1:
        raise ValueError(f"tasks_per_cpu must be a positive int, got {tasks_per_cpu!r}")
    series = _split(frames)
    items = list(series.items())
    if engine == "sequential":
        if address is not None or num_cpus is not None:
            raise ValueError("address and num_cpus apply to engine='ray' only")
        outcomes = fit_chunk(estimator, items)
    else:
        outcomes = _fit_on_ray(estimator, items, address, num_cpus, tasks_per_cpu)
    failed = [(key, error) for key, _, error in outcomes if error is not None]
    if failed:
        raise ValueError(_failure_message(failed, len(items)))
    return {key: fitted for key, fitted, _ in outcomes}


def _split(frames: Mapping[Hashable, pd.DataFrame] | pd.DataFrame) -> dict[object, pd.DataFrame]:
    if isinstance(frames, pd.DataFrame) and validation.ID_COLUMN not in frames.columns:
        raise TypeError(
            "fit_many fits one model per series: give a dict {id: DataFrame} or a long frame "
            f"with an {validation.ID_COLUMN!r} column (for one series call estimator.fit)"
        )
    series, _ = validation.split_series(frames, "frames")
    return series


def fit_chunk(
    estimator: Any, items: list[tuple[Hashable, pd.DataFrame]]
) -> list[tuple[Hashable, Any, str | None]]:
    """Fit a clone per ``(id, frame)``; return ``(id, fitted or None, error or None)`` each."""
    out: list[tuple[Hashable, Any, str | None]] = []
    for key, frame in items:
        try:
            out.append((key, clone(estimator).fit(frame), None))
        except Exception as err:  # reported per series by the caller
            out.append((key, None, f"{type(err).__name__}: {err}"))
    return out


def _fit_on_ray(
    estimator: Any,
    items: list[tuple[Hashable, pd.DataFrame]],
    address: str | None,
    num_cpus: int | None,
    tasks_per_cpu: int,
) -> list[tuple[Hashable, Any, str | None]]:
    with ray_session(address, num_cpus) as ray:
        task = ray.remote(num_cpus=1)(fit_chunk)
        template = ray.put(estimator)
        parts = chunks(items, cluster_cpus(ray) * tasks_per_cpu)
        results = ray.get([task.remote(template, part) for part in parts])
    return [outcome for part in results for outcome in part]


def _failure_message(failed: list[tuple[Hashable, str]], total: int) -> str:
    shown = "; ".join(f"series {key!r}: {error.splitlines()[0]}" for key, error in failed[:5])
    more = f"; and {len(failed) - _SHOWN_FAILURES} more" if len(failed) > _SHOWN_FAILURES else ""
    ids = ", ".join(repr(key) for key, _ in failed)
    return f"{len(failed)} of {total} series failed to fit ({ids}): {shown}{more}"
