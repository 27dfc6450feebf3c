"""Direct linear forecasts on the wall-clock grid: one ridge per (time of day, lead).

Pure numpy functions behind :class:`~forecast.models.baselines.LinearLagForecaster`. A
forecast is issued at an *origin* ``o`` (the last observed grid position) for the positions
``o + j``, ``j = 1 .. J``. The regressors of ``(o, j)`` use only data at or before ``o``:

- ``lags``: the values at ``o - l + 1`` (``l = 1`` is the origin itself), e.g. the last day;
- ``seasonal``: for each period ``s``, the value at the same phase most recently observed,
  ``o + j - m s`` with the smallest ``m >= 1`` that is at or before ``o``;
- covariates known in advance at ``o + j`` (user columns, then day features of the target's
  local date), and the day features of each seasonal source's date (the same weekday of
  last week may have been a holiday).

The coefficients of lead ``j`` for origins at time-of-day slot ``q`` are a ridge fit on the
rows with that ``(q, j)``, shrunk towards the fit of lead ``j`` pooled over all slots (with
no row of its own, a slot uses the pooled fit).
"""

from __future__ import annotations

import numpy as np

from forecast.frames.calendar import christmas_period, holiday_shares
from forecast.frames.decomposition import CALENDAR, FUTURE, LAG
from forecast.models.baselines._wallclock import DAY_NS

_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: Names of the columns of :func:`day_table`: without a country, then the holiday columns.
DAY_COLUMNS = (*(f"weekday_{d}" for d in _WEEKDAYS), "doy_sin", "doy_cos")
HOLIDAY_DAY_COLUMNS = ("holiday_workday", "holiday_saturday", "bridge_day", "christmas")


def day_table(days: np.ndarray, country: str | None) -> np.ndarray:
    """Day-level regressors for local dates ``days`` (days since 1970), shape (D, 9 or 12).

    Columns: weekday one-hot (Monday first, 7), day-of-year sine and cosine, then with a
    ``country``: population share on a public holiday, share on a bridge day, and the
    Christmas period flag (see :mod:`forecast.frames.calendar`).
    """
    days = np.asarray(days, dtype=np.int64)
    weekday = np.eye(7)[(days + 3) % 7]  # 1970-01-01 was a Thursday
    dates = days.astype("datetime64[D]")
    year_start = dates.astype("datetime64[Y]").astype("datetime64[D]")
    doy = (dates - year_start).astype(float)
    length = ((year_start.astype("datetime64[Y]") + 1).astype("datetime64[D]") - year_start).astype(
        float
    )
    angle = 2 * np.pi * doy / length
    blocks = [weekday, np.sin(angle)[:, None], np.cos(angle)[:, None]]
    if country:
        holiday, bridge = holiday_shares(days, country)
        workday = weekday[:, :5].sum(axis=1)
        blocks += [
            (holiday * workday)[:, None],  # a holiday on a Sunday changes little
            (holiday * weekday[:, 5])[:, None],
            bridge[:, None],
            christmas_period(days)[:, None],
        ]
    return np.concatenate(blocks, axis=1)


def n_holiday_columns(country: str | None) -> int:
    """Trailing columns of :func:`day_table` that describe holidays (0 without a country)."""
    return 4 if country else 0


def position_days(times: np.ndarray) -> np.ndarray:
    """Local date (days since 1970) of local wall-clock times in nanoseconds."""
    return np.asarray(times, dtype=np.int64) // DAY_NS


def regressors(
    values: np.ndarray,
    o: np.ndarray,
    j: np.ndarray,
    lags: np.ndarray,
    seasonal: np.ndarray,
    known: np.ndarray | None,
    source_days: np.ndarray | None,
) -> np.ndarray:
    """Regression rows for origins ``o`` and leads ``j`` of one channel.

    Parameters
    ----------
    values : ndarray of shape (G,)
        One channel on the grid; every position used must exist.
    o, j : ndarray of int, shape (n,)
        Origins (grid positions) and leads (``>= 1``).
    lags, seasonal : ndarray of int
        Lags behind the origin (``1`` = the origin) and seasonal periods, in grid steps.
    known : ndarray of shape (G', K) or None
        Regressors known in advance at each grid position (the target's row is used).
    source_days : ndarray of shape (G', H) or None
        Day features used at each seasonal source position.

    Returns
    -------
    ndarray of shape (n, L + S + K + S * H)
    """
    target = o + j  # (n,)
    parts = [values[o[:, None] - lags[None, :] + 1]]  # (n, L)
    m = -(-j[:, None] // seasonal[None, :])  # (n, S) ceil(j / s): periods back
    sources = target[:, None] - m * seasonal[None, :]  # (n, S), all <= o
    parts.append(values[sources])
    if known is not None:
        parts.append(known[target])  # (n, K)
    if source_days is not None and source_days.shape[1]:
        parts.append(source_days[sources].reshape(len(o), -1))  # (n, S * H)
        # the dates of the newest and oldest lag: was the last observed day a holiday?
        parts.append(source_days[o])
        parts.append(source_days[o - lags.max() + 1])
    return np.concatenate(parts, axis=1)


def regressor_layout(
    o: int,
    j: int,
    lags: np.ndarray,
    seasonal: np.ndarray,
    covariates: list[str],
    calendar: bool,
    country: str | None,
) -> list[tuple[str, str | None, int]]:
    """Say what each column of :func:`regressors` reads for origin ``o`` and lead ``j >= 1``.

    Returns ``(kind, name, grid position)`` per column, in order: kind ``"lag"`` (name None:
    the channel itself), ``"future covariate"`` or ``"calendar"`` (a column of
    :func:`day_table`); ``covariates`` are the user's known columns, ``calendar`` and
    ``country`` say whether the day table and its holiday columns are regressors.
    """
    target = o + j
    sources = [target - -(-j // s) * s for s in seasonal]
    out: list[tuple[str, str | None, int]] = [(LAG, None, o - lag + 1) for lag in lags]
    out += [(LAG, None, p) for p in sources]
    out += [(FUTURE, name, target) for name in covariates]
    if calendar:
        holidays = HOLIDAY_DAY_COLUMNS if country else ()
        out += [(CALENDAR, name, target) for name in DAY_COLUMNS + holidays]
        for p in [*sources, o, o - int(lags.max()) + 1] if country else []:
            out += [(CALENDAR, name, p) for name in holidays]
    return out


def gram_by_phase(
    x: np.ndarray, y: np.ndarray, first_phase: int, n_phases: int
) -> tuple[np.ndarray, np.ndarray]:
    """Compute the normal equations per phase of rows from consecutive origins.

    Row ``i`` belongs to phase ``(first_phase + i) mod n_phases``. Returns ``(xtx, xty)`` of
    shapes ``(P, F+1, F+1)`` and ``(P, F+1)``; the last regressor is the intercept column.
    """
    n = len(x)
    size = x.shape[1] + 1
    n_days = -(-(first_phase + n) // n_phases)
    rows = np.zeros((n_days * n_phases, size + 1))  # zero rows add nothing
    rows[first_phase : first_phase + n, :-2] = x
    rows[first_phase : first_phase + n, -2] = 1.0  # intercept
    rows[first_phase : first_phase + n, -1] = y
    by_day = rows.reshape(n_days, n_phases, size + 1)  # (days, P, F + 2)
    full = np.einsum("dpf,dpg->pfg", by_day, by_day, optimize=True)  # (P, F + 2, F + 2)
    return full[:, :-1, :-1], full[:, :-1, -1]


def solve_pooled_then_phase(
    xtx: np.ndarray, xty: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Ridge per phase shrunk towards the pooled ridge fit.

    Parameters
    ----------
    xtx, xty : ndarray of shapes (P, F+1, F+1) and (P, F+1)
        Normal equations per phase, intercept last.
    alpha : float
        Ridge penalty: on the pooled coefficients (not the intercept), then on each phase's
        deviation from them (intercept included).

    Returns
    -------
    coef : ndarray of shape (P, F)
    intercept : ndarray of shape (P,)
    """
    size = xtx.shape[1]
    penalty = np.full(size, float(alpha))
    penalty[-1] = 1e-10  # the pooled intercept is (practically) unpenalised
    pooled = np.linalg.solve(xtx.sum(axis=0) + np.diag(penalty), xty.sum(axis=0))  # (F+1,)
    ridge = np.eye(size) * max(float(alpha), 1e-10)
    rhs = xty + ridge @ pooled  # (P, F+1)
    beta = np.linalg.solve(xtx + ridge, rhs[..., None])[..., 0]  # (P, F+1)
    return beta[:, :-1], beta[:, -1]
