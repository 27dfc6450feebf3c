"""What one explained forecast reads, and its attributions as a tidy frame.

An explanation starts from the arrays a fitted estimator's ``_predict`` reads
(:class:`~forecast.frames.series.SeriesArrays`, made by the estimator's own encoder from
the caller's history and ``future=`` frames, exactly as ``predict`` makes them) and ends in
one row per (forecast step, target channel, input) with the input's contribution in the
units of the target. :class:`Inputs` names the inputs of one forecast (kind, column,
timestamp, step relative to the origin); :func:`tidy` joins them to an attribution matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.calendar import calendar_features
from forecast.frames.options import FrameOptions

#: Kinds of input, as the ``input_kind`` column spells them.
LAG, PAST, FUTURE, CALENDAR = "lag", "past covariate", "future covariate", "calendar"

#: Columns of the frame :func:`forecast.attribution.explain` returns, in order.
COLUMNS = (
    "origin",
    "time",
    "lead",
    "target",
    "input_kind",
    "input",
    "input_time",
    "input_step",
    "contribution",
    "forecast",
    "baseline",
)


@dataclass(frozen=True)
class Inputs:
    """The inputs of one forecast, one entry per attributed value.

    Attributes
    ----------
    kind, name : ndarray of str, shape (G,)
        Input kind (:data:`LAG`, :data:`PAST`, :data:`FUTURE`, :data:`CALENDAR`) and column.
    time : DatetimeIndex of length G
        Timestamp of each input value (NaT where it has none).
    step : ndarray of int, shape (G,)
        Position relative to the origin: 0 is the last observed step, -1 the one before,
        ``j > 0`` the ``j``-th forecast step.
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


def known_names(model: BaseForecaster, index: pd.DatetimeIndex, width: int) -> list[str]:
    """Names of the ``width`` future-known columns: user covariates, then calendar features."""
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


def known_kinds(model: BaseForecaster, width: int) -> list[str]:
    """Kind of each future-known column (user covariates first)."""
    n_user = len(model.future_covariates_)
    return [FUTURE] * n_user + [CALENDAR] * (width - n_user)


def encode_one(
    model: BaseForecaster, history: pd.DataFrame, future: Any, horizon: int
) -> tuple[SeriesArrays, pd.DatetimeIndex]:
    """Arrays of one forecast from ``history`` (and ``future=``), made as ``predict`` makes them.

    Through the pipeline's entry point
    (:meth:`~forecast.frames.pipeline.ForecastPipeline._frames_to_arrays`). Returns the
    arrays and the ``horizon`` forecast timestamps.
    """
    raw, _ = validation.split_series(history, "history")
    if len(raw) != 1:
        raise ValueError(
            f"explain takes one series at a time; history holds {len(raw)} series: pass the "
            "frame of one of them"
        )
    arrays, frames, _ = model._frames_to_arrays(history, horizon, future)
    index = next(iter(frames.values())).index
    assert isinstance(index, pd.DatetimeIndex)  # checked by the pipeline
    return arrays[0], validation.future_index(index[-1], model.freq_, horizon)


def tidy(
    inputs: Inputs,
    attributions: np.ndarray,
    forecast: np.ndarray,
    baseline: np.ndarray,
    times: pd.DatetimeIndex,
    targets: list[str],
    origin: pd.Timestamp,
) -> pd.DataFrame:
    """One row per (forecast step, target, input) with the contribution.

    Parameters
    ----------
    inputs : Inputs
        The ``G`` inputs.
    attributions : ndarray of shape (H, C, G)
        Contribution of each input to each step and channel, in target units.
    forecast, baseline : ndarray of shape (H, C)
        The forecast and the baseline's forecast, in target units.
    times : DatetimeIndex of length H
        The forecast timestamps.
    targets : list of str
        The ``C`` target columns.
    origin : Timestamp
        The last observed timestamp.
    """
    n_h, n_c, n_g = attributions.shape
    outputs = n_h * n_c
    return pd.DataFrame(
        {
            "origin": pd.DatetimeIndex([origin]).repeat(outputs * n_g),
            "time": times.repeat(n_c * n_g),
            "lead": np.repeat(np.arange(1, n_h + 1), n_c * n_g),
            "target": np.tile(np.repeat(np.asarray(targets, dtype=object), n_g), n_h),
            "input_kind": np.tile(inputs.kind, outputs),
            "input": np.tile(inputs.name, outputs),
            "input_time": inputs.time.take(np.tile(np.arange(n_g), outputs)),
            "input_step": np.tile(inputs.step, outputs),
            "contribution": attributions.reshape(-1),
            "forecast": np.repeat(forecast.reshape(-1), n_g),
            "baseline": np.repeat(baseline.reshape(-1), n_g),
        },
        columns=list(COLUMNS),
    )
