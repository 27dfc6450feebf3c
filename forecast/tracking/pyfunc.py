"""The MLflow pyfunc flavour of a fitted forecaster.

The logged model holds no pickle: its data is the folder written by
:func:`forecast.persistence.format.save` (``data/estimator``), and its MLmodel names this module as
the loader, so ``mlflow.pyfunc.load_model`` calls :func:`_load_pyfunc`, which reads the folder
with the checked loader :func:`forecast.persistence.load` (a tampered folder is refused before
anything in it is parsed). :class:`ForecastModel` answers
``predict(history, params={"horizon": h})`` with the same frame as
``estimator.predict(horizon=h, history=history)``.

What ``mlflow.pyfunc.load_model`` trusts: everything the ``MLmodel`` file says. It imports
the ``loader_module`` it names (any module on the path), puts the ``code`` folders of the
artifact on ``sys.path`` first (a planted ``holidays/__init__.py`` runs on the next
``import holidays``), unpickles a cloudpickled ``python_model`` (code), and reads ``data``
wherever it points. Call it only on artifacts you would trust to run code; the checked
loader behind our ``_load_pyfunc`` then only reads the folder it is handed.

Our own paths do not call it: ``forecast batch`` (one file or many partitions, the Ray Data
actors included) and :func:`forecast.batch.run.load_forecaster` go through
:func:`forecast.tracking.artifacts.load_artifact`, which downloads the artifact into a
temporary folder, accepts its ``MLmodel`` only if it is exactly what :func:`log_model`
writes (this module as ``loader_module``, no ``code``, no ``python_model`` or other
flavour, ``data`` a relative path inside the artifact) and reads the model folder with
:func:`forecast.persistence.load`. Anything else is refused with one line naming the
field, before anything runs. :func:`forecast.load` takes saved folders only, no URIs.

How a request frame becomes the history (timestamps as index or ``timestamp`` column, converted
to the fitted time zone; future covariates on the rows after the history; the horizon of a
request that names none) is in :mod:`forecast.frames.requests` (:func:`to_history`,
:func:`split_future`, :func:`default_horizon`, re-exported here).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mlflow.pyfunc
import numpy
import pandas as pd
import safetensors
import sklearn
import torch
from mlflow.models import Model, ModelSignature
from mlflow.pyfunc.model import PythonModel, PythonModelContext
from mlflow.types.schema import AnyType, ColSpec, ParamSchema, ParamSpec, Schema, TensorSpec

from forecast.frames import validation as V
from forecast.frames.quantiles import parse_levels, quantile_column
from forecast.frames.requests import (
    DEFAULT_HORIZON,
    TIMESTAMP_COLUMN,
    default_horizon,
    split_future,
    to_history,
)
from forecast.frames.vintages import ISSUE_COLUMN, split_vintage_rows
from forecast.persistence.format import load, save
from forecast.tracking._store import client as make_client
from forecast.tracking._store import use_store
from forecast.tracking.fingerprint import to_flat_frame

if TYPE_CHECKING:
    from mlflow.models.model import ModelInfo

__all__ = [
    "DEFAULT_HORIZON",
    "TIMESTAMP_COLUMN",
    "ForecastModel",
    "default_horizon",
    "log_model",
    "model_signature",
    "split_future",
    "to_history",
    "unloggable_reason",
]


class ForecastModel(PythonModel):
    """Pyfunc model wrapping a saved forecaster; ``params={"horizon": h}`` sets the horizon.

    Attributes
    ----------
    estimator : BaseForecaster
        The fitted estimator, loaded by :func:`_load_pyfunc` (or :meth:`load_context`).

    Examples
    --------
    >>> model = mlflow.pyfunc.load_model("models:/power-load-de@champion")  # doctest: +SKIP
    >>> model.predict(history_df, params={"horizon": 24})  # doctest: +SKIP
    """

    def load_context(self, context: PythonModelContext) -> None:
        """Load the ``estimator`` folder artifact (on CUDA when present, else CPU)."""
        device = (context.model_config or {}).get("device")
        self.estimator = load(context.artifacts["estimator"], device=device)

    def predict(
        self,
        context: PythonModelContext | None,
        model_input: pd.DataFrame,
        params: dict[str, Any] | None = None,
    ) -> pd.DataFrame:
        """Forecast ``params["horizon"]`` steps after the end of ``model_input``.

        ``params["quantiles"]`` (models that forecast quantiles): ``"all"`` or levels such
        as ``"0.1,0.9"`` add the columns ``<column>_q<level>``; ``"none"``: points only.
        """
        horizon = (params or {}).get("horizon") or default_horizon(self.estimator)
        quantiles = parse_levels((params or {}).get("quantiles"))
        rows, vintages = split_vintage_rows(model_input, TIMESTAMP_COLUMN)
        history, future = split_future(to_history(rows, self.estimator), self.estimator)
        kw: dict[str, Any] = {} if quantiles is None else {"quantiles": quantiles}
        if vintages is not None:  # rows with an issue_time: the covariates as then known
            future = vintages
        if future is not None:
            kw["future"] = future
        return self.estimator.predict(horizon=int(horizon), history=history, **kw)


class _LoadedModel:
    """What ``mlflow.pyfunc.load_model`` wraps: ``predict`` and the ``python_model``."""

    def __init__(self, python_model: ForecastModel) -> None:
        self.python_model = python_model  # for PyFuncModel.unwrap_python_model()

    def predict(
        self, model_input: pd.DataFrame, params: dict[str, Any] | None = None
    ) -> pd.DataFrame:
        return self.python_model.predict(None, model_input, params)


def _load_pyfunc(data_path: str, model_config: dict[str, Any] | None = None) -> _LoadedModel:
    """Load the saved model folder ``data_path`` (MLflow's loader-module entry point)."""
    model = ForecastModel()
    model.estimator = load(data_path, device=(model_config or {}).get("device"))
    return _LoadedModel(model)


def model_signature(estimator: Any, horizon: int | None = None) -> ModelSignature:
    """Signature: optional ``timestamp``, the fitted columns, the ``horizon`` parameter.

    The fitted columns are the targets, the past covariates, then the future covariates.

    Models that forecast quantiles also take a string ``quantiles`` parameter (``"all"``,
    ``"0.1,0.9"``; default ``"none"``) and list the quantile columns as optional outputs.
    """
    past = list(getattr(estimator, "past_covariates_", []))
    past += list(getattr(estimator, "future_covariates_", None) or [])
    # any type: naive datetimes, aware ones, ISO-8601 strings with UTC offsets (to_history reads
    # each; MLflow's datetime type would refuse offsets with HTTP 400 before our rule applies)
    inputs: list[ColSpec | TensorSpec] = [ColSpec(AnyType(), TIMESTAMP_COLUMN, required=False)]
    if getattr(estimator, "input_kind_", "frame") != "frame":
        inputs.append(ColSpec("string", V.ID_COLUMN))
    inputs += [ColSpec("double", str(c)) for c in list(estimator.columns_) + past]
    if getattr(estimator, "future_covariates_", None):  # rows of vintages (optional)
        inputs.append(ColSpec(AnyType(), ISSUE_COLUMN, required=False))
    outputs: list[ColSpec | TensorSpec] = [ColSpec("double", str(c)) for c in estimator.columns_]
    h = int(horizon or default_horizon(estimator))
    specs = [ParamSpec("horizon", "long", h)]
    levels = estimator._quantile_levels() if hasattr(estimator, "_quantile_levels") else ()
    if levels:  # quantile columns are optional outputs, asked for by the "quantiles" param
        names = [quantile_column(str(c), q) for c in estimator.columns_ for q in levels]
        outputs += [ColSpec("double", name, required=False) for name in names]
        specs.append(ParamSpec("quantiles", "string", "none"))
    params = ParamSchema(specs)
    return ModelSignature(inputs=Schema(inputs), outputs=Schema(outputs), params=params)


def input_example(
    estimator: Any, history: Any = None, horizon: int | None = None
) -> pd.DataFrame | None:
    """Return a history the model can forecast from, with a ``timestamp`` column.

    The timestamps are ISO-8601 strings with the UTC offset in the model's zone (as
    ``forecast batch`` writes them; exact across daylight-saving changes), naive strings for
    a model fitted on naive timestamps.

    The last ``max(min history, 3)`` rows of ``history`` (a single-series frame, e.g. the
    training data) or else of the rows the estimator kept; None when fewer rows exist
    (an estimator that keeps one row, like ``Naive``, without ``history``). A model with
    future covariates gets ``horizon`` more rows whose targets are left empty: the rows of
    the forecast steps, which carry only the covariates.
    """
    future = list(getattr(estimator, "future_covariates_", None) or [])
    ahead = int(horizon or default_horizon(estimator)) if future else 0
    rows = max(int(estimator._min_history()), 3) + ahead
    columns = list(estimator.columns_) + list(estimator.past_covariates_) + future
    usable = isinstance(history, pd.DataFrame) and set(columns) <= set(history.columns)
    if usable and estimator.input_kind_ == "frame":
        frames = {None: history[columns]}
    else:
        frames = estimator.train_tail_
    tails = {k: f.iloc[-rows:].copy() for k, f in frames.items()}
    if any(len(f) < rows for f in tails.values()):
        return None
    for frame in tails.values():
        if ahead:
            frame.iloc[-ahead:, frame.columns.get_indexer(list(estimator.columns_))] = float("nan")
    flat = to_flat_frame(tails[None] if estimator.input_kind_ == "frame" else tails)
    time_col = V.TIME_COLUMN if V.ID_COLUMN in flat.columns else flat.columns[0]
    stamps = pd.DatetimeIndex(flat.pop(time_col))
    flat.insert(0, TIMESTAMP_COLUMN, [stamp.isoformat() for stamp in stamps])
    if V.ID_COLUMN in flat.columns:
        flat[V.ID_COLUMN] = flat[V.ID_COLUMN].astype(str)
    return flat


def _requirements() -> list[str]:
    return [
        f"mlflow=={mlflow.__version__}",
        f"torch=={torch.__version__.split('+')[0]}",
        f"pandas=={pd.__version__}",
        f"numpy=={numpy.__version__}",
        f"scikit-learn=={sklearn.__version__}",
        f"safetensors=={safetensors.__version__}",
    ]


def unloggable_reason(estimator: Any) -> str | None:
    """Say why ``estimator`` cannot be logged as a pyfunc model, or return None if it can.

    Parameters
    ----------
    estimator : object
        Usually a fitted forecaster.

    Returns
    -------
    str or None
        E.g. ``"it is not a fitted forecaster"``.
    """
    if not hasattr(estimator, "columns_"):
        return "it is not a fitted forecaster"
    return None


def log_model(
    estimator: Any,
    run_id: str,
    *,
    name: str = "model",
    tracking_uri: str | None = None,
    horizon: int | None = None,
    registered_model_name: str | None = None,
    history: pd.DataFrame | Mapping[Any, pd.DataFrame] | None = None,
) -> ModelInfo:
    """Log a fitted estimator as a pyfunc model of run ``run_id``.

    Parameters
    ----------
    estimator : BaseForecaster
        A fitted estimator. One with future covariates reads them from the rows of its
        input after the history (:func:`split_future`).
    run_id : str
        Run the model belongs to; it is not made the active run.
    name : str
        Model name within the run (``runs:/<run_id>/<name>``).
    tracking_uri : str, optional
        Store (default as in :func:`forecast.tracking.resolve_tracking_uri`).
    horizon : int, optional
        Default of the ``horizon`` inference parameter (default: the estimator's own
        ``horizon`` parameter, else 24).
    registered_model_name : str, optional
        Also register the model under this name (a new version).
    history : DataFrame or dict of DataFrames, optional
        Data the input example is cut from, when a single-series frame (default, and for a
        dict: the rows the estimator kept).

    Returns
    -------
    mlflow.models.model.ModelInfo
        ``model_uri`` is ``models:/<model_id>``; ``runs:/<run_id>/<name>`` works too.
    """
    reason = unloggable_reason(estimator)
    if reason is not None:
        raise ValueError(f"cannot log {type(estimator).__name__} as a pyfunc model: {reason}")
    signature = model_signature(estimator, horizon)
    h = signature.params.params[0].default
    example = input_example(estimator, history, h)
    mlflow_client = make_client(tracking_uri)
    run = mlflow_client.get_run(run_id)
    with tempfile.TemporaryDirectory() as tmp:
        folder = save(estimator, Path(tmp) / "estimator")  # fails before anything is logged
        logged = mlflow_client.create_logged_model(
            run.info.experiment_id,
            name=name,
            source_run_id=run_id,
            tags={"model_family": run.data.tags.get("model_family", type(estimator).__name__)},
        )
        with use_store(tracking_uri):
            return Model.log(
                artifact_path=None,
                name=name,
                flavor=mlflow.pyfunc,
                run_id=run_id,
                model_id=logged.model_id,
                registered_model_name=registered_model_name,
                loader_module=__name__,
                data_path=str(folder),
                signature=signature,
                input_example=None if example is None else (example, {"horizon": h}),
                pip_requirements=_requirements(),
                metadata={"estimator_class": type(estimator).__qualname__},
            )


def register(
    model_uri: str, name: str, alias: str | None = None, tracking_uri: str | None = None
) -> str:
    """Register ``model_uri`` as a new version of ``name`` and optionally set an alias.

    Parameters
    ----------
    model_uri : str
        ``models:/<model_id>`` or ``runs:/<run_id>/model``.
    name : str
        Registered model name, e.g. ``"power-load-de"``.
    alias : str, optional
        Alias pointing at the new version, e.g. ``"champion"`` (``models:/name@alias``).
    tracking_uri : str, optional
        Store holding the registry (default as in :func:`resolve_tracking_uri`).

    Returns
    -------
    str
        The new version number.
    """
    with use_store(tracking_uri):
        version = mlflow.register_model(model_uri, name).version
    if alias:
        make_client(tracking_uri).set_registered_model_alias(name, alias, str(version))
    return str(version)
