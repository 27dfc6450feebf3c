"""MLflow tracking: fit runs, backtests and comparisons, data fingerprints, the pyfunc model.

Tracking is attached, not a hyperparameter: :class:`MLflowCallback` goes into
``fit(df, callbacks=[...])`` and :class:`MLflowTracker` into backtests and comparisons. The
store defaults to ``sqlite:///mlflow.db`` in the working folder (nothing to start);
``MLFLOW_TRACKING_URI`` or a ``tracking_uri`` argument points at a server instead.

Modules: ``callback`` (one fit), ``tracker`` (backtests, comparisons), ``pyfunc`` (the
model flavour and registry), ``champion`` (register a comparison's best model),
``fingerprint`` (content hash and dataset input), ``artifacts`` (logged models loaded
without running their code), ``views`` (links into the MLflow UI: the runs sorted by the
selection metric), ``_store`` (URIs and experiments),
``_runs`` (params, tags and metrics shared by all runs).
"""

from forecast.tracking._store import DEFAULT_TRACKING_URI, resolve_tracking_uri, use_store
from forecast.tracking.artifacts import ArtifactError, load_artifact
from forecast.tracking.callback import MLflowCallback, track_fit
from forecast.tracking.champion import Champion, register_champion
from forecast.tracking.fingerprint import dataset_input, fingerprint
from forecast.tracking.pyfunc import (
    ForecastModel,
    log_model,
    register,
    split_future,
    to_history,
)
from forecast.tracking.tracker import MLflowTracker

__all__ = [
    "ArtifactError",
    "Champion",
    "DEFAULT_TRACKING_URI",
    "ForecastModel",
    "MLflowCallback",
    "MLflowTracker",
    "dataset_input",
    "fingerprint",
    "load_artifact",
    "log_model",
    "register",
    "register_champion",
    "resolve_tracking_uri",
    "split_future",
    "to_history",
    "track_fit",
    "use_store",
]
