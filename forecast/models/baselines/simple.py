"""Baselines without estimated parameters: naive and seasonal naive."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.steps import duration
from forecast.frames.steps import steps as duration_steps
from forecast.models.baselines import _wallclock as wallclock
from forecast.models.baselines._math import naive_forecast, seasonal_naive_forecast
from forecast.models.baselines._options import InputOptions
from forecast.models.declare import declare_params, param


@declare_params()
class Naive(InputOptions, BaseForecaster):
    """Last-value forecast: every step repeats the last observation of each channel.

    Attributes
    ----------
    columns_ : list
        Target columns seen in ``fit``.
    freq_ : DateOffset
        Sampling frequency seen in ``fit``.

    Examples
    --------
    >>> import pandas as pd
    >>> from forecast.models.baselines import Naive
    >>> index = pd.date_range("2023-01-01", periods=3, freq="h")
    >>> df = pd.DataFrame({"load": [1.0, 2.0, 3.0]}, index=index)
    >>> Naive().fit(df).predict(horizon=2)["load"].tolist()
    [3.0, 3.0]
    """

    _scale_targets = False
    _update_rule = "extend"  # update: the fitted state stays, new rows extend the history kept

    def _keep_history(self) -> int:
        return 1

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        """Nothing to learn."""

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        return np.stack([naive_forecast(s.y, horizon) for s in series])  # (N, H, C)


@declare_params()
class SeasonalNaive(InputOptions, BaseForecaster):
    """Seasonal naive forecast: repeat the last season, or the mean of the last few seasons.

    Each forecast step takes the value exactly ``k`` seasons before it, ``k`` the smallest
    number of seasons that reaches back into the history (``k = 1`` within the first
    season); with ``n_seasons > 1``, the mean of the values ``k .. k + n_seasons - 1``
    seasons before it. A horizon longer than the season repeats the same profile.

    A season given as a whole number of days (``"1D"``, ``"7D"``) counts days of the local
    wall clock on a tz-aware index: the forecast for 08:00 comes from 08:00 yesterday (last
    week) in ``timezone``, also across a daylight-saving change, where 24 (168) elapsed
    hours would be an hour off. The two DST days are handled like this:

    - the hour skipped in spring (02:00 in Berlin) is read as the mean of the hours around
      it (01:00 and 03:00), when a later day's 02:00 asks for it;
    - the hour repeated in autumn (02:00 twice) is read as the mean of its two values, and
      both repeated hours of the forecast get the same value (that of 02:00 a season
      before).

    A season given as an int counts steps of the index (elapsed time), as does any season
    on a naive index (taken as local time already).

    Attributes
    ----------
    season_steps_ : int
        Season length in steps.
    wall_clock_ : bool
        Whether seasons count local days (a whole-day season on a tz-aware index).
    columns_ : list
        Target columns seen in ``fit``.
    freq_ : DateOffset
        Sampling frequency seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import SeasonalNaive
    >>> index = pd.date_range("2023-01-01", periods=48, freq="h")
    >>> df = pd.DataFrame({"load": np.arange(48.0)}, index=index)
    >>> model = SeasonalNaive(season="1D", n_seasons=2).fit(df)
    >>> model.predict(horizon=3)["load"].tolist()  # mean of 0 and 24, of 1 and 25, ...
    [12.0, 13.0, 14.0]
    """

    _scale_targets = False
    _update_rule = "extend"  # update: the fitted state stays, new rows extend the history kept

    season: int | str = param(
        default="7D",
        type="int or str",
        doc="""Season length, as a time span (``"1D"``, ``"7D"``, a whole multiple of the data
        frequency) or as an int number of steps.""",
        kw_only=False,
    )
    n_seasons: int = param(
        default=1, type="int", doc="Number of past seasons averaged.", kw_only=False
    )
    timezone: str | None = param(
        default=None,
        type="str or None",
        doc="""Zone of the local wall clock, e.g. ``"Europe/Berlin"`` for a UTC index of German
        load. Default: the index's own zone.""",
        kw_only=False,
    )

    def _needed(self) -> tuple[int, int]:
        """Season in steps and number of seasons, validated against the fitted frequency."""
        n = self.n_seasons
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n_seasons must be a positive int, got {n!r}")
        return duration_steps(self.season, "season", self.freq_), int(n)

    def _wall_clock(self) -> bool:
        """Tell whether seasons count local days: a whole-day season on a tz-aware index."""
        if self.tz_ is None or isinstance(self.season, numbers.Integral):
            return False
        span = duration(self.season)  # a time span here (ints returned above)
        return span is not None and span % pd.Timedelta(days=1) == pd.Timedelta(0)

    def _margin(self) -> int:
        """Extra rows: a tz-aware week can hold one elapsed hour more than 7 x 24 hours."""
        step = wallclock.fixed_step(self.freq_)
        if not self._wall_clock() or step is None or step >= wallclock.DAY_NS:
            return 0
        return -(-3_600 * 10**9 // step)

    def _min_train_length(self) -> int:
        return 1  # the real requirement depends on the frequency; checked in _fit

    def _min_history(self) -> int:
        # one hour short across an autumn change is reported by _predict, naming the series
        return self.season_steps_ * int(self.n_seasons)

    def _keep_history(self) -> int:
        steps, n = self._needed()
        return steps * n + self._margin()

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        steps, n = self._needed()
        for s in series:
            validation.check_length(len(s.y), steps * n, s.key, f"{n} season(s) of {steps} steps")
        self.season_steps_ = steps
        self.wall_clock_ = bool(self._wall_clock())

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        steps = self.season_steps_
        n = int(self.n_seasons)
        if not self.wall_clock_:
            return np.stack([seasonal_naive_forecast(s.y, horizon, steps, n) for s in series])
        keep = self._keep_history()
        out = []
        for s in series:
            grid = wallclock.series_grid(s.y[-keep:], s.index[-keep:], self.timezone, self.freq_)
            last = s.index[-1]
            pos, _ = wallclock.target_positions(grid, last, self.freq_, horizon, self.timezone)
            latest = wallclock.latest_same_phase(pos, grid.origin, steps)  # (H,)
            sources = latest[None, :] - steps * np.arange(n)[:, None]  # (K, H)
            if sources.min() < 0:
                raise ValueError(
                    f"{validation._where(s.key)}history ending {s.index[-1]} covers "
                    f"{grid.origin + 1} local wall-clock steps; {n} season(s) of {steps} "
                    "steps are needed"
                )
            out.append(grid.values[sources].mean(axis=0))  # (H, C)
        return np.stack(out)
