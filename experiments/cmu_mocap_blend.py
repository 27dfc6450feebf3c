"""Weighted means of motion networks on the CMU mocap benchmark: siMLPe's and the six families'.

siMLPe's network (``DCTMixerForecaster(**SIMLPE)`` with the settings chosen on validation:
64 channels, batches of 64, 30 epochs) has the lowest errors of the toolkit up to 320 ms and
trails LTD's at 1000 ms, where its seeds disagree most; the six families (``MOTION_BEST``)
make other errors. ``fit`` fits members once per seed and keeps their forecasts of the
benchmark windows (the 8 seeded windows of each action and every window) in ``--store``;
``choose`` ranks a grid of weights on the validation split (the mean over the horizons of
the angle error on every window relative to the first member's); ``score`` scores given
weights. A weighted mean of stored forecasts is the forecast of
``EnsembleForecaster([...members...], weights=[...])``, which averages its members' point
forecasts the same way. A member ``name@K`` is the mean of ``K`` networks of seeds ``seed
.. seed + K - 1`` (fit those seeds first).

    python experiments/cmu_mocap_blend.py fit simlpe gru transformer --split validation
    python experiments/cmu_mocap_blend.py fit simlpe --split validation --seeds 1
    python experiments/cmu_mocap_blend.py choose --split validation \
        --members simlpe@2 gru transformer --least 0.5
    python experiments/cmu_mocap_blend.py fit simlpe gru transformer --split test --seeds 0 1 2
    python experiments/cmu_mocap_blend.py fit simlpe --split test --seeds 3
    python experiments/cmu_mocap_blend.py score --split test --seeds 0 1 2 \
        --members simlpe@2 gru transformer --weights 0.8,0.1,0.1

``--data-dir`` names the folder that holds ``cmu_mocap_expmap/``; ``--store`` the folder of
the kept forecasts (default ``runs/cmu_mocap_blend``, relative to where it runs). ``fit``
also appends fit seconds, peak memory and each member's own errors to
``results/cmu_mocap_blend_<split>.jsonl``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np
import torch
from cmu_mocap_sota import FAMILIES  # the script next to this one

from forecast.combine import SIMLPE_ANGLES
from forecast.evaluation.memory import PeakRSS
from forecast.evaluation.motion import (
    HORIZONS,
    MotionBenchmark,
    forecast_windows,
    load_motion_benchmark,
    score_windows,
)
from forecast.evaluation.motion3d import score_windows_3d
from forecast.models import MOTION_BEST, DCTMixerForecaster, get_estimator

RESULTS = Path(__file__).parent / "results"
# siMLPe's settings chosen on the validation split (docs/results/motion.md, "siMLPe in the
# toolkit"); the chosen average is forecast.combine.motion_angles
MEMBERS = {"simlpe": lambda seed: DCTMixerForecaster(**SIMLPE_ANGLES, random_state=seed)}
for _family in FAMILIES:  # the six families with the motion configuration
    MEMBERS[_family] = lambda seed, family=_family: get_estimator(family)(
        **MOTION_BEST, random_state=seed
    )
SETS = ("8", "all")  # the protocol's 8 seeded windows per action; every window


def benches(data_dir: str | None, split: str) -> dict[str, MotionBenchmark]:
    """Both window sets of ``split``."""
    return {label: load_motion_benchmark(data_dir, split, 8 if label == "8" else "all")
            for label in SETS}  # fmt: skip


def errors(pred: dict[str, dict[str, np.ndarray]], bench: dict[str, MotionBenchmark]) -> dict:
    """Mean over actions of the angle (rad) and 3-D (mm) errors at each horizon, per window set."""
    out = {}
    for label in SETS:
        out[f"rad_{label}"] = score_windows(pred[label], bench[label]).mean().round(4).tolist()
        out[f"mm_{label}"] = score_windows_3d(pred[label], bench[label]).mean().round(2).tolist()
    return out


def fit(members: list[str], split: str, seeds: list[int], data_dir: str | None, store: Path):
    """Fit each member per seed on the training takes; keep its forecasts and errors."""
    bench = benches(data_dir, split)
    store.mkdir(parents=True, exist_ok=True)
    for name in members:
        for seed in seeds:
            model = MEMBERS[name](seed)
            peak = PeakRSS()
            peak.start()
            start = time.perf_counter()
            model.fit(bench["8"].train)
            fit_s = round(time.perf_counter() - start, 1)
            peak_mb = round(peak.peak_mb(), 1)
            pred = {label: forecast_windows(model, bench[label], "window" if label == "8"
                                            else "sequence") for label in SETS}  # fmt: skip
            arrays = {f"{label}/{a}": v for label, p in pred.items() for a, v in p.items()}
            np.savez_compressed(store / f"{split}_{name}_{seed}.npz", **arrays)
            entry = {"member": name, "seed": seed, "fit_s": fit_s, "peak_mb": peak_mb}
            entry |= errors(pred, bench)
            with (RESULTS / f"cmu_mocap_blend_{split}.jsonl").open("a") as handle:
                handle.write(json.dumps(entry) + "\n")
            print(json.dumps(entry), flush=True)


def stored(store: Path, split: str, member: str, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """The kept forecasts of one member and seed: window set -> action -> array.

    ``member`` is a name of :data:`MEMBERS`, or ``name@K`` for the mean of the forecasts of
    that network with seeds ``seed .. seed + K - 1`` (``simlpe@2``: two siMLPe members of
    equal weight, each rolling out its own forecast).
    """
    name, _, count = member.partition("@")
    out: dict[str, dict[str, np.ndarray]] = {label: {} for label in SETS}
    copies = int(count or 1)
    for k in range(copies):
        with np.load(store / f"{split}_{name}_{seed + k}.npz") as data:
            for key in data.files:
                label, action = key.split("/", 1)
                out[label][action] = out[label].get(action, 0) + data[key] / copies
    return out


def score(
    members: list[str],
    weights: list[list[float]],
    split: str,
    seeds: list[int],
    data_dir: str | None,
    store: Path,
) -> None:
    """Print the errors of the weighted mean of the members' forecasts, mean over seeds."""
    bench = benches(data_dir, split)
    head = " | ".join(HORIZONS)
    print(f"| weights of {', '.join(members)} | seeds | rad, 8 windows {head} | "
          "rad, every window | mm, every window |")  # fmt: skip
    print("|---" * 5 + "|")
    for w in weights:  # checked before anything is read
        if len(w) != len(members) or min(w) < 0 or not np.isclose(sum(w), 1.0):
            raise ValueError(f"weights {w}: one non-negative weight per member, summing to 1")
    kept = {seed: [stored(store, split, name, seed) for name in members] for seed in seeds}
    for w in weights:
        rows = []
        for preds in kept.values():
            mix = {label: {k: sum(wi * p[label][k] for wi, p in zip(w, preds, strict=True))
                           for k in preds[0][label]} for label in SETS}  # fmt: skip
            rows.append(errors(mix, bench))
        cells = []
        for key, digits in (("rad_8", 3), ("rad_all", 3), ("mm_all", 1)):
            mean = np.mean([r[key] for r in rows], axis=0)
            cells.append(" / ".join(f"{v:.{digits}f}" for v in mean))
        label = ", ".join(f"{v:g}" for v in w)
        print(f"| {label} | {','.join(map(str, seeds))} | " + " | ".join(cells) + " |")


def simplex(n: int, step: float) -> list[list[float]]:
    """Every weight vector of ``n`` members on a grid of ``step`` (non-negative, sum 1)."""
    k = round(1 / step)
    out = []
    for cut in itertools.combinations(range(k + n - 1), n - 1):  # stars and bars
        bounds = (-1, *cut, k + n - 1)
        out.append([(bounds[i + 1] - bounds[i] - 1) / k for i in range(n)])
    return out


def choose(
    members: list[str],
    step: float,
    split: str,
    seed: int,
    data_dir: str | None,
    store: Path,
    least: float = 0.0,
) -> None:
    """Rank every weight vector of the grid by its mean angle error relative to the first member.

    The score is the mean over the five horizons of (angle error on every window) / (that of
    the first member alone), as configurations are ranked on the validation split. Vectors
    giving the first member less than ``least`` are skipped.
    """
    bench = load_motion_benchmark(data_dir, split, "all")
    preds = [stored(store, split, name, seed)["all"] for name in members]

    def rad(pred: dict[str, np.ndarray]) -> np.ndarray:
        return score_windows(pred, bench).mean().to_numpy()

    reference = rad(preds[0])
    ranked = []
    for w in simplex(len(members), step):
        if w[0] < least - 1e-9:
            continue
        mix = {k: sum(wi * p[k] for wi, p in zip(w, preds, strict=True)) for k in preds[0]}
        errors_w = rad(mix)
        ranked.append((float(np.mean(errors_w / reference)), w, errors_w))
    ranked.sort(key=lambda r: r[0])
    print(f"| weights of {', '.join(members)} | score | rad, every window {' | '.join(HORIZONS)} |")
    print("|---|---|---|")
    for value, w, errors_w in ranked[:10]:
        cells = " / ".join(f"{v:.3f}" for v in errors_w)
        print(f"| {', '.join(f'{v:g}' for v in w)} | {value:.4f} | {cells} |")


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("fit", "score", "choose"))
    parser.add_argument("members", nargs="*", help=f"for fit: some of {sorted(MEMBERS)}")
    parser.add_argument("--split", choices=("validation", "test"), default="validation")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--members", dest="mixed", nargs="+", default=["simlpe", "gru"])
    parser.add_argument(
        "--weights",
        nargs="+",
        default=["0.5,0.5"],
        help="weight vectors, one weight per member each, e.g. 0.7,0.3 0.5,0.5",
    )
    parser.add_argument("--step", type=float, default=0.1, help="grid step of choose")
    parser.add_argument(
        "--least", type=float, default=0.0, help="choose: least weight of the first member"
    )
    parser.add_argument("--data-dir", default=None, help="folder holding cmu_mocap_expmap/")
    parser.add_argument("--store", type=Path, default=Path("runs/cmu_mocap_blend"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.command == "fit":
        fit(args.members, args.split, args.seeds, args.data_dir, args.store)
    elif args.command == "choose":
        choose(
            args.mixed, args.step, args.split, args.seeds[0], args.data_dir, args.store, args.least
        )
    else:
        weights = [[float(v) for v in w.split(",")] for w in args.weights]
        score(args.mixed, weights, args.split, args.seeds, args.data_dir, args.store)


if __name__ == "__main__":
    main()
