"""Pure array functions behind the baselines (no pandas state, no estimator).

Every forecast function takes the history of one series as an array ``(T, C)`` (time first,
one column per channel) and returns ``(horizon, C)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forecast.frames.steps import steps


def season_steps(value: object, freq: pd.DateOffset, name: str) -> int:
    """Convert a seasonal period to steps (:func:`forecast.frames.steps.steps`), at least 2."""
    n = steps(value, name, freq)
    if n < 2:
        raise ValueError(f"{name} must be at least 2 steps, got {n}")
    return n


def naive_forecast(y: np.ndarray, horizon: int) -> np.ndarray:
    """Repeat the last row of ``y`` (T, C) ``horizon`` times: (horizon, C)."""
    return np.repeat(y[-1:], horizon, axis=0)


def constant_velocity_forecast(y: np.ndarray, horizon: int, window: int = 1) -> np.ndarray:
    """Continue the last row of ``y`` (T, C) at its mean velocity over the last ``window`` steps.

    Step ``k = 1 .. horizon`` of the forecast is ``y[-1] + k * (y[-1] - y[-1 - window]) /
    window``: with ``window=1`` the last difference (constant velocity), with
    ``window=T - 1`` the slope from the first to the last row (the drift method).

    Parameters
    ----------
    y : ndarray of shape (T, C)
        History, ``T >= window + 1``.
    horizon : int
        Steps to forecast.
    window : int
        Steps the velocity is averaged over.

    Returns
    -------
    ndarray of shape (horizon, C)
    """
    if len(y) < window + 1:
        raise ValueError(
            f"constant velocity over {window} step(s) needs {window + 1} rows, got {len(y)}"
        )
    velocity = (y[-1] - y[-1 - window]) / window  # (C,)
    steps = np.arange(1, horizon + 1, dtype=float)[:, None]  # (H, 1)
    return y[-1] + steps * velocity


def seasonal_naive_forecast(
    y: np.ndarray, horizon: int, season: int, n_seasons: int = 1
) -> np.ndarray:
    """Seasonal naive forecast, optionally averaged over the last ``n_seasons`` seasons.

    Step ``j`` (0-based) of the forecast is the mean over ``k = 1 .. n_seasons`` of
    ``y[T - k * season + (j mod season)]``; a horizon longer than the season repeats it.

    Parameters
    ----------
    y : ndarray of shape (T, C)
        History, ``T >= season * n_seasons``.
    horizon : int
        Steps to forecast.
    season : int
        Season length in steps.
    n_seasons : int
        Number of past seasons averaged.

    Returns
    -------
    ndarray of shape (horizon, C)
    """
    n_rows = len(y)
    if n_rows < season * n_seasons:
        raise ValueError(
            f"seasonal naive needs {season * n_seasons} rows ({n_seasons} season(s) of {season} "
            f"steps), got {n_rows}"
        )
    last = y[n_rows - season * n_seasons :].reshape(n_seasons, season, -1)  # (K, S, C)
    profile = last.mean(axis=0)  # (S, C)
    return profile[np.arange(horizon) % season]


def seasonal_components_forecast(
    seasonal: np.ndarray, periods: list[int], horizon: int
) -> np.ndarray:
    """Sum of seasonal components, each continued by its own seasonal naive forecast.

    Parameters
    ----------
    seasonal : ndarray of shape (T, K)
        One column per seasonal component, as from an MSTL decomposition.
    periods : list of int
        Period of each column, in steps.
    horizon : int
        Steps to forecast.

    Returns
    -------
    ndarray of shape (horizon,)
    """
    out = np.zeros(horizon)
    for k, period in enumerate(periods):
        out += seasonal_naive_forecast(seasonal[:, k : k + 1], horizon, period)[:, 0]
    return out
