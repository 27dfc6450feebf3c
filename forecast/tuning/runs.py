"""MLflow runs of a sweep: the parent, one child per trial, the refitted best model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from forecast.specs.tune import TuneSettings
from forecast.tracking import _runs
from forecast.tracking._store import client as make_client
from forecast.tracking._store import ensure_experiment, resolve_tracking_uri, sqlite_path
from forecast.tracking.pyfunc import log_model, unloggable_reason

if TYPE_CHECKING:
    import pandas as pd

_STATUSES = ("FINISHED", "STOPPED", "FAILED")


class TrialRun:
    """The MLflow child run of one trial (a no-op without tracking).

    Ray Tune starts a trial again on resume only when it had not seen the trial end before
    the interrupt; the run of that cut-short attempt (RUNNING, or already ended if the
    interrupt came between the run's end and Tune's record of it) is then deleted (MLflow
    keeps it restorable) and the new attempt, tagged ``resumed``, is the trial's one
    child run.
    """

    def __init__(
        self, tracking: dict[str, str] | None, trial_id: str, params: Mapping[str, Any]
    ) -> None:
        self.client = self.run_id = None
        if tracking is None:
            return
        self.client = make_client(tracking["uri"])
        earlier = self.client.search_runs(
            [tracking["experiment_id"]],
            filter_string=f"tags.mlflow.parentRunId = '{tracking['parent']}' "
            f"and tags.trial_id = '{trial_id}'",
        )
        for run in earlier:
            self.client.delete_run(run.info.run_id)
        tags = {"mlflow.parentRunId": tracking["parent"], "run_kind": "tune-trial"}
        tags["trial_id"] = trial_id
        if earlier:
            tags["resumed"] = "true"
        run = self.client.create_run(
            tracking["experiment_id"], run_name=f"trial {trial_id}", tags=tags
        )
        self.run_id = run.info.run_id
        _runs.log_params(self.client, self.run_id, params)

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        """Log one epoch's metrics to the trial's run."""
        if self.client is not None and self.run_id is not None:  # set together
            _runs.log_metrics(self.client, self.run_id, metrics, step=step)

    def end(self, status: str, error: str | None = None) -> None:
        """End the trial's run with ``status``, tagging ``error`` if given."""
        if self.client is not None and self.run_id is not None:  # set together
            if error is not None:
                self.client.set_tag(self.run_id, "error", error[:5000])
            self.client.set_terminated(self.run_id, status)


def start_tracking(
    spec: dict[str, Any], settings: TuneSettings, saved: dict[str, Any]
) -> dict[str, str]:
    """Open (or, on resume, reuse) the parent run; return what trials need to log."""
    table = spec.get("tracking", {})
    uri = resolve_tracking_uri(table.get("tracking_uri"))
    db = sqlite_path(uri)
    if db is not None:  # trials run in other working folders
        uri = f"sqlite:///{db}"
    if saved.get("tracking"):
        return saved["tracking"]
    client = make_client(uri)
    experiment_id = ensure_experiment(client, table.get("experiment", spec["name"]))
    run = client.create_run(
        experiment_id, run_name=f"tune {spec['name']}", tags={"run_kind": "tune-sweep"}
    )
    _runs.log_params(
        client,
        run.info.run_id,
        {
            "model": settings.model,
            "metric": settings.metric,
            "num_samples": settings.num_samples,
            "validation": f"{settings.validation_start} to {settings.validation_end}",
            "space": json.dumps({k: {kind: a} for k, (kind, a) in settings.space.items()}),
            "scheduler": f"ASHA(grace_period={settings.grace_period}, "
            f"reduction_factor={settings.reduction_factor})",
        },
    )
    return {"uri": uri, "experiment_id": experiment_id, "parent": run.info.run_id}


def close_stopped(tracking: dict[str, str] | None) -> None:
    """Mark the child runs ASHA stopped (still RUNNING) as KILLED."""
    if tracking is None:
        return
    client = make_client(tracking["uri"])
    children = client.search_runs(
        [tracking["experiment_id"]],
        filter_string=f"tags.mlflow.parentRunId = '{tracking['parent']}'",
    )
    for run in children:
        if run.info.status == "RUNNING":
            client.set_tag(run.info.run_id, "stopped_by", "ASHA")
            client.set_terminated(run.info.run_id, "KILLED")


def finish_tracking(
    tracking: dict[str, str] | None,
    estimator: Any,
    best_info: dict[str, Any],
    train: pd.DataFrame,
    trials: pd.DataFrame,
) -> str | None:
    """Log the refitted best model under the sweep's parent run; return its run id."""
    if tracking is None:
        return None
    client = make_client(tracking["uri"])
    parent = tracking["parent"]
    _runs.log_params(client, parent, {f"best.{k}": v for k, v in best_info["config"].items()})
    score = {k: v for k, v in best_info.items() if k != "config"}
    counts = trials["status"].value_counts()
    _runs.log_metrics(
        client,
        parent,
        {
            **{f"best_{k}": v for k, v in score.items()},
            **{
                f"trials_{s.lower()}": int(counts.get(s, 0))
                for s in ("FINISHED", "STOPPED", "FAILED")
            },
        },
    )
    model_uri = None
    if unloggable_reason(estimator) is None:
        model_uri = log_model(
            estimator, parent, tracking_uri=tracking["uri"], history=train
        ).model_uri
    client.set_terminated(parent, "FINISHED")
    return model_uri
