"""The answer of an estimator's decomposition hook: how one forecast splits into its inputs.

:func:`forecast.explain` asks an estimator to decompose a forecast through the
hook ``_decompose(series, horizon)`` (on :class:`~forecast.base.BaseForecaster`). The hook
reads the arrays a forecast reads (:class:`~forecast.frames.series.SeriesArrays`) and
answers in one of three ways:

- :class:`Decomposition`: the forecast as a sum of terms the estimator knows (the
  regressions of :class:`~forecast.LinearLagForecaster`), in the units of the data;
- :class:`DifferentiableForecast`: the forecast as a differentiable function of its inputs,
  with the inputs and a baseline (the networks): ``explain`` integrates its gradients;
- :class:`NotDecomposable`, raised, saying why: ``explain`` samples Shapley values of the
  forecast instead.

Both answers name their ``G`` inputs the same way (:class:`Inputs`: kind, column, timestamp,
step relative to the origin); :func:`known_names` and :func:`known_kinds` name the
future-known columns (the ``future`` block of :class:`~forecast.frames.series.SeriesArrays`).
Nothing here imports torch: the function and tensors of a :class:`DifferentiableForecast`
come from the estimator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from forecast.frames.calendar import calendar_features
from forecast.frames.options import FrameOptions

if TYPE_CHECKING:  # types only: the frames layer runs without torch (the ONNX runtime)
    from torch import Tensor

    from forecast.frames.pipeline import ForecastPipeline

#: Kind of input: a past value of a target.
LAG = "lag"
#: Kind of input: a covariate observed up to the origin.
PAST = "past covariate"
#: Kind of input: a covariate known at the forecast steps.
FUTURE = "future covariate"
#: Kind of input: a calendar or holiday feature.
CALENDAR = "calendar"


class NotDecomposable(ValueError):
    """The estimator has no decomposition of this forecast of its own (the message says why)."""


def no_exact_terms(name: str) -> NotDecomposable:
    """Return the refusal of an estimator ``name`` that has no exact terms of its forecasts."""
    return NotDecomposable(
        f"{name} has no exact decomposition of its forecasts: explain it with method='auto' "
        "or 'shapley'"
    )


@dataclass(frozen=True)
class Inputs:
    """The inputs of one forecast, one entry per attributed value.

    Attributes
    ----------
    kind, name : ndarray of str, shape (G,)
        Kind of each input (:data:`LAG`, :data:`PAST`, :data:`FUTURE` or :data:`CALENDAR`,
        as the ``input_kind`` column of an explanation spells them) and its column.
    time : DatetimeIndex of length G
        Timestamp of each input value, in the zone of the data (NaT where it has none).
    step : ndarray of int, shape (G,)
        Position relative to the origin: 0 is the last observed step, -1 the one before,
        ``j > 0`` the ``j``-th step after it.
    """

    kind: np.ndarray
    name: np.ndarray
    time: pd.DatetimeIndex
    step: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)


def block(kind: str, names: list[str], times: pd.DatetimeIndex, steps: np.ndarray) -> Inputs:
    """Name the inputs of a ``(len(times), len(names))`` block, row-major (time, then column)."""
    n_t, n_c = len(times), len(names)
    return Inputs(
        kind=np.full(n_t * n_c, kind, dtype=object),
        name=np.tile(np.asarray(names, dtype=object), n_t),
        time=times.repeat(n_c),
        step=np.repeat(np.asarray(steps, dtype=np.int64), n_c),
    )


def join(parts: list[Inputs]) -> Inputs:
    """Concatenate input tables in order."""
    parts = [p for p in parts if len(p)]
    times = [p.time for p in parts]
    return Inputs(
        kind=np.concatenate([p.kind for p in parts]),
        name=np.concatenate([p.name for p in parts]),
        time=pd.DatetimeIndex(times[0].append(times[1:])) if len(times) > 1 else times[0],
        step=np.concatenate([p.step for p in parts]),
    )


def known_names(model: ForecastPipeline, index: pd.DatetimeIndex, width: int) -> list[str]:
    """Names of the ``width`` future-known columns: user covariates, then calendar features.

    ``index`` is any two or more timestamps of the series (the calendar's columns do not
    depend on them).

    Raises
    ------
    RuntimeError
        If the model's covariates and calendar do not name ``width`` columns.
    """
    names = list(model.future_covariates_)
    if width > len(names):
        options = FrameOptions.of(model)
        names += list(calendar_features(index[:2], options.timezone, options.country).columns)
    if len(names) != width:
        raise RuntimeError(
            f"{type(model).__name__} reads {width} future-known inputs per step, but its "
            f"covariates and calendar name {len(names)}: {names}"
        )
    return names


def known_kinds(model: ForecastPipeline, width: int) -> list[str]:
    """Kind of each of the ``width`` future-known columns (user covariates first)."""
    n_user = len(model.future_covariates_)
    return [FUTURE] * n_user + [CALENDAR] * (width - n_user)


@dataclass(frozen=True)
class Decomposition:
    """One forecast of ``H`` steps and ``C`` channels as the sum of ``G`` inputs' terms.

    ``contributions.sum(axis=2) == forecast - baseline`` up to rounding.

    Attributes
    ----------
    method : str
        Name of the decomposition, as ``explain`` reports it: ``"exact"`` for the model's own
        terms (``explain`` also returns its integrated gradients and Shapley values as
        ``"integrated_gradients"`` and ``"shapley"`` decompositions).
    baseline_text : str
        What the baseline is: the forecast when every input is at its reference value.
    kind, name, time, step
        The ``G`` inputs, as the attributes of :class:`Inputs`.
    contributions : ndarray of shape (H, C, G)
        Term of each input in each step and channel, in the units of the data.
    forecast, baseline : ndarray of shape (H, C)
        The forecast and the baseline's forecast, in the units of the data.
    """

    method: str
    baseline_text: str
    kind: np.ndarray
    name: np.ndarray
    time: pd.DatetimeIndex
    step: np.ndarray
    contributions: np.ndarray
    forecast: np.ndarray
    baseline: np.ndarray


@dataclass(frozen=True)
class DifferentiableForecast:
    """One forecast of ``H`` steps and ``C`` channels as a differentiable function of its inputs.

    An estimator that computes its forecast by a differentiable function (a network, its
    roll-out and the inverse scaling) but knows no split into terms answers with this;
    ``explain`` integrates the gradient of ``function`` along the straight path from
    ``baselines`` to ``values`` (integrated gradients), whose attributions add up to
    ``function(values) - function(baselines)`` up to the integration error.

    Attributes
    ----------
    baseline_text : str
        What the baseline input is, in words.
    function : callable
        A torch function (an ``nn.Module``) of tensors shaped as ``values`` with a batch of
        any size ``B`` in front, returning the forecasts ``(B, H * C)`` (step-major) in the
        units of the data.
    values, baselines : tuple of Tensor
        The forecast's own inputs and the baseline's, each with a batch of one, on the
        function's device.
    kind, name, time, step
        The ``G`` inputs, as the attributes of :class:`Inputs`: every value of ``values``,
        each tensor flattened row-major, the tensors one after another.
    shape : tuple of int
        ``(H, C)``.
    """

    baseline_text: str
    function: Callable[..., Tensor]
    values: tuple[Tensor, ...]
    baselines: tuple[Tensor, ...]
    kind: np.ndarray
    name: np.ndarray
    time: pd.DatetimeIndex
    step: np.ndarray
    shape: tuple[int, int]
