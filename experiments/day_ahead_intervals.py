"""Prediction intervals on the German day-ahead protocol: coverage, width, CRPS.

ENTSO-E DE-LU load, hourly means, Europe/Berlin. Every day D of 2023 is forecast at 12:00
local on D-1 and scored on the local day D; models are fitted once on 2019-2022 (never
refitted). Conformal intervals are calibrated on the year before the first origin (2022):
origins one day apart at the issue time, residuals per step ahead and local hour, nothing
from 2023 (``ConformalForecaster(calibration="365D", stride=24, horizon=38)``; the protocol
scores steps 13-36 after the 11:00 origin, up to 37 on the autumn DST day). The adaptive
variant (ACI) updates its level day by day from the 2023 forecasts already observed at each
origin. ``--neural`` adds a quantile-head Hopfield network and a conformal Hopfield point
model (the settings of ``results/day_ahead_ablation.md``, 12 epochs; three fits of a few
minutes each).

    python experiments/day_ahead_intervals.py --out experiments/results/day_ahead_intervals

CRPS is the quantile-score approximation on the levels every model forecasts (0.025, 0.1,
0.9, 0.975: the bounds of the 80 % and 95 % intervals), so the quantile head's median does
not enter it. Writes ``<out>.md`` (tables), ``<out>_by_month.csv``, ``<out>_holiday_week.png``
(bands of the best model over Christmas 2023) and ``<out>_reliability.png``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from forecast import (
    ConformalForecaster,
    ExternalForecast,
    HopfieldForecaster,
    LinearLagForecaster,
    SeasonalNaive,
    backtest,
)
from forecast.datasets import german_load
from forecast.evaluation import metrics as M
from forecast.evaluation.plots import plot_bands, plot_reliability

TZ = "Europe/Berlin"
LEVELS = (0.8, 0.95)
COMMON = (0.025, 0.1, 0.9, 0.975)  # quantile levels every model forecasts: CRPS on these
SCORES = ["mae", "mape", "crps", "coverage_80", "width_80", "winkler_80"]
SCORES += ["coverage_95", "width_95", "winkler_95"]
HOLIDAY_WEEK = ("2023-12-20", "2023-12-28")  # Christmas 2023: 24th Sunday, 25th-26th holidays


def conformal(estimator, adaptive: bool = False, gamma: float = 0.01) -> ConformalForecaster:
    """The calibration used for every model: the year before, daily origins, 38 steps."""
    return ConformalForecaster(
        estimator,
        coverage=LEVELS,
        calibration="365D",
        horizon=38,
        stride=24,
        adaptive=adaptive,
        gamma=gamma,
        timezone=TZ,
    )


def hopfield(**extra) -> HopfieldForecaster:
    """The Hopfield settings of the 2022 validation ablation (every 3rd origin, linear skip)."""
    return HopfieldForecaster(
        calendar=True, country="DE", timezone=TZ, context_length=168, horizon=38,
        batch_size=256, learning_rate=0.002, train_origins=3, linear_skip=True, max_epochs=12,
        random_state=0, **extra,
    )  # fmt: skip


def models(neural: bool, gamma: float) -> dict:
    """Name -> estimator of the comparison."""
    naive = SeasonalNaive(season="7D", timezone=TZ)
    linear = LinearLagForecaster(calendar=True, country="DE", timezone=TZ)
    tso = ExternalForecast(column="forecast", nan_policy="interpolate")
    out = {
        "conformal seasonal naive (7D)": conformal(naive),
        "conformal seasonal naive, ACI": conformal(naive, True, gamma),
        "conformal linear on lags": conformal(linear),
        "conformal linear on lags, ACI": conformal(linear, True, gamma),
        "conformal TSO forecast": conformal(tso),
    }
    if neural:
        out["Hopfield quantile head"] = hopfield(quantiles=(0.025, 0.1, 0.5, 0.9, 0.975))
        out["conformal Hopfield"] = conformal(hopfield())
    return out


def by_month(forecasts: pd.DataFrame) -> pd.DataFrame:
    """Coverage of the 80 % and 95 % intervals per calendar month of the scored hour."""
    month = pd.DatetimeIndex(forecasts["time"]).tz_convert(TZ).month
    y = forecasts["y_true"]
    inside = {
        "coverage_80": (y >= forecasts["y_pred_q0.1"]) & (y <= forecasts["y_pred_q0.9"]),
        "coverage_95": (y >= forecasts["y_pred_q0.025"]) & (y <= forecasts["y_pred_q0.975"]),
    }
    return pd.DataFrame(inside).groupby(month).mean()


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="experiments/results/day_ahead_intervals")
    parser.add_argument("--neural", action="store_true", help="add the quantile-head network")
    parser.add_argument("--gamma", type=float, default=0.01, help="ACI step size")
    args = parser.parse_args()
    torch.set_num_threads(1)
    df = german_load(columns=["actual", "forecast"])  # 2019-2023, hourly, local time
    rows, months, results = {}, {}, {}
    for name, estimator in models(args.neural, args.gamma).items():
        t0 = time.perf_counter()
        result = backtest(
            estimator, df, protocol="day-ahead", start="2023-01-01", end="2023-12-31",
            timezone=TZ, target="actual", metrics=("mae", "mape"),
        )  # fmt: skip
        fc = result.forecasts
        quantiles = fc[[f"y_pred_q{q}" for q in COMMON]].to_numpy()
        rows[name] = result.metrics.loc["overall", SCORES].to_dict() | {
            "crps": M.crps(fc["y_true"].to_numpy(), quantiles, COMMON),
            "seconds": time.perf_counter() - t0,
        }
        months[name] = by_month(result.forecasts)
        results[name] = result
        print(name, {k: round(v, 3) for k, v in rows[name].items()}, flush=True)
    table = pd.DataFrame.from_dict(rows, orient="index")
    reference = table.loc["conformal seasonal naive (7D)", "crps"]
    table["crps_vs_naive_%"] = 100 * (table["crps"] / reference - 1)
    monthly = pd.concat(months, axis=1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    monthly.to_csv(f"{out}_by_month.csv")
    best = table["crps"].idxmin()
    plot_bands(
        results[best].forecasts, f"{out}_holiday_week.png", start=HOLIDAY_WEEK[0],
        end=HOLIDAY_WEEK[1], timezone=TZ, unit="MW",
    )  # fmt: skip
    plot_reliability({k: r.forecasts for k, r in results.items()}, f"{out}_reliability.png")
    text = [
        "# Day-ahead prediction intervals, Germany 2023",
        "",
        f"`python {' '.join(['experiments/day_ahead_intervals.py', *sys.argv[1:]])}`",
        "",
        table.to_markdown(floatfmt=".3f"),
        "",
        "Coverage of the 80 % interval by month of 2023:",
        "",
        monthly.xs("coverage_80", axis=1, level=1).T.to_markdown(floatfmt=".2f"),
        "",
        "Coverage of the 95 % interval by month of 2023:",
        "",
        monthly.xs("coverage_95", axis=1, level=1).T.to_markdown(floatfmt=".3f"),
        "",
        f"Christmas week band plot of the best CRPS ({best}): `{out.name}_holiday_week.png`; "
        f"reliability diagram of every model: `{out.name}_reliability.png`.",
    ]
    Path(f"{out}.md").write_text("\n".join(text) + "\n")
    print(table.to_string(float_format="%.3f"))
    print(monthly.to_string(float_format="%.3f"))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
