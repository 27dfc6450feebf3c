"""statsmodels baselines: Holt-Winters (ETS), SARIMAX and MSTL.

Each is fitted per series and channel and forecasts by re-applying the fitted parameters
to the history it is given (see :mod:`forecast.models.baselines._per_series`).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from forecast.models.baselines import _statsmodels as S
from forecast.models.baselines._math import season_steps, to_steps
from forecast.models.baselines._per_series import StatsBaseline, int_tuple


class ETSForecaster(StatsBaseline):
    """Holt-Winters exponential smoothing (statsmodels ``ExponentialSmoothing``).

    Smoothing parameters are estimated per series and channel in ``fit``. A forecast runs
    the smoothing recursions with those parameters over the history it is given; the initial
    states come from that history (heuristic initialisation, or, with
    ``initialization_method="estimated"``, re-optimised with the smoothing parameters
    fixed, which is slower). With the heuristic, ``predict()`` and
    ``predict(history=training_frame)`` agree exactly.

    Parameters
    ----------
    trend : {None, "add", "mul"}, default=None
        Trend component.
    damped_trend : bool, default=False
        Damp the trend.
    seasonal : {None, "add", "mul"}, default="add"
        Seasonal component.
    seasonal_periods : int or str, default="1D"
        Season length in steps or as a time span of the data frequency.
    initialization_method : {"heuristic", "estimated"}, default="heuristic"
        How initial states are obtained.
    train_window : int or str, optional
        Fit on (and forecast from) only the last ``train_window`` of each series.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing target values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

    Attributes
    ----------
    params_ : dict
        Per series id, a list with one dict of smoothing parameters per channel.
    spec_ : dict
        Validated settings with periods in steps.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import ETSForecaster
    >>> index = pd.date_range("2023-01-01", periods=24 * 14, freq="h")
    >>> load = 10 + np.sin(2 * np.pi * np.arange(len(index)) / 24)
    >>> df = pd.DataFrame({"load": load}, index=index)
    >>> fc = ETSForecaster(seasonal="add", seasonal_periods="1D").fit(df).predict(horizon=24)
    >>> fc.shape
    (24, 1)
    """

    def __init__(
        self,
        trend: str | None = None,
        damped_trend: bool = False,
        seasonal: str | None = "add",
        seasonal_periods: int | str = "1D",
        initialization_method: str = "heuristic",
        train_window: int | str | None = None,
        nan_policy: str = "raise",
        fill_gaps: bool = False,
    ):
        self.trend = trend
        self.damped_trend = damped_trend
        self.seasonal = seasonal
        self.seasonal_periods = seasonal_periods
        self.initialization_method = initialization_method
        self.train_window = train_window
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _spec(self) -> dict[str, Any]:
        for name in ("trend", "seasonal"):
            value = getattr(self, name)
            if value not in (None, "add", "mul"):
                raise ValueError(f"{name} must be None, 'add' or 'mul', got {value!r}")
        if self.damped_trend and self.trend is None:
            raise ValueError("damped_trend=True needs a trend ('add' or 'mul')")
        if self.initialization_method not in ("heuristic", "estimated"):
            raise ValueError(
                "initialization_method must be 'heuristic' or 'estimated', got "
                f"{self.initialization_method!r}"
            )
        periods = None
        if self.seasonal is not None:
            periods = season_steps(self.seasonal_periods, self.freq_, "seasonal_periods")
        return {
            "trend": self.trend,
            "damped_trend": bool(self.damped_trend),
            "seasonal": self.seasonal,
            "seasonal_periods": periods,
            "initialization_method": self.initialization_method,
        }

    def _spec_min_history(self, spec: dict[str, Any]) -> int:
        return S.ets_min_history(spec)

    def _fit_one(self, y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]) -> Any:
        return S.ets_fit(y, spec)

    def _forecast_one(
        self,
        y: np.ndarray,
        exog: np.ndarray | None,
        exog_future: np.ndarray | None,
        spec: dict[str, Any],
        params: Any,
        horizon: int,
    ) -> np.ndarray:
        return S.ets_forecast(y, spec, params, horizon)


class SARIMAXForecaster(StatsBaseline):
    """Seasonal ARIMA with exogenous regressors (statsmodels ``SARIMAX``).

    The regressors are the declared ``future_covariates`` (standardised) followed by the
    calendar features when ``calendar=True``; their values for the forecast timestamps are
    passed to ``predict(future=...)``. A forecast runs the Kalman filter with the fitted
    parameters over the history it is given (as ``SARIMAXResults.apply`` does), no refit.

    Parameters
    ----------
    order : tuple of 3 ints, default=(1, 0, 0)
        Non-seasonal ``(p, d, q)``.
    seasonal_order : tuple, default=(0, 0, 0, 0)
        Seasonal ``(P, D, Q, s)``; ``s`` in steps or as a time span such as ``"1D"``.
    trend : str, optional
        statsmodels trend term (``"c"``, ``"t"``, ``"ct"``).
    future_covariates : list of str, optional
        Columns known in advance, used as regressors.
    calendar : bool, default=False
        Add calendar and holiday features as regressors.
    country : str, optional
        Holiday calendar of the calendar features, such as ``"DE"``.
    timezone : str, optional
        Local time zone of the calendar features.
    maxiter : int, default=50
        Optimiser iterations.
    train_window : int or str, optional
        Fit on (and forecast from) only the last ``train_window`` of each series.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

    Attributes
    ----------
    params_ : dict
        Per series id, a list with one parameter vector per channel.
    spec_ : dict
        Validated settings with the season in steps.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import SARIMAXForecaster
    >>> index = pd.date_range("2023-01-01", periods=200, freq="h")
    >>> noise = np.random.default_rng(0).standard_normal(200)
    >>> df = pd.DataFrame({"load": 10 + noise}, index=index)
    >>> SARIMAXForecaster(order=(1, 0, 0), trend="c").fit(df).predict(horizon=5).shape
    (5, 1)
    """

    def __init__(
        self,
        order: tuple[int, int, int] = (1, 0, 0),
        seasonal_order: tuple[int, int, int, int | str] = (0, 0, 0, 0),
        trend: str | None = None,
        future_covariates: list[str] | None = None,
        calendar: bool = False,
        country: str | None = None,
        timezone: str | None = None,
        maxiter: int = 50,
        train_window: int | str | None = None,
        nan_policy: str = "raise",
        fill_gaps: bool = False,
    ):
        self.order = order
        self.seasonal_order = seasonal_order
        self.trend = trend
        self.future_covariates = future_covariates
        self.calendar = calendar
        self.country = country
        self.timezone = timezone
        self.maxiter = maxiter
        self.train_window = train_window
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _spec(self) -> dict[str, Any]:
        order = int_tuple(self.order, 3, "order")
        big_p, big_d, big_q, s = int_tuple(self.seasonal_order, 4, "seasonal_order")
        if big_p or big_d or big_q:
            s = season_steps(s, self.freq_, "seasonal_order[3]")
        else:
            s = 0
        return {
            "order": order,
            "seasonal_order": (big_p, big_d, big_q, s),
            "trend": self.trend,
            "maxiter": int(self.maxiter),
        }

    def _spec_min_history(self, spec: dict[str, Any]) -> int:
        return S.sarimax_min_history(spec)

    def _fit_one(self, y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]) -> Any:
        return S.sarimax_fit(y, exog, spec)

    def _forecast_one(
        self,
        y: np.ndarray,
        exog: np.ndarray | None,
        exog_future: np.ndarray | None,
        spec: dict[str, Any],
        params: Any,
        horizon: int,
    ) -> np.ndarray:
        return S.sarimax_forecast(y, exog, exog_future, spec, params, horizon)


class MSTLForecaster(StatsBaseline):
    """MSTL decomposition with several seasons, each continued by seasonal naive.

    Each history is decomposed by statsmodels ``MSTL`` into one seasonal component per
    period plus trend and remainder. The forecast is the sum of (a) each seasonal
    component's last cycle repeated (seasonal naive per component) and (b) a forecast of the
    deseasonalised series (trend + remainder) by ``trend_model``: damped additive Holt
    smoothing (``"ets"``), an ARIMA of ``arima_order`` (``"arima"``) or its last value
    (``"naive"``). The trend model's parameters are estimated in ``fit``; every forecast
    re-runs the decomposition on its own history and re-applies them.

    The decomposition costs seconds on years of hourly data and is repeated for each
    forecast, hence the default ``train_window`` of eight weeks.

    Parameters
    ----------
    periods : sequence of int or str, default=("1D", "7D")
        Seasonal periods in steps or as time spans of the data frequency.
    trend_model : {"ets", "arima", "naive"}, default="ets"
        Model of the deseasonalised series.
    arima_order : tuple of 3 ints, default=(1, 1, 1)
        ARIMA order used when ``trend_model="arima"``.
    train_window : int or str or None, default="56D"
        Fit on (and forecast from) only the last ``train_window`` of each series.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing target values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

    Attributes
    ----------
    params_ : dict
        Per series id, a list with the trend model's parameters per channel.
    spec_ : dict
        Validated settings with periods in steps.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import MSTLForecaster
    >>> index = pd.date_range("2023-01-01", periods=24 * 21, freq="h")
    >>> t = np.arange(len(index))
    >>> df = pd.DataFrame({"load": 10 + np.sin(2 * np.pi * t / 24) + np.sin(2 * np.pi * t / 168)},
    ...                   index=index)
    >>> MSTLForecaster(periods=("1D", "7D")).fit(df).predict(horizon=24).shape
    (24, 1)
    """

    def __init__(
        self,
        periods: tuple[int | str, ...] = ("1D", "7D"),
        trend_model: str = "ets",
        arima_order: tuple[int, int, int] = (1, 1, 1),
        train_window: int | str | None = "56D",
        nan_policy: str = "raise",
        fill_gaps: bool = False,
    ):
        self.periods = periods
        self.trend_model = trend_model
        self.arima_order = arima_order
        self.train_window = train_window
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _spec(self) -> dict[str, Any]:
        if isinstance(self.periods, str | numbers.Integral) or not self.periods:
            raise ValueError(f"periods must be a non-empty list of periods, got {self.periods!r}")
        periods = [to_steps(p, self.freq_, "periods") for p in self.periods]
        if min(periods) < 2 or len(set(periods)) != len(periods):
            raise ValueError(f"periods must be distinct and at least 2 steps, got {periods} steps")
        if self.trend_model not in ("ets", "arima", "naive"):
            raise ValueError(
                f"trend_model must be 'ets', 'arima' or 'naive', got {self.trend_model!r}"
            )
        return {
            "periods": sorted(periods),
            "trend_model": self.trend_model,
            "arima_order": int_tuple(self.arima_order, 3, "arima_order"),
        }

    def _spec_min_history(self, spec: dict[str, Any]) -> int:
        return max(S.mstl_min_history(spec), 10)

    def _fit_one(self, y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]) -> Any:
        return S.mstl_fit(y, spec)

    def _forecast_one(
        self,
        y: np.ndarray,
        exog: np.ndarray | None,
        exog_future: np.ndarray | None,
        spec: dict[str, Any],
        params: Any,
        horizon: int,
    ) -> np.ndarray:
        return S.mstl_forecast(y, spec, params, horizon)
