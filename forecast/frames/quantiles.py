"""Quantile levels: validation, column names and central intervals.

A forecast with quantiles has, next to each point column ``<column>``, one column per level
named ``<column>_q<level>`` with the level written by :func:`level_name` (shortest decimal
form: ``load_q0.1``, ``load_q0.025``, ``load_q0.975``). A central interval of nominal
coverage ``c`` is the pair of levels ``(1 - c) / 2`` and ``(1 + c) / 2``.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

DIGITS = 10  # levels are rounded to this many decimals, so 1 - 0.975 names the same level


def level_name(level: float) -> str:
    """Return the suffix of a quantile column, e.g. ``"q0.1"`` for 0.1."""
    return f"q{round(float(level), DIGITS):.10g}"


def quantile_column(column: str, level: float) -> str:
    """Return the name of the column holding quantile ``level`` of ``column``."""
    return f"{column}_{level_name(level)}"


def check_levels(value: object, name: str = "quantiles") -> tuple[float, ...]:
    """Validate a sorted sequence of distinct levels in (0, 1); return it as a float tuple.

    Raises
    ------
    TypeError
        If ``value`` is not a sequence of real numbers.
    ValueError
        If it is empty, unsorted, has repeats or a level outside (0, 1).
    """
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError(
            f"{name} must be a sorted tuple of levels in (0, 1) such as (0.1, 0.5, 0.9), got "
            f"{value!r}"
        )
    if not value:
        raise ValueError(f"{name} must hold at least one level in (0, 1), got {value!r}")
    bad = [q for q in value if isinstance(q, bool) or not isinstance(q, numbers.Real)]
    if bad:
        raise TypeError(f"{name} must hold real numbers, got {bad[0]!r} in {value!r}")
    levels = tuple(round(float(q), DIGITS) for q in value)
    outside = [q for q in levels if not 0.0 < q < 1.0]
    if outside:
        raise ValueError(f"{name} levels must lie strictly between 0 and 1, got {outside[0]!r}")
    if any(b <= a for a, b in zip(levels, levels[1:], strict=False)):
        raise ValueError(f"{name} must be sorted and distinct, got {value!r}")
    return levels


def check_coverage(value: object, name: str = "coverage") -> tuple[float, ...]:
    """Validate one nominal coverage in (0, 1) or a sorted tuple of them."""
    values = (value,) if isinstance(value, numbers.Real) and not isinstance(value, bool) else value
    try:
        return check_levels(values, name)
    except TypeError as err:
        raise TypeError(
            f"{name} must be a level in (0, 1) such as 0.8, or a sorted tuple such as (0.8, 0.95); "
            f"got {value!r}"
        ) from err


def central_levels(coverages: Iterable[float]) -> tuple[float, ...]:
    """Sorted quantile levels of the central intervals of ``coverages``."""
    out = set()
    for c in coverages:
        out.add(round((1.0 - c) / 2.0, DIGITS))
        out.add(round((1.0 + c) / 2.0, DIGITS))
    return tuple(sorted(out))


def central_pairs(levels: Iterable[float]) -> list[tuple[float, float, float]]:
    """Pairs of levels ``(lower, upper)`` symmetric around 0.5, with their nominal coverage.

    Returns
    -------
    list of (coverage, lower, upper)
        Sorted by coverage; a level without its mirror image is left out.
    """
    levels = sorted({round(float(q), DIGITS) for q in levels})
    found = set(levels)
    pairs = []
    for q in levels:
        mirror = round(1.0 - q, DIGITS)
        if q < 0.5 and mirror in found:
            pairs.append((round(mirror - q, DIGITS), q, mirror))
    return sorted(pairs)


def point_level(levels: Sequence[float]) -> int:
    """Index of the level that serves as the point forecast: 0.5, else the closest to it."""
    return min(range(len(levels)), key=lambda i: (abs(levels[i] - 0.5), levels[i]))


def select_levels(requested: object, available: tuple[float, ...], who: str) -> tuple[float, ...]:
    """Resolve the ``quantiles`` argument of ``predict`` against the fitted levels.

    ``None`` or ``False``: none; ``True``: all of ``available``; a sequence: those levels,
    each of which must be available.
    """
    if requested is None or requested is False:
        return ()
    if not available:
        raise ValueError(
            f"{who} forecasts no quantiles: fit a neural estimator with quantiles=(...) or wrap "
            "the estimator in forecast.ConformalForecaster"
        )
    if requested is True:
        return available
    levels = check_levels(
        (requested,) if isinstance(requested, numbers.Real) else requested, "quantiles"
    )
    missing = [q for q in levels if q not in available]
    if missing:
        raise ValueError(
            f"{who} has no quantile level {missing[0]!r}; it was fitted for levels {available}"
        )
    return levels


def parse_levels(value: str | bool | Iterable[float] | None) -> bool | tuple[float, ...] | None:
    """Read a ``quantiles`` request given as text (CLI, MLflow params) or as levels.

    ``None``, ``""`` or ``"none"``: no quantiles; ``"all"`` or True: every fitted level;
    ``"0.1,0.5,0.9"`` or a sequence: those levels (sorted, in (0, 1)).
    """
    if value is None or value is False:
        return None
    if value is True:
        return True
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "none"):
            return None
        if text == "all":
            return True
        try:
            value = [float(part) for part in text.split(",")]
        except ValueError as err:
            raise ValueError(
                f"quantiles must be 'all' or comma-separated levels such as '0.1,0.5,0.9', got "
                f"{text!r}"
            ) from err
    return check_levels(value if isinstance(value, Sequence) else list(value), "quantiles")
