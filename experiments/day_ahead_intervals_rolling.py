"""Rolling conformal intervals on the German day-ahead protocol: chosen on 2022, scored on 2023.

ENTSO-E DE-LU load, hourly means, Europe/Berlin. Every day D of the scored year is forecast
at 12:00 local on D-1 and scored on the local day D; the point model is fitted once on the
years before (2019-2021 for the validation year 2022, 2019-2022 for the test year 2023) and
never refitted. ``ConformalForecaster(window=W, stride=24, horizon=38)`` calibrates the
80 % and 95 % intervals of the forecast issued at origin t on the residuals of the same
fitted model's forecasts issued at 11:00 on the days in the W before t whose 38 steps are
observed by t (residuals per step ahead and local hour); with ACI step ``gamma`` > 0 the
levels adapt on top, replayed from the fit end.

    python experiments/day_ahead_intervals_rolling.py --period val    # the grid, on 2022
    python experiments/day_ahead_intervals_rolling.py --period test   # chosen settings, 2023

``--period val`` scores every (window, gamma) of the grid for each model (``--models``) and
writes ``<out>_val.csv`` (overall) and ``<out>_val_by_month.csv``, keeping the rows of other
models from an earlier run. ``--period test`` reads them,
takes for each model the setting with the smallest monthly calibration error on 2022 (the
mean over months of ``|coverage_80 - 0.80| + |coverage_95 - 0.95|``) among those whose
overall 2022 coverage is within 2 points of nominal at both levels (all settings if none
is), scores it on 2023 once, and writes ``<out>.md``. The static calibration on the year
before (``calibration="365D"``, the setting of ``day_ahead_intervals.py``) runs beside it
for the baselines as a reference. CRPS is the quantile-score approximation on the levels
0.025, 0.1, 0.9 and 0.975.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from forecast import (
    ConformalForecaster,
    HopfieldForecaster,
    LinearLagForecaster,
    SeasonalNaive,
    backtest,
)
from forecast.datasets import german_load
from forecast.evaluation import metrics as M
from forecast.models.fit_cache import fit_cache

TZ = "Europe/Berlin"
LEVELS = (0.8, 0.95)
COMMON = (0.025, 0.1, 0.9, 0.975)
PERIODS = {"val": ("2019-01-01", "2022"), "test": ("2019-01-01", "2023")}
WINDOWS = ("42D", "56D", "91D", "182D")
GAMMAS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3)  # 0: no ACI
TOLERANCE = 0.02


def point_models(names: list[str]) -> dict:
    """The point forecasters, by short name (Hopfield: library defaults, a 38-step head)."""
    makers = {
        "naive": lambda: SeasonalNaive(season="7D", timezone=TZ),
        "linear": lambda: LinearLagForecaster(calendar=True, country="DE", timezone=TZ),
        "hopfield": lambda: HopfieldForecaster(
            calendar=True, country="DE", timezone=TZ, horizon=38, random_state=0
        ),
    }
    return {name: makers[name]() for name in names}


def rolling(estimator, window: str, gamma: float) -> ConformalForecaster:
    """Rolling calibration over ``window``; ACI with step ``gamma`` when it is positive."""
    return ConformalForecaster(
        estimator, coverage=LEVELS, window=window, horizon=38, stride=24,
        adaptive=gamma > 0, gamma=gamma if gamma > 0 else 0.005, timezone=TZ,
    )  # fmt: skip


def static(estimator) -> ConformalForecaster:
    """The static calibration of ``day_ahead_intervals.py``: the year before the first origin."""
    return ConformalForecaster(
        estimator, coverage=LEVELS, calibration="365D", horizon=38, stride=24, timezone=TZ
    )


def hourly_load(period: str) -> pd.DataFrame:
    """Hourly actual load from 2019 to the end of the scored year, local time."""
    first, last = PERIODS[period]
    return german_load(start=first, end=last, columns=["actual"])


def score(model, df: pd.DataFrame, year: str) -> tuple[dict, pd.DataFrame]:
    """Backtest ``model`` on the day-ahead protocol of ``year``: overall row, monthly coverage."""
    t0 = time.perf_counter()
    result = backtest(
        model, df, protocol="day-ahead", start=f"{year}-01-01", end=f"{year}-12-31",
        timezone=TZ, target="actual", metrics=("mae",),
    )  # fmt: skip
    fc = result.forecasts
    y = fc["y_true"].to_numpy()
    inside = {
        "coverage_80": (y >= fc["y_pred_q0.1"]) & (y <= fc["y_pred_q0.9"]),
        "coverage_95": (y >= fc["y_pred_q0.025"]) & (y <= fc["y_pred_q0.975"]),
    }
    month = pd.DatetimeIndex(fc["time"]).tz_convert(TZ).month
    monthly = pd.DataFrame(inside).groupby(month).mean()
    row = {
        "coverage_80": inside["coverage_80"].mean(),
        "coverage_95": inside["coverage_95"].mean(),
        "width_80": (fc["y_pred_q0.9"] - fc["y_pred_q0.1"]).mean(),
        "width_95": (fc["y_pred_q0.975"] - fc["y_pred_q0.025"]).mean(),
        "crps": M.crps(y, fc[[f"y_pred_q{q}" for q in COMMON]].to_numpy(), COMMON),
        "mae": result.metrics.loc["overall", "mae"],
        "monthly_error": monthly_error(monthly),
        "seconds": time.perf_counter() - t0,
    }
    return row, monthly


def monthly_error(monthly: pd.DataFrame) -> float:
    """Mean over months of the absolute coverage errors at both levels."""
    return float(
        ((monthly["coverage_80"] - 0.80).abs() + (monthly["coverage_95"] - 0.95).abs()).mean()
    )


def choose(grid: pd.DataFrame) -> pd.DataFrame:
    """Per model, the grid row with the smallest monthly error among the tolerated ones."""
    ok = ((grid["coverage_80"] - 0.80).abs() <= TOLERANCE) & (
        (grid["coverage_95"] - 0.95).abs() <= TOLERANCE
    )
    rows = []
    for _, part in grid.groupby("model", sort=False):
        pool = part[ok[part.index]] if ok[part.index].any() else part
        rows.append(pool.loc[pool["monthly_error"].idxmin()])
    return pd.DataFrame(rows)


def run_val(models: dict, out: Path) -> None:
    """Score every (window, gamma) of the grid on 2022 for each model."""
    df = hourly_load("val")
    rows, months = [], {}
    with fit_cache():  # the point model is fitted once per model, not once per setting
        for name, estimator in models.items():
            for window in WINDOWS:
                for gamma in GAMMAS:
                    row, monthly = score(rolling(estimator, window, gamma), df, "2022")
                    rows.append({"model": name, "window": window, "gamma": gamma} | row)
                    months[(name, window, gamma)] = monthly
                    print({k: _round(v) for k, v in rows[-1].items()}, flush=True)
    grid = pd.DataFrame(rows)
    monthly = pd.concat(months, names=["model", "window", "gamma", "month"]).reset_index()
    for frame, path in ((grid, f"{out}_val.csv"), (monthly, f"{out}_val_by_month.csv")):
        if Path(path).is_file():  # keep the other models' rows of an earlier run
            old = pd.read_csv(path)
            frame = pd.concat([old[~old["model"].isin(list(models))], frame])
        frame.to_csv(path, index=False)


def run_test(models: dict, out: Path) -> None:
    """Score the settings chosen on 2022 (and the static reference) on 2023, write the report."""
    grid = pd.read_csv(f"{out}_val.csv")
    val_months = pd.read_csv(f"{out}_val_by_month.csv")
    chosen = choose(grid[grid["model"].isin(list(models))]).set_index("model")
    df = hourly_load("test")
    rows, months = {}, {}
    for name, estimator in models.items():
        window, gamma = chosen.loc[name, "window"], float(chosen.loc[name, "gamma"])
        label = f"{name}, window {window}" + (f", ACI {gamma:g}" if gamma > 0 else "")
        rows[label], months[label] = score(rolling(estimator, window, gamma), df, "2023")
        print(label, {k: _round(v) for k, v in rows[label].items()}, flush=True)
        if name != "hopfield":
            ref = f"{name}, static 365D"
            rows[ref], months[ref] = score(static(estimator), df, "2023")
            print(ref, {k: _round(v) for k, v in rows[ref].items()}, flush=True)
    test = pd.DataFrame.from_dict(rows, orient="index")
    monthly = pd.concat(months, axis=1)
    write_report(out, grid, val_months, chosen, test, monthly)


def write_report(out, grid, val_months, chosen, test, monthly) -> None:
    """``<out>.md``: the 2022 grid, the choice, the 2023 scores and coverage by month."""
    cols = ["coverage_80", "coverage_95", "width_80", "width_95", "crps", "monthly_error"]
    cells = grid.assign(
        cell=[f"{a:.3f} / {b:.3f}" for a, b in zip(grid.coverage_80, grid.coverage_95, strict=True)]
    )
    text = [
        "# Rolling conformal intervals, German day-ahead protocol",
        "",
        "`python experiments/day_ahead_intervals_rolling.py --period val`, then `--period test`"
        "; the protocol and the choice rule are in the script's docstring.",
        "",
        "## 2022 (validation: fitted on 2019-2021): coverage 80 % / 95 % per window and ACI step",
        "",
    ]
    for name, part in cells.groupby("model", sort=False):
        table = part.pivot(index="window", columns="gamma", values="cell")
        table = table.loc[[w for w in WINDOWS if w in table.index]]
        text += [f"{name} (gamma 0: no ACI):", "", table.to_markdown(), ""]
    text += [
        "Chosen on 2022 (smallest monthly calibration error among settings within 2 points "
        "overall at both levels):",
        "",
        chosen[["window", "gamma", *cols]].to_markdown(floatfmt=".3f"),
        "",
        "Coverage by month of 2022 of the chosen settings (80 % / 95 %):",
        "",
        _monthly_table(val_months, chosen).to_markdown(),
        "",
        "## 2023 (test: fitted on 2019-2022), reported once",
        "",
        test[[*cols, "mae", "seconds"]].to_markdown(floatfmt=".3f"),
        "",
        "Coverage of the 80 % interval by month of 2023:",
        "",
        monthly.xs("coverage_80", axis=1, level=1).T.to_markdown(floatfmt=".2f"),
        "",
        "Coverage of the 95 % interval by month of 2023:",
        "",
        monthly.xs("coverage_95", axis=1, level=1).T.to_markdown(floatfmt=".3f"),
        "",
    ]
    Path(f"{out}.md").write_text("\n".join(text))
    print("\n".join(text))


def _monthly_table(val_months: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    out = {}
    for name, row in chosen.iterrows():
        part = val_months[
            (val_months["model"] == name)
            & (val_months["window"] == row["window"])
            & np.isclose(val_months["gamma"], float(row["gamma"]))
        ].set_index("month")
        pairs = zip(part.coverage_80, part.coverage_95, strict=True)
        out[name] = pd.Series([f"{a:.2f} / {b:.3f}" for a, b in pairs], index=part.index)
    return pd.DataFrame(out).T


def _round(value):
    return round(value, 4) if isinstance(value, float) else value


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--period", choices=("val", "test"), required=True)
    parser.add_argument("--models", nargs="+", default=["naive", "linear", "hopfield"])
    parser.add_argument("--out", default="experiments/results/day_ahead_intervals_rolling")
    args = parser.parse_args()
    torch.set_num_threads(1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    models = point_models(args.models)
    (run_val if args.period == "val" else run_test)(models, out)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
