"""The ``[tune]`` table of an experiment spec: search space and sweep settings, checked.

Pure Python (no Ray), so a spec is validated by :func:`forecast.specs.spec.read_spec` with clear
errors before any Ray starts::

    [tune]
    model = "gru"                  # the [models.<name>] table whose parameters are tuned
    metric = "mape"                # backtest metric to minimise on the validation period
    num_samples = 16               # trials
    validation_start = "2022-01-01"
    validation_end = "2022-12-31"  # must end before [backtest] start (the test period)
    grace_period = 2               # ASHA: epochs every trial runs before it may be stopped
    reduction_factor = 2           # ASHA: keep the best 1/reduction_factor at each rung
    max_concurrent = 2             # optional: trials at once (default: one per CPU)
    seed = 0                       # sampling of the configurations

    [tune.space]                   # one entry per tuned parameter
    hidden_size = { choice = [16, 32, 64] }
    learning_rate = { loguniform = [1e-4, 1e-2] }
    dropout = { uniform = [0.0, 0.3] }
    context_length = { randint = [72, 337] }   # integers lo <= x < hi
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

KINDS = ("choice", "uniform", "loguniform", "randint")
_INT_SETTINGS = {"num_samples": 1, "grace_period": 1, "reduction_factor": 2, "max_concurrent": 1}
_KEYS = {"model", "metric", "validation_start", "validation_end", "space", "seed", *_INT_SETTINGS}


@dataclass
class TuneSettings:
    """A checked ``[tune]`` table (see the module docstring)."""

    model: str
    space: dict[str, tuple[str, Any]]
    validation_start: str
    validation_end: str
    metric: str = "mape"
    num_samples: int = 16
    grace_period: int = 1
    reduction_factor: int = 2
    max_concurrent: int | None = None
    seed: int | None = 0


def parse_tune(table: Any, models: dict[str, Any], backtest: dict[str, Any]) -> TuneSettings:
    """Check the ``[tune]`` table of a spec against its ``[models]`` and ``[backtest]``.

    Parameters
    ----------
    table : dict
        The ``[tune]`` table.
    models : dict
        The spec's ``[models]`` tables (the tuned model must be one of them).
    backtest : dict
        The spec's ``[backtest]`` table; its ``start`` is the test period, which the
        validation period must end before.

    Returns
    -------
    TuneSettings

    Raises
    ------
    ValueError
        Naming the key at fault and what was expected.
    """
    if not isinstance(table, dict):
        raise ValueError("[tune] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise ValueError(f"[tune] unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    for key in ("model", "validation_start", "validation_end", "space"):
        if key not in table:
            raise ValueError(f"[tune] needs `{key}`")
    model = table["model"]
    if model not in models:
        raise ValueError(f"[tune] model = {model!r} is not a [models.*] table; have {list(models)}")
    ints = {}
    for key, low in _INT_SETTINGS.items():
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"[tune] {key} must be an int >= {low}, got {value!r}")
            ints[key] = value
    metric = table.get("metric", "mape")
    if not isinstance(metric, str) or not metric:
        raise ValueError(f"[tune] metric must be a metric name such as 'mape', got {metric!r}")
    start, end = _check_periods(table["validation_start"], table["validation_end"], backtest)
    space = parse_space(table["space"])
    return TuneSettings(
        model=model,
        space=space,
        validation_start=start,
        validation_end=end,
        metric=metric,
        seed=table.get("seed", 0),
        **ints,
    )


def _check_periods(start: Any, end: Any, backtest: dict[str, Any]) -> tuple[str, str]:
    for key, value in (("validation_start", start), ("validation_end", end)):
        if not isinstance(value, str):
            raise ValueError(f"[tune] {key} must be a date string, got {value!r}")
    if "start" not in backtest:
        raise ValueError(
            "[tune] needs [backtest] start (the test period): the validation period must "
            "end before it"
        )
    try:
        first = pd.Period(start).start_time
        last = pd.Period(end).end_time
        test = pd.Period(str(backtest["start"])).start_time
    except (ValueError, TypeError) as err:
        raise ValueError(f"[tune] validation_start/validation_end: not a date: {err}") from err
    if last < first:
        raise ValueError(f"[tune] validation_end {end!r} is before validation_start {start!r}")
    if last >= test:
        raise ValueError(
            f"[tune] the validation period ({start} to {end}) must end before the test period "
            f"starts ([backtest] start = {backtest['start']!r}): settings chosen on test data "
            "would be scored on it"
        )
    return start, end


def parse_space(space: Any) -> dict[str, tuple[str, Any]]:
    """Check ``[tune.space]``: ``{param: (kind, arguments)}`` with kind in :data:`KINDS`."""
    if not isinstance(space, dict) or not space:
        raise ValueError("[tune.space] is missing or empty: give at least one parameter")
    out = {}
    for name, entry in space.items():
        where = f"[tune.space] {name}"
        if not isinstance(entry, dict) or len(entry) != 1 or next(iter(entry)) not in KINDS:
            raise ValueError(
                f"{where} must be one of {{choice = [...]}}, {{uniform = [lo, hi]}}, "
                f"{{loguniform = [lo, hi]}}, {{randint = [lo, hi]}}; got {entry!r}"
            )
        kind, args = next(iter(entry.items()))
        out[name] = (kind, _check_args(where, kind, args))
    return out


def _check_args(where: str, kind: str, args: Any) -> Any:
    if not isinstance(args, list) or not args:
        raise ValueError(f"{where}: {kind} takes a non-empty list, got {args!r}")
    if kind == "choice":
        return list(args)
    if len(args) != 2:
        raise ValueError(f"{where}: {kind} takes [lo, hi], got {args!r}")
    lo, hi = args
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in args)
    if kind == "randint" and not all(isinstance(v, int) and not isinstance(v, bool) for v in args):
        raise ValueError(f"{where}: randint takes two ints [lo, hi), got {args!r}")
    if not numbers or not all(math.isfinite(v) for v in args):
        raise ValueError(f"{where}: {kind} takes two finite numbers [lo, hi], got {args!r}")
    if not lo < hi:
        raise ValueError(f"{where}: {kind} needs lo < hi, got [{lo}, {hi}]")
    if kind == "loguniform" and lo <= 0:
        raise ValueError(f"{where}: loguniform needs 0 < lo, got [{lo}, {hi}]")
    return [lo, hi]


def to_ray(space: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    """Return the Ray Tune search space of a checked ``[tune.space]``."""
    from ray import tune  # optional: the extra forecast-toolkit[ray]

    make = {
        "choice": lambda a: tune.choice(a),
        "uniform": lambda a: tune.uniform(*a),
        "loguniform": lambda a: tune.loguniform(*a),
        "randint": lambda a: tune.randint(*a),
    }
    return {name: make[kind](args) for name, (kind, args) in space.items()}
