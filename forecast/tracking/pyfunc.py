"""The MLflow pyfunc flavour of a fitted forecaster.

The logged model holds no pickle: its data is the folder written by
:func:`forecast.persistence.save` (``data/estimator``), and its MLmodel names this module as
the loader, so ``mlflow.pyfunc.load_model`` calls :func:`_load_pyfunc`, which reads the folder
with the checked loader :func:`forecast.persistence.load` (a tampered folder is refused before
anything in it is parsed). :class:`ForecastModel` answers
``predict(history, params={"horizon": h})`` with the same frame as
``estimator.predict(horizon=h, history=history)``.

A model with future covariates (such as ``ExternalForecast`` of the grid operators' forecast
column) reads them from the same frame: rows after the last observed target (targets left
empty) carry the covariates of the forecast steps (:func:`split_future`).

MLflow itself trusts the ``MLmodel`` file (it imports the loader module it names and puts
the model's ``code`` folder on ``sys.path``): load MLflow models only from stores you trust.

Timestamps reach the model in either of two ways:

* as the history's ``DatetimeIndex`` (naive or time-zone aware), which pyfunc's schema
  enforcement leaves in place; or
* as a ``timestamp`` column, the form of the logged input example and of JSON requests to a
  model server. MLflow's ``datetime`` type only holds naive values, so a naive column is
  read as UTC when the model was fitted on time-zone-aware data.

Either way the timestamps are converted to the time zone the estimator was fitted in.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import mlflow.pyfunc
import pandas as pd

from forecast import _validation as V
from forecast.tracking._store import use_store

__all__ = [
    "TIMESTAMP_COLUMN",
    "ForecastModel",
    "log_model",
    "model_signature",
    "split_future",
    "to_history",
    "unloggable_reason",
]

TIMESTAMP_COLUMN = "timestamp"
DEFAULT_HORIZON = 24


def default_horizon(estimator: Any) -> int:
    """Return the estimator's ``horizon`` parameter when it has one, else 24."""
    value = getattr(estimator, "horizon", None)
    return int(value) if isinstance(value, int) and value > 0 else DEFAULT_HORIZON


def _to_model_tz(stamps: pd.DatetimeIndex, tz: str | None, where: str) -> pd.DatetimeIndex:
    if tz is None:
        if stamps.tz is not None:
            raise ValueError(
                f"{where} are time-zone aware ({stamps.tz}) but the model was fitted on naive "
                "timestamps: pass naive timestamps in the training data's clock"
            )
        return stamps
    if stamps.tz is None:
        stamps = stamps.tz_localize("UTC")  # naive timestamps are UTC (MLflow's convention)
    return stamps.tz_convert(tz)


def _fitted_unit(estimator: Any) -> str:
    tails = getattr(estimator, "train_tail_", None) or {}
    for frame in tails.values():
        return frame.index.unit
    return "ns"


def to_history(data: pd.DataFrame, estimator: Any) -> pd.DataFrame:
    """Turn a pyfunc input frame into the history frame ``estimator.predict`` expects.

    Parameters
    ----------
    data : DataFrame
        History with a ``DatetimeIndex`` or a ``timestamp`` column (datetimes or ISO-8601
        strings), one column per fitted target (and past covariate); for several series
        also an ``id`` column.
    estimator : BaseForecaster
        The fitted estimator (its time zone and columns are used).

    Returns
    -------
    DataFrame
        Indexed by timestamps in the estimator's time zone (a long frame with an ``id``
        column for several series).
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"history must be a pandas DataFrame, got {type(data).__name__}")
    tz = getattr(estimator, "tz_", None)
    name = getattr(estimator, "index_name_", None)
    if TIMESTAMP_COLUMN in data.columns:
        raw = data[TIMESTAMP_COLUMN]
        if pd.api.types.is_datetime64_any_dtype(raw.dtype):
            stamps = pd.DatetimeIndex(raw)
        else:
            try:
                stamps = pd.DatetimeIndex(pd.to_datetime(raw, format="ISO8601", utc=tz is not None))
            except (ValueError, TypeError) as err:
                raise ValueError(
                    f"column {TIMESTAMP_COLUMN!r} holds a value that is not an ISO-8601 "
                    f"timestamp ({err})"
                ) from err
        stamps = _to_model_tz(stamps, tz, f"the {TIMESTAMP_COLUMN!r} column's timestamps")
        stamps = stamps.as_unit(_fitted_unit(estimator))  # MLflow casts datetime columns to ns
        frame = data.drop(columns=TIMESTAMP_COLUMN)
        frame.index = stamps.rename(name)
    elif isinstance(data.index, pd.DatetimeIndex):
        frame = data.copy(deep=False)
        frame.index = _to_model_tz(data.index, tz, "the history index's timestamps").rename(name)
    else:
        raise ValueError(
            f"history has no timestamps: expected a DatetimeIndex or a {TIMESTAMP_COLUMN!r} "
            f"column, got a {type(data.index).__name__} and columns {list(data.columns)}"
        )
    if V.ID_COLUMN in frame.columns:
        frame = frame.rename_axis(V.TIME_COLUMN).reset_index()
    return frame


def split_future(history: pd.DataFrame, estimator: Any) -> tuple[pd.DataFrame, Any]:
    """Split a history (from :func:`to_history`) into observed rows and future covariates.

    The observed rows of a series end at its last row with a target value; the declared
    ``future_covariates`` are read from all its rows (the ones after carry the forecast
    steps' values). Without future covariates the history is returned whole, with None.

    Parameters
    ----------
    history : DataFrame
        A frame indexed by timestamps, or a long frame with an ``id`` column (and a time
        column or a ``DatetimeIndex``).
    estimator : BaseForecaster
        The fitted estimator (its target columns and future covariates are used).

    Returns
    -------
    history : DataFrame
        The observed rows of each series.
    future : DataFrame or None
        The future covariates of all rows (with ``id`` and time columns for a long frame).
    """
    future_cols = list(getattr(estimator, "future_covariates_", None) or [])
    if not future_cols:
        return history, None
    missing = [c for c in future_cols if c not in history.columns]
    if missing:
        raise ValueError(
            f"the model reads future covariates {future_cols}; the input lacks {missing}: give "
            "them on the history rows and on the rows of the forecast steps after it"
        )
    targets = list(estimator.columns_)
    long = V.ID_COLUMN in history.columns
    groups = history.groupby(V.ID_COLUMN, sort=False) if long else [(None, history)]
    observed = []
    for key, part in groups:
        seen = part[targets].notna().to_numpy().any(axis=1)
        if not seen.any():
            where = "" if key is None else f"series {key!r}: "
            raise ValueError(f"{where}no row of the input has a value of the targets {targets}")
        observed.append(part.iloc[: int(seen.nonzero()[0][-1]) + 1])
    past = pd.concat(observed) if long else observed[0]
    keys = [c for c in (V.ID_COLUMN, V.TIME_COLUMN) if c in history.columns]
    return past, history[keys + future_cols]


class ForecastModel(mlflow.pyfunc.PythonModel):
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

    def load_context(self, context) -> None:
        """Load the ``estimator`` folder artifact (on CUDA when present, else CPU)."""
        from forecast.persistence import load

        device = (context.model_config or {}).get("device")
        self.estimator = load(context.artifacts["estimator"], device=device)

    def predict(
        self, context, model_input: pd.DataFrame, params: dict[str, Any] | None = None
    ) -> pd.DataFrame:
        """Forecast ``params["horizon"]`` steps after the end of ``model_input``.

        ``params["quantiles"]`` (models that forecast quantiles): ``"all"`` or levels such
        as ``"0.1,0.9"`` add the columns ``<column>_q<level>``; ``"none"``: points only.
        """
        from forecast._quantiles import parse_levels

        horizon = (params or {}).get("horizon") or default_horizon(self.estimator)
        quantiles = parse_levels((params or {}).get("quantiles"))
        history, future = split_future(to_history(model_input, self.estimator), self.estimator)
        kw = {} if quantiles is None else {"quantiles": quantiles}
        if future is not None:
            kw["future"] = future
        return self.estimator.predict(horizon=int(horizon), history=history, **kw)


class _LoadedModel:
    """What ``mlflow.pyfunc.load_model`` wraps: ``predict`` and the ``python_model``."""

    def __init__(self, python_model: ForecastModel) -> None:
        self.python_model = python_model  # for PyFuncModel.unwrap_python_model()

    def predict(self, model_input: pd.DataFrame, params: dict[str, Any] | None = None):
        return self.python_model.predict(None, model_input, params)


def _load_pyfunc(data_path: str, model_config: dict | None = None) -> _LoadedModel:
    """Load the saved model folder ``data_path`` (MLflow's loader-module entry point)."""
    from forecast.persistence import load

    model = ForecastModel()
    model.estimator = load(data_path, device=(model_config or {}).get("device"))
    return _LoadedModel(model)


def model_signature(estimator: Any, horizon: int | None = None):
    """Signature: optional ``timestamp``, the fitted columns, the ``horizon`` parameter.

    The fitted columns are the targets, the past covariates, then the future covariates.

    Models that forecast quantiles also take a string ``quantiles`` parameter (``"all"``,
    ``"0.1,0.9"``; default ``"none"``) and list the quantile columns as optional outputs.
    """
    from mlflow.models import ModelSignature
    from mlflow.types.schema import ColSpec, ParamSchema, ParamSpec, Schema

    past = list(getattr(estimator, "past_covariates_", []))
    past += list(getattr(estimator, "future_covariates_", None) or [])
    inputs = [ColSpec("datetime", TIMESTAMP_COLUMN, required=False)]
    if getattr(estimator, "input_kind_", "frame") != "frame":
        inputs.append(ColSpec("string", V.ID_COLUMN))
    inputs += [ColSpec("double", str(c)) for c in list(estimator.columns_) + past]
    outputs = [ColSpec("double", str(c)) for c in estimator.columns_]
    h = int(horizon or default_horizon(estimator))
    specs = [ParamSpec("horizon", "long", h)]
    levels = estimator._quantile_levels() if hasattr(estimator, "_quantile_levels") else ()
    if levels:  # quantile columns are optional outputs, asked for by the "quantiles" param
        from forecast._quantiles import quantile_column

        names = [quantile_column(str(c), q) for c in estimator.columns_ for q in levels]
        outputs += [ColSpec("double", name, required=False) for name in names]
        specs.append(ParamSpec("quantiles", "string", "none"))
    params = ParamSchema(specs)
    return ModelSignature(inputs=Schema(inputs), outputs=Schema(outputs), params=params)


def input_example(
    estimator: Any, history: Any = None, horizon: int | None = None
) -> pd.DataFrame | None:
    """Return a history the model can forecast from, with a naive-UTC ``timestamp`` column.

    The last ``max(min history, 3)`` rows of ``history`` (a single-series frame, e.g. the
    training data) or else of the rows the estimator kept; None when fewer rows exist
    (an estimator that keeps one row, like ``Naive``, without ``history``). A model with
    future covariates gets ``horizon`` more rows whose targets are left empty: the rows of
    the forecast steps, which carry only the covariates.
    """
    from forecast.tracking.fingerprint import to_flat_frame

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
    if stamps.tz is not None:
        stamps = stamps.tz_convert("UTC").tz_localize(None)
    flat.insert(0, TIMESTAMP_COLUMN, stamps)
    if V.ID_COLUMN in flat.columns:
        flat[V.ID_COLUMN] = flat[V.ID_COLUMN].astype(str)
    return flat


def _requirements() -> list[str]:
    import numpy
    import safetensors
    import sklearn
    import torch

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
    history: pd.DataFrame | None = None,
):
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
    history : DataFrame, optional
        Data the input example is cut from (default: the rows the estimator kept).

    Returns
    -------
    mlflow.models.model.ModelInfo
        ``model_uri`` is ``models:/<model_id>``; ``runs:/<run_id>/<name>`` works too.
    """
    from mlflow.models import Model

    from forecast.persistence import save
    from forecast.tracking._store import client as make_client

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
    from forecast.tracking._store import client as make_client

    with use_store(tracking_uri):
        version = mlflow.register_model(model_uri, name).version
    if alias:
        make_client(tracking_uri).set_registered_model_alias(name, alias, str(version))
    return str(version)
