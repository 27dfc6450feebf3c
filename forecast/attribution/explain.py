"""``explain``: the contribution of each input to each step of a forecast, as a tidy frame.

An estimator says how its forecast decomposes through its hook ``_decompose(series,
horizon)`` (:mod:`forecast.frames.decomposition`): its own terms (a ``Decomposition``, such
as the linear-lag model's), a differentiable function of its inputs (a
``DifferentiableForecast``, the networks', whose gradients ``explain`` integrates), or it
raises ``NotDecomposable`` and ``explain`` samples Shapley values of its forecast. ``explain``
asks every estimator the same way and knows none of their classes.
"""

from __future__ import annotations

import numbers
import time
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from forecast.attribution.gradients import integrated_gradients
from forecast.attribution.inputs import encode_one, tidy
from forecast.attribution.shapley import explain_shapley
from forecast.base import BaseForecaster
from forecast.frames import validation
from forecast.frames.decomposition import (
    Decomposition,
    DifferentiableForecast,
    NotDecomposable,
    no_exact_terms,
)
from forecast.frames.origins import origin_index
from forecast.frames.series import SeriesArrays

METHODS = ("auto", "integrated_gradients", "exact", "shapley")


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def _answer(
    model: BaseForecaster, arrays: SeriesArrays, horizon: int, method: str
) -> Decomposition | DifferentiableForecast | None:
    """Return the estimator's answer to its hook that ``method`` takes; None: sample it.

    Raises
    ------
    NotDecomposable
        If ``method`` asks for an answer the estimator does not give.
    """
    name = type(model).__name__
    answer: Decomposition | DifferentiableForecast | None
    refusal: NotDecomposable | None = None
    try:
        answer = model._decompose(arrays, horizon)
    except NotDecomposable as error:
        if method == "exact":
            raise
        answer, refusal = None, error  # "auto" samples; "integrated_gradients" refuses below
    if method == "exact" and not isinstance(answer, Decomposition):
        raise no_exact_terms(name)
    if method == "integrated_gradients" and not isinstance(answer, DifferentiableForecast):
        raise NotDecomposable(
            f"method='integrated_gradients' needs a neural forecaster, not {name}"
        ) from refusal
    return answer


def _check_array_path(model: BaseForecaster) -> None:
    hooks = ("_predict_frames", "_predict")
    if getattr(type(model), hooks[0]) is not BaseForecaster._predict_frames or (
        getattr(type(model), hooks[1]) is BaseForecaster._predict
    ):
        raise TypeError(
            f"explain needs an estimator that forecasts from its own arrays; "
            f"{type(model).__name__} combines or wraps other forecasts: explain its members"
        )


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _one(
    model: BaseForecaster,
    history: pd.DataFrame,
    future: Any,
    horizon: int,
    method: str,
    options: dict[str, Any],
) -> pd.DataFrame:
    arrays, times = encode_one(model, history, future, horizon)
    answer = None if method == "shapley" else _answer(model, arrays, horizon, method)
    if answer is None:
        terms = explain_shapley(
            model, arrays, times, options["window"], options["n_samples"], options["seed"]
        )
    elif isinstance(answer, DifferentiableForecast):
        terms = integrated_gradients(answer, n_steps=options["n_steps"])
    else:
        terms = answer
    frame = tidy(terms, times, model.columns_, arrays.index[-1])
    frame.attrs["method"] = terms.method
    frame.attrs["baseline"] = terms.baseline_text
    return frame


def explain(
    model: BaseForecaster,
    history: pd.DataFrame | None = None,
    future: pd.DataFrame | None = None,
    *,
    horizon: int = 1,
    origins: list[Any] | pd.DatetimeIndex | None = None,
    method: str = "auto",
    n_steps: int = 64,
    n_samples: int = 10,
    window: int | None = None,
    seed: int = 0,
    max_horizon: int | None = validation.MAX_HORIZON,
) -> pd.DataFrame:
    """Attribute each step of a forecast to the inputs it read.

    The contributions of a forecast add up to the forecast minus the forecast of a
    documented baseline input (``attrs["baseline"]``), step by step and channel by channel.
    How is the estimator's to say, through its decomposition hook ``_decompose``
    (:mod:`forecast.frames.decomposition`): the neural estimators give their forecast as a
    differentiable function of their inputs, roll-out and inverse scaling included, and are
    explained by integrated gradients (Captum); a
    :class:`~forecast.models.baselines.LinearLagForecaster` gives the exact decomposition of
    its regression terms; every other estimator is explained by sampled Shapley values of
    its own forecast (exact completeness). See the guide page "Explaining a forecast".

    Parameters
    ----------
    model : BaseForecaster
        A fitted estimator of one series.
    history : DataFrame, optional
        History to forecast from, as ``predict(history=...)``; defaults to the data seen in
        ``fit``. With ``origins``, the data the origins cut (actuals after an origin are
        never read, except the declared future covariates of its forecast steps).
    future : DataFrame, optional
        Values of the declared future covariates, as ``predict(future=...)``.
    horizon : int, default=1
        Steps forecast and explained; checked first, as ``predict`` checks it.
    origins : list of timestamps, optional
        Explain the forecast issued at each origin (the last observed timestamp) instead
        of one forecast after the end of ``history``.
    method : {"auto", "integrated_gradients", "exact", "shapley"}, default="auto"
        "auto": what the estimator's hook gives: integrated gradients of a differentiable
        forecast (the networks), the estimator's own terms (the exact terms of a linear-lag
        model within its direct leads), sampled Shapley values where it gives neither.
        "exact": the estimator's own terms only. "integrated_gradients": a differentiable
        forecast only. "shapley": sampled, whatever the estimator.
    n_steps : int, default=64
        Integration steps of integrated gradients.
    n_samples : int, default=10
        Input orders of the Shapley sampling.
    window : int, optional
        History rows attributed by the Shapley sampling (default: the rows the model needs).
    seed : int, default=0
        Seed of the Shapley sampling.
    max_horizon : int or None, default=10000
        Largest ``horizon`` accepted, as for ``predict`` (None: no limit).

    Returns
    -------
    DataFrame
        One row per forecast step, target and input, with columns ``origin``, ``time``,
        ``lead``, ``target``, ``input_kind`` ("lag", "past covariate", "future covariate",
        "calendar"), ``input``, ``input_time``, ``input_step`` (0: the origin, negative:
        before, ``j``: forecast step ``j``), ``contribution`` (target units), ``forecast`` and
        ``baseline`` (the baseline input's forecast). ``attrs`` holds ``method``,
        ``baseline`` (its description), ``completeness_gap`` (the largest absolute
        difference between the summed contributions and ``forecast - baseline``) and
        ``seconds`` (per explained forecast).

    Raises
    ------
    ImportError
        If Captum (the extra ``forecast-toolkit[explain]``) is needed and missing.
    TypeError
        If ``model`` combines other forecasts (ensembles, conformal wrappers).
    NotDecomposable
        With ``method="exact"`` or ``"integrated_gradients"``, if the estimator gives no
        such decomposition of this forecast
        (:class:`~forecast.frames.decomposition.NotDecomposable`, a ValueError that says why).

    Examples
    --------
    >>> from forecast.attribution import explain
    >>> table = explain(model, history, horizon=24)  # doctest: +SKIP
    >>> table.groupby("input_kind").contribution.sum()  # doctest: +SKIP
    """
    horizon = validation.check_horizon(horizon, max_horizon)  # first: before any work
    check_is_fitted(model, "columns_")
    _check_array_path(model)
    _check_method(method)
    options = {
        "n_steps": _positive(n_steps, "n_steps"),
        "n_samples": _positive(n_samples, "n_samples"),
        "window": None if window is None else _positive(window, "window"),
        "seed": seed,
    }
    if history is None:
        if len(model.train_tail_) != 1:
            raise ValueError("the model was fitted on several series: pass history= of one")
        history = next(iter(model.train_tail_.values()))
    if origins is None:
        cuts = [(history, future)]
    else:
        stamps = origin_index(origins, model.tz_)  # the zone rule of predict_origins
        cuts = [_cut(model, history, future, origin) for origin in stamps]
    started = time.perf_counter()
    frames = [_one(model, h, f, horizon, method, options) for h, f in cuts]
    seconds = (time.perf_counter() - started) / len(frames)
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    out.attrs = {
        "method": frames[0].attrs["method"],
        "baseline": frames[0].attrs["baseline"],
        "completeness_gap": completeness_gap(out),
        "seconds": seconds,
    }
    return out


def _cut(
    model: BaseForecaster, data: pd.DataFrame, future: Any, origin: pd.Timestamp
) -> tuple[pd.DataFrame, Any]:
    """History up to ``origin`` and the future covariates after it (from ``data``)."""
    if not isinstance(data, pd.DataFrame) or not isinstance(data.index, pd.DatetimeIndex):
        raise TypeError("with origins, history must be one DataFrame with a DatetimeIndex")
    if origin not in data.index:
        raise ValueError(f"origin {origin} is not a timestamp of history")
    if future is None and model.future_covariates_:
        future = data.loc[data.index > origin, model.future_covariates_]
    return data.loc[data.index <= origin], future


def completeness_gap(frame: pd.DataFrame) -> float:
    """Return the largest ``|sum of contributions - (forecast - baseline)|`` of ``frame``."""
    keys = ["origin", "lead", "target"]
    grouped = frame.groupby(keys, sort=False).agg(
        total=("contribution", "sum"), forecast=("forecast", "first"), base=("baseline", "first")
    )
    gap = grouped["total"] - (grouped["forecast"] - grouped["base"])
    return float(np.abs(gap).max()) if len(gap) else 0.0
