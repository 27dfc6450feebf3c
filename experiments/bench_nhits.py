"""Fit time, backtest time and peak memory of our best day-ahead model next to neuralforecast NHITS.

Same data and protocol for both: ENTSO-E DE-LU load, hourly means, Europe/Berlin. Fitted once
on 2019-01-01 up to the first origin (12:00 local on 2022-12-31), then for every day D of 2023
a forecast issued at 12:00 local on D-1 from the load observed up to then, scored on the local
hours of D (23/25 on DST days), never refitted. Both models get the same calendar inputs
(:func:`forecast.calendar_features` with German holidays) as known future covariates.

* ours: ``HopfieldForecaster`` (library defaults, calendar, ``micro_batch_size=32``) through
  ``forecast.evaluation.backtest.backtest(protocol="day-ahead")``;
* NHITS: neuralforecast defaults plus ``input_size=168``, ``h=38`` (12:00 D-1 to the end of a
  25-hour D with a step to spare), robust per-window scaler, early stopping on the last 10 % of
  the training rows; the 365 origins are predicted in one ``predict`` call, each origin as its
  own series holding the last two weeks before it (NHITS reads only ``input_size`` steps; the
  script checks two origins against a prediction from the full history).

Each model runs in its own subprocess with one torch thread, so the peak RSS is that model's
(``ru_maxrss`` of the process, data loading included). Needs the ``bench`` extra
(``pip install -e ".[bench]"``).

    python experiments/bench_nhits.py --data-dir ../shared/data            # one repeat
    python experiments/bench_nhits.py --data-dir ../shared/data --repeats 3  # medians
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from forecast.datasets import german_load
from forecast.evaluation.backtest import backtest
from forecast.evaluation.metrics import bias, mape
from forecast.evaluation.schedule import day_ahead_plan
from forecast.frames.calendar import calendar_features
from forecast.models.hopfield import HopfieldForecaster

TZ = "Europe/Berlin"
ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results" / "bench_nhits.md"
FIRST, FIRST_TEST, LAST_TEST = "2019-01-01", "2023-01-01", "2023-12-31"
HORIZON, INPUT_SIZE = 38, 168
# The library's defaults (a 24-step head rolled out to the 36-37 steps, every 3rd hour an
# origin), the calendar, and training batches read in slices of 32 windows (same steps).
OURS = dict(
    calendar=True, country="DE", timezone=TZ, random_state=0, micro_batch_size=32,
)  # fmt: skip
MODELS = ("ours", "nhits")
TIMINGS = ("fit_s", "fit_cpu_s", "predict_s", "backtest_s", "rss_gb", "rss_base_gb", "epochs")


def peak_rss_gb() -> float:
    """Peak resident memory of this process, GB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def day_ahead_origins(index: pd.DatetimeIndex) -> pd.DatetimeIndex:
    """Origins of the protocol: the hour ending at 12:00 local on D-1, for D in 2023."""
    plan = day_ahead_plan(index, FIRST_TEST, LAST_TEST, timezone=TZ)  # the backtest's schedule
    days = pd.date_range(FIRST_TEST, LAST_TEST, freq="D")
    if len(plan) != len(days):
        raise ValueError(f"{len(days) - len(plan)} days of the test period are not in the data")
    return pd.DatetimeIndex(plan["origin"])


def scored_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Keep the rows whose local date is the day after the origin's (the scored day D)."""
    origin_day = frame["origin"].dt.tz_convert(TZ).dt.tz_localize(None).dt.normalize()
    time_day = frame["time"].dt.tz_convert(TZ).dt.tz_localize(None).dt.normalize()  # wall dates
    return frame[time_day == origin_day + pd.Timedelta(days=1)].reset_index(drop=True)


def run_ours(df: pd.DataFrame, quick: bool) -> tuple[pd.DataFrame, dict]:
    class CpuTimed(HopfieldForecaster):
        """Records the CPU seconds of ``fit`` (the backtest reports wall seconds only)."""

        def fit(self, *args, **kwargs):
            start = time.process_time()
            super().fit(*args, **kwargs)
            self.fit_cpu_seconds_ = time.process_time() - start
            return self

    params = OURS | ({"max_epochs": 1} if quick else {})
    result = backtest(
        CpuTimed(**params), df, protocol="day-ahead", start=FIRST_TEST, end=LAST_TEST, timezone=TZ
    )
    frame = result.forecasts[["origin", "time", "y_pred", "y_true"]]
    info = {
        "fit_s": result.fit_seconds, "predict_s": result.predict_seconds,
        "backtest_s": result.total_seconds - result.fit_seconds,
        "fit_cpu_s": result.estimator.fit_cpu_seconds_,
        "epochs": result.estimator.n_epochs_, "library_mape": result.metrics.loc["overall", "mape"],
    }  # fmt: skip
    return frame, info


def nf_frame(y: pd.Series, calendar: pd.DataFrame, uid: str) -> pd.DataFrame:
    """neuralforecast long format: unique_id, ds (naive UTC), y, calendar columns."""
    ds = y.index.tz_convert("UTC").tz_localize(None)
    out = pd.DataFrame({"unique_id": uid, "ds": ds, "y": y.to_numpy(dtype="float32")})
    return pd.concat([out, calendar.reset_index(drop=True).astype("float32")], axis=1)


def run_nhits(df: pd.DataFrame, quick: bool) -> tuple[pd.DataFrame, dict]:
    import neuralforecast  # the extra forecast-toolkit[bench], and only in the NHITS worker
    from neuralforecast import NeuralForecast  # as above
    from neuralforecast.models import NHITS  # as above

    index, y = df.index, df["actual"]
    origins = day_ahead_origins(index)
    step = pd.Timedelta(hours=1)
    future_index = pd.date_range(index[0], origins[-1] + HORIZON * step, freq="h")
    calendar = calendar_features(future_index, timezone=TZ, country="DE")  # (N, 11)
    exog = list(calendar.columns)
    full = nf_frame(y.reindex(future_index), calendar, "DE")
    pos = {t: i for i, t in enumerate(future_index)}

    train = full.iloc[: pos[origins[0]] + 1]
    val_size = int(0.1 * len(train) / 24) * 24
    model = NHITS(
        h=HORIZON, input_size=INPUT_SIZE, futr_exog_list=exog, scaler_type="robust",
        early_stop_patience_steps=5, random_seed=0, accelerator="cpu", devices=1,
        logger=False, enable_progress_bar=False, enable_model_summary=False,
        **({"max_steps": 50, "val_check_steps": 10} if quick else {}),
    )  # fmt: skip
    nf = NeuralForecast(models=[model], freq="h")
    t0, c0 = time.perf_counter(), time.process_time()
    nf.fit(train, val_size=val_size)
    fit_s, fit_cpu_s = time.perf_counter() - t0, time.process_time() - c0

    def predict(batch_origins: pd.DatetimeIndex, history: int | None) -> pd.DataFrame:
        past, futr = [], []
        for origin in batch_origins:
            end = pos[origin] + 1
            begin = 0 if history is None else end - history
            uid = origin.isoformat()
            past.append(full.iloc[begin:end].assign(unique_id=uid))
            futr.append(full.iloc[end : end + HORIZON].drop(columns="y").assign(unique_id=uid))
        out = nf.predict(df=pd.concat(past), futr_df=pd.concat(futr))
        out["origin"] = pd.to_datetime(out["unique_id"], utc=True).dt.tz_convert(TZ)
        out["time"] = out["ds"].dt.tz_localize("UTC").dt.tz_convert(TZ)
        return out.rename(columns={"NHITS": "y_pred"})[["origin", "time", "y_pred"]]

    t0 = time.perf_counter()
    pred = predict(origins, 2 * INPUT_SIZE)
    predict_s = time.perf_counter() - t0
    frame = scored_rows(pred)
    frame["y_true"] = y.reindex(pd.DatetimeIndex(frame["time"])).to_numpy()
    frame = frame.sort_values(["origin", "time"], ignore_index=True)
    backtest_s = time.perf_counter() - t0

    check = origins[[0, 180]]  # the window cut must not change a forecast
    whole = predict(check, None).set_index(["origin", "time"])["y_pred"]
    cut = pred.set_index(["origin", "time"])["y_pred"].reindex(whole.index)
    gap = float(np.max(np.abs(whole - cut) / whole.abs()))
    if not gap < 1e-4:
        raise AssertionError(f"predictions from the last {2 * INPUT_SIZE} steps differ by {gap}")
    info = {
        "fit_s": fit_s, "predict_s": predict_s, "backtest_s": backtest_s,
        "fit_cpu_s": fit_cpu_s,
        "epochs": steps_taken(nf.models[0]), "val_size": val_size,
        "neuralforecast": neuralforecast.__version__,
    }  # fmt: skip
    return frame, info


def steps_taken(model) -> int:
    """Optimizer steps of a fitted neuralforecast model (-1 when its trainer is gone)."""
    steps = getattr(model, "train_trajectories", None)
    return int(steps[-1][0]) + 1 if steps else -1


def worker(name: str, data_dir: str | None, out: Path, quick: bool) -> None:
    """Run one model in this process; write its scored forecasts and timings next to ``out``."""
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    if name == "nhits":  # extra forecast-toolkit[bench]; its imports count in the baseline below
        import neuralforecast.models  # noqa: F401
    df = german_load(start=FIRST, end=LAST_TEST, columns=["actual"], data_dir=data_dir)
    rss_before_fit = peak_rss_gb()  # interpreter, libraries and data
    frame, info = (run_ours if name == "ours" else run_nhits)(df, quick)
    info |= {
        "rss_gb": peak_rss_gb(),
        "rss_base_gb": rss_before_fit,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }
    frame.to_parquet(out.with_suffix(".parquet"))
    out.write_text(json.dumps(info))


def launch(name: str, args: argparse.Namespace, folder: Path, repeat: int) -> tuple:
    out = folder / f"{name}_{repeat}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, "--json", str(out)]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    if args.quick:
        cmd += ["--quick"]
    env = os.environ | {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    print(f"[repeat {repeat}] {name} ...", flush=True)
    subprocess.run(cmd, check=True, env=env)
    info = json.loads(out.read_text())
    frame = pd.read_parquet(out.with_suffix(".parquet"))
    print(f"[repeat {repeat}] {name}: {info}", flush=True)
    return frame, info


def score(frame: pd.DataFrame) -> dict:
    return {
        "mape": mape(frame["y_true"], frame["y_pred"]),
        "bias": bias(frame["y_true"], frame["y_pred"]),
    }


def check_same_pairs(ours: pd.DataFrame, nhits: pd.DataFrame) -> None:
    """Both frames must hold the same (origin, timestamp) pairs, once each."""
    keys = {}
    for name, frame in (("ours", ours), ("nhits", nhits)):
        utc = [frame[c].dt.tz_convert("UTC").dt.as_unit("ns") for c in ("origin", "time")]
        keys[name] = pd.MultiIndex.from_arrays(utc)
        if keys[name].has_duplicates:
            raise AssertionError(f"{name} has duplicate (origin, time) pairs")
    only_ours = keys["ours"].difference(keys["nhits"])
    only_nhits = keys["nhits"].difference(keys["ours"])
    if len(only_ours) or len(only_nhits):
        raise AssertionError(
            f"scored pairs differ: {len(keys['ours'])} ours, {len(keys['nhits'])} NHITS; only "
            f"ours {list(only_ours[:3])}, only NHITS {list(only_nhits[:3])}"
        )


def report(rows: pd.DataFrame, meta: dict) -> str:
    med = rows.groupby("model").median(numeric_only=True).loc[list(MODELS)]
    ours, nhits = med.loc["ours"], med.loc["nhits"]
    speed, memory = nhits["fit_s"] / ours["fit_s"], ours["rss_gb"] / nhits["rss_gb"]
    cpu_speed = nhits["fit_cpu_s"] / ours["fit_cpu_s"]
    lines = [
        "# Speed and memory: ours against neuralforecast NHITS (issue 13, item 5)", "",
        f"Command: `{meta['command']}`  ",
        f"Date: {meta['date']}; machine: {meta['machine']}; torch {meta['torch']}, "
        f"neuralforecast {meta['neuralforecast']}, one torch thread per model, each model in its "
        f"own subprocess. Repeats: {meta['repeats']} (medians).", "",
        "Protocol: ENTSO-E DE-LU hourly load, fitted once on 2019-01-01 .. 2022-12-31 12:00 "
        "local, forecasts issued 12:00 local on D-1 for every day D of 2023, scored on the local "
        f"hours of D ({meta['n_scored']} values, the same (origin, timestamp) pairs for both).", "",
        "| model | MAPE | bias MW | fit s | fit CPU s | predict s (365 origins) "
        "| backtest s after fit | peak RSS GB | RSS before fit GB | epochs / steps |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]  # fmt: skip
    labels = {"ours": f"Hopfield ({meta['ours_params']})", "nhits": meta["nhits_params"]}
    for name, r in med.iterrows():
        lines.append(
            f"| {labels[name]} | {r['mape']:.2f} % | {r['bias']:+.0f} | {r['fit_s']:.0f} | "
            f"{r['fit_cpu_s']:.0f} | {r['predict_s']:.2f} | {r['backtest_s']:.2f} | "
            f"{r['rss_gb']:.2f} | {r['rss_base_gb']:.2f} | {r['epochs']:.0f} |"
        )
    targets = [
        ("fit >= 3x faster than NHITS (wall)", speed >= 3, f"NHITS fit / ours fit = {speed:.2f}"),
        ("fit >= 3x faster than NHITS (CPU)", cpu_speed >= 3,
         f"NHITS fit CPU / ours fit CPU = {cpu_speed:.2f}"),
        ("at better MAPE", ours["mape"] < nhits["mape"],
         f"{ours['mape']:.2f} % vs {nhits['mape']:.2f} %"),
        ("peak RSS at most half of NHITS's", memory <= 0.5, f"ours RSS / NHITS RSS = {memory:.2f}"),
        ("365-origin backtest < 10 s after fitting", ours["backtest_s"] < 10,
         f"{ours['backtest_s']:.2f} s"),
    ]  # fmt: skip
    lines += ["", "| target | holds | measured |", "|---|---|---|"]
    lines += [f"| {t} | {'yes' if ok else 'no'} | {m} |" for t, ok, m in targets]
    if meta["repeats"] > 1:
        lines += ["", "Every repeat:", "", rows.to_markdown(index=False, floatfmt=".3f")]
    lines += ["", meta["notes"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="folder holding entsoe_de_load_15min/")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each model (medians)")
    parser.add_argument(
        "--out", help=f"Markdown file to write (default {RESULTS.name}; none with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="1 epoch / 50 steps: plumbing only")
    parser.add_argument("--worker", choices=MODELS, help=argparse.SUPPRESS)
    parser.add_argument("--json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.data_dir, Path(args.json), args.quick)
        return
    load_before = os.getloadavg()
    rows, infos = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            frames = {}
            for name in MODELS:
                frames[name], infos[name] = launch(name, args, Path(tmp), repeat)
            check_same_pairs(frames["ours"], frames["nhits"])
            for name in MODELS:
                row = {"model": name, "repeat": repeat} | score(frames[name])
                rows.append(row | {k: infos[name][k] for k in TIMINGS})
            print(pd.DataFrame(rows).to_string(index=False, float_format="%.3f"), flush=True)
    gap = abs(rows[-2]["mape"] - infos["ours"]["library_mape"])
    if gap > 1e-9:
        raise AssertionError(f"MAPE from the forecasts differs from backtest's by {gap}")
    meta = {
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix()] + sys.argv[1:]),
        "date": datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()} Linux, {os.cpu_count()} cores shared with other jobs "
        f"(load average {load_before[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)",
        "torch": torch.__version__, "neuralforecast": infos["nhits"]["neuralforecast"],
        "repeats": args.repeats, "n_scored": len(frames["ours"]),
        "ours_params": ", ".join(f"{k}={v!r}" for k, v in OURS.items()),
        "nhits_params": f"NHITS (h={HORIZON}, input_size={INPUT_SIZE}, 11 calendar futr_exog, "
        f"scaler_type='robust', early_stop_patience_steps=5, val_size="
        f"{infos['nhits']['val_size']}, random_seed=0, defaults otherwise)",
        "notes": "fit s: wall seconds of `fit` alone (ours: `BacktestResult.fit_seconds`; "
        "NHITS: `nf.fit`); fit CPU s: CPU seconds of the same call in that process (less "
        "sensitive to the other jobs on the shared cores). "
        "predict s: the forecasts of the 365 origins (ours: `predict_origins` calls; NHITS: "
        "building the 365 input series and one `nf.predict`). backtest s after fit: predict "
        "plus cutting to the scored hours and joining the actuals. epochs / steps: our "
        "training epochs, NHITS optimizer steps (windows_batch_size 1024). Peak RSS is the "
        "whole worker process (Python, data, model); RSS before fit: its peak after importing "
        "the model's library and loading the data.",
    }  # fmt: skip
    text = report(pd.DataFrame(rows), meta)
    print(text)
    out = args.out or (None if args.quick else RESULTS)
    if out:
        Path(out).write_text(text)


if __name__ == "__main__":
    main()
