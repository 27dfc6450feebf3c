"""Plots of one explained forecast: lead against input step, and its top inputs.

matplotlib is imported when a figure is drawn, on the Agg canvas (no pyplot, no global
backend switch), as in :mod:`forecast.evaluation.plots`. Each function draws on the axes
given, or on a new figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn (start-up time)
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["one_forecast", "plot_explanation", "plot_lead_by_input", "plot_top_inputs"]


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # start-up: ~0.3 s, plots only
    from matplotlib.figure import Figure  # start-up, as above

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, list(np.atleast_1d(fig.subplots(1, ncols)))


def one_forecast(
    frame: pd.DataFrame, origin: Any = None, target: str | None = None
) -> pd.DataFrame:
    """Rows of one forecast (default: the first origin and target) of an explanation frame."""
    origin = frame["origin"].iloc[0] if origin is None else pd.Timestamp(origin)
    target = frame["target"].iloc[0] if target is None else target
    rows = frame[(frame["origin"] == origin) & (frame["target"] == target)]
    if rows.empty:
        raise ValueError(f"no forecast from origin {origin} for target {target!r} in the frame")
    return rows


def plot_lead_by_input(
    frame: pd.DataFrame,
    origin: Any = None,
    target: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Heat map of the contributions by lead (rows) and input step (columns).

    Each cell sums the contributions of every input at that step relative to the origin
    (0: the origin, negative: history, positive: the forecast steps' known inputs).
    """
    rows = one_forecast(frame, origin, target)
    table = rows.pivot_table(
        index="lead", columns="input_step", values="contribution", aggfunc="sum", fill_value=0.0
    )
    steps = np.arange(int(table.columns.min()), int(table.columns.max()) + 1)
    table = table.reindex(columns=steps, fill_value=0.0)  # one column per step, read or not
    if ax is None:
        ax = _figure(7.0, 4.0)[1][0]
    limit = float(np.abs(table.to_numpy()).max()) or 1.0
    leads = table.index.to_numpy()
    image = ax.imshow(
        table.to_numpy(),
        aspect="auto",
        origin="lower",
        cmap="RdBu_r",
        vmin=-limit,
        vmax=limit,
        extent=(steps[0] - 0.5, steps[-1] + 0.5, leads[0] - 0.5, leads[-1] + 0.5),
        interpolation="nearest",
    )
    ax.axvline(0.5, color="black", linewidth=0.8)
    ax.set_xlabel("input step (0 = origin; right of the line: forecast steps)")
    ax.set_ylabel("lead")
    ax.figure.colorbar(image, ax=ax, label=f"contribution ({rows['target'].iloc[0]})")
    return ax


def plot_top_inputs(
    frame: pd.DataFrame,
    origin: Any = None,
    target: str | None = None,
    top: int = 12,
    ax: Axes | None = None,
) -> Axes:
    """Bars of the inputs with the largest mean contribution over the forecast's leads."""
    rows = one_forecast(frame, origin, target)
    keys = ["input_kind", "input", "input_step"]
    mean = rows.groupby(keys)["contribution"].sum() / rows["lead"].nunique()
    mean = mean.reindex(mean.abs().sort_values(ascending=False).index[:top])[::-1]
    labels = [f"{name} @ {step:+d} ({kind})" for kind, name, step in mean.index]
    if ax is None:
        ax = _figure(6.0, 0.3 * len(mean) + 1.2)[1][0]
    colors = ["tab:red" if v > 0 else "tab:blue" for v in mean.to_numpy()]
    ax.barh(np.arange(len(mean)), mean.to_numpy(), color=colors)
    ax.set_yticks(np.arange(len(mean)), labels, fontsize=8)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("mean contribution over the leads")
    return ax


def plot_explanation(
    frame: pd.DataFrame,
    origin: Any = None,
    target: str | None = None,
    title: str | None = None,
    top: int = 12,
    axes: tuple[Axes, Axes] | None = None,
) -> Figure:
    """Both plots of one forecast side by side; returns the figure.

    Parameters
    ----------
    frame : DataFrame
        What :func:`forecast.explain` returned.
    origin, target : optional
        The forecast drawn (default: the first origin and target of ``frame``).
    title : str, optional
        Title above the two panels.
    top : int
        Inputs in the bar chart.
    axes : pair of Axes, optional
        Draw on these (for instance one row of a larger figure).
    """
    if axes is None:
        made = _figure(12.0, 4.5, ncols=2)[1]
        axes = (made[0], made[1])
    plot_lead_by_input(frame, origin, target, ax=axes[0])
    plot_top_inputs(frame, origin, target, top=top, ax=axes[1])
    if title:
        axes[0].set_title(title, loc="left")
    root = axes[0].get_figure(root=True)
    assert root is not None  # axes drawn on belong to a figure
    return root
