"""The answer of an estimator's decomposition hook: one forecast split into its inputs' terms.

:func:`forecast.explain` asks an estimator to decompose a forecast through the
hook ``_decompose(series, horizon)`` (on :class:`~forecast.base.BaseForecaster`). An
estimator whose forecast is a sum of terms it knows (the regressions of
:class:`~forecast.LinearLagForecaster`) returns a :class:`Decomposition`;
one that has none raises :class:`NotDecomposable`, saying why, and ``explain`` samples
Shapley values of its forecast instead. The hook reads the arrays a forecast reads
(:class:`~forecast.frames.series.SeriesArrays`) and answers in the units of the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Kind of input: a past value of a target.
LAG = "lag"
#: Kind of input: a covariate observed up to the origin.
PAST = "past covariate"
#: Kind of input: a covariate known at the forecast steps.
FUTURE = "future covariate"
#: Kind of input: a calendar or holiday feature.
CALENDAR = "calendar"


class NotDecomposable(ValueError):
    """The estimator has no decomposition of this forecast of its own (the message says why)."""


@dataclass(frozen=True)
class Decomposition:
    """One forecast of ``H`` steps and ``C`` channels as the sum of ``G`` inputs' terms.

    ``contributions.sum(axis=2) == forecast - baseline`` up to rounding.

    Attributes
    ----------
    method : str
        Name of the decomposition, as ``explain`` reports it (``"exact"``: the model's own terms).
    baseline_text : str
        What the baseline is: the forecast when every input is at its reference value.
    kind, name : ndarray of str, shape (G,)
        Kind of each input (:data:`LAG`, :data:`PAST`, :data:`FUTURE` or :data:`CALENDAR`,
        as the ``input_kind`` column of an explanation spells them) and its column.
    time : DatetimeIndex of length G
        Timestamp of each input value, in the zone of the data (NaT where it has none).
    step : ndarray of int, shape (G,)
        Position relative to the origin: 0 is the last observed step, -1 the one before,
        ``j > 0`` the ``j``-th step after it.
    contributions : ndarray of shape (H, C, G)
        Term of each input in each step and channel, in the units of the data.
    forecast, baseline : ndarray of shape (H, C)
        The forecast and the baseline's forecast, in the units of the data.
    """

    method: str
    baseline_text: str
    kind: np.ndarray
    name: np.ndarray
    time: pd.DatetimeIndex
    step: np.ndarray
    contributions: np.ndarray
    forecast: np.ndarray
    baseline: np.ndarray
