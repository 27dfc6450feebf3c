"""Shapley values of any array-path forecast, by permutation sampling (model-agnostic).

The explained function is the estimator's own forecast (the pipeline's arrays-to-data-units
entry point, ``_predict_values``: ``_predict`` then the inverse scaling) of arrays in which
each input value of the last ``window`` history rows and of the forecast steps is moved from
the baseline towards its actual value. Captum's
``ShapleyValueSampling`` adds the inputs in random orders; each order's marginal
contributions sum to the forecast minus the baseline's, so completeness holds exactly,
whatever the number of orders (only the split between inputs is sampled).

Baseline: each input at its training mean, i.e. zero in the scaled space (targets of an
estimator that does not scale them: the mean of the history passed), calendar features at
zero. History before the window, and inputs a model computes from the timestamps itself
(the day regressors of the linear-lag and boosted models), are held at their actual values:
they are part of the baseline.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import torch

from forecast.attribution._captum import captum_attr
from forecast.base import BaseForecaster
from forecast.frames.decomposition import (
    CALENDAR,
    LAG,
    PAST,
    Decomposition,
    Inputs,
    block,
    join,
    known_kinds,
    known_names,
)
from forecast.frames.series import SeriesArrays

#: The baseline input of the sampling, as ``explain`` reports it.
BASELINE = (
    "the inputs of the window and of the forecast steps at their training mean (zero in "
    "the scaled space; unscaled targets: the mean of the history given), calendar "
    "features at zero; older history and inputs the model computes itself held as given"
)

#: Perturbed copies of a forecast's arrays forecast in one ``_predict`` call.
PER_EVAL = 32


def _perturbable(s: SeriesArrays, window: int, horizon: int) -> list[tuple[str, int, int]]:
    """``(array, start, stop)`` row ranges that are perturbed: history window and steps."""
    n = len(s.y)
    parts = [("y", n - window, n)]
    if s.past is not None:
        parts.append(("past", n - window, n))
    if s.future is not None:
        parts.append(("future", n - window, n + horizon))
    return parts


def _inputs(model: BaseForecaster, s: SeriesArrays, window: int, times: pd.DatetimeIndex) -> Inputs:
    n, horizon = len(s.y), len(times)
    hist = s.index[n - window :]
    steps = np.arange(-window + 1, 1)
    parts = [block(LAG, list(model.columns_), hist, steps)]
    if s.past is not None:
        parts.append(block(PAST, list(model.past_covariates_), hist, steps))
    if s.future is not None:
        width = s.future.shape[1]
        names, kinds = known_names(model, hist, width), known_kinds(model, width)
        every = pd.DatetimeIndex(hist.append(times))
        all_steps = np.arange(-window + 1, horizon + 1)
        calendar = block(CALENDAR, names, every, all_steps)
        parts.append(replace(calendar, kind=np.tile(np.asarray(kinds, dtype=object), len(every))))
    return join(parts)


def explain_shapley(
    model: BaseForecaster,
    s: SeriesArrays,
    times: pd.DatetimeIndex,
    window: int | None = None,
    n_samples: int = 10,
    seed: int = 0,
) -> Decomposition:
    """Sample the Shapley values of one forecast.

    Parameters
    ----------
    window : int, optional
        History rows whose values are attributed (default: the rows the model needs,
        ``_min_history``, at most the rows given).
    n_samples : int
        Random input orders averaged.
    seed : int
        Seed of the orders.

    Returns
    -------
    Decomposition
        Method ``"shapley"``: the values ``(H, C, G)`` of the inputs, the forecast and the
        baseline's forecast ``(H, C)``, in the units of the data.
    """
    horizon, n_c, n = len(times), len(model.columns_), len(s.y)
    window = min(n, int(window or max(model._min_history(), 1)))
    parts = _perturbable(s, window, horizon)
    actual = np.concatenate([getattr(s, a)[i:j].ravel() for a, i, j in parts])  # (G,)
    base = np.zeros_like(actual)
    if model.scaler_ is None:  # unscaled targets: the history's mean level
        base[: window * n_c] = np.tile(s.y.mean(axis=0), window)

    def forecast(z: torch.Tensor) -> torch.Tensor:
        values = base + z.detach().cpu().numpy().astype(np.float64) * (actual - base)  # (B, G)
        batch = []
        for row in values:
            fields, at = {}, 0
            for a, i, j in parts:
                full = getattr(s, a).copy()
                size = (j - i) * full.shape[1]
                full[i:j] = row[at : at + size].reshape(j - i, -1)
                fields[a], at = full, at + size
            batch.append(replace(s, **fields))
        pred = model._predict_values(batch, horizon, ())  # (B, H, C), the data's units
        return torch.as_tensor(pred.reshape(len(batch), -1))

    ones = torch.ones(1, len(actual), dtype=torch.float64)
    zeros = torch.zeros_like(ones)
    full_pred = forecast(torch.cat([ones, zeros])).numpy()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        attr = captum_attr().ShapleyValueSampling(forecast)
        values = attr.attribute(
            ones, baselines=zeros, n_samples=n_samples, perturbations_per_eval=PER_EVAL
        )
    attributions = values.detach().cpu().numpy().reshape(horizon * n_c, -1)
    inputs = _inputs(model, s, window, times)
    return Decomposition(
        method="shapley",
        baseline_text=BASELINE,
        kind=inputs.kind,
        name=inputs.name,
        time=inputs.time,
        step=inputs.step,
        contributions=attributions.reshape(horizon, n_c, -1),
        forecast=full_pred[0].reshape(horizon, n_c),
        baseline=full_pred[1].reshape(horizon, n_c),
    )
