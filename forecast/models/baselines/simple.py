"""Baselines without estimated parameters: naive, seasonal naive and an external forecast."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast import _validation as V
from forecast.base import BaseForecaster, SeriesArrays
from forecast.models.baselines import _wallclock as W
from forecast.models.baselines._math import naive_forecast, seasonal_naive_forecast, to_steps


class Naive(BaseForecaster):
    """Last-value forecast: every step repeats the last observation of each channel.

    Parameters
    ----------
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing target values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

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

    def __init__(self, nan_policy: str = "raise", fill_gaps: bool = False):
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _keep_history(self) -> int:
        return 1

    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
        """Nothing to learn."""

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        return np.stack([naive_forecast(s.y, horizon) for s in series])  # (N, H, C)


class SeasonalNaive(BaseForecaster):
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

    Parameters
    ----------
    season : int or str, default="7D"
        Season length, as a time span (``"1D"``, ``"7D"``, a whole multiple of the data
        frequency) or as an int number of steps.
    n_seasons : int, default=1
        Number of past seasons averaged.
    timezone : str, optional
        Zone of the local wall clock, e.g. ``"Europe/Berlin"`` for a UTC index of German
        load. Default: the index's own zone.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing target values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

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

    def __init__(
        self,
        season: int | str = "7D",
        n_seasons: int = 1,
        timezone: str | None = None,
        nan_policy: str = "raise",
        fill_gaps: bool = False,
    ):
        self.season = season
        self.n_seasons = n_seasons
        self.timezone = timezone
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _needed(self) -> tuple[int, int]:
        """Season in steps and number of seasons, validated against the fitted frequency."""
        n = self.n_seasons
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n_seasons must be a positive int, got {n!r}")
        return to_steps(self.season, self.freq_, "season"), int(n)

    def _wall_clock(self) -> bool:
        """Tell whether seasons count local days: a whole-day season on a tz-aware index."""
        if self.tz_ is None or isinstance(self.season, numbers.Integral):
            return False
        return pd.Timedelta(to_offset(self.season)) % pd.Timedelta(days=1) == pd.Timedelta(0)

    def _margin(self) -> int:
        """Extra rows: a tz-aware week can hold one elapsed hour more than 7 x 24 hours."""
        step = W.fixed_step(self.freq_)
        if not self._wall_clock() or step is None or step >= W.DAY_NS:
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

    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
        steps, n = self._needed()
        for s in series:
            V.check_length(len(s.y), steps * n, s.key, f"{n} season(s) of {steps} steps")
        self.season_steps_ = steps
        self.wall_clock_ = bool(self._wall_clock())

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        steps, n = self.season_steps_, int(self.n_seasons)
        if not self.wall_clock_:
            return np.stack([seasonal_naive_forecast(s.y, horizon, steps, n) for s in series])
        keep = self._keep_history()
        out = []
        for s in series:
            grid = W.series_grid(s.y[-keep:], s.index[-keep:], self.timezone, self.freq_)
            pos, _ = W.target_positions(grid, s.index[-1], self.freq_, horizon, self.timezone)
            latest = W.latest_same_phase(pos, grid.origin, steps)  # (H,)
            sources = latest[None, :] - steps * np.arange(n)[:, None]  # (K, H)
            if sources.min() < 0:
                raise ValueError(
                    f"{V._where(s.key)}history ending {s.index[-1]} covers "
                    f"{grid.origin + 1} local wall-clock steps; {n} season(s) of {steps} "
                    "steps are needed"
                )
            out.append(grid.values[sources].mean(axis=0))  # (H, C)
        return np.stack(out)


class ExternalForecast(BaseForecaster):
    """A forecast column already in the data, wrapped as a model scored like any other.

    Typical use: the grid operators' own day-ahead load forecast published next to the load.
    The forecast column is a future-known covariate (``future_covariates`` is ``column``);
    every other column is a target. ``predict`` returns the column's values at the forecast
    timestamps, read unscaled, so the output equals the column exactly.

    Only the rows being forecast matter: gaps (NaN) anywhere else, in the targets or in the
    forecast column, are ignored. With ``nan_policy="raise"`` a missing forecast value at a
    forecast timestamp raises a ``ValueError`` naming the column and the timestamp; with
    ``"interpolate"`` the forecast column is interpolated in time first.

    Parameters
    ----------
    column : str or list of str, default="forecast"
        Forecast column(s). With several targets give one column per target, in the order
        of the target columns.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with a missing forecast value at a forecast timestamp: raise, or
        interpolate the forecast column in time.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

    Attributes
    ----------
    columns_ : list
        Target columns seen in ``fit``.
    future_covariates_ : list
        The forecast column(s).

    Examples
    --------
    >>> import pandas as pd
    >>> from forecast.models.baselines import ExternalForecast
    >>> index = pd.date_range("2023-01-01", periods=6, freq="h")
    >>> df = pd.DataFrame({"load": [5.0, 6, 7, 8, 9, 10], "forecast": [5.5, 6, 7, 7.5, 9, 11]},
    ...                   index=index)
    >>> model = ExternalForecast(column="forecast").fit(df.iloc[:4])
    >>> model.predict(horizon=2, future=df)["load"].tolist()
    [9.0, 11.0]
    """

    _scale_targets = False

    def __init__(
        self, column: str | list = "forecast", nan_policy: str = "raise", fill_gaps: bool = False
    ):
        self.column = column
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _forecast_columns(self) -> list:
        column = self.column
        columns = [column] if isinstance(column, str) else column
        if not isinstance(columns, list | tuple) or not columns:
            raise TypeError(f"column must be a column name or a list of names, got {column!r}")
        return list(columns)

    def _covariate_names(self) -> tuple[list, list]:
        return self._forecast_columns(), []

    def _scale_covariates(self, frame: pd.DataFrame, columns: list) -> np.ndarray:
        # The forecast column is passed through unscaled so that predict returns it exactly.
        return frame[columns].to_numpy(dtype=float)

    def _fill(self, frame, key, targets, covariates):
        # Nothing in the history is used: only the forecast column at forecast timestamps,
        # which _predict checks. "interpolate" fills the forecast column in time.
        policy = self._param("nan_policy", "raise")
        if policy not in V.NAN_POLICIES:
            raise ValueError(f"nan_policy must be one of {V.NAN_POLICIES}, got {policy!r}")
        if policy == "raise" and not self._param("fill_gaps", False):
            return frame
        return V.check_finite(frame, covariates, "interpolate", key, "forecast")

    def _min_train_length(self) -> int:
        return 1

    def _keep_history(self) -> int:
        return 1

    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
        columns = self._forecast_columns()
        if len(columns) != len(self.columns_):
            raise ValueError(
                f"column={columns} names {len(columns)} forecast column(s) for the "
                f"{len(self.columns_)} target(s) {self.columns_}: give one per target, in order"
            )

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        k = len(self.columns_)
        out = np.stack([s.future_steps(horizon)[:, :k] for s in series])  # (N, H, C)
        bad = ~np.isfinite(out)
        if bad.any():
            i, h, c = np.argwhere(bad)[0]
            s = series[i]
            stamp = V.future_index(s.index[-1], self.freq_, horizon)[h]
            raise ValueError(
                f"{V._where(s.key)}forecast column {self.future_covariates_[c]!r} has no value "
                f"({out[i, h, c]}) at forecast timestamp {stamp} (forecast issued after "
                f"{s.index[-1]}); {int(bad.sum())} missing forecast value(s) in all: pass "
                "nan_policy='interpolate' to interpolate them"
            )
        return out
