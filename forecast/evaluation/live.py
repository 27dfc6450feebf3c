"""Scores per forecast: the live record of stored forecasts, and of a backtest's origins.

One row per forecast (per origin, and per series for several), scored by the code that
scores a backtest (:func:`forecast.evaluation.scores.score_groups` over the tidy frame of
``forecast.BacktestResult.forecasts``), so the same forecasts get the same figures live
and in a backtest. Values without an actual yet are *pending*: they count in ``n_pending``,
never as zero error; a forecast with no actual yet has status ``pending`` and no metrics.

:func:`live_alert` is the documented rule of :doc:`/guide/daily-loop`: the mean error of
the last ``window`` scored forecasts is compared with the range of the same rolling mean
over the backtest's forecasts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.evaluation.scores import resolve_metrics, score_groups
from forecast.frames import validation
from forecast.frames.quantiles import quantile_column
from forecast.frames.special_days import special_mask
from forecast.frames.timezones import to_local

__all__ = ["LIVE_METRICS", "LiveAlert", "forecast_scores", "live_alert", "tidy_forecast"]

LIVE_METRICS = ("mape", "mae", "rmse", "bias")
STATUS = ("scored", "partial", "pending")


def tidy_forecast(
    forecast: pd.DataFrame,
    actuals: pd.DataFrame,
    targets: Sequence[str],
    origin: pd.Timestamp,
    levels: Sequence[float] = (),
) -> pd.DataFrame:
    """Return the tidy frame of one stored forecast joined with the actuals known so far.

    Parameters
    ----------
    forecast : DataFrame
        Indexed by the forecast timestamps; the ``targets`` columns and, per level, the
        ``<target>_q<level>`` columns.
    actuals : DataFrame
        Observed values indexed by timestamp (same zone), with the ``targets`` columns.
    targets : sequence of str
        Columns scored.
    origin : Timestamp
        Last observed timestamp the forecast was issued from.
    levels : sequence of float
        Quantile levels present.

    Returns
    -------
    DataFrame
        The columns of a backtest's forecasts (``origin``, ``time``, ``step``, ``target``,
        ``y_pred``, ``y_true``, ``y_pred_q<level>``); ``y_true`` is NaN where no actual is
        known yet.
    """
    parts = []
    for target in targets:
        truth = actuals[target].reindex(forecast.index) if target in actuals else np.nan
        part = pd.DataFrame(
            {
                "origin": origin,
                "time": forecast.index,
                "step": np.arange(1, len(forecast) + 1),
                "target": target,
                "y_pred": forecast[target].to_numpy(dtype=float),
                "y_true": np.asarray(truth, dtype=float),
            }
        )
        for q in levels:
            column = quantile_column("y_pred", q)
            part[column] = forecast[quantile_column(target, q)].to_numpy(dtype=float)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def forecast_scores(
    forecasts: pd.DataFrame,
    *,
    metrics: Sequence[str | Callable[..., Any]] = LIVE_METRICS,
    special_days: str | Sequence[Any] | None = None,
    timezone: str = "Europe/Berlin",
) -> pd.DataFrame:
    """Scores of each forecast of a tidy forecast frame (all targets of a forecast pooled).

    Parameters
    ----------
    forecasts : DataFrame
        A backtest's ``BacktestResult.forecasts``, or stored forecasts joined
        with actuals by :func:`tidy_forecast`; ``y_true`` NaN marks a pending value.
    metrics : sequence of str or callable
        Names of :mod:`forecast.evaluation.metrics` or callables, as for ``backtest``.
    special_days : str or list of date-like, optional
        ``"holidays-DE"`` or explicit dates (:func:`forecast.frames.special_days.special_mask`):
        adds ``special`` (a scored value falls on a special day) and ``special_dates``.
    timezone : str
        Zone whose calendar days count for special days.

    Returns
    -------
    DataFrame
        One row per forecast, sorted by ``origin`` (then ``id``): ``origin``, ``id`` (for
        several series), ``first``, ``last`` (forecast timestamps scored), ``status``
        (``scored``, ``partial`` or ``pending``), ``n`` (values scored), ``n_pending``, the
        metrics, and with quantile columns ``crps``, ``pinball``, ``coverage_<c>``,
        ``width_<c>``, ``winkler_<c>``; then ``special`` and ``special_dates``.
    """
    fns = resolve_metrics(metrics)
    keys = (
        ["origin", validation.ID_COLUMN]
        if validation.ID_COLUMN in forecasts.columns
        else ["origin"]
    )
    rows = []
    for key, part in forecasts.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        known = np.isfinite(part["y_true"].to_numpy(dtype=float))
        row: dict[str, Any] = dict(zip(keys, key, strict=True))
        row.update(first=part["time"].min(), last=part["time"].max())
        row["status"] = STATUS[0] if known.all() else STATUS[1] if known.any() else STATUS[2]
        if known.any():
            scored = score_groups(part.assign(all="all"), fns, by="all")
            row.update({str(k): v for k, v in scored.iloc[0].items()})
        row["n"] = int(known.sum())
        row["n_pending"] = int((~known).sum())
        if special_days is not None:
            times = part["time"][known]
            mask = special_mask(times, special_days, timezone)
            local = to_local(pd.DatetimeIndex(times[mask]), timezone)
            days = sorted({str(d.date()) for d in local})
            row.update(special=bool(mask.any()), special_dates=";".join(days))
        rows.append(row)
    table = pd.DataFrame(rows)
    front = [*keys, "first", "last", "status", "n", "n_pending"]
    return table[front + [c for c in table.columns if c not in front]]


@dataclass
class LiveAlert:
    """Outcome of :func:`live_alert`.

    Attributes
    ----------
    alert : bool
        Whether the live rolling error left the backtest's range.
    live : float
        Mean ``metric`` of the last ``window`` scored forecasts (NaN: fewer scored).
    low, high : float
        Range of the same rolling mean over the backtest's forecasts.
    window, scored : int
        Forecasts in the rolling mean; scored forecasts available.
    message : str
        One line saying what was compared.
    """

    alert: bool
    live: float
    low: float
    high: float
    window: int
    scored: int
    message: str


def live_alert(
    live: pd.DataFrame, backtest: pd.DataFrame, *, window: int = 7, metric: str = "mape"
) -> LiveAlert:
    """Compare the rolling live error with the backtest's range (the documented rule).

    The rule: take the mean ``metric`` of the last ``window`` forecasts whose status is
    ``scored``; over the backtest's forecasts (sorted by origin) take every rolling mean of
    ``window`` consecutive forecasts, whose minimum and maximum make the range. The live
    mean above the maximum raises the alert (below the minimum is better than every stretch
    of the backtest: no alert). With fewer than ``window`` scored forecasts nothing is
    compared.

    Parameters
    ----------
    live, backtest : DataFrame
        Tables of :func:`forecast_scores` (``status`` may be absent from the backtest's).
    window : int
        Forecasts per rolling mean.
    metric : str
        Column compared.

    Returns
    -------
    LiveAlert
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive int, got {window!r}")
    for name, table in (("live scores", live), ("backtest scores", backtest)):
        if metric not in table.columns:
            raise ValueError(f"{name} have no column {metric!r} (columns: {list(table.columns)})")
    ref = backtest.sort_values("origin")[metric].astype(float).dropna()
    if len(ref) < window:
        raise ValueError(
            f"backtest scores have {len(ref)} forecast(s) with {metric}; the rule needs at "
            f"least window={window}"
        )
    rolling = ref.rolling(window).mean().dropna()
    low, high = float(rolling.min()), float(rolling.max())
    done = live[live["status"] == STATUS[0]].sort_values("origin") if len(live) else live
    scored = len(done)
    if scored < window:
        message = f"{scored} scored forecast(s), fewer than window={window}: no comparison"
        return LiveAlert(False, float("nan"), low, high, window, scored, message)
    value = float(done[metric].astype(float).iloc[-window:].mean())
    alert = value > high
    where = "above" if alert else "within" if value >= low else "below"
    message = (
        f"rolling {metric} of the last {window} forecasts {value:.4g} is {where} the "
        f"backtest's range [{low:.4g}, {high:.4g}]"
    )
    return LiveAlert(alert, value, low, high, window, scored, message)
