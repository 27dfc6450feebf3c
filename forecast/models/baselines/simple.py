"""Baselines without estimated parameters: naive, seasonal naive and an external forecast."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from forecast import _validation as V
from forecast.base import BaseForecaster, SeriesArrays
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

    Step ``j`` of the forecast is the mean of the values exactly ``k`` seasons before it,
    ``k = 1 .. n_seasons``, taken from the last ``n_seasons`` seasons of the history; a
    horizon longer than the season repeats the same profile.

    The season is converted to a number of steps of the fitted frequency, so on a tz-aware
    hourly index ``"1D"`` means 24 steps (24 elapsed hours): on the day after a daylight-saving
    change the forecast comes from the same UTC hour, one hour away in local time.

    Parameters
    ----------
    season : int or str, default="7D"
        Season length, as a time span (``"1D"``, ``"7D"``, a whole multiple of the data
        frequency) or as an int number of steps.
    n_seasons : int, default=1
        Number of past seasons averaged.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing target values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

    Attributes
    ----------
    season_steps_ : int
        Season length in steps.
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
        nan_policy: str = "raise",
        fill_gaps: bool = False,
    ):
        self.season = season
        self.n_seasons = n_seasons
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _needed(self) -> tuple[int, int]:
        """Season in steps and number of seasons, validated against the fitted frequency."""
        n = self.n_seasons
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n_seasons must be a positive int, got {n!r}")
        return to_steps(self.season, self.freq_, "season"), int(n)

    def _min_train_length(self) -> int:
        return 1  # the real requirement depends on the frequency; checked in _fit

    def _min_history(self) -> int:
        return self.season_steps_ * int(self.n_seasons)

    def _keep_history(self) -> int:
        steps, n = self._needed()
        return steps * n

    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
        steps, n = self._needed()
        for s in series:
            V.check_length(len(s.y), steps * n, s.key, f"{n} season(s) of {steps} steps")
        self.season_steps_ = steps

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        steps, n = self.season_steps_, int(self.n_seasons)
        return np.stack([seasonal_naive_forecast(s.y, horizon, steps, n) for s in series])


class ExternalForecast(BaseForecaster):
    """A forecast column already in the data, wrapped as a model scored like any other.

    Typical use: the grid operators' own day-ahead load forecast published next to the load.
    The forecast column is a future-known covariate (``future_covariates`` is ``column``);
    every other column is a target. ``predict`` returns the column's values at the forecast
    timestamps, read unscaled, so the output equals the column exactly.

    Parameters
    ----------
    column : str or list of str, default="forecast"
        Forecast column(s). With several targets give one column per target, in the order
        of the target columns.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing values in the history.
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
        return np.stack([s.future_steps(horizon)[:, :k] for s in series])
