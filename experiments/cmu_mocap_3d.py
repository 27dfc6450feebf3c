"""The CMU mocap benchmark in 3-D: networks trained on joint positions, the papers' protocol.

A thin script over ``forecast.evaluation.motion_positions``: the takes as the positions of the
25 joints the 3-D papers predict (``load("cmu-mocap", positions=True)``, their "mm"), 10
observed frames, 25 forecast, the error over all 38 joints at 80/160/320/400/560/1000 ms on
every window at stride 1 (MSR-GCN, PGBIG) and on LTD's 8 seeded windows per take.

``--preset ltd3d`` fits LTD's 3-D recipe (``forecast.models.LTD_3D``), ``pgbig3d`` PGBIG's
(``forecast.models.PGBIG_3D``), ``simlpe3d`` siMLPe's network with its position and velocity
loss, ``gru`` .. ``hopfield`` the six families with
``MOTION_BEST`` on the protocol's window and the position loss, ``gru+lstm`` the equal-weight
average of those two (``EnsembleForecaster``); a single network logs a learning curve
while it trains: every ``--every`` epochs the network as it stands forecasts both window sets,
and one JSON line (epoch, windows seen, training loss, learning rate, the six- and five-action
means of both window sets, and every action's row) goes to
``results/cmu_mocap_3d_<preset>_<split>_curve.jsonl``, flushed at once (``--table`` shows the
latest point per action while a run is unfinished). At the end the kept weights are scored per
action, with fit time and peak memory, into ``results/cmu_mocap_3d_<preset>_<split>.jsonl``.
``--checkpoint-dir`` keeps a checkpoint after every epoch (a folder per seed): the same command
resumes a run cut short. ``--params`` overrides preset entries (JSON); each line carries them.
``--reference`` scores zero and constant velocity. ``--table`` prints the tables of the logs.

    python experiments/cmu_mocap_3d.py --reference --data-dir ../shared/data
    python experiments/cmu_mocap_3d.py --preset ltd3d --split test --every 2 \
        --data-dir ../shared/data --checkpoint-dir checkpoints/ltd3d
    python experiments/cmu_mocap_3d.py --table --preset ltd3d --split test
    python experiments/cmu_mocap_3d.py --summary --split validation
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
from cmu_mocap_3d_tables import (  # the script next to this one
    fit_seconds,
    summary,
    table,
    table_text,
)

from forecast.combine import EnsembleForecaster
from forecast.evaluation.memory import PeakRSS
from forecast.evaluation.motion_data import action_of
from forecast.evaluation.motion_positions import (
    action_means,
    constant_velocity_positions,
    forecast_positions,
    load_position_benchmark,
    score_positions,
    step_weights,
    zero_velocity_positions,
)
from forecast.models import (
    LTD_3D,
    MOTION_BEST_3D,
    PGBIG_3D,
    SIMLPE_3D,
    DCTMixerForecaster,
    get_estimator,
)
from forecast.training.callbacks import Callback

RESULTS = Path(__file__).parent / "results"
PRESETS: dict[str, tuple[type, dict[str, Any]]] = {
    "ltd3d": (DCTMixerForecaster, LTD_3D),
    "simlpe3d": (DCTMixerForecaster, SIMLPE_3D),
    "pgbig3d": (DCTMixerForecaster, PGBIG_3D),
}
for _family in ("gru", "elman", "lstm", "orthogonal", "transformer", "hopfield"):
    PRESETS[_family] = (get_estimator(_family), MOTION_BEST_3D)
# Averages: the equal-weight mean of presets above, each member with the run's seed.
AVERAGES = {"gru+lstm": ("gru", "lstm")}


def scores(model: Any, benches: dict[str, Any]) -> dict[str, dict[str, list[float]]]:
    """Per action and the two means, on each window set ("8", "all"), of a fitted model."""
    out = {}
    for label, bench in benches.items():
        table = score_positions(forecast_positions(model, bench), bench)
        table = pd.concat([table, action_means(table, bench)])
        out[f"mm_{label}"] = {a: [round(float(v), 2) for v in r] for a, r in table.iterrows()}
    return out


def keep_forecasts(model: Any, benches: dict[str, Any], path: Path) -> None:
    """Save the forecasts of every window set as ``<windows>/<action>`` arrays (npz)."""
    arrays = {
        f"{label}/{action}": values
        for label, bench in benches.items()
        for action, values in forecast_positions(model, bench).items()
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez_compressed(partial, **arrays)
    partial.replace(path)  # no half-written file under the final name


def means(entry: dict[str, Any]) -> dict[str, Any]:
    """The mean rows of every window set of a log entry."""
    return {
        f"{key}:{row}": values
        for key, rows in entry.items()
        if key.startswith("mm_")
        for row, values in rows.items()
        if row.startswith("mean")
    }


class Curve(Callback):
    """Callback: score the network as it stands every ``every`` epochs, one JSON line each."""

    def __init__(self, model: Any, benches: dict, every: int, log: Path, meta: dict) -> None:
        self.model, self.benches, self.every, self.log, self.meta = model, benches, every, log, meta
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        if (epoch + 1) % self.every and epoch + 1 != self.model.max_epochs:
            return
        net = self.model.module_
        was_training = net.training
        entry = {**self.meta, "epoch": epoch + 1, **logs}
        entry["windows_seen"] = (epoch + 1) * self.meta["windows_per_epoch"]
        entry["seconds"] = round(time.perf_counter() - self.start, 1)
        per_action = scores(self.model, self.benches)
        entry.update(means(per_action))
        net.train(was_training)
        with self.log.open("a") as handle:  # the means and, under mm_*, every action
            handle.write(json.dumps({**entry, **per_action}) + "\n")
        print(json.dumps({k: v for k, v in entry.items() if "5 with" not in k}), flush=True)


class FitClock(Callback):
    """Callback: the fit's wall seconds summed over its resumes, kept beside its checkpoint.

    After every epoch ``<folder>/fit_seconds.json`` gets the seconds of the earlier processes
    (read at the start) plus this one's so far, the first epoch they cover and the last; an
    epoch cut short by a stop is neither counted nor kept, as its checkpoint is not.
    """

    def __init__(self, folder: str) -> None:
        self.path = Path(folder) / "fit_seconds.json"
        kept = json.loads(self.path.read_text()) if self.path.exists() else None
        self.before = kept["seconds"] if kept else 0.0
        self.first = kept["first_epoch"] if kept else None  # None: this process's first epoch
        self.start = time.perf_counter()
        self.last: dict[str, Any] | None = kept

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        self.first = self.first or epoch + 1
        seconds = self.before + time.perf_counter() - self.start
        self.last = {"seconds": round(seconds, 1), "first_epoch": self.first}
        self.last["last_epoch"] = epoch + 1
        partial = self.path.with_suffix(".partial")  # the folder holds the epoch's checkpoint
        partial.write_text(json.dumps(self.last) + "\n")
        partial.replace(self.path)


def log_name(preset: str, without: tuple[str, ...] = (), tag: str = "") -> str:
    """The name a run's logs and kept forecasts go under: ``<preset>[_without_<a>..][_<tag>]``."""
    return "_".join([preset, *(f"without_{a}" for a in without), *([tag] if tag else [])])


def run(
    preset: str,
    split: str,
    seeds: list[int],
    params: dict,
    every: int,
    data_dir: Any,
    forecasts_dir: str | None = None,
    without: tuple[str, ...] = (),
    tag: str = "",
) -> None:
    """Fit the preset per seed with its learning curve; log the kept weights' scores.

    ``without`` names actions whose training takes are left out of the fit (the windows
    scored stay the same); such runs log under ``<preset>_without_<a>_without_<b>``. A ``tag``
    is appended to the name of the logs and of the kept forecasts (``<preset>_<tag>``), so that
    a second recipe of a preset (``--params``) keeps its own.

    With ``forecasts_dir``, the kept weights' forecasts of both window sets are kept too, in
    ``<forecasts_dir>/<log name>_<split>_seed<k>.npz`` (arrays ``<windows>/<action>``, each
    ``(n_windows, 25, 75)``): what ``--blend`` weighs per forecast step.
    """
    benches = {"all": load_position_benchmark(data_dir, split, "all")}
    benches["8"] = load_position_benchmark(data_dir, split, 8)
    trained = {action_of(k) for k in benches["all"].train}
    if unknown := [a for a in without if a not in trained]:
        raise SystemExit(f"--without: no training take of {unknown}; there are {sorted(trained)}")
    train = {k: f for k, f in benches["all"].train.items() if action_of(k) not in without}
    preset_log = log_name(preset, without, tag)
    folder = params.pop("checkpoint_dir", None)  # not a setting: kept out of the log
    stem = RESULTS / f"cmu_mocap_3d_{preset_log}_{split}"
    for seed in seeds:
        model, networks = build(preset, params, seed)
        if folder:
            for name, net in networks:
                net.set_params(checkpoint_dir=f"{folder}/seed{seed}{name}")
        first = networks[0][1]
        span = first.context_length + first.horizon  # every window of every training take
        per_epoch = sum(len(f) - span + 1 for f in train.values())
        meta = {"seed": seed, "params": params, "windows_per_epoch": per_epoch}
        # the learning curve of a single network (an average's members are scored at the end)
        curve = [Curve(model, benches, every, Path(f"{stem}_curve.jsonl"), meta)]
        clock = FitClock(f"{folder}/seed{seed}") if folder and model is first else None
        curve += [clock] if clock else []
        peak = PeakRSS()
        peak.start()
        start = time.perf_counter()
        model.fit(train, callbacks=curve if model is first else [])
        entry: dict[str, Any] = {**meta, "fit_s": round(time.perf_counter() - start, 1)}
        entry["peak_mb"] = round(peak.peak_mb(), 1)
        if clock and clock.last:  # the fit's seconds over every resume, from first_epoch on
            entry["fit_s_resumes"] = clock.last["seconds"]
            entry["fit_s_first_epoch"] = clock.last["first_epoch"]
        fitted = [first] if model is first else model.estimators_  # an average fits clones
        entry["best_epoch"] = [net.best_epoch_ + 1 for net in fitted]
        if model is first:
            entry["best_epoch"] = entry["best_epoch"][0]
        entry.update(scores(model, benches))
        if forecasts_dir:
            kept = Path(forecasts_dir) / f"{preset_log}_{split}_seed{seed}.npz"
            keep_forecasts(model, benches, kept)
        with Path(f"{stem}.jsonl").open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        print(json.dumps({"seed": seed, "fit_s": entry["fit_s"], **means(entry)}))


def build(preset: str, params: dict, seed: int) -> tuple[Any, list[tuple[str, Any]]]:
    """The estimator of ``preset`` for ``seed`` and its networks (name suffix, network)."""
    if preset in AVERAGES:
        members = [
            (name, PRESETS[name][0](**{**PRESETS[name][1], **params, "random_state": seed}))
            for name in AVERAGES[preset]
        ]
        return EnsembleForecaster(members), [(f"-{name}", net) for name, net in members]
    kind, settings = PRESETS[preset]
    model = kind(**{**settings, **params, "random_state": seed})
    return model, [("", model)]


def blend(members: list[str], seeds: list[int], data_dir: Any, folder: str) -> None:
    """Choose step weights on validation forecasts; score the weighted test forecasts.

    Every member's forecasts of both splits must be in ``folder`` (``--forecasts-dir``), and
    its test log must hold the seed (fit time and memory). One line per seed goes to
    ``results/cmu_mocap_3d_steps_<m1>_<m2>_<split>.jsonl`` for each split: the weights, the
    members' summed fit seconds and their largest peak, the scores.
    """
    name = "steps_" + "_".join(members)
    for seed in seeds:
        weights: list[list[float]] = []
        for split in ("validation", "test"):
            benches = {"all": load_position_benchmark(data_dir, split, "all")}
            benches["8"] = load_position_benchmark(data_dir, split, 8)
            kept = {m: np.load(Path(folder) / f"{m}_{split}_seed{seed}.npz") for m in members}
            preds = {
                label: {m: {a: kept[m][f"{label}/{a}"] for a in bench.actions} for m in members}
                for label, bench in benches.items()
            }
            if split == "validation":  # chosen on every window of the held-out takes
                weights = step_weights(preds["all"], benches["all"])
            w = np.asarray(weights)  # (25, members)
            entry: dict[str, Any] = {"seed": seed, "members": members, "weights": weights}
            logs = [RESULTS / f"cmu_mocap_3d_{m}_{split}.jsonl" for m in members]
            runs = [
                [r for r in map(json.loads, log.read_text().splitlines()) if r["seed"] == seed][-1]
                for log in logs
            ]
            entry["fit_s"] = round(sum(fit_seconds(r) for r in runs), 1)
            entry["peak_mb"] = max(r["peak_mb"] for r in runs)
            for label, bench in benches.items():
                mixed = {
                    a: np.einsum("km,mnkc->nkc", w, np.stack([preds[label][m][a] for m in members]))
                    for a in bench.actions
                }
                table = score_positions(mixed, bench)
                table = pd.concat([table, action_means(table, bench)])
                entry[f"mm_{label}"] = {
                    a: [round(float(v), 2) for v in r] for a, r in table.iterrows()
                }
            with (RESULTS / f"cmu_mocap_3d_{name}_{split}.jsonl").open("a") as handle:
                handle.write(json.dumps(entry) + "\n")
            print(json.dumps({"split": split, "seed": seed, **means(entry)}))
        print("weights (step: " + ", ".join(members) + "):")
        for k, row in enumerate(weights, 1):
            print(f"  {k:2d}: {row}")


def reference(split: str, data_dir: Any) -> None:
    """Score zero and constant velocity on both window sets into the reference log."""
    entry: dict[str, Any] = {"split": split}
    for label, windows in (("all", "all"), ("8", 8)):
        bench = load_position_benchmark(data_dir, split, windows)
        for name, rule in (("zero velocity", zero_velocity_positions),
                           ("constant velocity", constant_velocity_positions)):  # fmt: skip
            table = score_positions(rule(bench), bench)
            table = pd.concat([table, action_means(table, bench)])
            entry.setdefault(name, {})[f"mm_{label}"] = {
                a: [round(float(v), 2) for v in r] for a, r in table.iterrows()
            }
    path = RESULTS / f"cmu_mocap_3d_reference_{split}.json"
    path.write_text(json.dumps(entry, indent=1) + "\n")
    print(table_text(entry, "all"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("validation", "test"), default="validation")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--preset", choices=sorted([*PRESETS, *AVERAGES]), default="ltd3d")
    parser.add_argument("--params", default="{}", help="JSON overrides of the preset")
    parser.add_argument("--every", type=int, default=1, help="epochs between curve points")
    parser.add_argument("--data-dir", default=None, help="folder holding cmu_mocap_expmap/")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--checkpoint-dir", default=None, help="resume from / keep checkpoints")
    parser.add_argument("--forecasts-dir", default=None, help="keep the final forecasts (npz)")
    parser.add_argument("--tag", default="", help="a suffix naming this recipe's logs")
    parser.add_argument("--without", default=None, help="actions left out of training (',')")
    parser.add_argument("--blend", default=None, help="members joined by ',': step weights")
    parser.add_argument("--reference", action="store_true", help="zero and constant velocity")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--summary", action="store_true", help="one row per preset of --split")
    args = parser.parse_args()
    if args.summary:
        print(summary(args.split, [*PRESETS, *AVERAGES]))
        return
    if args.table:
        print(table(log_name(args.preset, (), args.tag), args.split))
        return
    if args.reference:
        reference(args.split, args.data_dir)
        return
    if args.blend:
        seeds = [int(s) for s in args.seeds.split(",")]
        blend(args.blend.split(","), seeds, args.data_dir, args.forecasts_dir or "")
        return
    torch.set_num_threads(args.threads)
    params = json.loads(args.params)
    if args.checkpoint_dir:
        params["checkpoint_dir"] = args.checkpoint_dir
    seeds = [int(s) for s in args.seeds.split(",")]
    without = tuple(args.without.split(",")) if args.without else ()
    where = args.data_dir, args.forecasts_dir
    run(args.preset, args.split, seeds, params, args.every, *where, without, args.tag)


if __name__ == "__main__":
    main()
