"""What one explained forecast reads, and its attributions as a tidy frame.

An explanation starts from the arrays a fitted estimator's ``_predict`` reads
(:class:`~forecast.frames.series.SeriesArrays`, made by the estimator's own encoder from
the caller's history and ``future=`` frames, exactly as ``predict`` makes them:
:func:`encode_one`) and ends in one row per (forecast step, target channel, input) with the
input's contribution in the units of the target: :func:`tidy` spreads a
:class:`~forecast.frames.decomposition.Decomposition` (whose inputs are named by kind,
column, timestamp and step relative to the origin) into that frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.base import BaseForecaster, SeriesArrays
from forecast.frames import validation
from forecast.frames.decomposition import Decomposition

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
    terms: Decomposition,
    times: pd.DatetimeIndex,
    targets: list[str],
    origin: pd.Timestamp,
) -> pd.DataFrame:
    """One row per (forecast step, target, input) with the contribution.

    Parameters
    ----------
    terms : Decomposition
        The forecast's ``G`` inputs and their contributions ``(H, C, G)``, the forecast
        and the baseline's forecast ``(H, C)``, in target units.
    times : DatetimeIndex of length H
        The forecast timestamps.
    targets : list of str
        The ``C`` target columns.
    origin : Timestamp
        The last observed timestamp.
    """
    n_h, n_c, n_g = terms.contributions.shape
    outputs = n_h * n_c
    return pd.DataFrame(
        {
            "origin": pd.DatetimeIndex([origin]).repeat(outputs * n_g),
            "time": times.repeat(n_c * n_g),
            "lead": np.repeat(np.arange(1, n_h + 1), n_c * n_g),
            "target": np.tile(np.repeat(np.asarray(targets, dtype=object), n_g), n_h),
            "input_kind": np.tile(terms.kind, outputs),
            "input": np.tile(terms.name, outputs),
            "input_time": terms.time.take(np.tile(np.arange(n_g), outputs)),
            "input_step": np.tile(terms.step, outputs),
            "contribution": terms.contributions.reshape(-1),
            "forecast": np.repeat(terms.forecast.reshape(-1), n_g),
            "baseline": np.repeat(terms.baseline.reshape(-1), n_g),
        },
        columns=list(COLUMNS),
    )
