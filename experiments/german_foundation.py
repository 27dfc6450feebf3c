"""Pretrained zero-shot models on German load, the day-ahead protocol of the baseline tables.

Protocol (DESIGN.md, the same as experiments/entsoe_day_ahead.py): for each day D of the test
year the forecast is issued at 12:00 Europe/Berlin on D-1 from the load observed up to then
and scored on the 24 hours (96 quarter-hours) of D in local time; history from 2019-01-01.
The pretrained models are not trained: each reads the last ``--context-length`` steps before
every origin. The grid operators' forecast and the seasonal naive references are scored on
the same hours. With ``--tso-covariate`` a second Chronos-2 row reads the grid operators'
day-ahead forecast as a future covariate (published by 10:00 on D-1, before the origin), and
``--calendar`` adds calendar and German holiday features as future covariates.

    python experiments/german_foundation.py --chronos2 amazon/chronos-2 --tirex NX-AI/TiRex
    python experiments/german_foundation.py --chronos2 /models/chronos-2 --device cuda --quick
    python experiments/german_foundation.py --chronos2 /tmp/tiny --no-save --quick   # smoke

``--chronos2`` and ``--tirex`` take a local checkpoint or a hub id (``--chronos2-revision``,
``--tirex-revision`` pin one); a model without weights is left out. Tables go to
``experiments/results/german_foundation_<resolution>[_quick].{md,csv}`` unless ``--no-save``
(use it for smoke runs on test checkpoints: their numbers mean nothing).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from forecast.datasets import german_load
from forecast.evaluation.compare import compare
from forecast.models.baselines import ExternalForecast, SeasonalNaive
from forecast.models.foundation import Chronos2Forecaster, TiRexForecaster

TZ = "Europe/Berlin"
RESULTS = Path(__file__).resolve().parent / "results"


def models(args: argparse.Namespace) -> dict:
    common = {"context_length": args.context_length, "device": args.device}
    out: dict = {
        "TSO forecast": ExternalForecast(column="forecast", nan_policy="interpolate"),
        "SeasonalNaive 1D": SeasonalNaive(season="1D", timezone=TZ),
        "SeasonalNaive 7D": SeasonalNaive(season="7D", timezone=TZ),
    }
    calendar = {"calendar": True, "country": "DE", "timezone": TZ} if args.calendar else {}
    if args.chronos2:
        chronos = {"weights": args.chronos2, "revision": args.chronos2_revision, **common}
        out["Chronos-2"] = Chronos2Forecaster(**chronos, **calendar)
        if args.tso_covariate:
            out["Chronos-2 + TSO forecast"] = Chronos2Forecaster(
                **chronos, **calendar, future_covariates=["forecast"], nan_policy="interpolate"
            )
    if args.tirex:
        out["TiRex"] = TiRexForecaster(weights=args.tirex, revision=args.tirex_revision, **common)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chronos2", help="Chronos-2 weights: local folder or hub id")
    parser.add_argument("--chronos2-revision", default=None)
    parser.add_argument("--tirex", help="TiRex weights: local model.ckpt (or folder) or hub id")
    parser.add_argument("--tirex-revision", default=None)
    parser.add_argument("--context-length", type=int, default=None, help="default: the model's")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--tso-covariate", action="store_true")
    parser.add_argument("--calendar", action="store_true")
    parser.add_argument("--resolution", choices=("hourly", "15min"), default="hourly")
    parser.add_argument("--test-year", type=int, default=2023)
    parser.add_argument("--quick", action="store_true", help="January of the test year only")
    parser.add_argument("--data-dir", default=None, help="folder holding entsoe_de_load_15min/")
    parser.add_argument("--no-save", action="store_true", help="print only (smoke runs)")
    args = parser.parse_args()
    if not (args.chronos2 or args.tirex):
        parser.error("give --chronos2 and/or --tirex weights (a local path or a hub id)")
    t0 = time.perf_counter()
    df = german_load(args.resolution, end=str(args.test_year), data_dir=args.data_dir)
    print(f"loaded {args.resolution}: {len(df)} rows ({time.perf_counter() - t0:.1f} s)")
    year = args.test_year
    end = f"{year}-01-31" if args.quick else f"{year}-12-31"
    tag = f"german_foundation_{args.resolution}" + ("_quick" if args.quick else "")
    res = compare(
        models(args),
        df,
        protocol="day-ahead",
        start=f"{year}-01-01",
        end=end,
        target="actual",
        timezone=TZ,
        metrics=("mape", "mae", "rmse", "bias"),
        unit="MW",
        name=tag,
    )
    table = res.table
    weights = {"Chronos-2": args.chronos2, "TiRex": args.tirex}
    text = table.drop(columns=["n"]).to_markdown(floatfmt=".3f")
    text += "\n\nWeights: " + ", ".join(f"{k} {v}" for k, v in weights.items() if v)
    text += f"; context length: {args.context_length or 'the model default'}; day-ahead, "
    text += f"{len(next(iter(res.results.values())).origins)} days from {year}-01-01."
    print(f"\n### {tag}\n\n{text}")
    if args.no_save:
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    table.to_csv(RESULTS / f"{tag}.csv")
    (RESULTS / f"{tag}.md").write_text(text + "\n")


if __name__ == "__main__":
    pd.set_option("display.width", 120)
    main()
