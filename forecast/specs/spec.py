"""Experiment specs: a TOML file names the data, the backtest and the models to compare.

``forecast run experiments/entsoe_de_day_ahead.toml`` reads a spec such as::

    name = "entsoe-de-day-ahead"

    [data]
    dataset = "entsoe-de"          # a catalogue name, or: path = "load.csv"
    columns = ["actual", "forecast"]
    resample = "1h"                # optional: mean over each period
    start = "2019-01-01"           # optional: first timestamp kept
    timezone = "Europe/Berlin"     # optional: convert the index to this zone

    [backtest]                     # keyword arguments of forecast.evaluation.backtest
    protocol = "day-ahead"
    start = "2023-01-01"
    end = "2023-12-31"
    target = "actual"

    [models.tso]                   # one table per model: `model` names the estimator,
    model = "external"             # the other keys are its parameters
    column = "forecast"

    [tracking]                     # optional
    enabled = true
    experiment = "entsoe-de"
    register = "power-load-de"     # optional: register the best loggable model
    alias = "champion"             # alias of the new version (default "champion")
    select = "mape"                # metric the best model is chosen by (lower is better):
                                   # the parent run's best_model tag and the champion
    dataset = "entsoe-de"          # optional: name of the data in the MLflow UI (default:
                                   # the catalogue name, or the file name of `path`)

and writes the comparison table (CSV and Markdown) and plots to ``output`` (default
``experiments/results/<name>/``). ``special_days = "holidays-DE"`` in ``[backtest]`` adds
``mape_special`` (see :func:`forecast.evaluation.compare.compare`).

A ``[vintages]`` table gives the future covariates as they were known at each origin
(:mod:`forecast.specs.vintages`)::

    [vintages]
    daily = { columns = ["forecast"], time = "10:00", days_before = 1 }

A table with ``model = "ensemble"`` averages the forecasts of other tables' models (see
:func:`build_models`)::

    [models.blend]
    model = "ensemble"
    members = ["linear-lag", "hopfield"]   # keys of other [models] tables
    weights = [0.7, 0.3]                   # optional; default equal weights

or, with one row of weights per local hour of the target time (24 rows; see
:func:`forecast.blend_weights` for choosing them)::

    weights_by = "hour"
    weights = [[0.6, 0.4], [0.5, 0.5], ...]  # hours 0, 1, ... 23

The checks are in :mod:`forecast.specs.check` (:func:`read_spec`, :func:`check_spec`), what
the tables build in :mod:`forecast.specs.build` (:func:`load_data`, :func:`build_models`,
:func:`build_estimator`); all are importable from here.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pandas as pd

from forecast.evaluation.compare import compare
from forecast.specs.build import build_estimator, build_models, load_data
from forecast.specs.check import check_spec, read_spec
from forecast.specs.vintages import load_vintages

__all__ = [
    "build_estimator",
    "build_models",
    "check_spec",
    "dataset_name",
    "load_data",
    "read_spec",
    "run_spec",
]

_TRACKER_ARGS = ("experiment", "tracking_uri", "dataset", "log_models")
DEFAULT_SELECT = "mape"  # the spec's default metric for best_model and the champion

_log = logging.getLogger("forecast.run")


def run_spec(
    path: str | Path | Mapping[str, Any], output: str | Path | None = None, *, progress: bool = True
) -> pd.DataFrame:
    """Run the comparison an experiment spec describes and write its results.

    Progress goes to the ``forecast.*`` loggers (see :mod:`forecast.training.progress`). With
    ``[tracking] register``, the best model by ``select`` that can be logged as a pyfunc
    model is registered after the results are written (see
    :func:`forecast.tracking.champion.register_champion`). A tracked run prints one line on
    stdout: ``runs by <select>: <link>``, the experiment's runs in the MLflow UI sorted by the
    selection metric (:func:`forecast.tracking.views.runs_link_line`; for a store without a
    server, the ``mlflow ui`` command to start first). A run that fails (a model refusing the
    protocol, an interrupt) removes what it wrote under the results folder, and the folder
    itself when the run made it, so no partial results are left.

    Parameters
    ----------
    path : str, Path or dict
        TOML spec (see the module docstring), or its tables as a dict (checked with
        :func:`check_spec`; it needs a ``name``), e.g. a packaged spec with settings
        changed, as ``forecast demo`` runs it.
    output : str or Path, optional
        Results folder; default the spec's ``output`` or ``experiments/results/<name>``.
    progress : bool
        Report every model's epochs (log lines, or tqdm bars on a terminal); False
        silences them.

    Returns
    -------
    DataFrame
        The comparison table (rows models, columns metrics, times and memory).
    """
    spec = check_spec(path) if isinstance(path, Mapping) else read_spec(path)
    models = build_models(spec["models"])
    data = load_data(spec["data"])
    _log.info(
        "run: %s: %d rows x %d columns, %s to %s; %d models: %s",
        spec["name"],
        len(data),
        data.shape[1],
        data.index[0] if len(data) else None,
        data.index[-1] if len(data) else None,
        len(models),
        ", ".join(models),
    )
    out = Path(output or spec.get("output") or Path("experiments/results") / spec["name"])
    kept = set(out.rglob("*")) if out.exists() else None  # what was there before this run
    out.mkdir(parents=True, exist_ok=True)
    try:
        table = _run(spec, models, data, out, progress)
    except BaseException:
        _remove_new(out, kept)  # a failed run leaves the folder as it found it
        raise
    _log.info("run: wrote %s and comparison.md", out / "comparison.csv")
    return table


def _remove_new(out: Path, kept: set[Path] | None) -> None:
    """Delete what a failed run wrote under ``out``: the folder itself if it made it."""
    if kept is None:
        shutil.rmtree(out, ignore_errors=True)
        return
    for path in sorted(set(out.rglob("*")) - kept, key=lambda p: len(p.parts), reverse=True):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _run(
    spec: dict[str, Any], models: dict[str, Any], data: pd.DataFrame, out: Path, progress: bool
) -> Any:
    """Backtest ``models`` on ``data`` as ``spec`` says, writing the results into ``out``."""
    tracker = None
    tracking = spec.get("tracking", {})
    if tracking.get("enabled", False):
        # optional: tracking needs mlflow (seconds to import); untracked specs never import it
        from forecast.tracking import MLflowTracker

        options = {k: tracking[k] for k in _TRACKER_ARGS if k in tracking}
        options.setdefault("dataset", dataset_name(spec["data"]))
        if "path" in spec["data"]:
            options.setdefault("data_source", str(Path(spec["data"]["path"]).resolve()))
        tracker = MLflowTracker(select=tracking.get("select", DEFAULT_SELECT), **options)
    backtest = dict(spec.get("backtest", {}))
    if "vintages" in spec:  # what each origin's forecast may read of the future covariates
        backtest["future"] = load_vintages(spec["vintages"], data)
    result = compare(
        models, data, plots_dir=out, tracker=tracker, name=spec["name"], progress=progress,
        **backtest,
    )  # fmt: skip
    table = result.table
    table.to_csv(out / "comparison.csv")
    shown = table.astype(object)  # object: the counts (n, n_fits) print as integers
    (out / "comparison.md").write_text(shown.to_markdown(floatfmt=".3f") + "\n")
    _log.info("run: comparison of %d models in %.1f s", len(table), result.seconds)
    if "register" in tracking:
        from forecast.tracking.champion import register_champion  # optional: as above

        register_champion(
            tracker,
            result,
            tracking["register"],
            alias=tracking.get("alias", "champion"),
            select=tracking.get("select", DEFAULT_SELECT),
            history=data,
        )
    if tracker is not None and tracker.runs_url:
        from forecast.tracking.views import runs_link_line  # optional: as above

        query = parse_qs(urlsplit(tracker.runs_url.split("#", 1)[-1]).query)
        label = query["viewStateShareKey"][0].removeprefix("forecast-by-")  # select, else metric 1
        print(runs_link_line(label, tracker.runs_url, tracker.uri), flush=True)
    return table


def dataset_name(data: Mapping[str, Any]) -> str:
    """Name of a spec's data in MLflow: the catalogue name, else the file's name.

    Parameters
    ----------
    data : dict
        The spec's ``[data]`` table.

    Returns
    -------
    str
        ``data["dataset"]`` (e.g. ``"entsoe-de"``), else the name of ``data["path"]``.
    """
    if "dataset" in data:
        return str(data["dataset"])
    return Path(str(data["path"])).name
