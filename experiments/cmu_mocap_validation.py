"""CMU mocap: the validation protocol that chooses settings without reading the test files.

``forecast.evaluation.motion.load_motion_benchmark(split="validation")``: only the training
split is read. Of each action's training files the last one (highest file number) is held
out: basketball_5, basketball_signal_5, directing_traffic_4, jumping_5, running_5, soccer_5,
walking_5. From each held-out file 8 windows of 50 observed + 25 predicted frames are drawn
exactly as the test windows are (``RandomState(1234567890)`` re-seeded per action,
``randint(0, n - 75)``); the models are fitted on the 25 other files and scored with the
same ``score_windows`` (Euler-angle error at 80/160/320/400/1000 ms, mean over the 8 windows
of an action, then over the 7 actions), each window forecast from its held-out file up to
the window's last observed frame (``history="sequence"``). The modelled channels and the
fill of the others are those of the test benchmark (computed on the whole training split),
so a setting chosen here applies unchanged to the test benchmark's training dict.

Each run fits ``GRUForecaster(context_length=50, horizon=25, hidden_size=128,
residual=True, random_state=seed)`` plus the overrides given as JSON, and appends one line
to a JSON-lines log; ``--table`` prints the log as a markdown table (mean over seeds). With
``--blend JSON`` the model is ``forecast.EnsembleForecaster`` of two such GRUs, the second
with those overrides, their forecasts averaged with equal weights.

    python experiments/cmu_mocap_validation.py --name default
    python experiments/cmu_mocap_validation.py --name no-norm --params '{"normalization": null}'
    python experiments/cmu_mocap_validation.py --name two --params '{"dropout": 0.3}' \
        --blend '{"residual": false, "target_transform": "difference"}'
    python experiments/cmu_mocap_validation.py --name lstm --family lstm
    python experiments/cmu_mocap_validation.py --table
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from cmu_mocap import build_model, constant_velocity  # the script next to this one

from forecast.evaluation.motion import (
    HORIZONS,
    MotionBenchmark,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    score_windows,
    zero_velocity,
)
from forecast.models import MOTION_BEST, get_estimator

LOG = Path(__file__).parent / "results" / "cmu_mocap_validation.jsonl"
BASE = MOTION_BEST  # context 50, horizon 25, 128 units, residual=True


def build(params: dict, seed: int, blend: dict | None = None, family: str = "gru"):
    """The model of ``family`` with ``params`` (and seed), or its average with ``blend``."""
    return build_model(get_estimator(family), BASE, params, seed, blend)


def run(
    bench: MotionBenchmark, params: dict, seed: int, blend: dict | None = None, family: str = "gru"
) -> tuple[pd.DataFrame, dict]:
    """Fit the model of ``params`` on the reduced training dict and score it on validation."""
    fitted = build(params, seed, blend, family)
    start = time.perf_counter()
    fitted.fit(bench.train)
    fit_s = time.perf_counter() - start
    pred = forecast_windows(fitted, bench, history="sequence")
    result = score_windows(full_vectors(pred, bench), bench)
    model = fitted if blend is None else fitted.named_estimators_["first"]
    info = {
        "fit_s": round(fit_s, 1),
        "epochs": model.n_epochs_,
        "best_epoch": model.best_epoch_,
        "validation_series": model.validation_series_,
        "untailed_series": getattr(model, "untailed_series_", None),
        "normalize": model.normalize_,
        "skip": model.skip_,
    }
    return result, info


def stopping(run: dict) -> str:
    """What the early stopping of a logged fit watched."""
    info = run.get("info")
    if info is None:
        return ""
    if run["params"].get("validation_fraction") == 0.0:
        return "nothing (training loss)"
    if info.get("validation_series"):
        return "whole " + ", ".join(k.removeprefix("train/") for k in info["validation_series"])
    if "untailed_series" in info and not info["untailed_series"]:
        return "10 % tails"
    return "10 % tails; running_1-4 trained whole"  # the short takes (logged or not)


def table(log: Path) -> str:
    """Mean over the seeds of each configuration of the log, in order of first appearance."""
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    names = list(dict.fromkeys(r["name"] for r in rows))
    out = {}
    for name in names:
        runs = [r for r in rows if r["name"] == name]
        mean = np.mean([r["mean"] for r in runs], axis=0)
        cells = {c: float(v) for c, v in zip(HORIZONS, mean, strict=True)}
        seeds = ",".join(str(r["seed"]) for r in runs)
        shown = {k: v for k, v in runs[0]["params"].items() if k != "validation_series"}
        params = json.dumps(shown) if shown else "(defaults)"
        if "blend" in runs[0]:
            params = f"average of {params} and {json.dumps(runs[0]['blend'])}"
        fit = f"{np.mean([r['info']['fit_s'] for r in runs]):.0f}" if "info" in runs[0] else ""
        best = ",".join(str(r["info"]["best_epoch"]) for r in runs) if "info" in runs[0] else ""
        out[name] = {
            "settings": params,
            "early stopping on": stopping(runs[0]),
            "seeds": seeds,
            **cells,
            "best epochs": best,
            "fit s": fit,
        }
    frame = pd.DataFrame(out).T
    frame.index.name = "configuration"
    return frame.to_markdown(floatfmt=".3f")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--name", default=None, help="label of the configuration in the log")
    parser.add_argument("--params", default="{}", help="JSON overrides of the GRU parameters")
    parser.add_argument("--seeds", default="0", help="comma-separated weight seeds")
    parser.add_argument("--blend", default=None, help="JSON overrides of a second GRU to average")
    parser.add_argument("--family", default="gru", help="estimator family (default gru)")
    parser.add_argument("--baselines", action="store_true", help="log zero/constant velocity")
    parser.add_argument("--table", action="store_true", help="print the log as a table")
    parser.add_argument("--log", default=str(LOG))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    log = Path(args.log)
    if args.table:
        print(table(log))
        return
    torch.set_num_threads(args.threads)
    bench = load_motion_benchmark(args.data_dir, split="validation")
    print(
        f"validation: {len(bench.train)} training files, held out "
        f"{', '.join(f'{a} ({len(f)} frames)' for a, f in bench.test.items())}",
        flush=True,
    )
    entries = []
    if args.baselines:
        for name, pred in [
            ("zero velocity", zero_velocity(bench)),
            ("constant velocity", full_vectors(constant_velocity(bench), bench)),
        ]:
            result = score_windows(pred, bench)
            entries.append({"name": name, "params": {}, "seed": 0, "result": result, "info": None})
    if args.name:
        params = json.loads(args.params)
        blend = None if args.blend is None else json.loads(args.blend)
        for seed in [int(s) for s in args.seeds.split(",")]:
            result, info = run(bench, params, seed, blend, args.family)
            entry = {"name": args.name, "params": params, "seed": seed, "result": result}
            if args.family != "gru":
                entry["family"] = args.family
            if blend is not None:
                entry["blend"] = blend
            entries.append({**entry, "info": info})
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        for e in entries:
            result = e.pop("result")
            e["mean"] = [round(float(v), 4) for v in result.mean()]
            e["per_action"] = {a: [round(float(v), 4) for v in r] for a, r in result.iterrows()}
            if e["info"] is None:
                e.pop("info")
            handle.write(json.dumps(e) + "\n")
            print(f"{e['name']} (seed {e['seed']}): {e['mean']} {e.get('info', '')}", flush=True)


if __name__ == "__main__":
    main()
