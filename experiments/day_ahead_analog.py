"""Analog-day memory on the German day-ahead protocol: choose its settings, then score them.

:class:`forecast.combine.AnalogDayForecaster` corrects a reference forecaster by its errors on
the most similar stored training days (Hopfield retrieval over the days, fixed projections).
``--period val`` trains on 2019-2021 and scores 2022 (settings are chosen here); ``--period
test`` trains on 2019-2022 and scores 2023. Without options the class's defaults (chosen on
2022) are scored; ``--set`` changes some; ``--grid`` also scores every combination of the
``GRID`` values of the settings (or of those ``--free`` names) that ``--set`` leaves free, all
from one fit (they act at prediction only), sorted by MAPE. Data: ENTSO-E DE-LU hourly load
(:func:`forecast.datasets.german_load`).

    python experiments/day_ahead_analog.py --period val --grid --out results/analog_val.csv
    python experiments/day_ahead_analog.py --period val --grid --set context=2D
    python experiments/day_ahead_analog.py --period val --set memory_folds=3 \
        --grid --free beta shrink
    python experiments/day_ahead_analog.py --period test
    python experiments/day_ahead_analog.py --period val --reference boosted
    python experiments/day_ahead_analog.py --period test --reference network --seed 1
    python experiments/day_ahead_analog.py --period val --reference network \
        --network-set hidden_size=64 n_ensemble=3

Prints the reference's scores, then one row per setting: MAPE, MAE, bias (MW), MAPE on the
special days and on the other days (``special_mask`` with ``"holidays-DE"``), with fit and
predict seconds and the peak RSS of the process. ``--save-forecasts DIR`` keeps the forecasts
of the defaults and ``--set`` (``DIR/<period>_analog-<reference>_<seed>.parquet``) for the blend
script.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import resource
import time
from pathlib import Path

import pandas as pd

from forecast import BoostedLagForecaster, LinearLagForecaster
from forecast.combine import AnalogDayForecaster
from forecast.datasets import german_load
from forecast.evaluation import metrics
from forecast.evaluation.backtest import backtest
from forecast.frames.special_days import special_mask
from forecast.models import DAY_AHEAD_LOAD, ReferencedHopfieldForecaster

TZ = "Europe/Berlin"
PERIODS = {"val": "2022", "test": "2023"}
REFERENCES = {
    "linear": lambda seed, **kw: LinearLagForecaster(calendar=True, country="DE", timezone=TZ),
    "boosted": lambda seed, **kw: BoostedLagForecaster(calendar=True, country="DE", timezone=TZ),
    "network": lambda seed, **kw: ReferencedHopfieldForecaster(
        **(DAY_AHEAD_LOAD | kw), random_state=seed
    ),
}
"""References: LinearLag and BoostedLag with the German calendar; ``network`` is the
day-ahead Hopfield network that corrects LinearLag (:data:`forecast.models.DAY_AHEAD_LOAD`,
changed by ``--network-set``)."""
GRID = {
    "beta": [5.0, 10.0, 20.0, 40.0],
    "shrink": [0.5, 0.75, 1.0],
    "profile_weight": [0.25, 0.5, 1.0, 2.0],
    "season_weight": [0.5, 1.0, 2.0, 3.0, 4.0],
    "holiday_weight": [0.0, 0.7, 1.5, 3.0],
}
"""Values ``--grid`` scores, of every setting or of those ``--free`` names."""


def literal(text: str) -> object:
    """``"5"`` -> 5, ``"2D"`` -> ``"2D"``: a Python literal where one parses."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def scores(forecasts: pd.DataFrame, pred: pd.Series) -> dict:
    """MAPE, MAE, bias and special/ordinary-day MAPE of ``pred`` against the forecast rows."""
    y = forecasts["y_true"].to_numpy()
    p = pred.to_numpy()
    special = special_mask(forecasts["time"], "holidays-DE", TZ)
    return {
        "mape": metrics.mape(y, p), "mae": metrics.mae(y, p), "bias": float((p - y).mean()),
        "mape_special": metrics.mape(y[special], p[special]),
        "mape_ordinary": metrics.mape(y[~special], p[~special]),
    }  # fmt: skip


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--period", choices=PERIODS, default="val")
    parser.add_argument("--reference", choices=REFERENCES, default="linear")
    parser.add_argument("--seed", type=int, default=0, help="random_state of a network")
    parser.add_argument("--set", nargs="*", default=[], help="settings key=value")
    parser.add_argument("--network-set", nargs="*", default=[], help="network settings k=v")
    parser.add_argument("--grid", action="store_true", help="score GRID's values not --set")
    parser.add_argument("--free", nargs="*", choices=GRID, help="the GRID settings to vary")
    parser.add_argument("--out", type=Path, help="append the rows to this CSV")
    parser.add_argument("--save-forecasts", type=Path, metavar="DIR")
    args = parser.parse_args()
    year = PERIODS[args.period]
    df = german_load("hourly", start="2019-01-01", end=year, columns=("actual",))
    changed = {k: literal(v) for k, v in (pair.split("=", 1) for pair in args.network_set)}
    reference = REFERENCES[args.reference](args.seed, **changed)
    fixed = {k: literal(v) for k, v in (pair.split("=", 1) for pair in args.set)}
    model = AnalogDayForecaster(reference, country="DE", timezone=TZ, **fixed)
    result = backtest(model, df, protocol="day-ahead", start=f"{year}-01-01",
                      end=f"{year}-12-31", timezone=TZ, target="actual")  # fmt: skip
    fitted, rows = result.estimator, result.forecasts
    origins = pd.DatetimeIndex(rows["origin"].unique())
    horizon = int(rows["step"].max())

    def scored(estimator: object, name: str, settings: dict) -> dict:
        t0 = time.perf_counter()
        pred = estimator.predict_origins(df, origins, horizon)  # type: ignore[attr-defined]
        seconds = time.perf_counter() - t0
        pred = rows[["origin", "time"]].merge(pred, on=["origin", "time"], how="left")["actual"]
        return {"model": name, "seed": args.seed, "period": args.period,
                "network_set": " ".join(args.network_set), **settings,
                **scores(rows, pred), "fit_s": result.fit_seconds, "predict_s": seconds,
                "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}  # fmt: skip

    table = [scored(fitted.reference_model_, args.reference, {})]
    names = args.free if args.free else GRID
    free = {k: GRID[k] for k in names if k not in fixed} if args.grid else {}
    kept = {k: fitted.get_params()[k] for k in ("context", "memory_folds", *GRID) if k not in free}
    chosen = {k: fitted.get_params()[k] for k in GRID}
    for values in itertools.product(*free.values()):
        settings = kept | dict(zip(free, values, strict=True))
        fitted.set_params(**settings)
        table.append(scored(fitted, f"analog-{args.reference}", settings))
    out = pd.DataFrame(table)
    fitted.set_params(**chosen)
    if args.save_forecasts is not None:
        args.save_forecasts.mkdir(parents=True, exist_ok=True)
        saved = rows.copy()
        pred = fitted.predict_origins(df, origins, horizon)
        saved["y_pred"] = saved[["origin", "time"]].merge(pred, on=["origin", "time"])["actual"]
        name = f"{args.period}_analog-{args.reference}_{args.seed}.parquet"
        saved.to_parquet(args.save_forecasts / name)
    shown = out.sort_values("mape").head(20) if len(out) > 3 else out
    print(shown.to_string(index=False, float_format="%.3f"))
    if args.out:
        out.to_csv(args.out, mode="a", header=not args.out.exists(), index=False)


if __name__ == "__main__":
    main()
