"""Values a series cannot plausibly hold: far outside its own range, or of subnormal size.

Both are checked on the targets of every frame a forecaster reads (``fit``, ``update``,
``predict``'s history), after the NaN policy, by :func:`forecast.frames.cleaning.apply_nan_policy`.

Far outside the series' own range
    A value more than ``IMPLAUSIBLE_SCALES`` (10,000) robust scales from the column's median
    (the scale is 1.4826 times the median absolute deviation, the standard deviation of a
    normal sample; the mean absolute deviation where more than half the values are equal)
    is almost surely a unit or entry error: a ``1e9`` in a load series of about 50 MW. The
    forecasts follow such a value, so it raises an :class:`ImplausibleValueWarning` naming the
    column, the timestamp and the value. The warning is the default because a real series
    may have such a jump; to refuse the data instead, make the warning an error::

        import warnings
        from forecast.frames.plausibility import ImplausibleValueWarning
        warnings.simplefilter("error", ImplausibleValueWarning)

    (on the command line: ``python -W error::forecast.frames.plausibility.ImplausibleValueWarning
    -m forecast ...``, or the same in ``PYTHONWARNINGS``). The error is a ``ValueError``.

Subnormal magnitudes
    A non-zero value below ``float64``'s smallest normal number (about ``2.2e-308``), or a
    column whose largest magnitude is below ``MIN_MAGNITUDE`` (``1e-150``: its square, and
    so its variance, underflows), cannot be scaled: the forecasts would be far off. Refused
    with a ``ValueError`` naming the column (rescale it first).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from forecast.frames.timeindex import _where

__all__ = [
    "IMPLAUSIBLE_SCALES",
    "MIN_MAGNITUDE",
    "ImplausibleValueWarning",
    "check_plausible",
    "check_small",
]

IMPLAUSIBLE_SCALES = 10_000.0
"""Robust scales from the median beyond which a value is implausible (a warning)."""

MIN_MAGNITUDE = 1e-150
"""Largest magnitude below which a non-zero column cannot be scaled (an error)."""

_MIN_ROWS = 8  # fewer values give no robust scale worth the name
_TINY = float(np.finfo(np.float64).tiny)


class ImplausibleValueWarning(UserWarning, ValueError):
    """A value far outside its series' own range (a unit or entry error?).

    A ``ValueError`` too, so that ``warnings.simplefilter("error", ImplausibleValueWarning)``
    makes it the error every other bad input raises.
    """


def _scale(deviations: np.ndarray) -> float:
    """Robust scale of absolute deviations from the median (0: no spread at all)."""
    mad = 1.4826 * float(np.median(deviations))
    return mad if mad > 0 else float(np.mean(deviations))


def _suspects(values: np.ndarray) -> list[int]:
    """Columns that may hold an implausible value: all of them unless every value is finite.

    Finite data (the usual case: many short windows at prediction) is screened for all
    columns at once with the rule of :func:`check_plausible`; only the columns it flags go
    through the per-column check, which words the warning.
    """
    n_rows, n_columns = values.shape
    if n_rows < _MIN_ROWS or not np.isfinite(values).all():
        return list(range(n_columns))
    deviations = np.abs(values - np.median(values, axis=0))  # (T, C)
    mad = 1.4826 * np.median(deviations, axis=0)
    scale = np.where(mad > 0, mad, deviations.mean(axis=0))
    far = (deviations > IMPLAUSIBLE_SCALES * scale) & (scale > 0)
    return [int(j) for j in np.flatnonzero(far.any(axis=0))]


def check_plausible(
    frame: pd.DataFrame, columns: list[str], series_id: object = None, role: str = "target"
) -> None:
    """Warn (:class:`ImplausibleValueWarning`) about a value far outside its column's range.

    Parameters
    ----------
    frame : DataFrame
        Indexed by time; the ``columns`` are float.
    columns : list of str
        The columns checked (targets).
    series_id : object
        The series named in the message (None for a single frame).
    role : str
        How the message names the columns.
    """
    values = frame[columns].to_numpy(dtype=float)
    for j in _suspects(values):
        column = columns[j]
        x = values[:, j]
        finite = np.isfinite(x)
        if int(finite.sum()) < _MIN_ROWS:
            continue
        median = float(np.median(x[finite]))
        deviations = np.abs(x - median)
        scale = _scale(deviations[finite])
        if not scale > 0:
            continue
        far = finite & (deviations > IMPLAUSIBLE_SCALES * scale)
        if not far.any():
            continue
        row = int(np.argmax(np.where(far, deviations, -np.inf)))
        warnings.warn(
            f"{_where(series_id)}{role} column {column!r} has the value {x[row]:.6g} at "
            f"{frame.index[row]}, {deviations[row] / scale:.3g} robust scales from its median "
            f"{median:.6g} ({int(far.sum())} such value(s)): a unit or entry error? The "
            "forecasts follow it; to refuse such data, make ImplausibleValueWarning an error "
            "(see forecast.frames.plausibility)",
            ImplausibleValueWarning,
            stacklevel=2,
        )


def check_small(
    frame: pd.DataFrame, columns: list[str], series_id: object = None, role: str = "target"
) -> None:
    """Raise a ValueError naming a column of subnormal values or of too small a magnitude."""
    values = np.abs(frame[columns].to_numpy(dtype=float))
    for j, column in enumerate(columns):
        x = values[:, j]
        x = x[np.isfinite(x) & (x > 0)]
        if not len(x):
            continue
        smallest, largest = float(x.min()), float(x.max())
        if smallest >= _TINY and largest >= MIN_MAGNITUDE:
            continue
        what = (
            f"a subnormal value ({smallest:.3g}, below {_TINY:.3g})"
            if smallest < _TINY
            else f"no value above {MIN_MAGNITUDE:.0e} (largest {largest:.3g})"
        )
        raise ValueError(
            f"{_where(series_id)}{role} column {column!r} has {what}: float64 arithmetic "
            "loses such magnitudes (their squares underflow to zero) and the forecasts would "
            "be far off; rescale the column (e.g. multiply it by 1e150)"
        )
