"""Where runs go: the tracking URI, experiments, and scoped access to MLflow's global URI.

The default store is embedded: ``sqlite:///mlflow.db`` in the working folder, artifacts in
``mlruns/`` beside the database file, so nothing needs starting. ``MLFLOW_TRACKING_URI``
(or a ``tracking_uri`` argument) points at a tracking server instead, with unchanged code.

Runs are written through an :class:`mlflow.MlflowClient` bound to one URI, so no global
state is touched. Only the few MLflow calls that read the global URI (logging and loading a
model) run inside :func:`use_store`, which restores MLflow's previous state on exit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import mlflow
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException
from mlflow.tracking._model_registry import utils as registry_utils
from mlflow.tracking._tracking_service import utils as tracking_utils

DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
_URI_ENV = ("MLFLOW_TRACKING_URI", "MLFLOW_REGISTRY_URI")
# tells MLflow 3 UIs that read it that runs here train models; 3.17 ignores it and follows
# its GenAI / Model training switch (``workflowType``), see forecast.tracking.views
_KIND = {"mlflow.experimentKind": "custom_model_development"}


def resolve_tracking_uri(uri: str | os.PathLike[str] | None = None) -> str:
    """Return the tracking URI to use.

    Parameters
    ----------
    uri : str or path-like, optional
        Explicit URI (``sqlite:///path.db``, ``http://host:5000``, ``file:///folder``) or a
        path to a ``.db`` file. Default: ``MLFLOW_TRACKING_URI`` when set, else
        ``sqlite:///mlflow.db`` in the working folder.

    Returns
    -------
    str
        The tracking URI.
    """
    if uri is None or uri == "":
        return os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    text = os.fspath(uri)
    if "://" not in text and text.endswith(".db"):
        return "sqlite:///" + str(Path(text).resolve())
    return text


def sqlite_path(uri: str) -> Path | None:
    """Return the database file of a ``sqlite:///`` URI (None for other stores)."""
    prefix = "sqlite:///"
    if not uri.startswith(prefix):
        return None
    return Path(uri[len(prefix) :]).resolve()


def client(uri: str | None = None, registry_uri: str | None = None) -> MlflowClient:
    """Return an :class:`mlflow.MlflowClient` bound to ``uri`` (resolved as above)."""
    return MlflowClient(tracking_uri=resolve_tracking_uri(uri), registry_uri=registry_uri)


def ensure_experiment(mlflow_client: MlflowClient, name: str) -> str:
    """Return the id of experiment ``name``, creating it if needed.

    For a SQLite store the experiment's artifacts go to ``mlruns/`` beside the database
    file (MLflow's own default is relative to the working folder of the first run). New
    experiments are tagged as model development (``mlflow.experimentKind``); MLflow 3.17's
    UI opens them on its GenAI overview all the same unless the link says
    ``workflowType=machine_learning`` (:func:`forecast.tracking.views.runs_view_url`).
    """
    found = mlflow_client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    location = None
    db = sqlite_path(mlflow_client.tracking_uri)
    if db is not None:
        location = (db.parent / "mlruns").as_uri()
    try:
        return mlflow_client.create_experiment(name, artifact_location=location, tags=_KIND)
    except MlflowException:  # created concurrently by another process
        found = mlflow_client.get_experiment_by_name(name)
        if found is None:
            raise
        return found.experiment_id


@contextmanager
def use_store(uri: str | None = None, registry_uri: str | None = None) -> Iterator[str]:
    """Point MLflow's global tracking (and registry) URI at a store for a ``with`` block.

    The previous URIs and the ``MLFLOW_TRACKING_URI``/``MLFLOW_REGISTRY_URI`` environment
    variables are restored exactly on exit, so nothing leaks to later code or tests.

    Parameters
    ----------
    uri : str, optional
        Tracking URI (resolved with :func:`resolve_tracking_uri`).
    registry_uri : str, optional
        Model registry URI; default ``MLFLOW_REGISTRY_URI`` or the tracking URI.

    Yields
    ------
    str
        The tracking URI in use.
    """
    resolved = resolve_tracking_uri(uri)
    saved_env = {key: os.environ.get(key) for key in _URI_ENV}
    saved_tracking = tracking_utils._tracking_uri
    saved_registry = registry_utils._registry_uri
    try:
        mlflow.set_tracking_uri(resolved)
        if registry_uri is not None:
            mlflow.set_registry_uri(registry_uri)
        yield resolved
    finally:
        # None unsets the URI at run time, though MLflow types the argument str | Path
        mlflow.set_tracking_uri(saved_tracking)  # type: ignore[arg-type]
        registry_utils._registry_uri = saved_registry
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
