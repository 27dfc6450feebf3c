"""The key of a stored or forecast day in the analog-day memory, and distances between keys.

A day's key has three parts: the last ``context`` steps before its origin divided by their
mean (the profile), the day of year on the unit circle (the season) and, with a country, the
holiday and bridge-day shares and the Christmas flag of each day the forecast covers. The
distance between two keys is the weighted sum of the mean squared differences of the parts.
Used by :class:`forecast.combine.AnalogDayForecaster`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forecast.frames.calendar import calendar_features

HOLIDAY_KEYS = ("holiday_share", "bridge_share", "christmas")
"""Calendar columns (:func:`forecast.calendar_features`) of each covered day in the key."""

PROFILE_SCALE = 0.1
"""Relative deviation that counts as one unit of profile distance (10 % of the mean)."""


def day_keys(
    values: np.ndarray,
    pos: np.ndarray,
    local: pd.DatetimeIndex,
    context: int,
    n_days: int,
    country: str | None,
) -> dict[str, np.ndarray]:
    """Return the profile, season and holiday parts of the keys of the origins at ``pos``.

    Parameters
    ----------
    values : ndarray of shape (T, C)
        The series; origin ``i`` is at row ``pos[i]``, with ``context`` rows up to it.
    pos : ndarray of int
        Rows of the origins.
    local : DatetimeIndex
        The origins' times on the local clock.
    context : int
        Steps of the profile.
    n_days : int
        Days the forecast covers from the origin's day on (holiday part).
    country : str or None
        Holiday calendar; None leaves the holiday part out.

    Returns
    -------
    dict
        ``"profile"`` ``(n, context * C)``, ``"season"`` ``(n, 2)`` and, with a country,
        ``"holiday"`` ``(n, 3 * n_days)``.
    """
    window = values[pos[:, None] + np.arange(1 - context, 1)]  # (n, L, C)
    mean = np.nanmean(window, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        profile = np.where(mean != 0, window / mean - 1.0, 0.0)
    profile = np.nan_to_num(profile, nan=0.0)  # a missing step counts as the mean
    parts = {"profile": profile.reshape(len(pos), -1)}
    days = local.normalize().tz_localize(None) if local.tz is not None else local.normalize()
    angle = 2 * np.pi * (days.day_of_year.to_numpy() - 1) / 365.25
    parts["season"] = np.c_[np.sin(angle), np.cos(angle)]
    if country is not None:
        covered = [days + pd.Timedelta(days=k, hours=12) for k in range(n_days)]
        flags = [calendar_features(d, country=country) for d in covered]
        columns = [f[list(HOLIDAY_KEYS)].to_numpy(float) for f in flags]
        parts["holiday"] = np.concatenate(columns, axis=1)
    return parts


def key_distances(
    query: dict[str, np.ndarray], keys: dict[str, np.ndarray], weights: dict[str, float]
) -> np.ndarray:
    """Return the squared distances ``(n_query, n_stored)`` between two sets of keys.

    Each part contributes its weight squared times the mean squared difference over its
    dimensions; the profile's weight is in units of :data:`PROFILE_SCALE`.
    """
    d2 = np.zeros((len(query["season"]), len(keys["season"])))
    for group, k in keys.items():
        weight = weights[group] / PROFILE_SCALE if group == "profile" else weights[group]
        q = query[group]  # mean squared difference, as |q|^2 - 2 q.k + |k|^2 over dims
        cross = (q**2).sum(axis=1)[:, None] - 2 * q @ k.T + (k**2).sum(axis=1)[None, :]
        d2 += weight**2 * np.maximum(cross, 0.0) / q.shape[1]
    return d2
