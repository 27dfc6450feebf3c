"""Seconds per explained forecast, per family, on the German day-ahead protocol.

ENTSO-E DE-LU load, hourly, Europe/Berlin. Each model is fitted once on ``--train`` (the
default is one year, 2022, to keep the fits short: the cost of an explanation does not
depend on how long the model trained) and explains the day-ahead forecasts issued at 12:00
local on D-1 for ``--days`` days D of 2023 (36 steps: the rest of D-1 and the 24 hours of D)
through the public API, :func:`forecast.attribution.explain`, one origin per call. Prints
one row per family: the method, the median and the range of the seconds per explained
forecast, the rows of the table, and the largest completeness gap relative to the largest
``|forecast - baseline|``.

With ``--plot``, the side-by-side figure of one forecast (the linear-lag model and
``--neural``) for the docs: ``docs/img/explain_de_day_ahead.png``.

    OMP_NUM_THREADS=1 python experiments/explain_cost.py --out experiments/results/explain_cost.md
    OMP_NUM_THREADS=1 python experiments/explain_cost.py --only linear gru --plot
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pandas as pd
import torch

from forecast import (
    BoostedLagForecaster,
    DCTMixerForecaster,
    ElmanForecaster,
    ETSForecaster,
    GRUForecaster,
    HopfieldForecaster,
    LinearLagForecaster,
    LSTMForecaster,
    OrthogonalRNNForecaster,
    SeasonalNaive,
    TransformerForecaster,
)
from forecast.attribution import explain, plot_explanation
from forecast.datasets import german_load

TZ = "Europe/Berlin"
DE = dict(calendar=True, country="DE", timezone=TZ)
NEURAL = dict(context_length=168, horizon=36, hidden_size=32, max_epochs=3, random_state=0, **DE)
FAMILIES = {
    "linear": lambda: LinearLagForecaster(**DE),
    "boosted": lambda: BoostedLagForecaster(**DE),
    "seasonal-naive": lambda: SeasonalNaive(season="7D", timezone=TZ),
    "ets": lambda: ETSForecaster(train_window="28D"),
    "elman": lambda: ElmanForecaster(**NEURAL, num_layers=1, n_ensemble=1),  # as measured
    "lstm": lambda: LSTMForecaster(**NEURAL),
    "gru": lambda: GRUForecaster(**NEURAL),
    "orthogonal": lambda: OrthogonalRNNForecaster(**NEURAL),
    "transformer": lambda: TransformerForecaster(**NEURAL),
    "hopfield": lambda: HopfieldForecaster(**NEURAL),
    # batch_size 100: at 64 or 128 the last batch of 2022 holds one window, which the
    # mixer's batch norm refuses in training (a fit failure, not an explain one)
    "dct-mixer": lambda: DCTMixerForecaster(**NEURAL | {"batch_size": 100}),
}
#: Shapley orders for the model-agnostic families (the statistical model refilters its
#: window on every call, so it gets fewer).
SAMPLES = {"boosted": 10, "seasonal-naive": 10, "ets": 2}


def issue_times(days: int) -> list[pd.Timestamp]:
    """12:00 local on D-1 for ``days`` days D spread over 2023 (every 73 days from 10 Jan)."""
    first = pd.Timestamp("2023-01-09 12:00", tz=TZ)
    return [first + pd.Timedelta(days=73 * i) for i in range(days)]


def measure(name: str, df: pd.DataFrame, train: str, origins: list[pd.Timestamp]) -> dict:
    t0 = time.perf_counter()
    model = FAMILIES[name]().fit(df.loc[train])
    fit_s = time.perf_counter() - t0
    seconds, gaps, rows, method = [], [], 0, ""
    for origin in origins:
        history = df.loc[origin - pd.Timedelta(days=60) : origin + pd.Timedelta(hours=36)]
        t0 = time.perf_counter()
        table = explain(
            model, history, horizon=36, origins=[origin], n_samples=SAMPLES.get(name, 10)
        )
        seconds.append(time.perf_counter() - t0)
        scale = (table["forecast"] - table["baseline"]).abs().max()
        gaps.append(table.attrs["completeness_gap"] / scale)
        rows, method = len(table), table.attrs["method"]
    return {
        "family": name,
        "method": method,
        "median_s": statistics.median(seconds),
        "min_s": min(seconds),
        "max_s": max(seconds),
        "rows": rows,
        "gap_rel": max(gaps),
        "fit_s": fit_s,
        "model": model,
    }


def side_by_side(models: dict, df: pd.DataFrame, origin: pd.Timestamp, path: Path) -> None:
    """The attributions of one day-ahead forecast, one row of panels per model (day D only)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # plots only
    from matplotlib.figure import Figure  # plots only

    fig = Figure(figsize=(13, 4.2 * len(models)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(models), 2, squeeze=False)
    history = df.loc[origin - pd.Timedelta(days=60) : origin + pd.Timedelta(hours=36)]
    for row, (name, model) in zip(axes, models.items(), strict=True):
        table = explain(model, history, horizon=36, origins=[origin])
        day = table[table["lead"] > 12]  # the 24 hours of day D
        title = f"{name} ({table.attrs['method']}), issued {origin:%Y-%m-%d %H:%M}"
        plot_explanation(day, title=title, top=12, axes=(row[0], row[1]))
    fig.savefig(path, dpi=110)


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--train", default="2022", help="local days the models are fitted on")
    parser.add_argument("--days", type=int, default=5, help="explained forecasts per family")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the table (Markdown) here")
    parser.add_argument("--plot", action="store_true", help="the side-by-side docs figure")
    parser.add_argument("--neural", default="gru", help="the neural family of the figure")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    df = german_load("hourly", start="2022-01-01", end="2023", columns=("actual",))
    origins = issue_times(args.days)
    rows = []
    for name in args.only:
        row = measure(name, df, args.train, origins)
        rows.append(row)
        shown = {k: v for k, v in row.items() if k != "model"}
        print(pd.DataFrame([shown]).to_string(index=False, float_format="%.4g"), flush=True)
    table = pd.DataFrame([{k: v for k, v in r.items() if k != "model"} for r in rows])
    text = table.to_markdown(index=False, floatfmt=".3g")
    print(text)
    if args.out:
        head = (
            f"Seconds per explained day-ahead forecast (36 steps, hourly German load), "
            f"{args.days} origins in 2023, fitted on {args.train}, {args.threads} thread(s); "
            "`python experiments/explain_cost.py`\n\n"
        )
        args.out.write_text(head + text + "\n")
    if args.plot:
        fitted = {r["family"]: r["model"] for r in rows}
        models = {"linear-lag": fitted["linear"], args.neural: fitted[args.neural]}
        origin = pd.Timestamp("2023-03-14 12:00", tz=TZ)
        side_by_side(models, df, origin, Path("docs/img/explain_de_day_ahead.png"))


if __name__ == "__main__":
    main()
