"""PNG plots of backtests: sample forecasts, error by hour, a metric per model, intervals.

matplotlib is imported inside each function and figures are drawn on the Agg canvas
directly (no pyplot, no global backend switch), so plotting works headless and leaves the
caller's matplotlib state alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from forecast.evaluation.scores import quantile_levels
from forecast.frames.quantiles import central_pairs, quantile_column

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn (start-up time)
    from matplotlib.figure import Figure

__all__ = [
    "plot_bands",
    "plot_error_by_hour",
    "plot_metric_bars",
    "plot_reliability",
    "plot_sample_days",
    "sample_origins",
]


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # start-up: ~0.3 s, plots only
    from matplotlib.figure import Figure  # start-up, as above

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


def sample_origins(origins: pd.DatetimeIndex | pd.Series, n: int = 3) -> pd.DatetimeIndex:
    """``n`` origins spread evenly over ``origins`` (first, ..., last), deterministic."""
    origins = pd.DatetimeIndex(origins).unique().sort_values()
    if len(origins) <= n:
        return origins
    return origins[np.linspace(0, len(origins) - 1, n).round().astype(int)]


def plot_sample_days(
    forecasts: Mapping[str, pd.DataFrame],
    path: str | Path,
    *,
    origins: pd.DatetimeIndex | None = None,
    n: int = 3,
    target: str | None = None,
    series: object = None,
    timezone: str | None = "Europe/Berlin",
    unit: str = "",
) -> Path:
    """Plot forecasts against the actual values for a few origins, one panel each.

    Parameters
    ----------
    forecasts : mapping of str to DataFrame
        Model name -> tidy backtest forecasts (``BacktestResult.forecasts``).
    path : str or Path
        PNG file to write.
    origins : DatetimeIndex, optional
        Origins to show (default: ``n`` spread evenly over those of the first model).
    n : int
        Number of panels when ``origins`` is not given.
    target : str, optional
        Target column to show (default: the first).
    series : object, optional
        Series id to show when there are several (default: the first).
    timezone : str, optional
        Time zone of the x axis for tz-aware timestamps.
    unit : str
        Unit of the y axis, e.g. ``"MW"``.

    Returns
    -------
    Path
        The written file.
    """
    frames = {name: _pick(fc, target, series) for name, fc in forecasts.items()}
    first = next(iter(frames.values()))
    origins = sample_origins(first["origin"], n) if origins is None else pd.DatetimeIndex(origins)
    fig = _figure(4.2 * len(origins), 3.4)
    axes = fig.subplots(1, len(origins), squeeze=False, sharey=True)[0]
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.17, top=0.9, wspace=0.08)
    from matplotlib.dates import DateFormatter  # start-up, as in _figure

    for ax, origin in zip(axes, origins, strict=True):
        truth = first[first["origin"] == origin]
        times = _axis_time(truth["time"], timezone)
        ax.plot(times, truth["y_true"], color="black", lw=2, label="actual")
        for name, fc in frames.items():
            rows = fc[fc["origin"] == origin]
            ax.plot(_axis_time(rows["time"], timezone), rows["y_pred"], lw=1.2, label=name)
        issued = _axis_time(pd.Series([origin]), timezone)[0]
        ax.set_title(f"{times[0]:%a %Y-%m-%d %H:%M} ..  (origin {issued:%m-%d %H:%M})", fontsize=8)
        short = times[-1] - times[0] <= pd.Timedelta("2D")
        ax.xaxis.set_major_formatter(DateFormatter("%H:%M" if short else "%m-%d"))
        ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    axes[0].set_ylabel(f"{first['target'].iloc[0]}{f' [{unit}]' if unit else ''}")
    axes[-1].legend(fontsize=7, loc="best")
    return _save(fig, path)


def plot_error_by_hour(
    by_hour: Mapping[str, pd.DataFrame], path: str | Path, metric: str = "mape", unit: str = ""
) -> Path:
    """Plot a metric per hour of day, one line per model.

    Parameters
    ----------
    by_hour : mapping of str to DataFrame
        Model name -> ``BacktestResult.by_hour`` (index: hour of day, a column per metric).
    path : str or Path
        PNG file to write.
    metric : str
        Column to plot.
    unit : str
        Unit shown on the y axis.

    Returns
    -------
    Path
        The written file.
    """
    fig = _figure(7, 3.6)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.12, right=0.97, bottom=0.15, top=0.95)
    for name, table in by_hour.items():
        if table is None or metric not in table:
            raise ValueError(f"model {name!r} has no by-hour {metric!r} (sub-daily data needed)")
        ax.plot(table.index, table[metric], marker="o", ms=3, label=name)
    ax.set_xlabel("hour of day (local time)")
    ax.set_ylabel(f"{metric}{f' [{unit}]' if unit else ''}")
    ax.set_xticks(range(0, 24, 3))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, path)


def plot_metric_bars(
    table: pd.DataFrame, path: str | Path, metric: str = "mape", unit: str = ""
) -> Path:
    """Bar chart of one metric per model (rows of ``table``), best at the top.

    Parameters
    ----------
    table : DataFrame
        One row per model, a column per metric (``ComparisonResult.table``).
    path : str or Path
        PNG file to write.
    metric : str
        Column to plot.
    unit : str
        Unit shown on the axis.

    Returns
    -------
    Path
        The written file.
    """
    if metric not in table:
        raise ValueError(f"table has no column {metric!r}; found {list(table.columns)}")
    values = table[metric].astype(float).sort_values(ascending=False)
    fig = _figure(6, 0.45 * len(values) + 1.2)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.3, right=0.97, bottom=0.8 / fig.get_figheight(), top=0.97)
    bars = ax.barh([str(i) for i in values.index], values.to_numpy())
    ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
    ax.set_xlabel(f"{metric}{f' [{unit}]' if unit else ''}")
    ax.margins(x=0.15)
    return _save(fig, path)


def plot_bands(
    forecasts: pd.DataFrame,
    path: str | Path,
    *,
    start: str | pd.Timestamp | None = None,
    end: str | pd.Timestamp | None = None,
    target: str | None = None,
    series: object = None,
    timezone: str | None = "Europe/Berlin",
    unit: str = "",
) -> Path:
    """Plot actuals, the point forecast and its central interval bands over a period.

    Parameters
    ----------
    forecasts : DataFrame
        Tidy backtest forecasts with ``y_pred_q<level>`` columns (a quantile or conformal
        model). Where several origins forecast a timestamp, the latest origin is shown.
    path : str or Path
        PNG file to write.
    start, end : str or Timestamp, optional
        Period shown (local time strings, inclusive); default everything.
    target, series : optional
        Target and series shown (default: the first).
    timezone : str, optional
        Time zone of the time axis.
    unit : str
        Unit shown on the y axis.

    Returns
    -------
    Path
        The written file.
    """
    pairs = central_pairs(quantile_levels(forecasts.columns))
    if not pairs:
        raise ValueError(
            "forecasts have no pair of quantile columns y_pred_q<q>, y_pred_q<1-q> to draw "
            f"bands from; columns: {list(forecasts.columns)}"
        )
    fc = _pick(forecasts, target, series).sort_values(["time", "origin"])
    fc = fc.drop_duplicates("time", keep="last")
    times = _axis_time(fc["time"], timezone)
    fc = fc.set_axis(times).loc[start:end]
    if fc.empty:
        raise ValueError(f"no forecasts between {start} and {end}")
    fig = _figure(10, 3.8)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.15, top=0.95)
    for nominal, lo, hi in sorted(pairs, reverse=True):  # widest first, underneath
        lower, upper = fc[quantile_column("y_pred", lo)], fc[quantile_column("y_pred", hi)]
        ax.fill_between(fc.index, lower, upper, alpha=0.25, lw=0, label=f"{nominal:.0%}")
    ax.plot(fc.index, fc["y_pred"], lw=1.2, label="forecast")
    ax.plot(fc.index, fc["y_true"], color="black", lw=1.0, label="actual")
    ax.set_ylabel(f"{fc['target'].iloc[0]}{f' [{unit}]' if unit else ''}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=len(pairs) + 2, loc="upper right")
    return _save(fig, path)


def plot_reliability(forecasts: Mapping[str, pd.DataFrame], path: str | Path) -> Path:
    """Reliability diagram: the share of actuals at or below each forecast quantile.

    A calibrated forecast lies on the diagonal: 10 % of the actuals at or below its 0.1
    quantile, 90 % at or below its 0.9 quantile.

    Parameters
    ----------
    forecasts : mapping of str to DataFrame
        Model name -> tidy backtest forecasts with ``y_pred_q<level>`` columns.
    path : str or Path
        PNG file to write.

    Returns
    -------
    Path
        The written file.
    """
    fig = _figure(4.6, 4.4)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.15, right=0.96, bottom=0.13, top=0.95)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    for name, fc in forecasts.items():
        levels = quantile_levels(fc.columns)
        if not levels:
            raise ValueError(f"model {name!r} has no quantile columns y_pred_q<level>")
        y = fc["y_true"].to_numpy(dtype=float)
        seen = np.isfinite(y)
        share = [
            float(np.mean(y[seen] <= fc[quantile_column("y_pred", q)].to_numpy()[seen]))
            for q in levels
        ]
        ax.plot(levels, share, marker="o", ms=3, label=name)
    ax.set_xlabel("nominal level")
    ax.set_ylabel("share of actuals at or below the quantile")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, path)


def _pick(fc: pd.DataFrame, target: str | None, series: object) -> pd.DataFrame:
    if "id" in fc:
        key = fc["id"].iloc[0] if series is None else series
        fc = fc[fc["id"] == key]
    name = fc["target"].iloc[0] if target is None else target
    rows = fc[fc["target"] == name]
    if rows.empty:
        raise ValueError(f"no forecasts for target {name!r}; found {sorted(set(fc['target']))}")
    return rows


def _axis_time(times: pd.Series, timezone: str | None) -> pd.DatetimeIndex:
    index = pd.DatetimeIndex(times)
    if index.tz is not None and timezone is not None:
        index = index.tz_convert(timezone)
    return index.tz_localize(None) if index.tz is not None else index
