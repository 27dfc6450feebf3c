"""Shared machinery of the statsmodels baselines: per-series, per-channel parameters.

Each model is fitted per series and per channel. Only the estimated parameters are kept;
every forecast re-applies them to the history it is given (the training tail, a new frame
passed to ``predict(history=...)``, or each origin of ``predict_origins``), so forecasting
from new data never refits. ``train_window`` bounds both the fitting data and the history a
forecast is filtered from.

statsmodels works on many tiny matrices; a multi-threaded BLAS then spends its time
synchronising threads (10-30 times slower on a busy two-core machine), so every engine call
runs with BLAS limited to one thread.
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from threadpoolctl import threadpool_limits

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.steps import steps
from forecast.models.baselines._statsmodels import Engine


def int_tuple(value: object, length: int, name: str) -> tuple[Any, ...]:
    """Check a model order such as ``(p, d, q)``: ``length`` values, the first three ints."""
    if not isinstance(value, list | tuple) or len(value) != length:
        raise ValueError(f"{name} must be a tuple of {length} values, got {value!r}")
    for v in value[:3]:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
            raise ValueError(f"{name} must hold non-negative ints, got {value!r}")
    return tuple(value)


def _recent(s: SeriesArrays, window: int | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Cut the targets and covariates of ``s`` to their last ``window`` rows (None: all)."""
    n_rows = len(s.y)
    exog = None if s.future is None else s.future[:n_rows]
    if not window:
        return s.y, exog
    return s.y[-window:], None if exog is None else exog[-window:]


class StatsBaseline(BaseForecaster):
    """Per-series, per-channel statsmodels model: subclasses supply the spec and the engine."""

    _scale_targets = False
    _update_rule = "extend"  # update: the fitted state stays, new rows extend the history kept
    _engine: ClassVar[Engine]  # the model's fit, forecast and min_history, set by each subclass
    train_window: int | str | None  # a parameter each subclass declares
    spec_: dict[str, Any]  # set by fit: the model's specification

    def _spec(self) -> dict[str, Any]:
        """Return the validated settings, periods in steps of ``freq_`` (called by fit)."""
        raise NotImplementedError

    # --------------------------------------------------------------- hooks
    def _window(self) -> int | None:
        window = self.train_window
        return None if window is None else steps(window, "train_window", self.freq_)

    def _min_train_length(self) -> int:
        return 1  # depends on the frequency; checked in _fit

    def _min_history(self) -> int:
        return self._engine.min_history(self.spec_)

    def _keep_history(self) -> int | None:
        return self._window()

    def _fit(self, series: list[SeriesArrays], callbacks: list[Any]) -> None:
        spec = self._spec()
        need = self._engine.min_history(spec)
        window = self._window()
        if window is not None and window < need:
            raise ValueError(
                f"train_window={self.train_window!r} is {window} steps, below the "
                f"{need} steps this model needs"
            )
        params = {}
        for s in series:
            y, exog = _recent(s, window)
            reason = f"{type(self).__name__} with these settings"
            validation.check_length(len(y), need, s.key, reason)
            with threadpool_limits(limits=1, user_api="blas"):
                params[s.key] = [self._engine.fit(y[:, c], exog, spec) for c in range(y.shape[1])]
        self.spec_ = spec
        self.params_ = params

    def _predict(self, series: list[SeriesArrays], horizon: int) -> np.ndarray:
        window = self._window()
        out = np.empty((len(series), horizon, len(self.columns_)))  # (N, H, C)
        for i, s in enumerate(series):
            if s.key not in self.params_:
                raise ValueError(
                    f"series {s.key!r} was not seen in fit; {type(self).__name__} is fitted per "
                    f"series (fitted: {list(self.params_)})"
                )
            y, exog = _recent(s, window)
            exog_future = s.future_steps(horizon)
            with threadpool_limits(limits=1, user_api="blas"):
                for c, params in enumerate(self.params_[s.key]):
                    out[i, :, c] = self._engine.forecast(
                        y[:, c], exog, exog_future, self.spec_, params, horizon
                    )
        return out
