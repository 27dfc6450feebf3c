"""Ridge regression on lagged values and calendar features, rolled out recursively."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.linear_model import Ridge

from forecast import _validation as V
from forecast.base import BaseForecaster, SeriesArrays
from forecast.models.baselines._math import lag_design, recursive_lag_forecast, to_steps


class LinearLagForecaster(BaseForecaster):
    """Linear autoregression on chosen lags plus calendar features, fitted with ridge.

    One scikit-learn ``Ridge`` per channel predicts the next value from that channel's
    values at ``lags`` and from the future-known regressors at the target time (declared
    ``future_covariates``, then calendar/holiday features when ``calendar=True``). The model
    is global: rows from every series are pooled. Forecasts are recursive: each predicted
    step is fed back as a lag for the next, so one model serves every horizon. Targets are
    standardised per channel before fitting (so ``alpha`` does not depend on the units).

    Parameters
    ----------
    lags : int or sequence of int or str, default=24
        An int ``k`` means lags ``1 .. k``; a sequence lists lags in steps or as time spans
        of the data frequency, e.g. ``(1, 2, "1D", "7D")``.
    alpha : float, default=1.0
        Ridge penalty.
    calendar : bool, default=True
        Use calendar and holiday features (:func:`forecast.features.calendar_features`).
    country : str, optional
        Holiday calendar, such as ``"DE"``.
    timezone : str, optional
        Local time zone of the calendar features.
    future_covariates : list of str, optional
        Columns known in advance, used at the target time.
    nan_policy : {"raise", "interpolate"}, default="raise"
        What to do with missing values.
    fill_gaps : bool, default=False
        Insert missing timestamps and interpolate them.

    Attributes
    ----------
    lags_ : ndarray of int
        Sorted lags in steps.
    coef_ : ndarray of shape (n_channels, n_lags + n_regressors)
        Coefficients per channel, lag terms first.
    intercept_ : ndarray of shape (n_channels,)
        Intercept per channel.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from forecast.models.baselines import LinearLagForecaster
    >>> index = pd.date_range("2023-01-01", periods=100, freq="h")
    >>> df = pd.DataFrame({"load": np.sin(np.arange(100) / 3)}, index=index)
    >>> model = LinearLagForecaster(lags=2, alpha=1e-6, calendar=False).fit(df)
    >>> model.predict(horizon=3).shape
    (3, 1)
    """

    _scale_targets = True

    def __init__(
        self,
        lags: int | tuple = 24,
        alpha: float = 1.0,
        calendar: bool = True,
        country: str | None = None,
        timezone: str | None = None,
        future_covariates: list | None = None,
        nan_policy: str = "raise",
        fill_gaps: bool = False,
    ):
        self.lags = lags
        self.alpha = alpha
        self.calendar = calendar
        self.country = country
        self.timezone = timezone
        self.future_covariates = future_covariates
        self.nan_policy = nan_policy
        self.fill_gaps = fill_gaps

    def _lag_steps(self) -> np.ndarray:
        lags = self.lags
        if isinstance(lags, numbers.Integral) and not isinstance(lags, bool):
            if lags < 1:
                raise ValueError(f"lags must be a positive int or a list of lags, got {lags}")
            return np.arange(1, int(lags) + 1)
        if isinstance(lags, str) or not isinstance(lags, list | tuple) or not lags:
            raise ValueError(
                f"lags must be a positive int or a non-empty list of lags, got {lags!r}"
            )
        return np.unique([to_steps(lag, self.freq_, "lags") for lag in lags])

    def _min_train_length(self) -> int:
        return 1  # depends on the frequency; checked in _fit

    def _min_history(self) -> int:
        return int(self.lags_.max())

    def _keep_history(self) -> int:
        return int(self._lag_steps().max())

    def _fit(self, series: list[SeriesArrays], callbacks: list) -> None:
        lags = self._lag_steps()
        alpha = self.alpha
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha < 0:
            raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
        for s in series:
            V.check_length(len(s.y), int(lags.max()) + 1, s.key, f"largest lag {lags.max()} + 1")
        n_channels = len(self.columns_)
        coefs, intercepts = [], []
        for c in range(n_channels):
            parts = [lag_design(s.y[:, c], lags, s.future) for s in series]
            x = np.concatenate([p[0] for p in parts])  # (rows, L + F)
            target = np.concatenate([p[1] for p in parts])  # (rows,)
            ridge = Ridge(alpha=float(alpha)).fit(x, target)
            coefs.append(ridge.coef_)
            intercepts.append(ridge.intercept_)
        self.lags_ = lags
        self.coef_ = np.stack(coefs)  # (C, L + F)
        self.intercept_ = np.asarray(intercepts, dtype=float)  # (C,)

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        width = int(self.lags_.max())
        tail = np.stack([s.y[-width:] for s in series])  # (N, L_max, C)
        exog = None
        if series[0].future is not None:
            exog = np.stack([s.future_steps(horizon) for s in series])  # (N, H, F)
        return recursive_lag_forecast(tail, self.lags_, self.coef_, self.intercept_, exog, horizon)
