"""statsmodels baselines: Holt-Winters (ETS), SARIMAX and MSTL.

Each is fitted per series and channel and forecasts by re-applying the fitted parameters
to the history it is given (see :mod:`forecast.models.baselines._per_series`).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

from forecast.frames.steps import steps
from forecast.models.baselines import _statsmodels as engines
from forecast.models.baselines._math import season_steps
from forecast.models.baselines._options import CovariateOptions, InputOptions
from forecast.models.baselines._per_series import StatsBaseline, int_tuple
from forecast.models.declare import declare_params, param


@declare_params()
class ETSForecaster(InputOptions, StatsBaseline):
    """Holt-Winters exponential smoothing (statsmodels ``ExponentialSmoothing``).

    Smoothing parameters are estimated per series and channel in ``fit``. A forecast runs
    the smoothing recursions with those parameters over the history it is given; the initial
    states come from that history (heuristic initialisation, or, with
    ``initialization_method="estimated"``, re-optimised with the smoothing parameters
    fixed, which is slower). With the heuristic, ``predict()`` and
    ``predict(history=training_frame)`` agree exactly.

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

    trend: Literal["add", "mul"] | None = param(
        default=None, type='{None, "add", "mul"}', doc="Trend component.", kw_only=False
    )
    damped_trend: bool = param(default=False, type="bool", doc="Damp the trend.", kw_only=False)
    seasonal: Literal["add", "mul"] | None = param(
        default="add", type='{None, "add", "mul"}', doc="Seasonal component.", kw_only=False
    )
    seasonal_periods: int | str = param(
        default="1D",
        type="int or str",
        doc="Season length in steps or as a time span of the data frequency.",
        kw_only=False,
    )
    initialization_method: Literal["heuristic", "estimated"] = param(
        default="heuristic",
        type='{"heuristic", "estimated"}',
        doc="How initial states are obtained.",
        kw_only=False,
    )
    train_window: int | str | None = param(
        default=None,
        type="int, str or None",
        doc="Fit on (and forecast from) only the last ``train_window`` of each series.",
        kw_only=False,
    )

    _engine = engines.ETS

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


@declare_params()
class SARIMAXForecaster(CovariateOptions, StatsBaseline):
    """Seasonal ARIMA with exogenous regressors (statsmodels ``SARIMAX``).

    The regressors are the declared ``future_covariates`` (standardised) followed by the
    calendar features when ``calendar=True``; their values for the forecast timestamps are
    passed to ``predict(future=...)``. A forecast runs the Kalman filter with the fitted
    parameters over the history it is given (as ``SARIMAXResults.apply`` does), no refit.

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

    order: tuple[int, int, int] = param(
        default=(1, 0, 0), type="tuple of 3 ints", doc="Non-seasonal ``(p, d, q)``.", kw_only=False
    )
    seasonal_order: tuple[int, int, int, int | str] = param(
        default=(0, 0, 0, 0),
        type="tuple",
        doc="""Seasonal ``(P, D, Q, s)``; ``s`` in steps or as a time span such as ``"1D"``.""",
        kw_only=False,
    )
    trend: str | None = param(
        default=None,
        type="str or None",
        doc="""statsmodels trend term (``"c"``, ``"t"``, ``"ct"``).""",
        kw_only=False,
    )
    calendar: bool = param(
        default=False,
        type="bool",
        doc="Add calendar and holiday features as regressors.",
        kw_only=False,
    )
    maxiter: int = param(default=50, type="int", doc="Optimiser iterations.", kw_only=False)
    train_window: int | str | None = param(
        default=None,
        type="int, str or None",
        doc="Fit on (and forecast from) only the last ``train_window`` of each series.",
        kw_only=False,
    )

    _engine = engines.SARIMAX

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


@declare_params()
class MSTLForecaster(InputOptions, StatsBaseline):
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

    periods: Sequence[int | str] = param(
        default=("1D", "7D"),
        type="sequence of int or str",
        doc="Seasonal periods in steps or as time spans of the data frequency.",
        kw_only=False,
    )
    trend_model: Literal["ets", "arima", "naive"] = param(
        default="ets",
        type='{"ets", "arima", "naive"}',
        doc="Model of the deseasonalised series.",
        kw_only=False,
    )
    arima_order: tuple[int, int, int] = param(
        default=(1, 1, 1),
        type="tuple of 3 ints",
        doc="""ARIMA order used when ``trend_model="arima"``.""",
        kw_only=False,
    )
    train_window: int | str | None = param(
        default="56D",
        type="int or str or None",
        doc="Fit on (and forecast from) only the last ``train_window`` of each series.",
        kw_only=False,
    )

    _engine = engines.MSTL

    def _spec(self) -> dict[str, Any]:
        if isinstance(self.periods, str | numbers.Integral) or not self.periods:
            raise ValueError(f"periods must be a non-empty list of periods, got {self.periods!r}")
        periods = [steps(p, "periods", self.freq_) for p in self.periods]
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
