"""German day-ahead load with weather as a covariate: none, simulated forecasts, or perfect.

Same protocol as ``day_ahead_neural.py`` (ENTSO-E DE-LU hourly load, Europe/Berlin; each day D
forecast at 12:00 on D-1 and scored on the local day D; fitted once on the years before).
Weather is the 23-city hourly 2 m temperature mean (``forecast data list``: ``de-weather``),
which is *observed* (reanalysis), with the calendar-aware features of
:func:`forecast.frames.weather.weather_features`:

- ``none``: load and calendar only;
- ``simulated``: each origin reads the latest *simulated* forecast vintage issued by then
  (:func:`forecast.frames.vintage_sources.simulate_vintages`: one issue a day at 06:00 UTC,
  48 h ahead, error sd 1.5 K + 0.33 K per day of lead, the published single-station skill;
  an area mean errs less, so this is pessimistic);
- ``perfect``: the observed weather as if forecast: an upper bound nobody reaches.

Training reads the observed weather in every mode (no forecast archive exists for 2019-2022:
the documented fallback, ``training_covariates_``). ``--period val`` fits on 2019-2021 and
scores 2022 (choose here), ``--period test`` fits on 2019-2022 and scores 2023.

    python experiments/day_ahead_weather.py linear-lag hopfield --period val --weather all
    python experiments/day_ahead_weather.py linear-lag --period test --weather all \
        --features temperature_2m degrees --out experiments/results/day_ahead_weather.csv
"""

from __future__ import annotations

import argparse
import inspect
import resource
import time
from pathlib import Path

import pandas as pd
import torch

from forecast.datasets import german_load, load
from forecast.evaluation.backtest import backtest
from forecast.frames.vintage_sources import perfect_vintages, simulate_vintages
from forecast.frames.weather import weather_features
from forecast.models import get_estimator

TZ = "Europe/Berlin"
PERIODS = {"val": ("2019-01-01", "2022"), "test": ("2019-01-01", "2023")}
MODES = ("none", "simulated", "perfect")
FEATURES = {
    "temperature_2m": ["temperature_2m"],
    "degrees": ["temperature_2m", "heating_degrees", "cooling_degrees", "temperature_2m_day_mean"],
}


def weather(first: str, last: str) -> pd.DataFrame:
    """Observed hourly 2 m temperature and its features, local time, a day beyond ``last``."""
    raw = load("de-weather", timezone=TZ, columns=["temperature_2m"])
    return weather_features(raw.loc[first : f"{int(last) + 1}-01-02"], timezone=TZ)


def vintages(observed: pd.DataFrame, mode: str, columns: list[str], seed: int) -> pd.DataFrame:
    """What each origin may read: simulated forecast vintages, or the perfect upper bound."""
    if mode == "perfect":
        return perfect_vintages(observed, columns)
    start = observed.index[0].tz_convert("UTC").normalize() + pd.Timedelta("6h")
    issues = pd.date_range(start, observed.index[-1].tz_convert("UTC"), freq="D")  # 06:00 UTC
    raw = simulate_vintages(observed["temperature_2m"], issues, "48h", random_state=seed)
    out = weather_features(raw, timezone=TZ)[["issue_time", "valid_time", *columns]]
    out.attrs = raw.attrs
    return out


def run(
    name: str, mode: str, features: str, seed: int, period: str, settings: dict, save: Path | None
) -> dict:
    """Fit once before the scored year, backtest it; one row of the table.

    With ``save``, the scored forecasts go to ``save/<period>_<name>-<mode>-<features>_<seed>
    .parquet``, the layout ``day_ahead_blend.py --dir`` reads.
    """
    first, year = PERIODS[period]
    load_df = german_load("hourly", start=first, end=year, columns=("actual",))
    columns = FEATURES.get(features, [])
    cls = get_estimator(name)
    params = dict(calendar=True, country="DE", timezone=TZ, random_state=seed) | settings
    params = {k: v for k, v in params.items() if k in inspect.signature(cls).parameters}
    future = None
    if mode != "none":
        observed = weather(first, year)
        load_df = load_df.join(observed[columns])
        params["future_covariates"] = columns
        future = vintages(observed, mode, columns, seed)
    t0 = time.perf_counter()
    result = backtest(
        cls(**params),
        load_df,
        protocol="day-ahead",
        start=f"{year}-01-01",
        end=f"{year}-12-31",
        timezone=TZ,
        target="actual",
        future=future,
    )
    m = result.metrics.loc["overall"]
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        label = name if mode == "none" else f"{name}-{mode}-{features}"
        result.forecasts.to_parquet(save / f"{period}_{label}_{seed}.parquet")
    return {
        "model": name, "weather": mode, "features": features if mode != "none" else "",
        "period": period, "seed": seed, "mape": m["mape"], "mae": m["mae"], "rmse": m["rmse"],
        "bias": m["bias"], "fit_s": result.fit_seconds, "wall_s": time.perf_counter() - t0,
        "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
        "vintages": result.settings["future"] or "",
    }  # fmt: skip


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="estimator names (linear-lag, hopfield, ...)")
    parser.add_argument("--period", choices=PERIODS, default="val")
    parser.add_argument("--weather", nargs="+", choices=(*MODES, "all"), default=["all"])
    parser.add_argument("--features", nargs="+", choices=FEATURES, default=["temperature_2m"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--set", nargs="*", default=[], help="estimator settings key=value")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", help="append the rows to this CSV")
    parser.add_argument("--save-forecasts", type=Path, metavar="DIR", help="keep the forecasts")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    modes = MODES if args.weather == ["all"] else args.weather
    settings = {}
    for pair in args.set:
        key, _, value = pair.partition("=")
        settings[key] = int(value) if value.lstrip("-").isdigit() else value
    rows = []
    for name in args.models:
        for mode in modes:
            for features in args.features if mode != "none" else ["-"]:
                for seed in args.seeds:
                    row = run(
                        name, mode, features, seed, args.period, settings, args.save_forecasts
                    )
                    rows.append(row)
                    print(pd.DataFrame([row]).to_string(index=False, float_format="%.3f"))
    table = pd.DataFrame(rows)
    print(table.drop(columns="vintages").to_string(index=False, float_format="%.3f"))
    if args.out:
        out = Path(args.out)
        table.to_csv(out, mode="a", header=not out.exists(), index=False)


if __name__ == "__main__":
    main()
