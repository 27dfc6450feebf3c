"""Day-ahead forecasts of the German grid load (SMARD, hourly) with every neural family.

Train on 2019-2022 (one column, ``DE_LU_grid_load_MWh``), then forecast each day of the first
eight weeks of 2023 from the history up to the previous local midnight (horizon 24) and score
MAE and MAPE next to the same-hour-last-week forecast.

    python experiments/smard_day_ahead.py                      # the three recurrent models
    python experiments/smard_day_ahead.py --models all
    python experiments/smard_day_ahead.py --models lstm --calendar both
"""

from __future__ import annotations

import argparse
import json
import time

import pandas as pd
import torch

from forecast.datasets import load
from forecast.evaluation.metrics import mae, mape
from forecast.models import get_estimator
from forecast.models.baselines import SeasonalNaive

COLUMN = "DE_LU_grid_load_MWh"
TZ = "Europe/Berlin"
WEEKS = 8

# Per family: what differs from the shared settings below.
FAMILIES = {
    "elman": {"nonlinearity": "tanh"},
    "lstm": {},
    "gru": {},
    "orthogonal": {"learning_rate": 1e-3},
    "transformer": {"n_heads": 4, "learning_rate": 5e-4},
    "hopfield": {"n_heads": 4},
}
SHARED = dict(
    context_length=168,
    horizon=24,
    hidden_size=64,
    windowing="tbptt",
    tbptt_steps=24,
    batch_size=16,
    max_epochs=100,
    learning_rate=2e-3,
    early_stopping_patience=6,
    validation_fraction=0.1,
    random_state=0,
)
NON_RECURRENT = {"transformer", "hopfield"}


def load_data() -> pd.DataFrame:
    frame = load("smard-de")[[COLUMN]].rename(columns={COLUMN: "load"})
    frame.index = frame.index.tz_convert(TZ)
    return frame.loc["2019-01-01":"2023-03-31"]


def origins_for(frame: pd.DataFrame) -> pd.DatetimeIndex:
    days = pd.date_range("2023-01-01", periods=7 * WEEKS, freq="D", tz=TZ)
    return pd.DatetimeIndex([frame.index[frame.index < day][-1] for day in days])


def score(forecasts: pd.DataFrame, actual: pd.Series) -> dict:
    truth = actual.reindex(pd.DatetimeIndex(forecasts["time"])).to_numpy()
    pred = forecasts["load"].to_numpy()
    return {"MAE (MW)": mae(truth, pred), "MAPE (%)": mape(truth, pred)}


def build(name: str, calendar: bool, overrides: dict):
    params = {**SHARED, **FAMILIES[name], "calendar": calendar, "country": "DE", "timezone": TZ}
    if name in NON_RECURRENT:
        params.update(windowing="sliding", tbptt_steps=None, batch_size=128, max_epochs=12)
    params.update(overrides)
    return get_estimator(name)(**params)


def run(
    models: list[str], calendar_modes: list[bool], overrides: dict | None = None
) -> pd.DataFrame:
    frame = load_data()
    train = frame.loc[:"2022-12-31"]
    origins = origins_for(frame)
    rows = []
    naive = SeasonalNaive(season="7D").fit(train)
    rows.append(
        {
            "model": "same hour last week",
            **score(naive.predict_origins(frame, origins, 24), frame["load"]),
        }
    )
    print(
        f"train {train.index[0]} .. {train.index[-1]} ({len(train)} h); "
        f"{len(origins)} daily origins"
    )
    print(rows[-1], flush=True)
    for name in models:
        for calendar in calendar_modes:
            model = build(name, calendar, overrides or {})
            start = time.perf_counter()
            model.fit(train)
            fit_s = time.perf_counter() - start
            start = time.perf_counter()
            forecasts = model.predict_origins(frame, origins, 24)
            pred_s = time.perf_counter() - start
            label = name + (" + calendar" if calendar else "")
            row = {
                "model": label,
                **score(forecasts, frame["load"]),
                "epochs": model.n_epochs_,
                "fit (s)": fit_s,
                "predict (s)": pred_s,
            }
            if hasattr(model, "orthogonality_error_"):
                row["max |WᵀW - I|"] = model.orthogonality_error_
            rows.append(row)
            print(row, flush=True)
    table = pd.DataFrame(rows).set_index("model")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--models", nargs="+", default=["elman", "lstm", "gru"], help="families to run, or 'all'"
    )
    parser.add_argument(
        "--calendar",
        choices=["off", "on", "both"],
        default="on",
        help="calendar and German holiday features (default on)",
    )
    parser.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="override estimator parameters (JSON values), e.g. max_epochs=5",
    )
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    models = list(FAMILIES) if args.models == ["all"] else args.models
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.calendar]
    overrides = {k: json.loads(v) for k, _, v in (item.partition("=") for item in args.set)}
    table = run(models, modes, overrides)
    print()
    print(table.to_markdown(floatfmt=".2f"))


if __name__ == "__main__":
    main()
