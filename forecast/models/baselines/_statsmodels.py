"""statsmodels engines as pure functions of (settings, parameters, history).

Each model has a ``*_fit`` function that estimates parameters on one univariate history and a
``*_forecast`` function that re-applies those parameters to any history (the training one or
a new one) and forecasts. Only numbers are kept between the two, never a statsmodels results
object, so fitted estimators stay small and picklable. statsmodels is imported inside each
function. Every model's functions take the same arguments (those without regressors ignore
``exog``), so one :class:`Engine` per model is all an estimator names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, cast

import numpy as np

from forecast.models.baselines._math import seasonal_components_forecast

_SMOOTHING = ("smoothing_level", "smoothing_trend", "smoothing_seasonal", "damping_trend")


class Engine(NamedTuple):
    """One statsmodels model as three pure functions, with the same arguments for every model.

    Attributes
    ----------
    fit : callable
        ``fit(y, exog, spec) -> params``: estimate the parameters on ``y`` (T,) and the
        regressors ``exog`` (T, F) or None.
    forecast : callable
        ``forecast(y, exog, exog_future, spec, params, horizon) -> (horizon,)``: re-apply
        ``params`` to the history ``y`` and forecast.
    min_history : callable
        ``min_history(spec) -> int``: rows one fit or forecast needs.
    """

    fit: Callable[[np.ndarray, np.ndarray | None, dict[str, Any]], Any]
    forecast: Callable[
        [np.ndarray, np.ndarray | None, np.ndarray | None, dict[str, Any], Any, int], np.ndarray
    ]
    min_history: Callable[[dict[str, Any]], int]


# ------------------------------------------------------------------------ ETS
def _ets_model(y: np.ndarray, spec: dict[str, Any]) -> Any:
    from statsmodels.tsa.holtwinters import ExponentialSmoothing  # heavy engine: imported when used

    return ExponentialSmoothing(
        y,
        trend=spec["trend"],
        damped_trend=spec["damped_trend"],
        seasonal=spec["seasonal"],
        seasonal_periods=spec["seasonal_periods"],
        initialization_method=spec["initialization_method"],
    )


def ets_fit(y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]) -> dict[str, float]:
    """Estimate the smoothing parameters of a Holt-Winters model on ``y`` (T,).

    ``spec`` holds ``trend``, ``damped_trend``, ``seasonal``, ``seasonal_periods`` (steps)
    and ``initialization_method`` (``"heuristic"`` or ``"estimated"``). Returns the smoothing
    parameters the model uses (level, and trend/seasonal/damping where present).
    """
    params = _ets_model(y, spec).fit().params
    found = {k: params.get(k) for k in _SMOOTHING}
    return {k: float(v) for k, v in found.items() if v is not None and np.isfinite(v)}


def ets_forecast(
    y: np.ndarray,
    exog: np.ndarray | None,
    exog_future: np.ndarray | None,
    spec: dict[str, Any],
    params: dict[str, float],
    horizon: int,
) -> np.ndarray:
    """Filter ``y`` (T,) with fixed smoothing parameters and forecast ``horizon`` steps.

    The initial states are derived from ``y`` itself: by the heuristic of Hyndman and
    Athanasopoulos (no optimisation), or, with ``"estimated"``, by optimising them alone
    while the smoothing parameters stay fixed.
    """
    model = _ets_model(y, spec)
    if spec["initialization_method"] == "heuristic":
        result = model.fit(**params, optimized=False)
    else:
        with model.fix_params(params):
            result = model.fit()
    return np.asarray(result.forecast(horizon), dtype=float)


def ets_min_history(spec: dict[str, Any]) -> int:
    """Rows the heuristic initialisation needs (also used for ``"estimated"``)."""
    m = spec["seasonal_periods"]
    if not spec["seasonal"]:
        return 10
    return max(10, 2 * m, 10 + 2 * (m // 2))


# -------------------------------------------------------------------- SARIMAX
def _sarimax_model(y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]) -> Any:
    from statsmodels.tsa.statespace.sarimax import SARIMAX  # heavy engine: imported when used

    return SARIMAX(
        y,
        exog=exog,
        order=spec["order"],
        seasonal_order=spec["seasonal_order"],
        trend=spec["trend"],
    )


def sarimax_fit(y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]) -> np.ndarray:
    """Maximum-likelihood parameters of a SARIMAX model on ``y`` (T,) and ``exog`` (T, F)."""
    result = _sarimax_model(y, exog, spec).fit(disp=False, maxiter=spec["maxiter"])
    return np.asarray(result.params, dtype=float)


def sarimax_forecast(
    y: np.ndarray,
    exog: np.ndarray | None,
    exog_future: np.ndarray | None,
    spec: dict[str, Any],
    params: np.ndarray,
    horizon: int,
) -> np.ndarray:
    """Run the Kalman filter over ``y`` with fixed ``params`` and forecast ``horizon`` steps.

    This is what ``SARIMAXResults.apply(y, exog, refit=False)`` does, built from the model.
    """
    result = _sarimax_model(y, exog, spec).filter(params)
    return np.asarray(result.forecast(horizon, exog=exog_future), dtype=float)


def sarimax_min_history(spec: dict[str, Any]) -> int:
    """Return a lower bound on the rows of one SARIMAX fit: differencing, lag span, plus 2."""
    p, d, q = spec["order"]
    big_p, big_d, big_q, s = spec["seasonal_order"]
    return d + big_d * s + max(p + big_p * s, q + big_q * s) + 2


# ----------------------------------------------------------------------- MSTL
def mstl_decompose(y: np.ndarray, periods: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """MSTL decomposition of ``y`` (T,): seasonal components (T, K) and trend + remainder (T,)."""
    from statsmodels.tsa.seasonal import MSTL  # heavy engine: imported when used

    result = MSTL(y, periods=list(periods)).fit()
    seasonal = np.asarray(result.seasonal, dtype=float).reshape(len(y), -1)  # (T, K)
    return seasonal, y - seasonal.sum(axis=1)


def _deseasonal_model(z: np.ndarray, spec: dict[str, Any]) -> Any:
    if spec["trend_model"] == "ets":
        # heavy engine: imported when used
        from statsmodels.tsa.holtwinters import ExponentialSmoothing

        return ExponentialSmoothing(
            z, trend="add", damped_trend=True, initialization_method="heuristic"
        )
    from statsmodels.tsa.arima.model import ARIMA  # heavy engine: imported when used

    return ARIMA(z, order=spec["arima_order"])


def mstl_fit(
    y: np.ndarray, exog: np.ndarray | None, spec: dict[str, Any]
) -> dict[str, float] | np.ndarray | None:
    """Decompose ``y`` and fit the model of the deseasonalised series (trend + remainder)."""
    _, z = mstl_decompose(y, spec["periods"])
    if spec["trend_model"] == "naive":
        return None
    result = _deseasonal_model(z, spec).fit()
    if spec["trend_model"] == "ets":
        return {k: float(result.params[k]) for k in _SMOOTHING[:2] + _SMOOTHING[3:]}
    return np.asarray(result.params, dtype=float)


def mstl_forecast(
    y: np.ndarray,
    exog: np.ndarray | None,
    exog_future: np.ndarray | None,
    spec: dict[str, Any],
    params: dict[str, float] | np.ndarray | None,
    horizon: int,
) -> np.ndarray:
    """Decompose ``y``, continue each seasonal component by seasonal naive, add the trend model.

    The deseasonalised series is forecast by its last value (``"naive"``), damped Holt
    smoothing (``"ets"``) or an ARIMA (``"arima"``), with the fitted parameters re-applied.
    """
    seasonal, z = mstl_decompose(y, spec["periods"])
    # MSTL returns the components in increasing order of period.
    season_part = seasonal_components_forecast(seasonal, sorted(spec["periods"]), horizon)
    if spec["trend_model"] == "naive":
        return season_part + z[-1]
    model = _deseasonal_model(z, spec)
    if spec["trend_model"] == "ets":
        # the ets trend model's params are its smoothing parameters by name
        result = model.fit(**cast(dict[str, float], params), optimized=False)
    else:
        result = model.filter(params)
    return season_part + np.asarray(result.forecast(horizon), dtype=float)


def mstl_min_history(spec: dict[str, Any]) -> int:
    """MSTL needs more than two cycles of the longest period, and 10 rows at least."""
    return max(2 * max(spec["periods"]) + 1, 10)


ETS = Engine(ets_fit, ets_forecast, ets_min_history)
SARIMAX = Engine(sarimax_fit, sarimax_forecast, sarimax_min_history)
MSTL = Engine(mstl_fit, mstl_forecast, mstl_min_history)
