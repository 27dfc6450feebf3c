"""PNG plots of motion forecasts: joint-angle curves and stick-figure strips.

Inputs are plain arrays (a forecast of any model, or of a baseline, is an array), checked
before anything is drawn, so a bad shape raises without writing a file. Figures are drawn
on the Agg canvas as in :mod:`forecast.evaluation.plots` (no pyplot, no global backend switch).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from forecast.evaluation.plots import _figure, _save

__all__ = ["most_moving_channels", "plot_joint_angles", "plot_stick_figures"]

_COLOURS = ("tab:red", "tab:blue", "tab:green", "tab:orange", "tab:purple", "tab:brown")


def _array(value: object, name: str, ndim: int, shape: str) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if array.ndim != ndim or 0 in array.shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    return array


def _forecasts(forecasts: object, truth: np.ndarray) -> dict[str, np.ndarray]:
    if not isinstance(forecasts, Mapping):
        raise TypeError(
            f"forecasts must be a mapping name -> array, got {type(forecasts).__name__}"
        )
    out = {}
    for name, value in forecasts.items():
        array = np.asarray(value, dtype=float)
        if array.shape != truth.shape:
            raise ValueError(
                f"forecast {name!r} has shape {array.shape}, expected {truth.shape} like truth"
            )
        out[str(name)] = array
    return out


def most_moving_channels(observed: np.ndarray, truth: np.ndarray, n: int = 4) -> list[int]:
    """Return the ``n`` channels with the largest standard deviation over all frames.

    Parameters
    ----------
    observed : ndarray of shape (n_observed, n_channels)
    truth : ndarray of shape (horizon, n_channels)
    n : int
        Channels to return (at most ``n_channels``).

    Returns
    -------
    list of int
        Channel indices, most moving first (ties by index).
    """
    frames = np.concatenate([np.asarray(observed, float), np.asarray(truth, float)], axis=0)
    std = frames.std(axis=0)  # (C,)
    return [int(i) for i in np.argsort(-std, kind="stable")[:n]]


def _channel_indices(
    channels: Iterable[int | str], columns: list[str], n_channels: int
) -> list[int]:
    out = []
    for c in channels:
        if isinstance(c, str):
            if c not in columns:
                raise ValueError(f"channel {c!r} is not one of the columns {columns[:8]}...")
            out.append(columns.index(c))
        elif isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < n_channels:
            out.append(int(c))
        else:
            raise ValueError(f"channel {c!r} is neither a column name nor an index < {n_channels}")
    if not out:
        raise ValueError("channels is empty: name at least one channel to draw")
    return out


def plot_joint_angles(
    observed: np.ndarray,
    truth: np.ndarray,
    forecasts: Mapping[str, np.ndarray],
    path: str | Path,
    *,
    columns: Sequence[str] | None = None,
    channels: Sequence[int | str] | None = None,
    n_channels: int = 4,
    step_ms: float | None = 40.0,
    title: str | None = None,
    unit: str = "",
) -> Path:
    """Plot a few channels: the observed frames, the true continuation and forecasts.

    Parameters
    ----------
    observed : array_like of shape (n_observed, n_channels)
        The frames the forecasts start from (the last one is the forecast origin).
    truth : array_like of shape (horizon, n_channels)
        What followed.
    forecasts : mapping of str to array_like of shape (horizon, n_channels)
        Model name -> forecast, e.g. ``{"zero velocity": ..., "GRU": ...}``; each drawn
        from the last observed value on.
    path : str or Path
        PNG file to write.
    columns : sequence of str, optional
        Channel names (panel titles); default ``ch0, ch1, ...``.
    channels : sequence of int or str, optional
        Channels to draw, by index or name. Default: the ``n_channels`` that move most
        (:func:`most_moving_channels`).
    n_channels : int, default=4
        Panels when ``channels`` is not given.
    step_ms : float or None, default=40.0
        Milliseconds per frame for the x axis (0 = last observed frame); None counts frames.
    title : str, optional
        Figure title.
    unit : str
        Unit of the y axis, e.g. ``"rad"``.

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    ValueError
        When the shapes disagree (named), or a channel is unknown; nothing is written.
    """
    obs = _array(observed, "observed", 2, "(n_observed, n_channels)")
    true = _array(truth, "truth", 2, "(horizon, n_channels)")
    if true.shape[1] != obs.shape[1]:
        raise ValueError(f"truth has {true.shape[1]} channels, observed {obs.shape[1]}")
    preds = _forecasts(forecasts, true)
    names = [f"ch{i}" for i in range(obs.shape[1])] if columns is None else list(columns)
    if len(names) != obs.shape[1]:
        raise ValueError(f"columns names {len(names)} channels, the arrays have {obs.shape[1]}")
    if channels is None:
        picked = most_moving_channels(obs, true, n_channels)
    else:
        picked = _channel_indices(channels, names, obs.shape[1])

    scale = 1.0 if step_ms is None else float(step_ms)
    t_obs = (np.arange(len(obs)) - (len(obs) - 1)) * scale  # ends at 0
    t_fc = np.arange(len(true) + 1) * scale  # from the last observed frame
    ncols = 1 if len(picked) == 1 else 2
    nrows = -(-len(picked) // ncols)
    fig = _figure(5.0 * ncols, 2.3 * nrows + 0.6)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(picked) :]:
        ax.set_visible(False)
    for ax, c in zip(axes, picked, strict=False):
        last = obs[-1, c]
        ax.plot(t_obs, obs[:, c], color="black", lw=1.6, label="observed")
        ax.plot(t_fc, np.r_[last, true[:, c]], color="black", lw=1.6, ls="--", label="truth")
        for k, (name, pred) in enumerate(preds.items()):
            colour = _COLOURS[k % len(_COLOURS)]
            ax.plot(t_fc, np.r_[last, pred[:, c]], color=colour, lw=1.2, label=name)
        ax.axvline(0.0, color="grey", lw=0.8, ls=":")
        ax.set_title(names[c], fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if unit:
            ax.set_ylabel(unit, fontsize=8)
    for ax in axes[: len(picked)][-ncols:]:
        ax.set_xlabel("ms after the last observed frame" if step_ms else "frames", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.5 / fig.get_figheight(), 1, 1))  # room for the legend
    return _save(fig, path)


def _frame_list(frames: Any, length: int, name: str, last: bool) -> list[int]:
    """Frame indices: given, or ``frames`` evenly spaced (ending at the last if ``last``)."""
    if isinstance(frames, (int, np.integer)) and not isinstance(frames, bool):
        if frames < 1:
            raise ValueError(f"{name} must be a positive count or a list of indices, got {frames}")
        count = min(int(frames), length)
        if last:
            return [int(i) for i in np.linspace(0, length - 1, count + 1).round()[1:]]
        return [int(i) for i in np.linspace(0, length - 1, count).round()]
    out = [int(i) for i in frames]
    bad = [i for i in out if not 0 <= i < length]
    if bad or not out:
        raise ValueError(f"{name} must be indices in [0, {length}), got {list(frames)}")
    return out


def _project(points: np.ndarray, up: int, azimuth: float) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal and vertical screen coordinates of points ``(..., 3)``."""
    a, b = [i for i in range(3) if i != up]
    angle = np.deg2rad(azimuth)
    return np.cos(angle) * points[..., a] + np.sin(angle) * points[..., b], points[..., up]


def plot_stick_figures(
    observed: np.ndarray,
    truth: np.ndarray,
    forecasts: Mapping[str, np.ndarray],
    parents: Sequence[int],
    path: str | Path,
    *,
    observed_frames: int | Sequence[int] = 3,
    forecast_frames: int | Sequence[int] = 4,
    up: int = 1,
    azimuth: float = 0.0,
    frame_ms: float | None = None,
    title: str | None = None,
) -> Path:
    """Draw a strip of stick figures: observed poses, then truth and forecasts overlaid.

    Parameters
    ----------
    observed : array_like of shape (n_observed, n_points, 3)
        Joint positions of the observed frames (e.g. from
        :func:`forecast.datasets.forward_kinematics`).
    truth : array_like of shape (horizon, n_points, 3)
        Joint positions of the frames that followed.
    forecasts : mapping of str to array_like of shape (horizon, n_points, 3)
        Model name -> forecast joint positions, drawn in colour over the truth (black).
    parents : sequence of int
        Parent index of each point, -1 for the root (point 0 centres each panel);
        :func:`forecast.datasets.skeleton_parents` gives it.
    path : str or Path
        PNG file to write.
    observed_frames, forecast_frames : int or sequence of int
        Frames to draw: indices into ``observed`` / ``truth``, or how many, evenly spaced
        and ending at the last frame.
    up : {0, 1, 2}, default=1
        Vertical axis (BVH files: 1, Y up).
    azimuth : float, default=0.0
        Viewing direction in degrees about the vertical axis: the horizontal screen axis is
        ``cos(azimuth) * a + sin(azimuth) * b`` of the other two axes ``a < b``.
    frame_ms : float, optional
        Milliseconds per frame, to label panels with times instead of frame numbers.
    title : str, optional
        Figure title.

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    ValueError
        When shapes, parents or frame indices are inconsistent (named); nothing is written.
    """
    obs = _array(observed, "observed", 3, "(n_observed, n_points, 3)")
    true = _array(truth, "truth", 3, "(horizon, n_points, 3)")
    if obs.shape[2] != 3 or true.shape[1:] != obs.shape[1:]:
        raise ValueError(
            f"observed {obs.shape} and truth {true.shape} must both be (frames, n_points, 3) "
            "with the same n_points"
        )
    preds = _forecasts(forecasts, true)
    parent = [int(p) for p in parents]
    n_points = obs.shape[1]
    if len(parent) != n_points or any(
        not -1 <= p < n_points or p == i for i, p in enumerate(parent)
    ):
        raise ValueError(
            f"parents must give one index in [-1, {n_points}) per point ({n_points}), not the "
            f"point itself; got {len(parent)} entries"
        )
    if up not in (0, 1, 2):
        raise ValueError(f"up must be the axis 0, 1 or 2, got {up!r}")
    shown_obs = _frame_list(observed_frames, len(obs), "observed_frames", last=True)
    shown_fc = _frame_list(forecast_frames, len(true), "forecast_frames", last=True)

    panels: list[tuple[np.ndarray, dict[str, np.ndarray], int]]
    panels = [(obs[i], {}, i - (len(obs) - 1)) for i in shown_obs]
    panels += [(true[i], {n: p[i] for n, p in preds.items()}, i + 1) for i in shown_fc]
    centre = [_project(pose[0], up, azimuth)[0] for pose, _, _ in panels]
    every = [(pose, c) for (pose, extra, _), c in zip(panels, centre, strict=True)]
    every += [
        (p, c) for (_, extra, _), c in zip(panels, centre, strict=True) for p in extra.values()
    ]
    half = max(np.abs(_project(pose, up, azimuth)[0] - c).max() for pose, c in every)
    low = min(_project(pose, up, azimuth)[1].min() for pose, _ in every)
    high = max(_project(pose, up, azimuth)[1].max() for pose, _ in every)
    pad = 0.08 * max(high - low, 2 * half, 1e-9)

    fig = _figure(1.6 * len(panels) + 0.4, 3.6)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    bones = [(i, p) for i, p in enumerate(parent) if p >= 0]
    for ax, (pose, extra, step), c in zip(axes, panels, centre, strict=True):
        _draw(ax, pose, bones, up, azimuth, "black", 1.6, "observed" if step <= 0 else "truth")
        for k, (name, pred) in enumerate(extra.items()):
            _draw(ax, pred, bones, up, azimuth, _COLOURS[k % len(_COLOURS)], 1.1, name)
        ax.set_xlim(c - half - pad, c + half + pad)
        ax.set_ylim(low - pad, high + pad)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        when = f"{step * frame_ms:+.0f} ms" if frame_ms else f"frame {step:+d}"
        ax.set_title(("observed " if step <= 0 else "forecast ") + when, fontsize=8)
        if step > 0 and extra:
            ax.set_facecolor("#f7f7f7")
    handles, labels = axes[-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.subplots_adjust(left=0.01, right=0.99, top=0.84 if title else 0.9, bottom=0.1, wspace=0.05)
    return _save(fig, path)


def _draw(
    ax: Any,
    pose: np.ndarray,
    bones: list[tuple[int, int]],
    up: int,
    azimuth: float,
    colour: str,
    width: float,
    label: str,
) -> None:
    """One stick figure: a line per bone, labelled once."""
    h, v = _project(pose, up, azimuth)
    for k, (i, p) in enumerate(bones):
        ax.plot([h[p], h[i]], [v[p], v[i]], color=colour, lw=width, label=label if k == 0 else None)
