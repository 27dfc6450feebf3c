"""Where the memory of a neural fit goes: resident memory at each stage of ``fit``.

The issue-13 configuration (``HopfieldForecaster``, horizon 38, batch 256, calendar with
German holidays) on ENTSO-E DE-LU hourly load 2019-2022, one torch thread. The stages of
``fit`` are wrapped in place (validation and conversion, calendar features, window datasets,
network and optimizer, each training epoch, each validation pass); around each call the
peak RSS is reset (``/proc/self/clear_refs``) and read back (``VmHWM``), so a row says what
the process held when the stage started, when it ended, and its peak while it ran. Then the
day-ahead forecasts of 2023 (365 origins at 12:00 local, 38 steps) are made from the
fitted model with ``predict_origins``, the call a backtest makes.

    python experiments/profile_fit_memory.py --data-dir ../shared/data --max-epochs 1
    python experiments/profile_fit_memory.py --synthetic --save /tmp/pred.npy  # quick check
    python experiments/profile_fit_memory.py --data-dir ... --max-epochs 2 --micro-batch-size 64
    python experiments/profile_fit_memory.py --data-dir ... --max-epochs 2 --malloc-trim

``--micro-batch-size`` sets the estimator's ``micro_batch_size`` (each batch of 256 read in
slices); ``--malloc-trim`` calls glibc's ``malloc_trim(0)`` after every training epoch and
validation pass (inside the stage, so its time counts), to see whether handing freed heap
back to the system lowers the peak and not only the RSS after the fit.

``--save`` writes the forecasts (``.npy``) and ``--compare`` checks them bit for bit against
a file written before a change. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

import forecast.frames.calendar as features
import forecast.models.neural as neural
import forecast.training.loop as training
from forecast.base import BaseForecaster
from forecast.datasets import german_load
from forecast.evaluation.schedule import day_ahead_plan
from forecast.models.hopfield import HopfieldForecaster

TZ = "Europe/Berlin"
PARAMS = dict(
    horizon=38, batch_size=256, learning_rate=0.002, max_epochs=30, train_origins=3,
    calendar=True, country="DE", timezone=TZ, random_state=0,
)  # fmt: skip
STATUS = Path("/proc/self/status")


def _status_mb(field: str) -> float:
    for line in STATUS.read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in {STATUS}")


def rss_mb() -> float:
    """Current resident set size, MiB."""
    return _status_mb("VmRSS")


def peak_mb() -> float:
    """Peak resident set size since the last :func:`reset_peak`, MiB."""
    return _status_mb("VmHWM")


def reset_peak() -> None:
    """Reset the peak RSS (``VmHWM``) to the current RSS."""
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")


class Stages:
    """Rows ``(stage, rss before, rss after, peak during)`` of wrapped calls, in call order.

    The peak is reset when a stage starts; the peak of an enclosing stage (``fit``) is kept
    as the maximum over its inner stages and its own remainder.
    """

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float, float, float]] = []
        self._open: list[float] = []  # running peak of the enclosing stages

    def wrap(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            self._close_segment()
            before, start = rss_mb(), time.perf_counter()
            self._open.append(before)
            reset_peak()
            try:
                return original(*args, **kwargs)
            finally:
                peak = max(self._open.pop(), peak_mb())
                if self._open:
                    self._open[-1] = max(self._open[-1], peak)
                self.rows.append((label, before, rss_mb(), peak, time.perf_counter() - start))
                reset_peak()

        setattr(owner, name, wrapper)

    def _close_segment(self) -> None:
        """Fold the peak of the enclosing stage's code since its last inner stage into it."""
        if self._open:
            self._open[-1] = max(self._open[-1], peak_mb())

    def table(self) -> str:
        lines = [
            "| stage | RSS before MB | RSS after MB | peak during MB | s |",
            "|---|---:|---:|---:|---:|",
        ]
        for label, before, after, peak, seconds in self.rows:
            lines.append(f"| {label} | {before:.0f} | {after:.0f} | {peak:.0f} | {seconds:.2f} |")
        return "\n".join(lines)


def instrument(stages: Stages) -> None:
    """Wrap the stages of a neural fit and of ``predict_origins`` in place.

    A function is wrapped where its caller looks it up: ``neural.context_windows`` is the
    name the neural base calls, so wrapping it there catches every call.
    """
    stages.wrap(BaseForecaster, "fit", "fit (whole)")
    stages.wrap(BaseForecaster, "_clean", "validate + convert frame")
    stages.wrap(BaseForecaster, "_fit_scalers", "fit scalers")
    stages.wrap(features, "calendar_features", "calendar features")
    stages.wrap(BaseForecaster, "_to_arrays", "series arrays (scale + calendar)")
    stages.wrap(neural.NeuralForecaster, "_build_module", "build network")
    stages.wrap(neural, "training_data", "window datasets")
    stages.wrap(training, "build_optimizer", "build optimizer")
    stages.wrap(training, "run_epoch", "train epoch")
    stages.wrap(training, "evaluate", "validation pass")
    stages.wrap(BaseForecaster, "predict_origins", "predict_origins (365 origins)")
    stages.wrap(BaseForecaster, "_series_arrays", "  series arrays (one series)")
    stages.wrap(neural, "context_windows", "  context windows")
    stages.wrap(neural, "rollout", "  roll-out")


def malloc_trim_after(owner, name: str) -> None:
    """Call glibc ``malloc_trim(0)`` after every call of ``owner.name`` (Linux/glibc only)."""
    trim = ctypes.CDLL("libc.so.6").malloc_trim
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        finally:
            trim(0)

    setattr(owner, name, wrapper)


def synthetic_load() -> pd.DataFrame:
    """Two years of hourly load-like data (daily and weekly cycles, noise), Europe/Berlin."""
    index = pd.date_range("2021-01-01", "2023-03-31 23:00", freq="h", tz=TZ)
    t = np.arange(len(index))
    rng = np.random.default_rng(1)
    y = 50_000 + 8_000 * np.sin(2 * np.pi * t / 24) + 5_000 * np.sin(2 * np.pi * t / 168)
    return pd.DataFrame({"actual": y + rng.normal(0, 500, len(t))}, index=index)


def day_ahead_origins(index: pd.DatetimeIndex, year: str) -> pd.DatetimeIndex:
    """The hour ending at 12:00 local on D-1, for every day D of ``year`` in ``index``."""
    plan = day_ahead_plan(index, f"{year}-01-01", f"{year}-12-31", timezone=TZ)
    return pd.DatetimeIndex(plan["origin"])  # the schedule of backtest(protocol="day-ahead")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("FORECAST_DATA_DIR"))
    parser.add_argument("--synthetic", action="store_true", help="small synthetic frame instead")
    parser.add_argument("--max-epochs", type=int, default=1)
    parser.add_argument("--save", help="write the forecasts to this .npy file")
    parser.add_argument("--compare", help="check the forecasts equal this .npy file bit for bit")
    parser.add_argument(
        "--micro-batch-size", type=int, default=None, help="the estimator's micro_batch_size"
    )
    parser.add_argument(
        "--malloc-trim",
        action="store_true",
        help="call glibc malloc_trim(0) after each training epoch and validation pass",
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    if args.synthetic:
        df, train_end, year = synthetic_load(), "2022", "2023"
    else:
        df = german_load(columns=["actual"], data_dir=args.data_dir)  # 2019-2023, hourly
        train_end, year = "2022", "2023"
    train = df.loc[:train_end]
    origins = day_ahead_origins(df.index, year)
    if args.malloc_trim:
        malloc_trim_after(training, "run_epoch")
        malloc_trim_after(training, "evaluate")
    stages = Stages()
    instrument(stages)
    base = rss_mb()
    params = PARAMS | {"max_epochs": args.max_epochs, "micro_batch_size": args.micro_batch_size}
    print(f"micro_batch_size={args.micro_batch_size}, malloc_trim={args.malloc_trim}")
    model = HopfieldForecaster(**params)
    reset_peak()
    start, cpu_start = time.perf_counter(), time.process_time()
    model.fit(train)
    fit_s, fit_peak = time.perf_counter() - start, peak_mb()
    fit_cpu_s = time.process_time() - cpu_start  # less sensitive to other jobs on the cores
    fit_peak = max(fit_peak, max(r[3] for r in stages.rows if r[0] == "fit (whole)"))
    after_fit = rss_mb()
    reset_peak()
    start = time.perf_counter()
    forecasts = model.predict_origins(df, origins, horizon=PARAMS["horizon"])
    predict_s = time.perf_counter() - start
    predict_peak = max(peak_mb(), max(r[3] for r in stages.rows if r[0].startswith("predict_o")))

    print(stages.table())
    print()
    print("| measure | MB |\n|---|---:|")
    print(f"| RSS after imports and data | {base:.0f} |")
    print(f"| peak during fit | {fit_peak:.0f} |")
    print(f"| RSS after fit | {after_fit:.0f} |")
    print(f"| peak during predict_origins ({len(origins)} origins) | {predict_peak:.0f} |")
    print()
    print(
        f"fit {fit_s:.1f} s ({model.n_epochs_} epochs, {fit_cpu_s:.1f} CPU s), "
        f"predict_origins {predict_s:.2f} s"
    )
    print(f"val_loss per epoch {model.history_.get('val_loss')!r}")
    values = forecasts["actual"].to_numpy()
    if args.save:
        np.save(args.save, values)
        print(f"forecasts saved to {args.save}")
    if args.compare:
        reference = np.load(args.compare)
        same = reference.shape == values.shape and np.array_equal(reference, values)
        diff = np.max(np.abs(reference - values)) if reference.shape == values.shape else np.nan
        print(f"bit-identical to {args.compare}: {same} (max abs diff {diff})")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
