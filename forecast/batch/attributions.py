"""``forecast batch --explain``: the attributions of a batch forecast, for its MLflow run.

The table is :func:`forecast.attribution.explain` of the forecast the batch wrote (same
history, same future covariates, same number of steps), kept as the artifact
``explanation/explanation.parquet`` of the batch run
(:func:`forecast.batch.tracking.log_batch_run`).
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from forecast.attribution import explain
from forecast.base import BaseForecaster
from forecast.batch.files import BatchError
from forecast.frames.messages import first_line
from forecast.frames.requests import split_future

#: Where the table lies among the batch run's artifacts.
ARTIFACT = "explanation/explanation.parquet"


def explain_batch(
    estimator: Any, history: pd.DataFrame, steps: int, input: str | os.PathLike[str]
) -> pd.DataFrame:
    """Attribute the batch forecast of ``steps`` from ``history`` (rows after it: covariates).

    Raises
    ------
    BatchError
        If the model cannot be explained (an ONNX export, an ensemble) or explaining failed.
    """
    if not isinstance(estimator, BaseForecaster):
        raise BatchError(
            f"--explain needs a torch or baseline model; {type(estimator).__name__} (an ONNX "
            "export?) has no gradients or arrays to attribute"
        )
    observed, future = split_future(history, estimator)
    try:
        table = explain(estimator, observed, future, horizon=steps)
    except (ImportError, TypeError, ValueError) as err:
        raise BatchError(f"--explain for {input} failed: {first_line(err)}") from err
    return table.astype({"input_kind": str, "input": str, "target": str})
