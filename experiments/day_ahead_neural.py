"""Neural forecasters on the German day-ahead protocol, for choosing settings and measuring them.

ENTSO-E DE-LU load, hourly means (or native quarter-hours), Europe/Berlin. For every day D of
the scored year the forecast is issued at 12:00 local on D-1 from the load observed up to then
and scored on the local day D; the model is fitted once on the years before and never refitted.

``--period val`` trains on 2019-2021 and scores 2022 (the validation year: settings are chosen
here); ``--period test`` trains on 2019-2022 and scores 2023 (reported once per configuration).

    python experiments/day_ahead_neural.py gru --period val --seeds 0 1 2
    python experiments/day_ahead_neural.py gru --period val --set normalization=none
    python experiments/day_ahead_neural.py all --period test --seeds 0 1 2 --out results/x.csv
    python experiments/day_ahead_neural.py hopfield --period test --with-linear 0.7
    python experiments/day_ahead_neural.py external --period val --set column=forecast debias=3D
    python experiments/day_ahead_neural.py referenced-hopfield --period val --reference linear \
        --set horizon=38

Model ``external`` is :class:`forecast.ExternalForecast`: the grid operators' day-ahead forecast
column (published by 10:00 on D-1, before the issue time), with ``debias`` shifted by its mean
error over the observed window before each issue time.

``--reference linear`` (``linear-14d``, ``boosted``, ``analog``) passes
``reference_model=LinearLagForecaster(...)`` (with ``seasonal_lags=("1D", "7D", "14D")``;
``BoostedLagForecaster``; the LinearLag under its analog-day memory,
``AnalogDayForecaster(..., memory_folds=3)``) with the calendar settings of the LinearLag row
to a network with a reference model (``referenced-hopfield``, ``referenced-transformer``):
the network learns the residual of that forecast. ``--preset`` starts from the settings of a
preset (``day-ahead-load``: :data:`forecast.models.DAY_AHEAD_LOAD`; ``day-ahead-memory``:
:data:`forecast.combine.DAY_AHEAD_MEMORY`), which ``--set`` and ``--reference`` change:

    python experiments/day_ahead_neural.py referenced-hopfield --period test \
        --preset day-ahead-memory --seeds 0 1 2

``--with-linear W`` scores ``EnsembleForecaster`` of ``LinearLagForecaster`` (weight ``W``, same
calendar settings) and the neural model (weight ``1 - W``).

Prints one row per (model, seed) and the mean over seeds: MAPE, MAE, RMSE, bias (MW), MAPE on
the special days and on the other days (``forecast.frames.special_days.special_mask`` with
``"holidays-DE"``: a public holiday or bridge day in any state, or 24 Dec - 1 Jan), fit seconds
and peak RSS of the process.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import resource
import time
from pathlib import Path

import pandas as pd
import torch

from forecast import (
    AnalogDayForecaster,
    BoostedLagForecaster,
    EnsembleForecaster,
    LinearLagForecaster,
)
from forecast.combine import DAY_AHEAD_MEMORY
from forecast.datasets import german_load
from forecast.evaluation import metrics
from forecast.evaluation.backtest import backtest
from forecast.frames.special_days import special_mask
from forecast.models import DAY_AHEAD_LOAD, get_estimator

TZ = "Europe/Berlin"
FAMILIES = ("elman", "lstm", "gru", "orthogonal", "transformer", "hopfield", "dct-mixer")
PERIODS = {"val": ("2019-01-01", "2022"), "test": ("2019-01-01", "2023")}
PRESETS = {"day-ahead-load": DAY_AHEAD_LOAD, "day-ahead-memory": DAY_AHEAD_MEMORY}


def parse_settings(pairs: list[str]) -> dict:
    """``["a=1", "b=x"]`` -> ``{"a": 1, "b": "x"}`` (Python literals where they parse)."""
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def peak_rss_gb() -> float:
    """Peak resident memory of this process so far, GB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def run(
    name: str,
    settings: dict,
    seed: int,
    df: pd.DataFrame,
    period: str,
    linear: float | None = None,
    save: Path | None = None,
) -> dict:
    """Fit once on the years before the scored one, backtest the scored year.

    With ``save``, the scored forecasts go to ``save/<period>_<name>_<seed>.parquet`` (for
    choosing blend weights on the validation year without refitting).
    """
    cls = get_estimator(name)
    defaults = dict(calendar=True, country="DE", timezone=TZ, random_state=seed)
    names = inspect.signature(cls).parameters  # the settings it has (ExternalForecast: none)
    params = {k: v for k, v in defaults.items() if k in names} | settings
    estimator = cls(**params)
    if linear is not None:
        base = LinearLagForecaster(calendar=True, country="DE", timezone=TZ)
        members = [("linear", base), (name, estimator)]
        estimator = EnsembleForecaster(members, weights=[linear, 1.0 - linear])
    year = PERIODS[period][1]
    result = backtest(
        estimator,
        df,
        protocol="day-ahead",
        start=f"{year}-01-01",
        end=f"{year}-12-31",
        timezone=TZ,
        target="actual",
    )
    m = result.metrics.loc["overall"]
    f = result.forecasts
    special = special_mask(f["time"], "holidays-DE", TZ)  # holiday or bridge day in any state
    by_day = {
        f"mape_{kind}": metrics.mape(f["y_true"][rows], f["y_pred"][rows])
        for kind, rows in (("special", special), ("ordinary", ~special))
    }
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        result.forecasts.to_parquet(save / f"{period}_{name}_{seed}.parquet")
    fitted = result.estimator
    fitted = fitted.estimators_[1] if linear is not None else fitted
    return {
        "model": name, "seed": seed, "mape": m["mape"], "mae": m["mae"], "rmse": m["rmse"],
        "bias": m["bias"], **by_day, "fit_s": result.fit_seconds,
        "predict_s": result.predict_seconds,
        "epochs": getattr(fitted, "n_epochs_", None), "rss_gb": peak_rss_gb(),
    }  # fmt: skip


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help=f"estimator names, or 'all' for {FAMILIES}")
    parser.add_argument("--period", choices=PERIODS, default="val")
    parser.add_argument("--resolution", choices=("hourly", "15min"), default="hourly")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--set", nargs="*", default=[], help="estimator settings key=value")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--reference",
        choices=("linear", "linear-14d", "boosted", "analog"),
        help="reference_model of the network",
    )
    parser.add_argument("--preset", choices=PRESETS, help="start from these settings")
    parser.add_argument("--out", help="append the rows to this CSV")
    parser.add_argument("--save-forecasts", type=Path, metavar="DIR", help="keep the forecasts")
    parser.add_argument(
        "--with-linear", type=float, metavar="W", help="blend with LinearLag at weight W"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    models = FAMILIES if args.models == ["all"] else args.models
    settings = dict(PRESETS.get(args.preset, {})) | parse_settings(args.set)
    if args.reference is not None:
        kind = BoostedLagForecaster if args.reference == "boosted" else LinearLagForecaster
        lags = {"seasonal_lags": ("1D", "7D", "14D")} if args.reference == "linear-14d" else {}
        ref = kind(calendar=True, country="DE", timezone=TZ, **lags)
        if args.reference == "analog":
            ref = AnalogDayForecaster(ref, memory_folds=3, country="DE", timezone=TZ)
        settings["reference_model"] = ref
    # the grid operators' forecast (published by 10:00 on D-1) for model "external" only
    columns = ("actual", "forecast") if "external" in models else ("actual",)
    first, last = PERIODS[args.period]
    df = german_load(args.resolution, start=first, end=last, columns=columns)
    rows = []
    for name in models:
        for seed in args.seeds:
            t0 = time.perf_counter()
            row = run(name, settings, seed, df, args.period, args.with_linear, args.save_forecasts)
            blend = f" with-linear={args.with_linear}" if args.with_linear is not None else ""
            blend += f" reference={args.reference}" if args.reference is not None else ""
            blend += f" preset={args.preset}" if args.preset is not None else ""
            row |= {"period": args.period, "settings": " ".join(args.set) + blend,
                    "wall_s": time.perf_counter() - t0}  # fmt: skip
            rows.append(row)
            print(pd.DataFrame([row]).to_string(index=False, float_format="%.3f"), flush=True)
    table = pd.DataFrame(rows)
    if len(args.seeds) > 1:
        columns = ["mape", "mape_special", "mape_ordinary", "bias", "fit_s", "rss_gb"]
        print(table.groupby("model")[columns].agg(["mean", "std"]).to_string(float_format="%.3f"))
    if args.out:
        out = Path(args.out)
        table.to_csv(out, mode="a", header=not out.exists(), index=False)


if __name__ == "__main__":
    main()
