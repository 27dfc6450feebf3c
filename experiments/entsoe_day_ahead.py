"""Day-ahead backtest of the baselines on German load (ENTSO-E), hourly and quarter-hourly.

Protocol (DESIGN.md): for each day D of 2023 the forecast is issued at 12:00 Europe/Berlin on
D-1 from the load observed up to then and scored on the 24 hours (96 quarter-hours) of D in
local time; training data from 2019-01-01 (the bidding zone changed in October 2018). Every
model is fitted once, on the data up to the first origin (``refit_every=None``): the
statsmodels baselines keep their parameters and re-filter the history at every origin.
Hourly values are means of the four quarter-hours of each UTC hour (which is also the
local hour: Berlin is UTC+1/UTC+2). Seasonal naive references take the same local hour
yesterday / last week (``timezone``), also across daylight-saving changes.

    python experiments/entsoe_day_ahead.py --quick        # January 2023, fast models, hourly
    python experiments/entsoe_day_ahead.py                # the full tables (both resolutions)
    python experiments/entsoe_day_ahead.py --lstm-only    # only the LSTM backtest timing
    python experiments/entsoe_day_ahead.py --test-year 2022 --resolution hourly --no-lstm
                                                          # validation: train 2019-2021

Prints markdown tables and writes them (``.md`` and ``.csv``) and the comparison plots to
``experiments/results/``. Besides the overall scores, each table has the MAPE on special
days and on the other days: ``forecast.frames.special_days.special_days`` with
``min_share=0.1``, a public holiday or bridge day for at least 10 % of Germans, or 24 Dec -
1 Jan (``mape_special`` of ``compare(special_days="holidays-DE")`` counts a holiday or bridge
day in any state). ``--skip`` leaves models out; their rows of the previous table (same file)
are carried over and marked.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pandas as pd
import torch

from forecast.datasets import german_load
from forecast.evaluation.backtest import backtest
from forecast.evaluation.compare import compare
from forecast.frames.special_days import special_mask
from forecast.models.baselines import (
    ETSForecaster,
    ExternalForecast,
    LinearLagForecaster,
    MSTLForecaster,
    Naive,
    SARIMAXForecaster,
    SeasonalNaive,
)
from forecast.models.recurrent import LSTMForecaster

TZ = "Europe/Berlin"
RESULTS = Path(__file__).resolve().parent / "results"
# MAPE of the grid operators' forecast on 2023, measured by the project lead
REFERENCE_MAPE = {"hourly": 3.76, "15min": 3.78}
# Special days of these tables: a holiday or bridge day for at least 10 % of Germans
MIN_SHARE = 0.1


def decimals(table: pd.DataFrame, digits: dict) -> list[str]:
    """``floatfmt`` of ``DataFrame.to_markdown``: ``digits`` decimals per column (default 2)."""
    return ["", *(f".{digits.get(c, 2)}f" for c in table.columns)]


def special_day_table(results: dict) -> pd.DataFrame:
    """MAPE (%) of each model on special days and on the other days, with the day counts."""
    rows = {}
    for name, res in results.items():
        f = res.forecasts
        special = special_mask(f["time"], "holidays-DE", TZ, min_share=MIN_SHARE)
        ape = (f["y_pred"] - f["y_true"]).abs() / f["y_true"].abs() * 100
        local_day = pd.DatetimeIndex(f["time"]).tz_convert(TZ).date
        rows[name] = {
            "mape_special": ape[special].mean(),
            "mape_other": ape[~special].mean(),
            "special_days": len(set(local_day[special])),
            "other_days": len(set(local_day[~special])),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    return table


def models(quick: bool, resolution: str) -> dict:
    out = {
        "TSO forecast": ExternalForecast(column="forecast", nan_policy="interpolate"),
        "Naive": Naive(),
        "SeasonalNaive 1D": SeasonalNaive(season="1D", timezone=TZ),
        "SeasonalNaive 7D": SeasonalNaive(season="7D", timezone=TZ),
    }
    if quick:
        return out
    # statsmodels engines re-filter a bounded window at every origin: keep it short
    window = "56D" if resolution == "hourly" else "28D"
    out["SeasonalNaive 7D x4"] = SeasonalNaive(season="7D", n_seasons=4, timezone=TZ)
    out["ETS 7D"] = ETSForecaster(seasonal="add", seasonal_periods="7D", train_window=window)
    out["MSTL"] = MSTLForecaster(periods=("1D", "7D"), train_window=window)
    # its defaults: the last 24 steps, same local time 1 and 7 days back, one ridge per
    # time of day of the origin and lead, leads up to two days
    out["LinearLag"] = LinearLagForecaster(calendar=True, country="DE", timezone=TZ)
    if resolution == "hourly":  # a seasonal period of 96 quarter-hours is out of reach
        out["SARIMAX"] = SARIMAXForecaster(
            order=(2, 0, 1), seasonal_order=(1, 1, 1, "1D"), train_window="21D", maxiter=30
        )
    return out


def carried_over(path: Path, skipped: set, chosen: list) -> pd.DataFrame | None:
    """Rows of skipped models from the previous table at ``path`` (None when there are none)."""
    if not skipped or not path.exists():
        return None
    previous = pd.read_csv(path, index_col=0)
    keep = [m for m in previous.index if m in skipped and m not in chosen]
    return previous.loc[keep] if keep else None


def run_table(
    df: pd.DataFrame, resolution: str, quick: bool, skip: set, year: int = 2023
) -> pd.DataFrame:
    chosen = {k: v for k, v in models(quick, resolution).items() if k not in skip}
    start = f"{year}-01-01"
    end = f"{year}-01-31" if quick else f"{year}-12-31"
    suffix = ("_quick" if quick else "") + ("" if year == 2023 else f"_{year}")
    tag = f"entsoe_day_ahead_{resolution}{suffix}"
    res = compare(
        chosen,
        df,
        protocol="day-ahead",
        start=start,
        end=end,
        target="actual",
        timezone=TZ,
        metrics=("mape", "mae", "rmse", "bias"),
        plots_dir=RESULTS,
        plot_prefix=f"{tag}_",
        unit="MW",
        name=tag,
    )
    table = res.table
    old = carried_over(RESULTS / f"{tag}.csv", skip, list(table.index))
    if old is not None:
        table = pd.concat([table, old[table.columns]])
    first = next(iter(res.results.values()))
    n_days = len(first.origins)
    print(f"\n### {resolution}: day-ahead, {n_days} days from {start}, train from 2019-01-01\n")
    scores = table.drop(columns=["n"])
    digits = {"mape": 3, "mae": 0, "rmse": 0, "bias": 0, "n_fits": 0}
    text = scores.to_markdown(floatfmt=decimals(scores, digits))
    if old is not None:
        text += f"\n\nCarried over from the previous run (not rerun): {', '.join(old.index)}."
    days = special_day_table(res.results)
    text += (
        "\n\nMAPE on special days (public holiday or bridge day for at least 10 % of the "
        "population, or 24 Dec - 1 Jan: `special_days(min_share=0.1)` of "
        "`forecast.frames.special_days`) and on the other days:\n\n"
        + days.to_markdown(floatfmt=decimals(days, {"mape_special": 3, "mape_other": 3}))
    )
    print(text)
    print(
        f"\nvalues scored per model: {int(table['n'].iloc[0])}; plots: "
        f"{', '.join(p.name for p in res.plots.values())}"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    table.to_csv(RESULTS / f"{tag}.csv")
    (RESULTS / f"{tag}.md").write_text(text + "\n")
    if "TSO forecast" in table.index and not quick and year == 2023:
        got, want = table.loc["TSO forecast", "mape"], REFERENCE_MAPE[resolution]
        verdict = "OK" if abs(got - want) <= 0.05 else "MISMATCH"
        print(f"TSO forecast MAPE {got:.3f}% vs reference {want:.2f}%: {verdict}")
    return table


def lstm_timing(df: pd.DataFrame, epochs: int, train_days: int, repeats: int) -> None:
    """Time a fitted LSTM over every origin of the 2023 day-ahead backtest (hourly)."""
    torch.set_num_threads(2)
    est = LSTMForecaster(
        context_length=168,
        horizon=37,
        hidden_size=16,
        max_epochs=epochs,
        batch_size=256,
        validation_fraction=0.0,
        random_state=0,
        device="cpu",
    )
    data = df[["actual"]]
    kwargs = dict(protocol="day-ahead", start="2023-01-01", end="2023-12-31", timezone=TZ)
    t0 = time.perf_counter()
    res = backtest(est, data, window="sliding", train_size=f"{train_days}D", **kwargs)
    wall = time.perf_counter() - t0
    print(
        f"\n### LSTM (hidden 16, {epochs} epoch(s) on the last {train_days} days), hourly, "
        f"{len(res.origins)} origins\n"
    )
    print(
        f"backtest: fit {res.fit_seconds:.1f} s, predict_origins {res.predict_seconds:.2f} s, "
        f"whole backtest {wall:.1f} s, MAPE {res.metrics.loc['overall', 'mape']:.2f}%"
    )
    fitted, origins = res.estimator, res.origins
    ref = SeasonalNaive(season="7D").fit(data.loc[: origins[0]])
    few = origins[:: max(1, len(origins) // 20)]

    def median_seconds(call, runs) -> float:
        times = []
        for arg in runs:
            t0 = time.perf_counter()
            call(arg)
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    print(
        "\n| torch threads | LSTM predict_origins, 365 origins [s] | SeasonalNaive, same call [s] "
        "| LSTM one predict per origin x 365 [s] | loop / batched |"
    )
    print("|---|---|---|---|---|")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        batched = median_seconds(
            lambda _: fitted.predict_origins(data, origins, 37), range(repeats)
        )
        naive = median_seconds(lambda _: ref.predict_origins(data, origins, 37), range(repeats))
        one = median_seconds(lambda o: fitted.predict(horizon=37, history=data.loc[:o]), few)
        loop = one * len(origins)
        print(f"| {threads} | {batched:.2f} | {naive:.2f} | {loop:.1f} | {loop / batched:.0f}x |")
    print(
        f"(medians: {repeats} batched calls; {len(few)} single predicts, scaled to {len(origins)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="January 2023, fast models, hourly")
    parser.add_argument("--resolution", choices=("hourly", "15min", "both"), default=None)
    parser.add_argument("--data-dir", default=None, help="folder holding entsoe_de_load_15min/")
    parser.add_argument("--skip", nargs="*", default=[], help="model names to leave out")
    parser.add_argument("--lstm-epochs", type=int, default=1)
    parser.add_argument("--lstm-train-days", type=int, default=365)
    parser.add_argument("--no-lstm", action="store_true")
    parser.add_argument("--lstm-only", action="store_true")
    parser.add_argument(
        "--test-year",
        type=int,
        default=2023,
        help="year scored (training from 2019 up to it); 2022 is the validation year",
    )
    args = parser.parse_args()
    resolution = args.resolution or ("hourly" if args.quick else "both")
    resolutions = ["hourly", "15min"] if resolution == "both" else [resolution]
    if args.lstm_only:
        resolutions = ["hourly"]
    hourly = None
    for res in resolutions:
        t0 = time.perf_counter()
        df = german_load(res, end=str(args.test_year), data_dir=args.data_dir)
        print(
            f"loaded {res}: {len(df)} rows, {df.index[0]} .. {df.index[-1]} "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        if res == "hourly":
            hourly = df
        if not args.lstm_only:
            run_table(df, res, args.quick, set(args.skip), args.test_year)
    if not args.no_lstm and not args.quick and args.test_year == 2023:
        lstm_timing(
            hourly if hourly is not None else german_load(data_dir=args.data_dir),
            args.lstm_epochs,
            args.lstm_train_days,
            repeats=3,
        )


if __name__ == "__main__":
    main()
