"""The score tables of a backtest: metrics per target, per step ahead and per local hour.

Input is the tidy forecast frame of :func:`forecast.backtest` (one row per scored
value, with ``target``, ``step``, ``time``, ``y_true`` and ``y_pred``, and ``y_pred_q<level>``
columns for quantile forecasts, which add CRPS, pinball loss and interval scores). Every
metric pools all values of a group; values without an actual (NaN) are not scored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from forecast.evaluation import metrics as M
from forecast.evaluation.metrics import crps, interval_scores, mae, mape
from forecast.evaluation.schedule import fixed_step
from forecast.frames import validation
from forecast.frames.quantiles import quantile_column
from forecast.frames.special_days import special_mask
from forecast.frames.timezones import to_local


def resolve_metrics(metrics: Any) -> dict[str, Callable[..., Any]]:
    """Map the ``metrics`` argument (names, callables or a dict) to named callables."""
    if isinstance(metrics, Mapping):
        bad = [k for k, f in metrics.items() if not callable(f)]
        if bad:
            raise TypeError(f"metrics[{bad[0]!r}] is not callable")
        return {str(k): f for k, f in metrics.items()}
    out: dict[str, Callable[..., Any]] = {}
    for metric in metrics:
        if callable(metric):
            out[getattr(metric, "__name__", f"metric{len(out)}")] = metric
            continue
        fn = getattr(M, str(metric), None)
        if not callable(fn):
            raise ValueError(
                f"unknown metric {metric!r}: not a function of forecast.evaluation.metrics"
            )
        out[str(metric)] = fn
    return out


def score_tables(
    forecasts: pd.DataFrame,
    fns: dict[str, Callable[..., Any]],
    *,
    frames: dict[Any, pd.DataFrame],
    kind: str,
    targets: list[str],
    first_origin: pd.Timestamp,
    mase_season: int | str,
    index: pd.DatetimeIndex,
    timezone: str,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """Compute the ``metrics``, ``by_horizon`` and ``by_hour`` tables of a backtest result.

    ``by_hour`` is None unless the data are sub-daily. ``"mase"`` divides each series and
    target by its in-sample seasonal naive MAE on the data up to ``first_origin``.
    """
    if "mase" in fns:
        scales = _mase_scales(frames, targets, first_origin, mase_season, index)
        ids = forecasts[validation.ID_COLUMN] if kind != "frame" else [None] * len(forecasts)
        keys = zip(ids, forecasts["target"], strict=True)
        forecasts = forecasts.assign(scale=[scales[k] for k in keys])
    sub_daily = pd.Timedelta(index[1] - index[0]) < pd.Timedelta("1D")
    by_hour = None
    if sub_daily:
        hours = to_local(pd.DatetimeIndex(forecasts["time"]), timezone).hour.to_numpy()
        by_hour = _score(forecasts.assign(hour=hours), fns, "hour")
    return _score(forecasts, fns, by="target"), _score(forecasts, fns, by="step"), by_hour


def score_groups(
    forecasts: pd.DataFrame, fns: dict[str, Callable[..., Any]], by: str
) -> pd.DataFrame:
    """Return the metrics per value of column ``by`` of a tidy forecast frame.

    The scoring code of every table here, public for the scores per forecast
    (:mod:`forecast.evaluation.live`): live and backtest figures come from this one function.
    """
    return _score(forecasts, fns, by)


def _score(fc: pd.DataFrame, fns: dict[str, Callable[..., Any]], by: str) -> pd.DataFrame:
    """Metrics per value of column ``by`` (plus ``"overall"`` when ``by="target"``)."""
    fc = fc[np.isfinite(fc["y_true"].to_numpy())]
    groups = [(key, part) for key, part in fc.groupby(by, sort=True)]
    if by == "target":
        groups.append(("overall", fc))
    levels = quantile_levels(fc.columns)
    rows = {}
    for key, part in groups:
        y_true, y_pred = part["y_true"].to_numpy(), part["y_pred"].to_numpy()
        row = {}
        for name, fn in fns.items():
            if name == "mase":  # MAE of values scaled by each series' in-sample naive MAE
                scale = part["scale"].to_numpy()
                row[name] = float(mae(y_true / scale, y_pred / scale))
            else:
                row[name] = float(fn(y_true, y_pred))
        if levels:
            row.update(probabilistic_scores(part, levels))
        row["n"] = len(part)
        rows[key] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = by
    return table


def quantile_levels(columns: Iterable[Any]) -> tuple[float, ...]:
    """Sorted levels of the ``y_pred_q<level>`` columns of a tidy forecast frame."""
    prefix = "y_pred_q"
    return tuple(sorted(float(c[len(prefix) :]) for c in columns if str(c).startswith(prefix)))


def probabilistic_scores(part: pd.DataFrame, levels: tuple[float, ...]) -> dict[str, float]:
    """CRPS, pinball loss and, per central interval, coverage, width and Winkler score.

    Interval columns are named by nominal coverage in percent: ``coverage_80``,
    ``width_80``, ``winkler_80``.
    """
    y_true = part["y_true"].to_numpy(dtype=float)
    quant = part[[quantile_column("y_pred", q) for q in levels]].to_numpy(dtype=float)
    value = float(crps(y_true, quant, levels))
    row = {"crps": value, "pinball": value / 2.0}
    for nominal, scores in interval_scores(y_true, quant, levels).items():
        for name, score in scores.items():
            row[f"{name}_{nominal * 100:g}"] = score
    return row


def _mase_scales(
    frames: dict[Any, pd.DataFrame],
    targets: list[str],
    first_origin: pd.Timestamp,
    season: int | str,
    index: pd.DatetimeIndex,
) -> dict[tuple[Any, str], float]:
    """In-sample seasonal naive MAE per (series, target) on the data up to the first origin."""
    if isinstance(season, int | np.integer) and not isinstance(season, bool):
        m = int(season)
    else:
        m = int(round(pd.Timedelta(season) / fixed_step(validation.infer_freq(index))))
    if m < 1:
        raise ValueError(f"mase_season must be at least one step, got {season!r}")
    scales: dict[tuple[Any, str], float] = {}
    for key, frame in frames.items():
        for column in targets:
            y = frame.loc[:first_origin, column].to_numpy(dtype=float)
            scale = float(mae(y[m:], y[:-m])) if len(y) > m else np.nan  # axis=None: a float
            if not scale > 0:
                raise ValueError(
                    f"{validation._where(key)}MASE is undefined for {column!r}: "
                    "the in-sample naive error "
                    f"at lag {m} before {first_origin} is {scale}"
                )
            scales[(key, column)] = scale
    return scales


def special_day_scores(
    forecasts: pd.DataFrame, special_days: Any, timezone: str
) -> dict[str, float]:
    """MAPE on the scored values that fall on special days, all targets pooled.

    Parameters
    ----------
    forecasts : DataFrame
        Tidy forecasts of a backtest (``time``, ``y_true``, ``y_pred``).
    special_days : str or list of date-like
        ``"holidays-DE"`` (:func:`forecast.frames.special_days.special_days` of the country,
        a holiday or bridge day in any state) or explicit dates.
    timezone : str
        Time zone whose calendar days count.

    Returns
    -------
    dict
        ``mape_special`` (NaN when no scored value falls on a special day) and
        ``n_special`` (values scored on special days).
    """
    y_true = forecasts["y_true"].to_numpy(dtype=float)
    mask = special_mask(forecasts["time"], special_days, timezone) & np.isfinite(y_true)
    n = int(mask.sum())
    value = (
        float(mape(y_true[mask], forecasts["y_pred"].to_numpy(dtype=float)[mask])) if n else np.nan
    )
    return {"mape_special": value, "n_special": n}
