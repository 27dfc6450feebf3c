"""Future-known inputs of a forecast: the ``future=`` covariate values and calendar features.

A forecast of ``H`` steps reads, besides the history, the declared future covariates at the
``H`` forecast timestamps (passed as ``predict(future=...)``, checked here) and, when asked
for, calendar and holiday features of every timestamp (one definition, in
:mod:`forecast.frames.calendar`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from forecast.frames import validation
from forecast.frames.calendar import calendar_features
from forecast.frames.cleaning import in_zone

NEVER_FILLED = (
    "values passed as future= are never interpolated, whatever nan_policy: fill them "
    "before calling predict"
)


def known_future(
    future: pd.DataFrame | None,
    index: pd.DatetimeIndex,
    key: object,
    columns: list[str],
    zone: str | None,
) -> pd.DataFrame:
    """Return the ``columns`` of ``future`` at the forecast timestamps ``index``, checked.

    Parameters
    ----------
    future : DataFrame or None
        What the caller passed for series ``key``.
    index : DatetimeIndex
        The forecast timestamps.
    key : object
        Series id (None for a single series), named in messages.
    columns : list of str
        The declared future covariates.
    zone : str or None
        Fitted time zone; aware timestamps in another zone are converted to it.

    Raises
    ------
    ValueError
        If ``future`` is missing, lacks a column or a timestamp, or holds a NaN/inf.
    """
    if future is None:
        raise ValueError(
            f"{validation._where(key)}future covariates {columns} are declared: "
            "pass future=DataFrame "
            f"with their values for the {len(index)} forecast timestamps {index[0]} .. "
            f"{index[-1]}"
        )
    validation.check_index(future, key)
    future = in_zone(future, zone, key, "future")
    validation.check_columns(future, columns, key, "future")
    assert isinstance(future.index, pd.DatetimeIndex)  # checked above
    missing = index.difference(future.index)
    if len(missing):
        raise ValueError(
            f"{validation._where(key)}future covariates lack {len(missing)} "
            "forecast timestamp(s), the "
            f"first at {missing[0]}"
        )
    part = future.loc[index, columns]
    validation.check_numeric(part, columns, key)
    return validation.check_finite(part, columns, "raise", key, "future covariate", NEVER_FILLED)


def calendar_block(
    index: pd.DatetimeIndex, timezone: str | None, country: str | None
) -> np.ndarray:
    """Calendar (and, with ``country``, holiday) features ``(len(index), F)`` as floats."""
    feats = calendar_features(index, timezone=timezone, country=country)
    return feats.to_numpy(dtype=float)
