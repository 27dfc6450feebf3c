"""Rolling conformal calibration: each origin's residual quantiles from the forecasts before it.

With ``ConformalForecaster(window=...)`` the interval of a forecast issued at origin ``t`` is
calibrated on the residuals of the fitted point model's own forecasts from the origins
``t - k * stride`` (``k = 1, 2, ...``) inside ``window`` before ``t`` whose whole horizon is
observed by ``t``; a value after ``t`` never enters. The point model is not refitted: the
wrapper forecasts those past origins from the history it is given. When one stride spans
whole days and the data has a time zone, ``t - k * stride`` is taken on the local clock, so
a forecast issued at 11:00 is calibrated on the forecasts issued at 11:00 on earlier days
across daylight-saving switches (a local time that does not exist, or exists twice, on an
earlier day is skipped).

:func:`rolling_levels` is the calibration of a fitted
:class:`forecast.ConformalForecaster` (``model``) at a set of origins; the other
functions are pure (timestamps and arrays in, timestamps and score tables out).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.quantiles import check_coverage
from forecast.frames.timezones import from_local
from forecast.probabilistic.table import ScoreTable, aci_path, build_table, min_scores

DAY = pd.Timedelta("1D")


def parse_window(window: object) -> pd.Timedelta | None:
    """``None`` or a positive duration (``"56D"``, ``pd.Timedelta``) as a Timedelta.

    Raises
    ------
    ValueError
        If ``window`` is anything else.
    """
    if window is None:
        return None
    span = None
    if isinstance(window, str | pd.Timedelta):
        try:
            span = pd.Timedelta(window)
        except ValueError:
            span = None
    if span is None or pd.isna(span) or span <= pd.Timedelta(0):
        raise ValueError(
            f"window must be None (calibrate once on `calibration`) or a positive duration such "
            f"as '56D', got {window!r}"
        )
    return span


def window_strides(window: object, step: pd.Timedelta) -> int:
    """Strides of length ``step`` that fit in ``window`` (at least one, else ValueError)."""
    n = int(parse_window(window) // step)
    if n < 1:
        raise ValueError(
            f"window={window!r} is shorter than one stride between calibration origins ({step}); "
            "lengthen the window or shorten the stride"
        )
    return n


def shifted(
    origins: pd.DatetimeIndex, strides: np.ndarray, step: pd.Timedelta, clock: str | None
) -> pd.DatetimeIndex:
    """``origin - k * step`` for every origin and every ``k`` in ``strides``, origin-major.

    With ``clock`` (a time zone) and ``step`` a whole number of days the shift is taken on
    that zone's local clock; local times that do not exist or are ambiguous become NaT.
    Otherwise it is elapsed time.
    """
    strides = np.asarray(strides, dtype=np.int64)
    offsets = pd.TimedeltaIndex(np.tile(strides, len(origins)) * step.to_timedelta64())
    if clock is None or origins.tz is None or step % DAY != pd.Timedelta(0):
        return origins.repeat(len(strides)) - offsets
    local = origins.tz_convert(clock).tz_localize(None).repeat(len(strides)) - offsets
    out = from_local(local, clock)
    return out.tz_convert(origins.tz)


def calibration_origins(
    queries: pd.DatetimeIndex, step: pd.Timedelta, n: int, span: pd.Timedelta, clock: str | None
) -> pd.DatetimeIndex:
    """Return the calibration origins of every query: ``(Q * n)`` timestamps, query-major.

    Entry ``(q, k - 1)`` is the origin ``k`` strides before query ``q``; it is NaT unless its
    forecast of ``span`` (the calibrated horizon) is observed by ``q``.
    """
    cal = shifted(queries, np.arange(1, n + 1), step, clock)
    late = np.asarray(cal + span > queries.repeat(n))
    return cast(pd.DatetimeIndex, cal.where(~late))  # Index.where keeps the DatetimeIndex


def replay_origins(
    start: pd.Timestamp, last: pd.Timestamp, step: pd.Timedelta, clock: str | None
) -> pd.DatetimeIndex:
    """Return ``start + k * step`` for ``k >= 0`` up to ``last`` (clock as in :func:`shifted`)."""
    first = pd.DatetimeIndex([start])
    if last < first[0]:
        return first[:0]
    n = int((last - first[0]) // step) + 2  # one more: a local day may be 23 hours long
    out = shifted(first, -np.arange(n), step, clock)
    return out[out.notna() & (out <= last)]


def stack_tables(tables: list[ScoreTable]) -> ScoreTable:
    """One table holding several; ``group`` is the concatenation of theirs along axis 0."""
    width = max(t.table.shape[1] for t in tables)
    n_groups = [len(t.counts) for t in tables]
    offsets = np.concatenate([[0], np.cumsum(n_groups)[:-1]])
    table = np.full((sum(n_groups), width), np.nan)
    for t, off in zip(tables, offsets, strict=True):
        table[off : off + len(t.counts), : t.table.shape[1]] = t.table
    counts = np.concatenate([t.counts for t in tables])
    group = np.concatenate([t.group + off for t, off in zip(tables, offsets, strict=True)])
    return ScoreTable(table=table, counts=counts, group=group)


def rolling_table(
    resid: np.ndarray,
    hours: np.ndarray,
    members: list[np.ndarray],
    per_step: bool,
    n_hours: int,
    method: str,
    needed: int,
) -> ScoreTable:
    """Build a score table per query, stacked: ``group`` has shape ``(Q, C, S, D)``.

    Parameters
    ----------
    resid : ndarray of shape (P, S, C)
        Residuals ``y - y_hat`` of the forecasts from ``P`` calibration origins (NaN where
        the actual is missing).
    hours : ndarray of shape (P, S)
        Hour group of every forecast value (0 without hour groups).
    members : list of ndarray
        For each query, the rows of ``resid`` (forecasts) it is calibrated on.
    per_step : bool
        One group per step ahead (else one over all steps: ``S`` is 1 in ``group``).
    n_hours : int
        ``D``: 24 with hour groups, else 1.
    method, needed
        As for :func:`forecast.probabilistic.table.build_table`.
    """
    _, n_steps, n_c = resid.shape
    channel = np.broadcast_to(np.arange(n_c), resid.shape)
    step = np.broadcast_to(np.arange(n_steps)[:, None] * per_step, resid.shape)
    shape = (1, n_c, n_steps if per_step else 1, n_hours)
    tables = []
    for rows in members:
        r = resid[rows]  # (m, S, C)
        ok = np.isfinite(r)
        hour = np.broadcast_to(hours[rows][:, :, None], r.shape)
        tables.append(
            build_table(
                r[ok],
                np.zeros(int(ok.sum()), dtype=np.int64),
                channel[: len(rows)][ok],
                step[: len(rows)][ok],
                hour[ok],
                shape,
                method,
                needed,
            )
        )
    return stack_tables(tables)


def fit_end_tables(
    model: Any, frames: dict[Any, pd.DataFrame]
) -> tuple[ScoreTable, int, pd.Timestamp | None]:
    """Tabulate the window before the end of each series: ``(K, C, S, D)`` groups.

    Returns the stacked table, the residuals it holds and the first origin used.
    """
    tables: list[ScoreTable] = []
    n, first = 0, None
    for key, frame in frames.items():
        table, _, (used, count) = rolling_levels(model, frame, key, frame.index[-1:])
        tables.append(table)
        n += count
        first = used if first is None else min(first, used)
    return stack_tables(tables), n, first


def rolling_levels(
    model: Any, frame: pd.DataFrame, key: Any, queries: pd.Index
) -> tuple[ScoreTable, np.ndarray, tuple[pd.Timestamp, int]]:
    """Score tables and ACI levels of forecasts issued at ``queries`` from series ``key``.

    One batched forecast of the fitted estimator from every origin needed: those in the
    window before each query (and before each replayed ACI origin) and the replayed ones.

    Returns
    -------
    table : ScoreTable
        ``group`` of shape ``(Q, C, S, D)``: the groups of each query.
    alpha : ndarray of shape (Q, L)
        Miscoverage levels (nominal unless ``adaptive``).
    used : tuple
        First calibration origin and number of residuals over the queries.
    """
    freq = pd.Timedelta(model.freq_)
    step, span, clock = model.stride * freq, model.steps_ * freq, model._clock()
    index = cast(pd.DatetimeIndex, frame.index)  # a checked history frame
    frame = frame.set_axis(validation.align_tz(index, model.tz_, key, "history"))
    queries = pd.DatetimeIndex(queries)
    replay = queries[:0]
    if model.adaptive:
        replay = replay_origins(model.fit_end_, queries.max() - span, step, clock)
    every = queries.union(replay)
    n = window_strides(model.window, step)
    cal = calibration_origins(every, step, n, span, clock)
    _check_history(model, frame, key, every, cal, n)
    needed = cal.dropna().union(replay).unique().sort_values()
    data = frame.loc[: every.max()]
    pred = model.estimator_.predict_origins(data, needed, model.steps_, max_horizon=None)
    columns = list(model.columns_)
    times = pd.DatetimeIndex(pred[validation.TIME_COLUMN])
    shape = (len(needed), model.steps_, len(columns))  # (P, S, C)
    values = pred[columns].to_numpy(float).reshape(shape)
    truth = data[columns].reindex(times).to_numpy(float).reshape(shape)
    hours = model._hours(times).reshape(shape[:2])
    pos = needed.get_indexer(cal).reshape(len(every), n)
    members = [row[row >= 0] for row in pos]
    resid = truth - values
    _check_counts(model, frame, key, every, members, resid)
    table = rolling_table(
        resid, hours, members, model.per_step, 24 if model._hourly() else 1, model.method,
        min_scores(model._alphas(), model.method),
    )  # fmt: skip
    asked = every.get_indexer(queries)
    alpha = np.broadcast_to(model._alphas(), (len(queries), len(model._alphas()))).copy()
    if len(replay):  # ACI on top: each replayed forecast scored by its own window
        j = needed.get_indexer(replay)
        steps = np.arange(model.steps_) * model.per_step
        groups = table.group[every.get_indexer(replay)]  # (J, C, S', D)
        rows = np.arange(len(j))[None, :, None]
        g = groups[rows, np.arange(len(columns))[:, None, None], steps, hours[j][None]]
        flat = (len(columns), -1)  # (C, J * S), forecast by forecast
        y, f = truth[j].transpose(2, 0, 1).reshape(flat), values[j].transpose(2, 0, 1)
        path = aci_path(
            table, g.reshape(flat), y, f.reshape(flat), model.steps_, model._alphas(),
            model.gamma, model.method,
        )  # fmt: skip
        alpha = path[(replay + span).searchsorted(queries, side="right")]
    used = [members[i] for i in asked]
    first = min(needed[m].min() for m in used)
    count = int(sum(np.isfinite(resid[m]).sum() for m in used))
    return ScoreTable(table.table, table.counts, table.group[asked]), alpha, (first, count)


def _check_history(
    model: Any,
    frame: pd.DataFrame,
    key: Any,
    queries: pd.DatetimeIndex,
    cal: pd.DatetimeIndex,
    n: int,
) -> None:
    """Every calibration origin must lie in ``frame`` with the estimator's context."""
    context = model.estimator_._min_history()
    pos = frame.index.get_indexer(cal)
    bad = np.flatnonzero(cal.notna() & ((pos < 0) | (pos + 1 < context)))
    if len(bad) == 0:
        return
    i = bad[0] // n
    earliest = cal[i * n : (i + 1) * n].min()
    start = earliest - (context - 1) * model.freq_
    raise ValueError(
        f"{validation._where(key)}window={model.window!r} before origin {queries[i]} "
        "needs the forecast "
        f"issued at {earliest}, which needs history from {start} ({context} row(s) of "
        f"context); the history runs from {frame.index[0]} to {frame.index[-1]}: pass "
        "history from that time on or shorten the window"
    )


def _check_counts(
    model: Any,
    frame: pd.DataFrame,
    key: Any,
    queries: pd.DatetimeIndex,
    members: list[np.ndarray],
    resid: np.ndarray,
) -> None:
    """Each query's window must hold enough residuals for the smallest miscoverage."""
    needed = min_scores(model._alphas(), model.method)
    for i, rows in enumerate(members):
        have = int(np.isfinite(resid[rows]).sum(axis=(0, 1)).min()) if len(rows) else 0
        if have < needed:
            raise ValueError(
                f"{validation._where(key)}window={model.window!r} before origin {queries[i]} holds "
                f"{len(rows)} forecast(s) whose {model.steps_} steps are observed by then "
                f"({have} residual(s)); coverage {max(check_coverage(model.coverage))} needs "
                f"at least {needed}: lengthen the window (the history runs from "
                f"{frame.index[0]} to {frame.index[-1]})"
            )
