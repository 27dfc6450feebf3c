"""Experiment specs: a TOML file names the data, the backtest and the models to compare.

``forecast run experiments/entsoe_de_day_ahead.toml`` reads a spec such as::

    name = "entsoe-de-day-ahead"

    [data]
    dataset = "entsoe-de"          # a catalogue name, or: path = "load.csv"
    columns = ["actual", "forecast"]
    resample = "1h"                # optional: mean over each period
    start = "2019-01-01"           # optional: first timestamp kept
    timezone = "Europe/Berlin"     # optional: convert the index to this zone

    [backtest]                     # keyword arguments of forecast.backtest
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

and writes the comparison table (CSV and Markdown) and plots to ``output`` (default
``experiments/results/<name>/``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.models import get_estimator

_TOP_KEYS = {"name", "description", "output", "data", "backtest", "models", "tracking", "plots"}


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
    unknown = set(spec) - _TOP_KEYS
    if unknown:
        raise ValueError(
            f"{path}: unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}"
        )
    for section in ("data", "models"):
        if not isinstance(spec.get(section), dict) or not spec[section]:
            raise ValueError(f"{path}: the [{section}] table is missing or empty")
    for name, params in spec["models"].items():
        if not isinstance(params, dict) or "model" not in params:
            raise ValueError(f'{path}: [models.{name}] needs a `model` key (e.g. model = "lstm")')
    spec.setdefault("name", path.stem)
    return spec


def load_data(data: dict) -> pd.DataFrame:
    """Load the frame a spec's ``[data]`` table describes."""
    from forecast.datasets import load
    from forecast.io import read_frame

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


def build_models(models: dict) -> dict[str, Any]:
    """Instantiate the estimators of a spec's ``[models]`` tables."""
    out = {}
    for name, params in models.items():
        params = dict(params)
        cls = get_estimator(params.pop("model"))
        params = {
            k: tuple(v) if isinstance(v, list) and k in ("order", "seasonal_order") else v
            for k, v in params.items()
        }
        out[name] = cls(**params)
    return out


def run_spec(path: str | Path, output: str | Path | None = None) -> pd.DataFrame:
    """Run the comparison an experiment spec describes and write its results.

    Parameters
    ----------
    path : str or Path
        TOML spec (see the module docstring).
    output : str or Path, optional
        Results folder; default the spec's ``output`` or ``experiments/results/<name>``.

    Returns
    -------
    DataFrame
        The comparison table (rows models, columns metrics and times).
    """
    from forecast.compare import compare

    spec = read_spec(path)
    models = build_models(spec["models"])
    data = load_data(spec["data"])
    out = Path(output or spec.get("output") or Path("experiments/results") / spec["name"])
    out.mkdir(parents=True, exist_ok=True)
    tracker = None
    tracking = spec.get("tracking", {})
    if tracking.get("enabled", False):
        from forecast.tracking import MLflowTracker

        kwargs = {k: tracking[k] for k in ("experiment", "tracking_uri") if k in tracking}
        tracker = MLflowTracker(**kwargs)
    result = compare(
        models, data, plots_dir=out, tracker=tracker, name=spec["name"], **spec.get("backtest", {})
    )
    table = result.table
    table.to_csv(out / "comparison.csv")
    (out / "comparison.md").write_text(table.to_markdown(floatfmt=".3f") + "\n")
    return table
