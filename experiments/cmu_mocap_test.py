"""CMU mocap: score a configuration chosen on validation once on the test windows.

Fits ``<Family>Forecaster(context_length=50, horizon=25, hidden_size=128, residual=True,
random_state=seed)`` plus the JSON overrides of ``--params`` on the 32 training sequences (the
64 modelled channels of ``forecast.evaluation.motion``), or with ``--blend`` the equal-weight
``forecast.EnsembleForecaster`` of that model and a second one of the same family with the
``--blend`` overrides (as ``experiments/cmu_mocap_validation.py --blend`` chooses it). Each test
window is forecast with ``predict(horizon=25, history=window)`` (the 48 windows in one call)
and scored with ``forecast.evaluation.motion.score_windows``. One JSON line per
(configuration, family, seed) goes to ``results/cmu_mocap_test.jsonl``; ``--table`` prints
the mean +- std over seeds per family and the per-action table of the best (lowest mean
ratio to Res-sup. among the configurations below it at every horizon). Settings are chosen
on validation only; run this once per reported configuration.

    python experiments/cmu_mocap_test.py --name blend --families gru lstm \\
        --params '{"n_ensemble": 3, "dropout": 0.3}' \\
        --blend '{"residual": false, "target_transform": "difference"}'
    python experiments/cmu_mocap_test.py --table     # print; --write: into cmu_mocap.md

The configurations of ``results/cmu_mocap_test.jsonl`` were measured before
``horizon_weight`` existed; to refit one as measured, add ``"horizon_weight": null`` to the
residual model's ``--params``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from cmu_mocap import BEST_BEGIN, BEST_END, OUT, build_model, write_between  # the scripts
from cmu_mocap_defaults import RES_SUP  # next to this one: results file, reference numbers
from cmu_mocap_validation import LOG as VALIDATION_LOG  # and the validation log
from cmu_mocap_validation import table as validation_table

from forecast.evaluation.motion import (
    HORIZONS,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    score_windows,
    zero_velocity,
)
from forecast.models import MOTION_BEST, get_estimator

LOG = Path(__file__).parent / "results" / "cmu_mocap_test.jsonl"
BASE = MOTION_BEST  # context 50, horizon 25, 128 units, residual=True
FAMILIES = ("elman", "lstm", "gru", "orthogonal", "transformer", "hopfield")


def build(family: str, params: dict, seed: int, blend: dict | None):
    """The model of ``family`` with ``params``, or its average with the ``blend`` model."""
    return build_model(get_estimator(family), BASE, params, seed, blend)


def table(log: Path) -> str:
    """Mean +- std over seeds per (configuration, family), then the best one per action."""
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["name"], r["family"]), []).append(r)
    out, means = {}, {}
    for (name, family), runs in groups.items():
        values = np.array([r["mean"] for r in runs])  # (seeds, 5)
        means[(name, family)] = values.mean(axis=0)
        std = values.std(axis=0, ddof=1) if len(runs) > 1 else np.zeros(len(HORIZONS))
        cells = [f"{m:.3f} +- {s:.3f}" for m, s in zip(values.mean(axis=0), std, strict=True)]
        below = values.mean(axis=0) < np.array(RES_SUP)
        out[f"{name} / {family}"] = {
            "seeds": ",".join(str(r["seed"]) for r in runs),
            **dict(zip(HORIZONS, cells, strict=True)),
            "below Res-sup.": "all" if below.all() else f"{below.sum()} of 5",
            "fit s": f"{np.mean([r['fit_s'] for r in runs]):.0f}",
        }
    frame = pd.DataFrame(out).T
    frame.index.name = "configuration / family"
    # the best: lowest mean ratio to Res-sup. among those below it at every horizon (if any)
    below_all = [k for k in means if (means[k] < np.array(RES_SUP)).all()] or list(means)
    best = min(below_all, key=lambda k: float(np.mean(means[k] / np.array(RES_SUP))))
    runs = groups[best]
    actions = {
        a: np.mean([r["per_action"][a] for r in runs], axis=0) for a in runs[0]["per_action"]
    }
    per_action = pd.DataFrame(actions, index=list(HORIZONS)).T
    per_action.index.name = "action"
    return (
        f"{frame.to_markdown()}\n\nPer action, {best[0]} / {best[1]} (mean over seeds "
        f"{','.join(str(r['seed']) for r in runs)}):\n\n"
        f"{per_action.to_markdown(floatfmt='.3f')}\n"
    )


def section(log: Path) -> str:
    """The results section: the validation runs that chose the configuration, then test."""
    rows = validation_table(VALIDATION_LOG).splitlines()
    keep = ("n_ensemble=3", "n_ensemble=5", "difference targets", "average:", "defaults before")
    keep += tuple(f"{family} defaults" for family in FAMILIES) + ("defaults: dropout and",)
    chosen = rows[:2] + [r for r in rows[2:] if any(k in r.split("|")[1] for k in keep)]
    return "\n\n".join(
        [
            BEST_BEGIN,
            "## Every family: the averaged networks and the plain constructor, chosen on "
            "validation, measured once on test",
            "Validation (`experiments/cmu_mocap_validation.py`; training takes only, the last "
            "take of each action held out; mean over 7 actions; the GRU (or the family named) "
            "of 128 units, context 50, horizon 25, `residual=True` unless a setting says "
            "otherwise). The averaged configurations were chosen and measured before "
            '`horizon_weight` and `dropout="auto"` existed (their residual networks had '
            "equal lead weights); the plain constructors use both:",
            "\n".join(chosen),
            "Test (`experiments/cmu_mocap_test.py`: each family with the configuration chosen "
            "above, fitted on the 32 training takes, the 48 test windows forecast with "
            "`predict(horizon=25, history=window)`; mean +- sample std over seeds; "
            f"Res-sup. {RES_SUP}; one thread per fit, two fits at a time on 2 cores):",
            table(log),
            BEST_END,
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--name", default=None, help="label of the configuration")
    parser.add_argument("--families", nargs="+", default=["gru"], choices=FAMILIES)
    parser.add_argument("--params", default="{}", help="JSON overrides of the first model")
    parser.add_argument("--blend", default=None, help="JSON overrides of a second model")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--table", action="store_true", help="print the log as tables")
    parser.add_argument(
        "--write",
        nargs="?",
        const=str(OUT),
        default=None,
        help="write the tables as a section of the results file (default cmu_mocap.md)",
    )
    parser.add_argument("--log", default=str(LOG))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    log = Path(args.log)
    if args.table or args.write:
        print(table(log))
        if args.write:
            write_between(section(log), Path(args.write), BEST_BEGIN, BEST_END)
        return
    if not args.name:
        parser.error("--name is required to fit (or give --table)")
    torch.set_num_threads(args.threads)
    bench = load_motion_benchmark(args.data_dir)
    zero = score_windows(zero_velocity(bench), bench).mean()
    print("zero velocity", zero.round(3).tolist(), flush=True)
    params = json.loads(args.params)
    blend = None if args.blend is None else json.loads(args.blend)
    for family in args.families:
        for seed in [int(s) for s in args.seeds.split(",")]:
            model = build(family, params, seed, blend)
            start = time.perf_counter()
            model.fit(bench.train)
            fit_s = time.perf_counter() - start
            pred = forecast_windows(model, bench, history="window")
            result = score_windows(full_vectors(pred, bench), bench)
            entry = {
                "name": args.name,
                "family": family,
                "params": params,
                "blend": blend,
                "seed": seed,
                "fit_s": round(fit_s, 1),
                "mean": [round(float(v), 4) for v in result.mean()],
                "per_action": {a: [round(float(v), 4) for v in r] for a, r in result.iterrows()},
            }
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a") as handle:
                handle.write(json.dumps(entry) + "\n")
            print(f"{args.name} / {family} seed {seed}: {entry['mean']} fit {fit_s:.0f} s")


if __name__ == "__main__":
    main()
