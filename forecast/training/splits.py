"""How a neural forecaster splits its training series for early stopping, and what it needs.

Two ways to hold data out for validation:

* **a tail per series** (``validation_fraction`` or ``validation_size``): the last steps of
  every series hold no training target, so each series needs one training window plus the
  tail;
* **whole series** (``validation_series``): some series are only validated on, the others
  only trained on, so each series needs just one window (many short sequences, such as
  motion-capture takes, cannot spare a tail each).

Without ``validation_series`` the tail is the default; when several series are given and some
are too short for a tail, :func:`default_split` trains those whole (no tail) and validates on
the tails of the others, or holds out whole series when none has room for a tail.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

KINDS = "validation_series must be an int, a float or a list of series keys"


def held_out(spec: object, keys: Sequence[object]) -> list[int]:
    """Positions (in ``keys``) of the series held out for validation.

    Parameters
    ----------
    spec : int, float or list of keys
        An int ``k``: the last ``k`` series in the order given. A float in (0, 1): that
        fraction of the series, rounded, at least one (again the last ones). A list: the
        series with these keys.
    keys : sequence
        Keys of the training series, in order.

    Returns
    -------
    list of int
        Sorted positions; at least one series is held out and at least one is left to train.
    """
    n = len(keys)
    if n < 2:
        raise ValueError(
            f"validation_series={spec!r} needs several series (a dict of frames or a long frame "
            f"with an id column) to hold whole ones out; got {n} series"
        )
    if isinstance(spec, bool):
        raise TypeError(f"{KINDS}, got {spec!r}")
    if isinstance(spec, numbers.Integral):
        if not 1 <= int(spec) < n:
            raise ValueError(
                f"validation_series={spec} must hold out between 1 and {n - 1} of the {n} series"
            )
        return list(range(n - int(spec), n))
    if isinstance(spec, numbers.Real):
        if not 0 < float(spec) < 1:
            raise ValueError(f"validation_series={spec!r} as a fraction must be in (0, 1)")
        k = max(1, int(round(n * float(spec))))
        if k >= n:
            raise ValueError(
                f"validation_series={spec!r} of {n} series holds out {k}, leaving none to train on"
            )
        return list(range(n - k, n))
    if isinstance(spec, str) or not isinstance(spec, Sequence):
        raise TypeError(f"{KINDS}, got {spec!r}")
    position = {key: i for i, key in enumerate(keys)}
    unknown = [key for key in spec if key not in position]
    if unknown:
        raise ValueError(
            f"validation_series names series {unknown} that are not in the training data "
            f"(series: {list(keys)[:10]}{' ...' if n > 10 else ''})"
        )
    chosen = sorted({position[key] for key in spec})
    if not chosen or len(chosen) == n:
        raise ValueError(
            f"validation_series={list(spec)!r} must hold out at least one and at most {n - 1} of "
            f"the {n} series"
        )
    return chosen


def default_split(
    lengths: Sequence[int], need: int, fraction: float
) -> tuple[list[int] | None, list[int]]:
    """Split several series, some of them short, for the default validation.

    Parameters
    ----------
    lengths : sequence of int
        Rows of each training series, in the order given.
    need : int
        Rows a series needs to keep a validation tail (:func:`min_length` with the tail).
    fraction : float
        ``validation_fraction``: the tail of each series, or the fraction of series held out.

    Returns
    -------
    held : list of int or None
        Positions of the series held out whole, only when no series has ``need`` rows:
        ``k = max(1, round(n * fraction))`` of them (at most ``n - 1``), spread evenly over
        the order given and ending with the last, ``ceil((j + 1) n / k) - 1`` for
        ``j = 0 .. k - 1`` (``n = 10, k = 3``: 3, 6, 9).
    untailed : list of int
        Positions of the series shorter than ``need`` that are trained on whole, without a
        tail, while the others keep theirs (empty when ``held`` is given).

    Every series keeps its tail (``None, []``) when all have ``need`` rows, when there is one
    series only (its too-short error says what to change) or when ``fraction`` is 0.
    """
    n = len(lengths)
    short = [i for i, rows in enumerate(lengths) if rows < need]
    if n < 2 or fraction <= 0 or not short:
        return None, []
    if len(short) < n:
        return None, short
    k = min(n - 1, max(1, int(round(n * fraction))))
    return [-(-(j + 1) * n // k) - 1 for j in range(k)], []


def min_length(context: int, horizon: int, fraction: float, tail: int | None, whole: bool) -> int:
    """Rows each training series needs.

    One window of ``context + horizon`` steps, plus (validating on a tail per series) a tail
    of ``tail`` steps, else of ``max(horizon, round(rows * fraction))`` steps.
    """
    need = context + horizon
    if whole:
        return need
    if tail is not None:
        return need + max(horizon, tail)
    if fraction <= 0:
        return need
    n = need + horizon
    while n - max(horizon, int(round(n * fraction))) < need:
        n += 1
    return n


def length_reason(
    context: int,
    horizon: int,
    recursive: bool,
    fraction: float,
    tail: int | None,
    whole: bool,
    auto: int | None = None,
    held: bool = False,
) -> str:
    """Say how :func:`min_length` is made up, for the too-short message.

    ``auto`` (the rows a tail would need) says that :func:`default_split` applies: whole
    series held out (``held``), else short series trained without a tail.
    """
    target = f"horizon={horizon}" if not recursive else "1 (strategy='recursive')"
    window = f"one training window of context_length={context} + {target} = {context + horizon}"
    if auto is not None and held:
        return (
            f"{window} steps; no series has the {auto} rows a validation tail of "
            f"validation_fraction={fraction} needs, so whole series are held out for "
            "validation instead"
        )
    if auto is not None:
        return (
            f"{window} steps; series shorter than the {auto} rows a validation tail of "
            f"validation_fraction={fraction} needs are trained on whole, without a tail"
        )
    if whole:
        return f"{window} steps; validation_series holds whole series out, so no validation tail"
    if tail is not None:
        return (
            f"{window} steps, then a validation tail of max(horizon={horizon}, "
            f"validation_size={tail}) = {max(horizon, tail)} steps"
        )
    if fraction <= 0:
        return f"{window} steps"
    n = min_length(context, horizon, fraction, None, False)
    return (
        f"{window} steps, then a validation tail of max(horizon={horizon}, "
        f"round(validation_fraction={fraction} x rows)) steps, {max(horizon, round(n * fraction))} "
        f"at {n} rows; lower validation_fraction, or hold out whole series (validation_series)"
    )
