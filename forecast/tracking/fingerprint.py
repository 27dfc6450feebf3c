"""Data fingerprints in MLflow: a frame's content hash wrapped into a dataset input.

The hash has one definition, :func:`forecast.frames.fingerprint.fingerprint` (re-exported
here); saved model folders, fit runs, backtests and batch runs all store its value. This
module only turns data and its hash into the dataset input MLflow logs with a run.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pandas as pd
from mlflow.data.pandas_dataset import from_pandas  # what mlflow.data.from_pandas is
from mlflow.entities import DatasetInput, InputTag

from forecast.frames import validation as V
from forecast.frames.fingerprint import fingerprint

__all__ = ["dataset_input", "fingerprint", "to_flat_frame"]


def to_flat_frame(data: pd.DataFrame | Mapping[Any, pd.DataFrame]) -> pd.DataFrame:
    """Return the data as one frame with the timestamps as a column (for logging)."""
    frame = V.join_series(dict(data), "long") if isinstance(data, Mapping) else data
    assert isinstance(frame, pd.DataFrame)  # "long" joins the series into one frame
    if isinstance(frame.index, pd.DatetimeIndex):
        frame = frame.reset_index(names=frame.index.name or V.TIME_COLUMN)
    return frame


def dataset_input(
    data: pd.DataFrame | Mapping[Any, pd.DataFrame],
    name: str = "data",
    context: str = "training",
    source: str | None = None,
    digest: str | None = None,
) -> DatasetInput:
    """Build the MLflow dataset input of ``data`` (schema, profile, source, content hash).

    Parameters
    ----------
    data : DataFrame or dict of DataFrames
        The data.
    name : str
        Dataset name shown in the MLflow UI.
    context : str
        Role of the data in the run (``"training"``, ``"backtest"``, ``"batch-input"``).
    source : str, optional
        Where the data came from (a path or URL); default: in-memory code.
    digest : str, optional
        The :func:`fingerprint` of ``data`` when already computed.

    Returns
    -------
    mlflow.entities.DatasetInput
        Ready for ``MlflowClient.log_inputs``; its tags hold the full SHA-256.
    """
    digest = digest or fingerprint(data)
    with warnings.catch_warnings():
        # MLflow warns about ambiguous local sources, and its schema inference reads
        # tz-aware columns through a pandas API deprecated in pandas 3.1
        warnings.simplefilter("ignore")
        dataset = from_pandas(
            to_flat_frame(data),
            source=source,  # type: ignore[arg-type]  # MLflow's hint leaves out its default None
            name=name,
            digest=digest[:16],
        )
        entity = dataset._to_mlflow_entity()
    tags = [InputTag("mlflow.data.context", context), InputTag("sha256", digest)]
    return DatasetInput(entity, tags=tags)
