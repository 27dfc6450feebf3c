"""What weekly updates buy on the German day-ahead protocol: fitted once, updated, refitted.

ENTSO-E DE-LU hourly load, Europe/Berlin; for every day D of the stretch the forecast is issued
at 12:00 on D-1 from the load observed up to then and scored on the local day D (the backtest's
day-ahead protocol, :func:`forecast.evaluation.backtest.day_ahead_plan`). Three ways to keep a
model, all starting from one fit on the years before the stretch:

``once``    the fitted model forecasts every day of the stretch (new history, same weights);
``update``  before each week's forecasts, ``model.update(rows since updated_through_)``
            (neural: ``--update-epochs`` more epochs from the weights at ``--update-lr``,
            early stopping on the validation tail when ``--update-patience`` is given; linear:
            a refit);
``refit``   before each week's forecasts, a fresh clone fitted on all data up to then.

A week's first forecast is issued at its first origin; the model learns only rows observed by
then. Scores per forecast come from :func:`forecast.evaluation.live.forecast_scores` (the
code ``backtest`` and ``forecast score`` use).

``--period val`` fits on 2019-2021 and scores weeks of 2022 (choose ``--update-epochs`` and
``--update-patience`` here); ``--period test`` fits on 2019-2022 and scores weeks of 2023.

    python experiments/german_weekly_update.py elman --period val --weeks 4 \
        --strategies once update --update-epochs 1 3 --update-lr 1e-4 2e-5
    python experiments/german_weekly_update.py elman --period test --weeks 4 --update-epochs 3 \
        --update-lr 2e-5

Prints one row per strategy: mean daily MAPE, pooled MAE and RMSE (MW), bias, the seconds
spent fitting, updating or refitting, and the weeks.
"""

from __future__ import annotations

import argparse
import ast
import json
import time

import numpy as np
import pandas as pd
import torch
from sklearn.base import clone

from forecast.datasets import german_load
from forecast.evaluation.backtest import day_ahead_plan
from forecast.evaluation.live import forecast_scores
from forecast.models import get_estimator

TZ = "Europe/Berlin"
PERIODS = {"val": ("2019-01-01", "2022"), "test": ("2019-01-01", "2023")}


def settings(pairs: list[str]) -> dict:
    """``["a=1", "b=x"]`` -> ``{"a": 1, "b": "x"}`` (Python literals where they parse)."""
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def day_forecasts(model, data: pd.DataFrame, plan: pd.DataFrame) -> pd.DataFrame:
    """Tidy forecasts of the days of ``plan``: each from its origin, scored on its day."""
    positions = data.index.get_indexer
    horizon = int(positions(plan["last"]).max() - positions(plan["origin"]).min())
    fc = model.predict_origins(data, list(plan["origin"]), horizon)
    parts = []
    for row in plan.itertuples(index=False):
        day = fc[(fc["origin"] == row.origin) & fc["time"].between(row.first, row.last)]
        parts.append(
            pd.DataFrame(
                {
                    "origin": row.origin,
                    "time": day["time"].to_numpy(),
                    "step": np.arange(1, len(day) + 1),
                    "target": "actual",
                    "y_pred": day["actual"].to_numpy(),
                    "y_true": data["actual"].reindex(day["time"]).to_numpy(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def run(strategy: str, base, data: pd.DataFrame, plan: pd.DataFrame, options) -> dict:
    """Forecast the weeks of ``plan`` under ``strategy``; return the scores and the seconds."""
    train = data.loc[: plan["origin"].iloc[0]]  # observed by the first issue time
    t0 = time.perf_counter()
    model = clone(base).fit(train)
    seconds = {"fit_s": time.perf_counter() - t0, "learn_s": 0.0}
    weeks = [plan.iloc[i : i + 7] for i in range(0, len(plan), 7)]
    parts, week_of, learn_week = [], {}, []
    for k, week in enumerate(weeks):
        origin = week["origin"].iloc[0]
        week_of.update(dict.fromkeys(week["origin"], k + 1))
        t0 = time.perf_counter()
        if k and strategy == "update":
            new = data.loc[model.updated_through_ : origin].iloc[1:]
            kwargs = {}
            if hasattr(model, "module_"):
                kwargs = {"epochs": options.update_epochs, "learning_rate": options.update_lr}
                if options.update_patience is not None:
                    kwargs["early_stopping_patience"] = options.update_patience
            else:
                kwargs = {"history": data.loc[: model.updated_through_]}
            model.update(new, **kwargs)
        elif k and strategy == "refit":
            model = clone(base).fit(data.loc[:origin])
        learn_week.append(time.perf_counter() - t0)
        seconds["learn_s"] += learn_week[-1]
        parts.append(day_forecasts(model, data, week))
    scores = forecast_scores(pd.concat(parts, ignore_index=True), timezone=TZ)
    weekly = scores.groupby(scores["origin"].map(week_of))["mape"].mean()
    pooled = pd.concat(parts, ignore_index=True)
    error = pooled["y_pred"] - pooled["y_true"]
    return {
        "strategy": strategy,
        "mape": scores["mape"].mean(),
        "mae": float(error.abs().mean()),
        "rmse": float(np.sqrt((error**2).mean())),
        "bias": float(error.mean()),
        **seconds,
        "days": len(scores),
        "n_updates": getattr(model, "n_updates_", 0),
        "week_mape": [round(float(v), 4) for v in weekly],
        "week_learn_s": [round(v, 2) for v in learn_week],
    }


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="estimator name (elman, gru, linear-lag, ...)")
    parser.add_argument("--period", choices=PERIODS, default="val")
    parser.add_argument("--start", default=None, help="first day scored (default: 1 January)")
    parser.add_argument("--weeks", type=int, default=8)
    parser.add_argument("--strategies", nargs="+", default=["once", "update", "refit"])
    parser.add_argument("--update-epochs", type=int, nargs="+", default=[3])
    parser.add_argument("--update-patience", type=int, default=None)
    parser.add_argument(
        "--update-lr", type=float, nargs="+", default=[None], help="(default: the fitted rate)"
    )
    parser.add_argument("--set", nargs="*", default=[], help="estimator settings key=value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=None, help="append one JSON line per strategy here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    first, year = PERIODS[args.period]
    data = german_load("hourly", start=first, end=year, columns=("actual",))
    start = pd.Timestamp(args.start or f"{year}-01-01")
    end = start + pd.Timedelta(days=7 * args.weeks - 1)
    plan = day_ahead_plan(data.index, start=start, end=end, timezone=TZ)
    cls = get_estimator(args.model)
    params = {"calendar": True, "country": "DE", "timezone": TZ} | settings(args.set)
    if "random_state" in cls().get_params():
        params["random_state"] = args.seed
    base = cls(**params)
    rows, epochs, rates = [], list(args.update_epochs), list(args.update_lr)
    for strategy in args.strategies:
        choices = [(n, r) for n in epochs for r in rates]
        choices = choices if strategy == "update" else [(None, None)]
        for n, rate in choices:
            args.update_epochs, args.update_lr = n, rate
            row = run(strategy, base, data, plan, args) | {"update_epochs": n, "update_lr": rate}
            rows.append(row)
            print(pd.DataFrame([row]).to_string(index=False, float_format="%.4g"), flush=True)
    print(f"\n{args.model} {args.period}: {plan['day'].iloc[0]:%Y-%m-%d} .. "
          f"{plan['day'].iloc[-1]:%Y-%m-%d} ({len(plan)} days), settings {args.set}")  # fmt: skip
    print(pd.DataFrame(rows).drop(columns=["week_mape", "week_learn_s"]).to_string(
        index=False, float_format="%.4g"))  # fmt: skip
    print("\nMAPE % per week (learning seconds before the week's forecasts)")
    table = {}
    for row in rows:
        name = row["strategy"] + (f" {row['update_epochs']}@{row['update_lr']}"
                                  if row["strategy"] == "update" else "")  # fmt: skip
        pairs = zip(row["week_mape"], row["week_learn_s"], strict=True)
        table[name] = [f"{mape:.3f} ({secs:.1f} s)" for mape, secs in pairs]
    print(pd.DataFrame(table, index=pd.RangeIndex(1, len(plan) // 7 + 1, name="week")).to_string())
    if args.out:
        with open(args.out, "a", encoding="utf-8") as sink:
            for row in rows:
                record = {"model": args.model, "period": args.period, "settings": args.set, **row}
                sink.write(json.dumps(record, default=str) + "\n")


if __name__ == "__main__":
    main()
