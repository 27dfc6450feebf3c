"""Choose blend weights: the convex combination of members' forecasts with the least MAPE.

:func:`blend_weights` takes validation forecasts (one column per member) and the truth and
returns the non-negative weights summing to 1 that minimise the MAPE of the weighted mean,
once, per hour of day of the target time or per step ahead of the origin; the result is the
``weights`` of a :class:`forecast.EnsembleForecaster` (with ``weights_by="hour"`` or
``"step"`` for the rows).

MAPE is a weighted sum of absolute errors, so the minimum is a linear programme: variables
``[w (k), e (n)]`` with ``e_i >= |1 - f_i @ w / y_i|``, ``w >= 0``, ``sum(w) = 1``; minimise
``mean(e)``. It is solved with scipy's HiGHS.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import linprog

from forecast.combine.weights import HOURS, target_steps
from forecast.frames import validation as V


def blend_weights(
    forecasts: pd.DataFrame,
    truth: pd.Series,
    *,
    by: str | None = None,
    timezone: str | None = None,
) -> list[float] | list[list[float]]:
    """Non-negative weights summing to 1 that minimise the MAPE of the blended forecast.

    Parameters
    ----------
    forecasts : DataFrame
        One column per member (its forecasts, e.g. on a validation year), one row per
        forecast value. With ``by="hour"`` the target times are the index (a
        ``DatetimeIndex``) or its level ``"time"`` (as in ``backtest(...).forecasts``
        indexed by ``["origin", "time"]``). With ``by="step"`` the index has the levels
        ``"origin"`` and ``"time"`` (and any others, such as a series id): a row's step is
        the rank of its time among the rows of its origin.
    truth : Series
        The actual values, with the index of ``forecasts``. Must be finite and non-zero.
    by : {None, "hour", "step"}, default=None
        None: one weight per member. ``"hour"``: one set of weights per clock hour (0-23)
        of the target time, each chosen on the rows of that hour. ``"step"``: one set per
        step ahead of the origin (1, 2, ... the longest horizon), each chosen on the rows of
        that step.
    timezone : str, optional
        Time zone the hours are read in (aware times are converted to it). None: the
        clock of the times as given.

    Returns
    -------
    list of float, or list of lists of float
        The weights in the order of the columns of ``forecasts``: one list, or with
        ``by="hour"`` one per hour 0-23, with ``by="step"`` one per step, ready for
        ``EnsembleForecaster(weights=..., weights_by=by)``.

    Raises
    ------
    ValueError
        If ``truth`` is zero or not finite, a forecast is not finite (the message names
        the first such row), the indexes differ, ``by`` is unknown, or an hour has no
        rows.
    TypeError
        If ``forecasts`` is not a DataFrame, ``truth`` not a Series, or the target times
        cannot be found.

    Examples
    --------
    >>> import pandas as pd
    >>> from forecast import blend_weights
    >>> truth = pd.Series([100.0, 200.0])
    >>> forecasts = pd.DataFrame({"low": [90.0, 180.0], "high": [110.0, 220.0]})
    >>> [round(w, 3) for w in blend_weights(forecasts, truth)]
    [0.5, 0.5]
    """
    if by is not None and not (isinstance(by, str) and by in ("hour", "step")):
        raise ValueError(
            "by must be None (one weight per member), 'hour' (weights per hour) or 'step' "
            f"(weights per step ahead), got {by!r}"
        )
    f, y = _checked(forecasts, truth)
    if by is None:
        return [float(w) for w in _mape_weights(f, y)]
    if by == "step":
        steps = _steps(forecasts.index)
        return [
            [float(w) for w in _mape_weights(f[steps == k], y[steps == k])]
            for k in range(1, int(steps.max()) + 1)
        ]
    hours = _hours(forecasts.index, timezone)
    out = []
    for hour in range(HOURS):
        rows = hours == hour
        if not rows.any():
            raise ValueError(
                f"no forecast has a target time at hour {hour}: cannot choose weights for it "
                "(by='hour' needs rows for each hour 0-23)"
            )
        out.append([float(w) for w in _mape_weights(f[rows], y[rows])])
    return out


def _mape_weights(forecasts: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Weights ``w >= 0``, ``sum(w) = 1`` minimising ``mean(|truth - forecasts @ w| / |truth|)``.

    Parameters
    ----------
    forecasts : ndarray of shape (n, k)
        One column per member.
    truth : ndarray of shape (n,)
        Finite, non-zero actual values.

    Returns
    -------
    ndarray of shape (k,)
    """
    n, k = forecasts.shape
    scaled = forecasts / truth[:, None]
    ones = np.ones(n)
    eye = -sparse.identity(n, format="csr")
    part = sparse.csr_matrix(scaled)
    upper = sparse.bmat([[-part, eye], [part, eye]], format="csr")  # +-(1 - f w / y) <= e
    bound = np.concatenate([-ones, ones])
    cost = np.concatenate([np.zeros(k), ones / n])
    equal = np.concatenate([np.ones(k), np.zeros(n)])[None, :]
    solution = linprog(cost, A_ub=upper, b_ub=bound, A_eq=equal, b_eq=[1.0], method="highs")
    if not solution.success:
        raise RuntimeError(f"blend weights: the linear programme failed: {solution.message}")
    weights = np.clip(solution.x[:k], 0.0, None)  # HiGHS may return -1e-12
    return weights / weights.sum()


def _checked(forecasts: object, truth: object) -> tuple[np.ndarray, np.ndarray]:
    """Forecasts ``(n, k)`` and truth ``(n,)`` as floats, every value checked."""
    if not isinstance(forecasts, pd.DataFrame):
        raise TypeError(
            f"forecasts must be a DataFrame with one column per member, got {type(forecasts)}"
        )
    if not isinstance(truth, pd.Series):
        raise TypeError(f"truth must be a pandas Series, got {type(truth).__name__}")
    if forecasts.shape[1] == 0 or len(forecasts) == 0:
        raise ValueError(
            f"forecasts is empty ({len(forecasts)} rows, {forecasts.shape[1]} columns): give "
            "one column per member and at least one row"
        )
    if not truth.index.equals(forecasts.index):
        raise ValueError(
            f"truth and forecasts must have the same index ({len(truth)} vs {len(forecasts)} "
            "rows): select truth with truth.loc[forecasts.index]"
        )
    for column in forecasts.columns:
        if not pd.api.types.is_numeric_dtype(forecasts[column].dtype):
            raise TypeError(
                f"forecasts column {column!r} has dtype {forecasts[column].dtype}, not numbers"
            )
    if not pd.api.types.is_numeric_dtype(truth.dtype):
        raise TypeError(f"truth has dtype {truth.dtype}, not numbers")
    f = forecasts.to_numpy(dtype=float)
    y = truth.to_numpy(dtype=float)
    bad = ~np.isfinite(y) | (y == 0)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"truth is {y[row]} at {forecasts.index[row]} ({int(bad.sum())} row(s) with zero, "
            "NaN or infinite truth): MAPE needs finite, non-zero actuals; drop those rows"
        )
    finite = np.isfinite(f)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise ValueError(
            f"forecasts column {forecasts.columns[col]!r} is {f[row, col]} at "
            f"{forecasts.index[row]}: every forecast must be finite"
        )
    return f, y


def _hours(index: pd.Index, timezone: str | None) -> np.ndarray:
    """Clock hour of each row's target time, in ``timezone`` if given."""
    if isinstance(index, pd.MultiIndex) and V.TIME_COLUMN in index.names:
        times = index.get_level_values(V.TIME_COLUMN)
    else:
        times = index
    if not isinstance(times, pd.DatetimeIndex):
        raise TypeError(
            "by='hour' needs the target times: a DatetimeIndex, or an index level named "
            f"{V.TIME_COLUMN!r}; found a {type(index).__name__} with levels {list(index.names)}"
        )
    if timezone is not None:
        if times.tz is None:
            raise ValueError(
                f"timezone={timezone!r} but the target times are naive: localize them "
                f"(tz_localize) or pass timezone=None to use their clock as given"
            )
        times = times.tz_convert(timezone)
    return np.asarray(times.hour, dtype=int)


def _steps(index: pd.Index) -> np.ndarray:
    """Step ahead of its origin (1, 2, ...) of each row, as the ensemble counts it."""
    names = list(index.names)
    if not (isinstance(index, pd.MultiIndex) and {"origin", V.TIME_COLUMN} <= set(names)):
        raise TypeError(
            "by='step' needs each row's origin and target time: index levels 'origin' and "
            f"{V.TIME_COLUMN!r} (backtest(...).forecasts.set_index(['origin', 'time'])); found "
            f"a {type(index).__name__} with levels {names}"
        )
    levels = index.to_frame(index=False, allow_duplicates=True)
    return target_steps(levels, True, list(levels.columns))
