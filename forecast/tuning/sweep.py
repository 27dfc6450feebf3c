"""Hyperparameter sweeps on Ray Tune: :func:`forecast.tune` and ``forecast tune``.

A sweep reads an experiment spec with a ``[tune]`` table (see
:mod:`forecast.specs.tune`). Every trial builds the tuned model from its ``[models]``
table plus the sampled configuration and backtests it on the *validation* period (the
spec's ``[backtest]`` settings with the validation start and end, on data cut at the
validation end, so the test period is never seen). Neural models report their validation
loss after every epoch through a training callback, and ASHA stops the weak trials early
(see :mod:`forecast.tuning.trials` for what is reported and when ASHA's decisions are
reproducible: ``max_concurrent = 1``).

Tracking: one MLflow parent run per sweep, one child run per trial (parameters,
per-epoch ``train_loss``/``val_loss``, final backtest metrics; status FAILED for a trial
that raised, KILLED for one ASHA stopped). The best configuration is refitted on all data
before the test period and logged as a pyfunc model of the parent run.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.evaluation.backtest import backtest
from forecast.parallel.engine import check_ray_installed, ray_session
from forecast.specs.spec import build_models, load_data, read_spec
from forecast.specs.tune import TuneSettings, parse_tune
from forecast.tracking import _runs
from forecast.tuning.runs import TrialRun, close_stopped, finish_tracking, start_tracking
from forecast.tuning.trials import EpochReporter, final_report, make_tuner, trials_table

__all__ = ["TuneResult", "tune"]

_BACKTEST_KEYS = (
    "protocol", "horizon", "origins", "lead", "window", "train_size", "refit_every",
    "timezone", "target", "metrics", "mase_season",
)  # fmt: skip
_STATE = "sweep.json"


@dataclass
class TuneResult:
    """Outcome of :func:`tune`.

    Attributes
    ----------
    trials : DataFrame
        One row per trial: ``trial_id``, the sampled parameters, ``status``
        (``FINISHED``, ``STOPPED`` by ASHA, ``FAILED``), ``epochs`` (epochs run),
        the validation metric and ``error`` (first line, for failed trials).
    best_config : dict
        The sampled parameters of the best finished trial.
    best_score : float
        Its validation metric.
    estimator : BaseForecaster
        The best configuration refitted on all data before the test period.
    parent_run_id : str or None
        The sweep's MLflow run (None with ``track=False``).
    model_uri : str or None
        The refitted model logged in the parent run.
    path : Path
        Folder of the sweep: Ray Tune's state (for ``resume``), ``trials.csv``, ``best.json``.
    """

    trials: pd.DataFrame
    best_config: dict[str, Any]
    best_score: float
    estimator: Any
    parent_run_id: str | None
    model_uri: str | None
    path: Path


def build_tuned(spec: dict[str, Any], settings: TuneSettings, config: dict[str, Any]) -> Any:
    """Build the estimator of ``[models.<tuned>]`` with the sampled ``config`` on top."""
    table = {**spec["models"][settings.model], **config}
    return build_models({settings.model: table})[settings.model]


def _trial(
    config: dict[str, Any], data: Any = None, *, spec: dict[str, Any], settings: Any, tracking: Any
) -> None:
    """One trial: backtest the configuration on the validation period and report it."""
    from ray import tune as ray_tune  # optional: the extra forecast-toolkit[ray]

    context = ray_tune.get_context()
    config = {k: v.item() if hasattr(v, "item") else v for k, v in config.items()}
    estimator = build_tuned(spec, settings, config)
    run = TrialRun(
        tracking,
        context.get_trial_id(),
        {**_runs.estimator_params(estimator), **{f"tune.{k}": v for k, v in config.items()}},
    )
    reporter = EpochReporter(run.log)
    try:
        result = backtest(
            estimator, data, callbacks=[reporter], **validation_kwargs(spec, settings)
        )
    except Exception as err:
        run.end("FAILED", f"{type(err).__name__}: {err}")
        raise
    row = result.metrics.loc["overall"]
    assert isinstance(row, pd.Series)  # one "overall" row
    overall = {str(k): float(v) for k, v in row.items()}
    run.log(overall, reporter.epochs)
    run.end("FINISHED")
    ray_tune.report(final_report(overall, reporter))


def validation_kwargs(spec: dict[str, Any], settings: TuneSettings) -> dict[str, Any]:
    """Backtest settings of the validation period: the spec's, with its start and end."""
    kwargs = {k: v for k, v in spec.get("backtest", {}).items() if k in _BACKTEST_KEYS}
    return {**kwargs, "start": settings.validation_start, "end": settings.validation_end}


def tune(
    spec: str | os.PathLike[str],
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    output: str | os.PathLike[str] | None = None,
    resume: bool = False,
    track: bool = True,
) -> TuneResult:
    """Run the hyperparameter sweep of an experiment spec's ``[tune]`` table on Ray Tune.

    Parameters
    ----------
    spec : str or path-like
        TOML experiment spec with a ``[tune]`` table.
    address : str, optional
        Ray cluster (default ``RAY_ADDRESS``, else a local Ray).
    num_cpus : int, optional
        CPUs of a local Ray.
    output : str or path-like, optional
        Sweep folder (default ``<spec output or experiments/results/<name>>/tune``).
    resume : bool
        Continue the interrupted sweep in ``output`` (same spec) instead of starting anew.
    track : bool
        Log the parent run, one child run per trial and the refitted best model to MLflow
        (the spec's ``[tracking]`` experiment and store, default experiment ``<name>``).

    Returns
    -------
    TuneResult

    Raises
    ------
    ValueError
        A spec without ``[tune]``, a bad ``[tune]`` table, every trial failed, or
        ``resume`` without a sweep to resume.
    ConnectionError
        The cluster at ``address`` cannot be reached or refused this client's token (one
        line with Ray's hint; see ``docs/ray.md``); no MLflow run or folder was created.
    KeyboardInterrupt
        The sweep was interrupted before every trial ended; its state is kept for
        ``resume=True`` (the parent run stays open and is reused).
    """
    spec_path = Path(spec)
    tables = read_spec(spec_path)  # the spec's tables, by name
    if "tune" not in tables:
        raise ValueError(f"{spec_path}: no [tune] table; add one (see forecast.specs.tune)")
    settings = parse_tune(tables["tune"], tables["models"], tables.get("backtest", {}))
    check_ray_installed("forecast tune")  # before anything is created: MLflow store, folder
    base = Path(output or tables.get("output") or Path("experiments/results") / tables["name"])
    folder = (base if output else base / "tune").resolve()
    state = folder / _STATE
    if resume and not state.is_file():
        raise ValueError(f"nothing to resume: {folder} holds no interrupted sweep ({_STATE})")
    data = load_data(tables["data"])
    validation = data.loc[: settings.validation_end]
    saved = json.loads(state.read_text()) if resume else {}
    with ray_session(address, num_cpus) as ray:  # connected first: a refusal leaves no run
        tracking = start_tracking(tables, settings, saved) if track else None
        folder.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps({"tracking": tracking}, indent=1))
        grid = _run_tuner(ray, tables, settings, validation, tracking, folder, resume)
    # trials not yet sampled when the sweep stopped are missing from the grid: count
    # against the requested number
    unfinished = settings.num_samples - grid.num_terminated - grid.num_errors
    if unfinished > 0:  # interrupted (Ctrl+C, a lost driver): leave it for --resume
        raise KeyboardInterrupt(
            f"sweep interrupted with {unfinished} of {settings.num_samples} trials unfinished; "
            f"continue it with `forecast tune {spec_path} --resume` (state in {folder})"
        )
    trials, configs = trials_table(grid, settings)
    close_stopped(tracking)
    finished = trials[trials["status"] == "FINISHED"].dropna(subset=[settings.metric])
    if finished.empty:
        raise ValueError(f"every trial of the sweep failed or was stopped; see {folder}")
    # pandas-stubs type idxmin() as Hashable, which .loc's overloads do not take
    best = finished.loc[finished[settings.metric].idxmin()]  # type: ignore[call-overload]
    best_config = configs[best.name]
    estimator = build_tuned(tables, settings, best_config)
    test_start = tables["backtest"]["start"]
    assert isinstance(data.index, pd.DatetimeIndex)  # load_data indexes by time
    train = data.loc[data.index < _stamp(test_start, data.index)]
    estimator.fit(train)
    trials.to_csv(folder / "trials.csv", index=False)
    best_info = {"config": best_config, settings.metric: float(best[settings.metric])}
    (folder / "best.json").write_text(json.dumps(best_info, indent=1) + "\n")
    model_uri = finish_tracking(tracking, estimator, best_info, train, trials)
    return TuneResult(
        trials=trials,
        best_config=best_config,
        best_score=float(best[settings.metric]),
        estimator=estimator,
        parent_run_id=tracking["parent"] if tracking else None,
        model_uri=model_uri,
        path=folder,
    )


def _run_tuner(
    ray: Any,
    spec: dict[str, Any],
    settings: TuneSettings,
    validation: pd.DataFrame,
    tracking: dict[str, str] | None,
    folder: Path,
    resume: bool,
) -> Any:
    from ray import tune as ray_tune  # optional: the extra forecast-toolkit[ray]

    trainable = ray_tune.with_parameters(
        partial(_trial, spec=spec, settings=settings, tracking=tracking), data=validation
    )
    if resume and ray_tune.Tuner.can_restore(folder / "sweep"):
        tuner = ray_tune.Tuner.restore(str(folder / "sweep"), trainable=trainable)
    else:
        tuner = make_tuner(trainable, settings, folder)
    # Tune prints its configuration box on stdout even with verbose=0: stdout is the
    # command's result (the trials table), so Tune's lines go to stderr with the logs
    with contextlib.redirect_stdout(sys.stderr):
        return tuner.fit()


def _stamp(text: Any, index: pd.DatetimeIndex) -> pd.Timestamp:
    stamp = pd.Timestamp(str(text))
    if index.tz is not None and stamp.tz is None:
        stamp = stamp.tz_localize(index.tz)
    return stamp
