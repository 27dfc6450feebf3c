"""LTD reproduced in the toolkit: ``DCTMixerForecaster(**LTD)`` on the CMU mocap benchmark.

A thin script over ``forecast.evaluation.motion``. It fits LTD's recipe
(``forecast.models.presets.LTD``, read from the authors' code: 10 observed frames padded to
35, all 35 DCT coefficients, 12 graph-convolution blocks of width 256, absolute error over
all 35 frames, every window, Adam 5e-4 decayed 0.96 every two epochs, batches of 16, 50
epochs, the checkpoint of the lowest training loss) through the toolkit's training loop, and
logs a learning curve while it trains: every ``--every`` epochs the network as it stands
forecasts the benchmark windows (the protocol's 8 seeded windows and every window of each
take), and one JSON line with the epoch, the windows seen so far, the training loss, the
learning rate, the angle errors (radians) and the 3-D errors (mm) at 80/160/320/400/1000 ms
goes to ``results/cmu_mocap_ltd_<split>_curve.jsonl`` (flushed at once, so a long run can be
watched). At the end the kept weights are scored per action on both window sets, with fit
time and peak memory, into ``results/cmu_mocap_ltd_<split>.jsonl``. Angles are scored twice:
``rad`` with the reference code's filter of near-constant dimensions (the toolkit's
protocol) and ``radltd`` without it, as LTD's own test code computes them.

``--checkpoint-dir`` keeps a checkpoint after every epoch (one folder per seed), so a run cut
short resumes where it stopped: run the same command again. With ``'{"max_epochs": K}'`` and
a checkpoint of ``K`` epochs it trains no further and scores the weights kept so far (the
epoch of the lowest training loss).

The curve on ``--split validation`` (the last training take of each action held out) is the
one to read for choosing a budget; ``--split test`` is the reproduction itself, run once.
``--params`` overrides preset entries (JSON), e.g. ``'{"max_epochs": 10}'``; each curve line
carries them, so the runs of one log can be told apart. ``--preset simlpe`` fits siMLPe's
recipe instead (``forecast.models.presets.SIMLPE`` with 64 channels in its blocks) into
``results/cmu_mocap_simlpe_<split>*.jsonl``.

    python experiments/cmu_mocap_ltd.py --split validation --seeds 0 --every 1
    python experiments/cmu_mocap_ltd.py --split test --seeds 0 --every 2 \
        --data-dir ../shared/data --checkpoint-dir checkpoints/ltd
    python experiments/cmu_mocap_ltd.py --table
    python experiments/cmu_mocap_ltd.py --preset simlpe --split validation --every 5 \
        --params '{"max_epochs": 30, "batch_size": 64}'
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from forecast.evaluation.memory import PeakRSS
from forecast.evaluation.motion import (
    HORIZONS,
    forecast_windows,
    load_motion_benchmark,
    score_windows,
)
from forecast.evaluation.motion3d import score_windows_3d
from forecast.models import LTD, SIMLPE, DCTMixerForecaster
from forecast.training.callbacks import Callback

RESULTS = Path(__file__).parent / "results"
# siMLPe carries as many features per channel as there are target channels (64 on CMU).
PRESETS = {"ltd": LTD, "simlpe": {**SIMLPE, "hidden_size": 64}}
# LTD's published figures (80/160/320/400/1000 ms): its README's 8-action angle means
# (wei-mao-2019/LearnTrajDep @ 4753072) and its paper's per-action 3-D table, 8 windows per
# action (as copied in tileb1/LearnTrajDep cmu.txt @ fbd7460), for the 6 actions we have.
LTD_RAD_8_ACTIONS = (0.25, 0.39, 0.68, 0.79, 1.33)
LTD_MM = {
    "basketball": (14.0, 25.4, 49.6, 61.4, 106.1),
    "jumping": (16.9, 34.4, 76.3, 96.8, 164.6),
    "running": (25.5, 36.7, 39.3, 39.9, 58.2),
    "soccer": (11.3, 21.5, 44.2, 55.8, 117.5),
    "walking": (7.7, 11.8, 19.4, 23.1, 40.2),
    "washwindow": (5.9, 11.9, 30.3, 40.0, 79.3),
}


def scores(model: Any, benches: dict[str, Any]) -> dict[str, dict[str, list[float]]]:
    """Angle and 3-D errors per action of ``model`` on each window set ("8", "all")."""
    out = {}
    for label, bench in benches.items():
        pred = forecast_windows(model, bench, "window" if label == "8" else "sequence")
        for unit, table, digits in (
            ("rad", score_windows(pred, bench), 4),
            ("radltd", score_windows(pred, bench, std_threshold=None), 4),
            ("mm", score_windows_3d(pred, bench), 2),
        ):
            rows = table.round(digits).iterrows()
            out[f"{unit}_{label}"] = {a: [float(v) for v in r] for a, r in rows}
    return out


def means(entry: dict[str, Any]) -> dict[str, list[float]]:
    """Mean over actions of every score of a log entry."""
    return {
        key: np.mean(list(value.values()), axis=0).round(4).tolist()
        for key, value in entry.items()
        if key.startswith(("rad_", "radltd_", "mm_"))
    }


class Curve(Callback):
    """Callback: score the network as it stands every ``every`` epochs, one JSON line each."""

    def __init__(
        self, model: Any, benches: dict, every: int, log: Path, seed: int, per_epoch: int
    ) -> None:
        self.model, self.benches, self.every, self.log = model, benches, every, log
        self.seed, self.per_epoch = seed, per_epoch
        self.params: dict = {}  # the preset's overrides, to tell curves apart in one log
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        if (epoch + 1) % self.every and epoch + 1 != self.model.max_epochs:
            return
        net = self.model.module_
        was_training = net.training
        seen = (epoch + 1) * self.per_epoch
        entry = {"seed": self.seed, "params": self.params, "epoch": epoch + 1}
        entry.update({"windows_seen": seen, **logs})
        entry["seconds"] = round(time.perf_counter() - self.start, 1)
        entry.update(means(scores(self.model, self.benches)))
        net.train(was_training)
        with self.log.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        print(json.dumps({k: entry[k] for k in ("epoch", "seconds", "train_loss", "rad_8")}))


def run(
    split: str,
    seeds: list[int],
    params: dict,
    every: int,
    data_dir: str | None,
    preset: str = "ltd",
) -> None:
    benches = {"8": load_motion_benchmark(data_dir, split, 8)}
    benches["all"] = load_motion_benchmark(data_dir, split, "all")
    train = benches["8"].train
    folder = params.pop("checkpoint_dir", None)  # not a setting: kept out of the log
    curve_log = RESULTS / f"cmu_mocap_{preset}_{split}_curve.jsonl"
    for seed in seeds:
        model = DCTMixerForecaster(**{**PRESETS[preset], **params, "random_state": seed})
        if folder:
            model.set_params(checkpoint_dir=f"{folder}/seed{seed}")
        span = model.context_length + model.horizon  # every window of every training take
        per_epoch = sum(len(f) - span + 1 for f in train.values())
        per_epoch *= 2 if model.time_reversal else 1  # the reversed copies
        curve = Curve(model, benches, every, curve_log, seed, per_epoch)
        curve.params = params
        peak = PeakRSS()
        peak.start()
        start = time.perf_counter()
        model.fit(train, callbacks=[curve])
        entry: dict[str, Any] = {"params": params, "seed": seed}
        entry["fit_s"] = round(time.perf_counter() - start, 1)
        entry["peak_mb"] = round(peak.peak_mb(), 1)
        entry["best_epoch"] = model.best_epoch_ + 1
        entry["windows_per_epoch"] = per_epoch
        entry.update(scores(model, benches))
        with (RESULTS / f"cmu_mocap_{preset}_{split}.jsonl").open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        print(json.dumps({"seed": seed, "fit_s": entry["fit_s"], **means(entry)}))


def _row(label: str, values: Any, digits: int, extra: str = "") -> str:
    cells = " | ".join(f"{v:.{digits}f}" for v in values)
    return f"| {label} | {cells} |{extra}"


def table(split: str, preset: str = "ltd") -> str:
    """The learning curve, and the reproduction per action next to LTD's published figures.

    The per-action rows are the 3-D errors on the 8 windows (mm, mean over the logged seeds)
    with LTD's paper row and the ratio of ours to it at each horizon; then the angle means.
    """
    head = " | ".join(HORIZONS)
    # validation chooses on every window (far less noisy than 8 windows of each held-out take)
    rad = "rad_all" if split == "validation" else "rad_8"
    where = "every window" if split == "validation" else "the 8 windows"
    out = [f"Learning curve ({split}; angles on {where}, 3-D on every window)", ""]
    out.append(
        f"| overrides | epoch | windows seen | train loss | rad {head} | mm (every window) {head} |"
    )
    out.append("|---" * 14 + "|")
    curve = RESULTS / f"cmu_mocap_{preset}_{split}_curve.jsonl"
    for line in curve.read_text().splitlines() if curve.exists() else []:
        c = json.loads(line)
        cells = [f"{v:.3f}" for v in c[rad]] + [f"{v:.1f}" for v in c["mm_all"]]
        runs = json.dumps(c.get("params") or {})
        out.append(
            f"| {runs} | {c['epoch']} | {c['windows_seen']:,} | {c['train_loss']:.4f} | "
            + " | ".join(cells)
            + " |"
        )
    path = RESULTS / f"cmu_mocap_{preset}_{split}.jsonl"
    if not path.exists():
        return "\n".join(out)
    runs = [json.loads(line) for line in path.read_text().splitlines()]
    out += ["", f"Kept weights, {len(runs)} seed(s): 3-D error on the 8 windows (mm)", ""]
    out.append(f"| action | {head} | LTD (paper) | ours / LTD |")
    out.append("|---" * (len(HORIZONS) + 3) + "|")
    ratios = []
    for action in runs[0]["mm_8"]:
        ours = np.mean([r["mm_8"][action] for r in runs], axis=0)
        ltd = LTD_MM.get(action)
        extra = " - | - |"
        if ltd:
            ratio = ours / np.array(ltd)
            ratios.append(ratio)
            extra = f" {'/'.join(map(str, ltd))} | {'/'.join(f'{v:.2f}' for v in ratio)} |"
        out.append(_row(action, ours, 1, extra))
    for key, label in (("mm_8", "mean, 8 windows"), ("mm_all", "mean, every window")):
        mean = np.mean([np.mean(list(r[key].values()), axis=0) for r in runs], axis=0)
        out.append(_row(label, mean, 1, " | |"))
    out += ["", "Angles (rad), mean over the actions", ""]
    out.append(f"| window set | {head} |")
    out.append("|---" * (len(HORIZONS) + 1) + "|")
    for key in ("rad_8", "radltd_8", "rad_all"):
        mean = np.mean([np.mean(list(r[key].values()), axis=0) for r in runs if key in r], axis=0)
        out.append(_row(key, mean, 3))
    out.append(_row("LTD README, 8 actions", LTD_RAD_8_ACTIONS, 2))
    fit = [(r["fit_s"], r["peak_mb"], r["best_epoch"]) for r in runs]
    out += ["", f"fit seconds, peak MB, kept epoch per seed: {fit}"]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("validation", "test"), default="validation")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="ltd")
    parser.add_argument("--params", default="{}", help="JSON overrides of the preset")
    parser.add_argument("--every", type=int, default=1, help="epochs between curve points")
    parser.add_argument("--data-dir", default=None, help="folder holding cmu_mocap_expmap/")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--checkpoint-dir",
        default=None,
        help="folder of the fit's checkpoint: an interrupted run resumes from it",
    )
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    if args.table:
        print(table(args.split, args.preset))
        return
    torch.set_num_threads(args.threads)
    seeds = [int(s) for s in args.seeds.split(",")]
    params = json.loads(args.params)
    if args.checkpoint_dir:
        params["checkpoint_dir"] = args.checkpoint_dir
    run(args.split, seeds, params, args.every, args.data_dir, args.preset)


if __name__ == "__main__":
    pd.set_option("display.width", 160)
    main()
