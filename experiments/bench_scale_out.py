"""Throughput of local (per-series) fits and of batch forecasts: sequential vs Ray 1/2 CPUs.

The series are built from real load data: the 4 German control areas and the DE-LU zone of
SMARD (grid load, 2023) and the 7 columns of ETTh1, each cut to a random 4-week window,
scaled by a random factor in [0.5, 2] and shifted by up to +-20 % of its mean. Every engine
fits the same series with the same estimator; the script checks that the forecasts agree.

    FORECAST_DATA_DIR=../shared/data python experiments/bench_scale_out.py --series 1000
    python experiments/bench_scale_out.py --no-fits --output results/batch.md   # batch only

Writes experiments/results/bench_scale_out.md (and prints it): the median of ``--repeats``
rounds per cell, each round running every engine in turn. Timings include task
submission and result transfer, not the start of Ray and its workers (reported separately).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from forecast import GRUForecaster, LinearLagForecaster, SeasonalNaive
from forecast.batch.partitions import run_partitions
from forecast.datasets import load
from forecast.parallel import fit_many

torch.set_num_threads(1)

WEEKS = 4
SMARD = ["50Hertz", "Amprion", "TenneT", "TransnetBW", "DE_LU"]
MODELS = {
    "seasonal-naive": lambda: SeasonalNaive(season="1D"),
    "linear-lag": lambda: LinearLagForecaster(lags=(1, 2, "1D"), horizon=24),
    "gru (tiny, 1 epoch)": lambda: GRUForecaster(
        context_length=24,
        horizon=24,
        hidden_size=4,
        max_epochs=1,
        batch_size=64,
        device="cpu",
        random_state=0,
    ),
}


def base_columns() -> dict[str, np.ndarray]:
    """Hourly real series: SMARD grid load of 2023 per area, ETTh1's 7 columns."""
    smard = load("smard-de").loc["2023-01-01":"2023-12-31"]
    out = {
        f"smard-{area}": smard[f"{area}_grid_load_MWh"].interpolate().to_numpy() for area in SMARD
    }
    ett = load("ett-h1")
    out.update({f"etth1-{c}": ett[c].to_numpy() for c in ett.columns})
    return out


def synthetic(n: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """``n`` series of 4 weeks: a random window of a real column, scaled and shifted."""
    rng = np.random.default_rng(seed)
    columns = base_columns()
    names = list(columns)
    length = WEEKS * 7 * 24
    index = pd.date_range("2023-01-02", periods=length, freq="h")
    out = {}
    for k in range(n):
        name = names[k % len(names)]
        values = columns[name]
        start = int(rng.integers(0, len(values) - length))
        window = values[start : start + length]
        scaled = window * rng.uniform(0.5, 2.0) + rng.uniform(-0.2, 0.2) * abs(window.mean())
        out[f"{name}-{k:05d}"] = pd.DataFrame({"load": scaled}, index=index)
    return out


def worker_peaks(ray) -> list[float]:
    """Peak RSS (MiB) of every Ray worker process that ran tasks."""

    @ray.remote(num_cpus=1)
    def peak() -> tuple[int, float]:
        time.sleep(0.2)
        return os.getpid(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    cpus = int(ray.cluster_resources()["CPU"])
    return sorted(dict(ray.get([peak.remote() for _ in range(4 * cpus)])).values())


class PeakSampler:
    """Peak RSS (``VmHWM``) of every busy Ray worker process, sampled while a job runs.

    Ray Data's actors (which hold the model during ``forecast batch --engine ray``) are
    ended when the job finishes, so their peaks are read from ``/proc`` every
    ``interval`` seconds while it runs. Idle pre-started workers are left out.
    """

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.peaks: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            for proc in Path("/proc").iterdir():
                if proc.name.isdigit():
                    self._read(proc)
            self._stop.wait(self.interval)

    def _read(self, proc: Path) -> None:
        try:
            title = (proc / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            if not title.startswith("ray::") or title.startswith("ray::IDLE"):
                return
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024
                    self.peaks[int(proc.name)] = max(peak, self.peaks.get(int(proc.name), 0.0))
        except (OSError, ValueError):
            return  # the process ended while being read

    def top(self, n: int) -> list[float]:
        """The ``n`` largest peaks (MiB), ascending."""
        return sorted(sorted(self.peaks.values())[-n:])


def start_ray(cpus: int) -> float:
    """Start a local Ray and import forecast in each worker; return the seconds it took."""
    import ray  # the extra forecast-toolkit[ray]

    t0 = time.perf_counter()
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)

    @ray.remote(num_cpus=1)
    def warm() -> int:
        import forecast  # noqa: F401  (in the worker process: its start-up is what is warmed)

        time.sleep(0.5)
        return os.getpid()

    ray.get([warm.remote() for _ in range(cpus)])
    return time.perf_counter() - t0


def forecasts(models: dict) -> np.ndarray:
    return np.stack([m.predict(horizon=24).to_numpy() for m in models.values()])


def bench_fits(series: dict, engines: list[str], models: list[str]) -> list[dict]:
    import ray  # the extra forecast-toolkit[ray]

    rows = []
    for model_name, make in MODELS.items():
        if model_name.split()[0] not in models:
            continue
        reference = None
        for engine in engines:
            kwargs, t_start = {}, 0.0
            if engine != "sequential":
                t_start = start_ray(int(engine[-1]))
                kwargs = {"engine": "ray"}
            t0 = time.perf_counter()
            fitted = fit_many(make(), series, **kwargs)
            seconds = time.perf_counter() - t0
            peaks = worker_peaks(ray) if engine != "sequential" else []
            if engine != "sequential":
                ray.shutdown()
            result = forecasts(fitted)
            if reference is None:
                reference = result
            rows.append(
                {
                    "model": model_name,
                    "engine": engine,
                    "series": len(series),
                    "seconds": seconds,
                    "series/s": len(series) / seconds,
                    "ray start s": t_start,
                    "worker peak MiB": ", ".join(f"{p:.0f}" for p in peaks) or "-",
                    "same forecasts": bool(np.array_equal(result, reference)),
                }
            )
            print(rows[-1], flush=True)
    return rows


def bench_batch(series: dict, engines: list[str], folder: Path) -> list[dict]:
    """``forecast batch --input DIR`` over one Parquet file per series."""
    import ray  # the extra forecast-toolkit[ray]

    inputs = folder / "inputs"
    inputs.mkdir()
    for key, frame in series.items():
        frame.rename_axis("timestamp").to_parquet(inputs / f"{key}.parquet")
    model = folder / "model"
    LinearLagForecaster(lags=(1, 2, "1D"), horizon=24).fit(next(iter(series.values()))).save(model)
    rows, reference = [], None
    for engine in engines:
        out = folder / f"out-{engine}"
        kwargs, t_start = {}, 0.0
        if engine != "sequential":
            t_start = start_ray(int(engine[-1]))
            kwargs = {"engine": "ray"}
        with PeakSampler() as sampler:
            t0 = time.perf_counter()
            result = run_partitions(model, inputs, out, 24, track=False, **kwargs)
            seconds = time.perf_counter() - t0
        peaks = sampler.top(int(engine[-1])) if engine != "sequential" else []
        if engine != "sequential":
            ray.shutdown()
        digests = [r.sha256 for r in result.written]
        reference = reference or digests
        rows.append(
            {
                "model": "batch: linear-lag, 24 h",
                "engine": engine,
                "series": len(result.written),
                "seconds": seconds,
                "series/s": len(result.written) / seconds,
                "ray start s": t_start,
                "worker peak MiB": ", ".join(f"{p:.0f}" for p in peaks) or "-",
                "same forecasts": digests == reference,
            }
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=1000)
    parser.add_argument("--engines", nargs="+", default=["sequential", "ray-1", "ray-2"])
    parser.add_argument("--models", nargs="+", default=["seasonal-naive", "linear-lag", "gru"])
    parser.add_argument("--no-batch", action="store_true", help="fits only")
    parser.add_argument("--no-fits", action="store_true", help="batch forecasts only")
    parser.add_argument("--output", default="experiments/results/bench_scale_out.md")
    parser.add_argument("--repeats", type=int, default=3, help="runs per cell (median shown)")
    args = parser.parse_args()
    series = synthetic(args.series)
    rows = []
    for _ in range(args.repeats):  # whole rounds, so every engine sees the same machine drift
        rows += [] if args.no_fits else bench_fits(series, args.engines, args.models)
        if not args.no_batch:
            folder = Path(tempfile.mkdtemp(prefix="bench-scale-out-"))
            try:
                rows += bench_batch(series, args.engines, folder)
            finally:
                shutil.rmtree(folder)
    table = summarise(pd.DataFrame(rows))
    text = table.to_markdown(index=False, floatfmt=".2f")
    print(text)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(
        f"# Scale-out throughput ({args.series} series, {os.cpu_count()} cores, median of "
        f"{args.repeats} runs)\n\n{text}\n"
    )


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, engine): median seconds and rate over the runs, ratio of medians.

    ``series/s runs`` lists every run's rate; ``worker peak MiB`` is the largest peak seen;
    ``same forecasts`` holds only if every run matched the sequential forecasts.
    """
    keys = ["model", "engine"]
    grouped = runs.groupby(keys, sort=False)
    table = grouped.agg(
        series=("series", "first"),
        seconds=("seconds", "median"),
        ray_start=("ray start s", "median"),
        same=("same forecasts", "all"),
    ).reset_index()
    table["series/s"] = table["series"] / table["seconds"]
    table["series/s runs"] = (
        grouped["series/s"].agg(lambda r: ", ".join(f"{v:.0f}" for v in r)).to_numpy()
    )
    table["worker peak MiB"] = grouped["worker peak MiB"].agg(_largest_peaks).to_numpy()
    base = table[table["engine"] == "sequential"].set_index("model")["series/s"]
    table["vs sequential"] = table["series/s"] / table["model"].map(base)
    table = table.rename(columns={"ray_start": "ray start s", "same": "same forecasts"})
    return table[
        ["model", "engine", "series", "seconds", "series/s", "series/s runs", "vs sequential"]
        + ["ray start s", "worker peak MiB", "same forecasts"]
    ]


def _largest_peaks(cells: pd.Series) -> str:
    """The run whose largest worker peak is highest (cells like ``"433, 440"`` or ``"-"``)."""
    runs = [c for c in cells if c != "-"]
    if not runs:
        return "-"
    return max(runs, key=lambda c: max(float(v) for v in c.split(", ")))


if __name__ == "__main__":
    main()
