"""``forecast update``: a saved model learns the rows of the latest data it has not seen.

The model (a saved folder, or a registered version: ``models:/name@alias``) is loaded, the
input's rows after its ``updated_through_`` are passed to ``update`` (for a model that refits,
the rows up to it are the ``history``), and the updated model is saved to ``--output`` (the
same folder may be given: it is replaced atomically, as ``save(overwrite=True)`` replaces a
saved model folder). With tracking, the update is an MLflow run of the experiment
``forecast-update`` with the model's lineage (``lineage.json``); with ``register`` the updated
model becomes a new version of that registered model, and ``alias`` points at it.

Nothing is half done: ``--output`` is checked (as ``save`` checks it) before the model is
loaded; an update that fails or diverges raises and writes nothing; the folder is written
only if it loads (``save``'s own check); and the version is registered only after the folder
was written, so the registry never names an update that ``--output`` does not hold.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.batch.files import BatchError, read_input
from forecast.batch.run import load_forecaster
from forecast.frames.cleaning import in_zone
from forecast.frames.messages import first_line
from forecast.loop.constants import UPDATE_EXPERIMENT
from forecast.persistence.format import check_writable
from forecast.persistence.manifest import ModelFormatError

__all__ = ["UPDATE_EXPERIMENT", "update_folder"]


def _columns(estimator: Any, frame: pd.DataFrame, input: str) -> pd.DataFrame:
    """Return the model's target and covariate columns of the input (others left out)."""
    wanted = list(estimator.columns_)
    wanted += list(getattr(estimator, "past_covariates_", []) or [])
    wanted += list(getattr(estimator, "future_covariates_", []) or [])
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise BatchError(
            f"input {input} lacks the column(s) {missing} the model was fitted on "
            f"(it has {list(frame.columns)}); nothing was updated"
        )
    return frame[wanted]


def update_folder(
    model: str | os.PathLike[str],
    input: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    time_column: str | None = None,
    timezone: str | None = None,
    epochs: int | None = None,
    learning_rate: float | None = None,
    early_stopping_patience: int | None = None,
    on_gap: str = "raise",
    track: bool = False,
    tracking_uri: str | None = None,
    experiment: str = UPDATE_EXPERIMENT,
    register: str | None = None,
    alias: str | None = None,
) -> Any:
    """Update the model saved in ``model`` with the input rows after ``updated_through_``.

    Parameters
    ----------
    model : str or path-like
        A folder written by ``save``, or an MLflow model URI (``models:/name@alias``).
    input : str or path-like
        CSV or Parquet file of the latest data (one series), as for ``forecast batch``.
    output : str or path-like
        Folder the updated model is saved to (may be ``model``).
    time_column, timezone : str, optional
        As for ``forecast batch``.
    epochs, learning_rate, early_stopping_patience : optional
        Neural estimators only (see ``update``).
    on_gap : {"raise", "restart"}
        See ``update``.
    track : bool
        Record the update as an MLflow run.
    tracking_uri, experiment : str, optional
        The store and the experiment of the run.
    register, alias : str, optional
        Register the updated model as a new version of ``register`` (implies tracking) and
        point ``alias`` at it.

    Returns
    -------
    estimator
        The updated model.

    Raises
    ------
    BatchError
        A missing or unreadable model, input without the model's columns or without new rows,
        an update the model refuses (one line naming the timestamps); nothing is written.
    """
    if alias is not None and register is None:
        raise BatchError("--alias needs --register (the registered model it names)")
    try:
        check_writable(output, overwrite=True)
    except OSError as err:
        raise BatchError(f"output {output}: {first_line(err)}") from None
    try:
        estimator, _ = load_forecaster(model, tracking_uri)
    except (FileNotFoundError, ModelFormatError) as err:
        raise BatchError(f"model {model}: {first_line(err)}") from None
    if not hasattr(estimator, "update"):
        raise BatchError(f"model {model} is an ONNX export: update the saved model it came from")
    frame = in_zone(read_input(input, time_column, timezone), estimator.tz_, None, "input")
    frame = _columns(estimator, frame, os.fspath(input))
    through = estimator._seen_through()
    if isinstance(through, dict):
        raise BatchError(f"model {model} holds several series; update it from Python")
    new, seen = frame.loc[frame.index > through], frame.loc[frame.index <= through]
    if new.empty:
        raise BatchError(
            f"input {input} ends at {frame.index.max()}, at or before the model's "
            f"updated_through_={through}: nothing new; nothing was updated"
        )
    options: dict[str, Any] = {"on_gap": on_gap}
    neural = {"epochs": epochs, "learning_rate": learning_rate}
    neural["early_stopping_patience"] = early_stopping_patience
    options.update({k: v for k, v in neural.items() if v is not None})
    if estimator._update_rule == "refit":
        options["history"] = seen
    callbacks = []
    if track or register:
        # optional: a tracked update needs mlflow, seconds to import
        from forecast.tracking import MLflowCallback

        source = os.fspath(input)
        callback = MLflowCallback(
            new, experiment=experiment, tracking_uri=tracking_uri, log_model=bool(register)
        )
        callback.data_source = source
        callbacks.append(callback)
    try:
        estimator.update(new, callbacks=callbacks, **options)
    except (ValueError, RuntimeError) as err:  # RuntimeError: a diverging neural update
        raise BatchError(f"update of {model}: {first_line(err)}; nothing was written") from None
    try:
        estimator.save(Path(output), overwrite=True)
    except (ValueError, OSError) as err:  # ModelFormatError: the folder would not load
        raise BatchError(f"output {output}: {first_line(err)}") from None
    if register:
        info = callbacks[0].model_info
        if info is None:
            raise BatchError(f"the updated model was saved to {output} but not registered")
        # optional: the registry needs mlflow, seconds to import
        from forecast.tracking.pyfunc import register as register_version

        register_version(info.model_uri, register, alias, tracking_uri)
    return estimator
