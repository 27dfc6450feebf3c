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
    select = "mape"                # metric the best model is chosen by (lower is better)

and writes the comparison table (CSV and Markdown) and plots to ``output`` (default
``experiments/results/<name>/``). ``special_days = "holidays-DE"`` in ``[backtest]`` adds
``mape_special`` (see :func:`forecast.evaluation.compare.compare`).

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
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.models import get_estimator

_TOP_KEYS = {
    "name", "description", "output", "data", "backtest", "models", "tracking", "plots", "tune",
}  # fmt: skip
_TRACKING_KEYS = {
    "enabled",
    "experiment",
    "tracking_uri",
    "dataset",
    "log_models",
    "register",
    "alias",
    "select",
}
_TRACKER_ARGS = ("experiment", "tracking_uri", "dataset", "log_models")

_log = logging.getLogger("forecast.run")


def read_spec(path: str | Path) -> dict:
    """Read and check an experiment spec.

    Parameters
    ----------
    path : str or Path
        TOML file.

    Returns
    -------
    dict
        The spec, with ``name`` defaulting to the file's stem.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"experiment spec {path} does not exist")
    try:
        spec = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: not valid TOML: {err}") from err
    return check_spec(spec, path, name=path.stem)


def check_spec(spec: dict, source: str | Path = "spec", *, name: str | None = None) -> dict:
    """Check an experiment spec given as a dict (as :func:`read_spec` returns it).

    Parameters
    ----------
    spec : dict
        The parsed TOML tables; not modified.
    source : str or Path
        Where the spec came from, the prefix of every error message.
    name : str, optional
        Default of the spec's ``name``; without one the spec must have a ``name``.

    Returns
    -------
    dict
        A shallow copy of ``spec`` with ``name`` set.

    Raises
    ------
    ValueError
        If a table is missing, unknown or invalid; the message starts with ``source``.
    """
    spec = dict(spec)
    unknown = set(spec) - _TOP_KEYS
    if unknown:
        raise ValueError(
            f"{source}: unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}"
        )
    for section in ("data", "models"):
        if not isinstance(spec.get(section), dict) or not spec[section]:
            raise ValueError(f"{source}: the [{section}] table is missing or empty")
    for key, params in spec["models"].items():
        if not isinstance(params, dict) or "model" not in params:
            raise ValueError(f'{source}: [models.{key}] needs a `model` key (e.g. model = "lstm")')
    _check_backtest(source, spec.get("backtest", {}))
    _check_tracking(source, spec.get("tracking", {}), spec.get("backtest", {}))
    if "tune" in spec:
        _check_tune(source, spec)
    if name is not None:
        spec.setdefault("name", name)
    if not isinstance(spec.get("name"), str) or not spec["name"]:
        raise ValueError(f"{source}: the spec needs a non-empty string `name`")
    return spec


def _check_backtest(path: str | Path, backtest: dict) -> None:
    if "special_days" in backtest:
        from forecast.frames.special_days import check_special_days

        try:
            check_special_days(backtest["special_days"])
        except (TypeError, ValueError) as err:
            raise ValueError(f"{path}: [backtest] {err}") from err


def _check_tracking(path: str | Path, tracking: dict, backtest: dict) -> None:
    """Check the [tracking] table before anything runs (a bad `select` would fail last)."""
    from forecast.evaluation.backtest import DEFAULT_METRICS
    from forecast.tracking.champion import check_select

    if not isinstance(tracking, dict):
        raise ValueError(f"{path}: [tracking] must be a table")
    unknown = set(tracking) - _TRACKING_KEYS
    if unknown:
        raise ValueError(
            f"{path}: unknown [tracking] key(s) {sorted(unknown)}; "
            f"allowed: {sorted(_TRACKING_KEYS)}"
        )
    for key in ("register", "alias", "select"):
        if key in tracking and (not isinstance(tracking[key], str) or not tracking[key]):
            raise ValueError(f"{path}: [tracking] {key} must be a non-empty string")
    if "register" not in tracking:
        extra = sorted({"alias", "select"} & set(tracking))
        if extra:
            raise ValueError(f"{path}: [tracking] {extra} only apply with `register = <name>`")
        return
    if not tracking.get("enabled", False):
        raise ValueError(f"{path}: [tracking] register needs enabled = true")
    columns = list(backtest.get("metrics", DEFAULT_METRICS))
    if "special_days" in backtest:
        columns.append("mape_special")
    try:
        check_select(tracking.get("select", "mape"), columns)
    except ValueError as err:
        raise ValueError(f"{path}: [tracking] {err}") from err


def _check_tune(path: str | Path, spec: dict) -> None:
    """Check the [tune] table (see :mod:`forecast.specs.tune`); Ray is not needed."""
    from forecast.specs.tune import parse_tune

    try:
        settings = parse_tune(spec["tune"], spec["models"], spec.get("backtest", {}))
        cls = get_estimator(spec["models"][settings.model]["model"])
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from err
    valid = cls._get_param_names()
    unknown = [k for k in settings.space if k not in valid]
    if unknown:
        raise ValueError(
            f"{path}: [tune.space] {unknown} not parameters of {cls.__name__}; "
            f"valid: {', '.join(valid)}"
        )


def load_data(data: dict) -> pd.DataFrame:
    """Load the frame a spec's ``[data]`` table describes."""
    from forecast.datasets import load
    from forecast.frames.io import read_frame

    if ("dataset" in data) == ("path" in data):
        raise ValueError("[data] needs exactly one of `dataset` (catalogue name) or `path` (file)")
    if "dataset" in data:
        frame = load(data["dataset"], data_dir=data.get("data_dir"))
    else:
        frame = read_frame(data["path"], data.get("time_column"))
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(
            f"dataset {data.get('dataset')!r} is a collection of series, not one frame"
        )
    if "columns" in data:
        missing = [c for c in data["columns"] if c not in frame.columns]
        if missing:
            raise ValueError(
                f"[data] columns {missing} not in the data; found {list(frame.columns)}"
            )
        frame = frame[data["columns"]]
    if "resample" in data:
        frame = frame.resample(data["resample"]).mean()
    if "timezone" in data:
        frame = frame.tz_convert(data["timezone"])
    if "start" in data or "end" in data:
        frame = frame.loc[data.get("start") : data.get("end")]
    return frame


def build_estimator(model: str, params: dict[str, Any]) -> Any:
    """Instantiate the estimator registered as ``model`` with ``params``.

    Parameters
    ----------
    model : str
        Registry name or class name (see :func:`forecast.models.get_estimator`).
    params : dict
        Constructor parameters.

    Returns
    -------
    BaseForecaster
        The unfitted estimator.

    Raises
    ------
    ValueError
        If ``model`` is unknown or a parameter is not one the class takes (the message
        names it and lists the valid ones).
    """
    cls = get_estimator(model)
    valid = cls._get_param_names()
    unknown = [k for k in params if k not in valid]
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        raise ValueError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {names} for {model} "
            f"({cls.__name__}); valid: {', '.join(valid)}"
        )
    return cls(**params)


def build_models(models: dict) -> dict[str, Any]:
    """Instantiate the estimators of a spec's ``[models]`` tables.

    A table with ``model = "ensemble"`` names its members by the keys of other tables,
    ``members = ["linear-lag", "hopfield"]`` (optionally ``weights = [0.7, 0.3]``, or
    ``weights_by = "hour"`` with 24 rows of weights): each member is a clone of that
    table's estimator, named by its key with ``-`` as ``_``.
    """
    out, ensembles = {}, {}
    for name, params in models.items():
        params = dict(params)
        model = params.pop("model")
        params = {
            k: tuple(v) if isinstance(v, list) and k in ("order", "seasonal_order") else v
            for k, v in params.items()
        }
        try:
            if _is_ensemble(model):
                ensembles[name] = params
            else:
                out[name] = build_estimator(model, params)
        except ValueError as err:
            raise ValueError(f"[models.{name}] {err}") from err
    for name, params in ensembles.items():
        try:
            out[name] = _build_ensemble(name, params, out, set(ensembles))
        except (TypeError, ValueError) as err:
            raise ValueError(f"[models.{name}] {err}") from err
    return {name: out[name] for name in models}


def _is_ensemble(model: str) -> bool:
    from forecast.combine.ensemble import EnsembleForecaster

    return get_estimator(model) is EnsembleForecaster


def _build_ensemble(name: str, params: dict, built: dict, ensembles: set) -> Any:
    """Build the ensemble of a ``[models.<name>]`` table from other tables' estimators."""
    from sklearn.base import clone

    if "estimators" in params:
        raise ValueError(
            "give the members as members = [<keys of other [models] tables>], not estimators"
        )
    members = params.pop("members", None)
    if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
        raise ValueError(
            'an ensemble needs members = ["<model key>", ...] naming other [models] tables, '
            f"got {members!r}"
        )
    estimators = []
    for key in members:
        if key == name:
            raise ValueError(f"member {key!r} is the ensemble itself")
        if key in ensembles:
            raise ValueError(f"member {key!r} is itself an ensemble: nesting is not supported")
        if key not in built:
            raise ValueError(f"unknown member {key!r}; the [models] tables are {sorted(built)}")
        label = key.replace("-", "_")
        if not label.isidentifier():
            raise ValueError(
                f"member {key!r}: its key must be letters, digits, '_' or '-' (not starting "
                "with a digit) to name the member"
            )
        estimators.append((label, clone(built[key])))
    model = build_estimator("ensemble", {**params, "estimators": estimators})
    model._check_params()
    return model


def run_spec(
    path: str | Path | Mapping, output: str | Path | None = None, *, progress: bool = True
) -> pd.DataFrame:
    """Run the comparison an experiment spec describes and write its results.

    Progress goes to the ``forecast.*`` loggers (see :mod:`forecast.training.progress`). With
    ``[tracking] register``, the best model by ``select`` that can be logged as a pyfunc
    model is registered after the results are written (see
    :func:`forecast.tracking.champion.register_champion`).

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
    from forecast.evaluation.compare import compare

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
    out.mkdir(parents=True, exist_ok=True)
    tracker = None
    tracking = spec.get("tracking", {})
    if tracking.get("enabled", False):
        from forecast.tracking import MLflowTracker

        tracker = MLflowTracker(**{k: tracking[k] for k in _TRACKER_ARGS if k in tracking})
    result = compare(
        models,
        data,
        plots_dir=out,
        tracker=tracker,
        name=spec["name"],
        progress=progress,
        **spec.get("backtest", {}),
    )
    table = result.table
    table.to_csv(out / "comparison.csv")
    (out / "comparison.md").write_text(table.to_markdown(floatfmt=".3f") + "\n")
    _log.info("run: wrote %s and comparison.md (%.1f s)", out / "comparison.csv", result.seconds)
    if "register" in tracking:
        from forecast.tracking.champion import register_champion

        register_champion(
            tracker,
            result,
            tracking["register"],
            alias=tracking.get("alias", "champion"),
            select=tracking.get("select", "mape"),
            history=data,
        )
    return table
