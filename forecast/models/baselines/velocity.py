"""Constant-velocity baseline: continue the last observation at its recent rate of change."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from forecast.base import BaseForecaster, SeriesArrays
from forecast.models.baselines._math import constant_velocity_forecast
from forecast.models.baselines._options import InputOptions
from forecast.models.declare import declare_params, param


@declare_params()
class ConstantVelocity(InputOptions, BaseForecaster):
    """Constant-velocity forecast: the last value plus ``k`` times the recent step.

    Step ``k`` of the forecast is ``y[T] + k * (y[T] - y[T - window]) / window`` for each
    channel, where ``y[T]`` is the last observation. With ``window=1`` this continues the
    last difference, the constant-velocity baseline of motion prediction; a long window is
    the drift method (the mean slope over the window). Nothing is learned: ``fit`` keeps the
    last ``window + 1`` rows of each series for ``predict`` without history.

    Attributes
    ----------
    columns_ : list
        Target columns seen in ``fit``.
    freq_ : DateOffset
        Sampling frequency seen in ``fit``.

    See Also
    --------
    Naive : the zero-velocity forecast (repeat the last value).

    Examples
    --------
    >>> import pandas as pd
    >>> from forecast.models.baselines import ConstantVelocity
    >>> index = pd.date_range("2023-01-01", periods=4, freq="h")
    >>> df = pd.DataFrame({"angle": [0.0, 1.0, 3.0, 4.0]}, index=index)
    >>> ConstantVelocity().fit(df).predict(horizon=3)["angle"].tolist()
    [5.0, 6.0, 7.0]
    >>> ConstantVelocity(window=3).fit(df).predict(horizon=2)["angle"].tolist()
    [5.333333333333333, 6.666666666666666]
    """

    _scale_targets = False
    _update_rule = "extend"  # update: the fitted state stays, new rows extend the history kept

    window: int = param(
        default=1,
        type="int",
        doc="""Steps the velocity is averaged over; every series and every history passed to
        ``predict`` needs ``window + 1`` rows.""",
        kw_only=False,
    )

    def _window(self) -> int:
        """Return the validated ``window``."""
        w = self.window
        if isinstance(w, bool) or not isinstance(w, numbers.Integral) or w < 1:
            raise ValueError(f"window must be a positive int number of steps, got {w!r}")
        return int(w)

    def _min_history(self) -> int:
        return self._window() + 1

    def _min_train_length(self) -> int:
        return self._min_history()

    def _length_reason(self) -> str:
        return f"window={self._window()}: the velocity is taken over the last window + 1 rows"

    def _keep_history(self) -> int:
        return self._min_history()

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        """Nothing to learn (lengths are checked by the base)."""

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        window = self._window()
        return np.stack([constant_velocity_forecast(s.y, horizon, window) for s in series])
