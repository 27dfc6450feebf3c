"""Settings of the README's first forecast and of ``forecast demo``, chosen before the scored days.

Victoria's half-hourly demand of 2014 (``forecast.datasets.load("elecdemand")``, Melbourne
local time; the data hold 2014 only). Two protocols, each run in two phases:

- ``--protocol midnight`` (the README's first forecast): forecasts issued at 00:00 for the 48
  half-hours of the day. ``--phase select``: fitted once on the data up to 31 October, every
  day of November forecast from the data up to its midnight (no refit) and scored. ``--phase
  test``: fitted once on the data up to 30 November and scored on 1 December only, as the
  README does.
- ``--protocol day-ahead`` (the demo): the forecast issued at 12:00 on D-1 for the 48
  half-hours of D. ``select``: fitted on the data up to 12:00 on 3 November, scored on 4-30
  November. ``test``: fitted up to 12:00 on 3 December, scored on 4-31 December (the demo's
  own run).

``--models first-forecast`` and ``--models demo`` run the candidates of
``docs/results/demo.md``. Training starts at ``--train-start`` (default: the first of the
month two months before the scored month, the README's two months; ``2014-01-01`` for all of
2014 before it). Each model is a JSON object, ``{"name": ..., "model": <registry name>,
<constructor parameters>}``; the seasonal naive (same time last week) and LinearLag are always
run beside them. One torch thread; fit seconds measured on this process's clock::

    OMP_NUM_THREADS=1 python experiments/first_forecast_selection.py --protocol midnight \\
        --phase select --models '[{"name": "gru", "model": "gru", "max_epochs": 2}]'

Prints one table (Markdown) with MAE (GW), MAPE (%), bias, fit seconds and epochs run.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import pandas as pd
import torch

from forecast.datasets import load
from forecast.evaluation.backtest import backtest
from forecast.models import get_estimator

TZ = "Australia/Melbourne"
PERIODS = {  # (protocol, phase) -> (scored start, scored end, default training start)
    ("midnight", "select"): ("2014-11-01", "2014-11-30", "2014-09-01"),
    ("midnight", "test"): ("2014-12-01", "2014-12-01", "2014-10-01"),
    ("day-ahead", "select"): ("2014-11-04", "2014-11-30", "2014-09-01"),
    ("day-ahead", "test"): ("2014-12-04", "2014-12-31", "2014-10-01"),
}
LOCAL = {"calendar": True, "country": "AU-VIC", "timezone": TZ}
LONG = {"max_epochs": 100, "early_stopping_patience": 10}  # with windows at the issue time
SMALL_GRU = {"model": "gru", "context_length": 96, "horizon": 48, "hidden_size": 16}
# The candidates of docs/results/demo.md, by name (``--models first-forecast``)
SETS: dict[str, list[dict[str, Any]]] = {
    "first-forecast": [
        {"name": "GRU, README before", **SMALL_GRU, "max_epochs": 2, "random_state": 0},
        {"name": "GRU, 30 epochs", **SMALL_GRU, "max_epochs": 30, "random_state": 0},
        {"name": "GRU, 30 epochs, calendar", **SMALL_GRU, "random_state": 0, **LOCAL},
        *[
            {"name": f"GRU, calendar, midnight windows, seed {s}", **SMALL_GRU,
             "random_state": s, "train_origins": "00:00", **LONG, **LOCAL}
            for s in (0, 1, 2)
        ],
        {"name": "GRU, calendar, midnight windows, 3 seeds", **SMALL_GRU, "random_state": 0,
         "train_origins": "00:00", **LONG, "n_ensemble": 3, **LOCAL},
        *[
            {"name": f"Hopfield defaults, calendar, midnight windows, seed {s}",
             "model": "hopfield", "horizon": 48, "random_state": s, "train_origins": "00:00",
             **LONG, **LOCAL}
            for s in (0, 1, 2)
        ],
    ],
    "demo": [
        *[
            {"name": f"{family} defaults, calendar", "model": family, "horizon": 74,
             "random_state": 0, **LOCAL}
            for family in ("elman", "gru", "hopfield")
        ],
        *[
            {"name": f"{family}, calendar, 12:00 windows", "model": family, "horizon": 74,
             "random_state": 0, "train_origins": "12:00", **LONG, **LOCAL}
            for family in ("elman", "gru", "transformer")
        ],
        *[
            {"name": f"hopfield, calendar, 12:00 windows, seed {s}", "model": "hopfield",
             "horizon": 74, "random_state": s, "train_origins": "12:00", **LONG, **LOCAL}
            for s in (0, 1, 2)
        ],
        {"name": "hopfield, calendar, 12:00 windows, 3 seeds", "model": "hopfield",
         "horizon": 74, "random_state": 0, "train_origins": "12:00", **LONG, "n_ensemble": 3,
         **LOCAL},
    ],
}  # fmt: skip
BASELINES = [
    {"name": "same time last week", "model": "seasonal-naive", "season": "7D"},
    {"name": "LinearLag", "model": "linear-lag", "country": "AU-VIC", "timezone": TZ},
]


def build(spec: dict[str, Any]) -> Any:
    """Return the estimator a JSON model object describes."""
    params = {k: v for k, v in spec.items() if k not in ("name", "model")}
    return get_estimator(spec["model"])(**params)


def run(protocol: str, phase: str, train_start: str | None, models: list[dict[str, Any]]) -> str:
    """Backtest every model on the period of ``protocol`` and ``phase``; return the table."""
    start, end, default_start = PERIODS[(protocol, phase)]
    data = load("elecdemand")[["demand"]].tz_convert(TZ)
    data = data.loc[train_start or default_start : end]
    if protocol == "midnight":
        kw: dict[str, Any] = {"horizon": 48, "origins": "00:00"}
    else:
        kw = {"protocol": "day-ahead"}
    rows = []
    for spec in BASELINES + models:
        started = time.perf_counter()
        result = backtest(build(spec), data, start=start, end=end, timezone=TZ, **kw)
        overall = result.metrics.loc["overall"]
        fitted = result.estimator
        rows.append(
            {
                "model": spec["name"],
                "MAE GW": overall["mae"],
                "MAPE %": overall["mape"],
                "bias GW": overall["bias"],
                "fit s": result.fit_seconds,
                "total s": time.perf_counter() - started,
                "epochs": getattr(fitted, "n_epochs_", None),
                "n": int(overall["n"]),
            }
        )
        print(json.dumps({**spec, **{k: v for k, v in rows[-1].items() if k != "model"}}))
    table = pd.DataFrame(rows).set_index("model")
    return table.to_markdown(floatfmt=".3f")


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", choices=["midnight", "day-ahead"], default="midnight")
    parser.add_argument("--phase", choices=["select", "test"], default="select")
    parser.add_argument("--train-start", default=None, help="first training day (local)")
    parser.add_argument(
        "--models", default="[]", help=f"JSON list of model objects, or one of {sorted(SETS)}"
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    models = SETS[args.models] if args.models in SETS else json.loads(args.models)
    print(run(args.protocol, args.phase, args.train_start, models))


if __name__ == "__main__":
    main()
