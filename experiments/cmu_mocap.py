"""CMU motion capture: LSTM and GRU against zero velocity on the exp-map benchmark.

Protocol: the CMU-mocap exp-map benchmark of Li et al. 2018 as later papers use it,
``forecast.evaluation.motion`` (every 2nd frame, 40 ms per step; the 64 modelled channels;
one global model over the 32 training sequences; 8 windows of 50 observed + 25 predicted
frames per test file drawn with the reference seed 1234567890; Euler-angle error at
80/160/320/400/1000 ms, averaged over the 8 windows of an action, then over actions). Six
actions have a test file here (basketball_signal and directing_traffic do not); washwindow
has no training file, so it tests generalisation to an unseen action. The networks forecast
each window from the whole test sequence up to its last observed frame
(``history="sequence"``, ``predict_origins``), as the tables were measured. Zero velocity
repeats the last observed frame; constant velocity (``forecast.ConstantVelocity``) adds
``k`` times the last frame difference to it at forecast frame ``k = 1 .. 25``, in the
modelled channels.

The ``velocity`` variants are the one change made outside the library to give the networks
a residual connection: the targets are first differences of the modelled channels, the
absolute pose is a past covariate (so the encoder reads both), the context is 49 steps of
differences (the 50 observed frames) and the forecast is the last observed pose plus the
cumulative sum of the forecast differences.

    python experiments/cmu_mocap.py            # full run, writes results/cmu_mocap.md
                                               # (13-16 min on 2 shared cores)
    python experiments/cmu_mocap.py --quick    # smoke run, prints only (under 1 min idle)
    python experiments/cmu_mocap.py --list     # the variants
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from forecast import EnsembleForecaster
from forecast.evaluation.motion import (
    OBSERVED,
    PREDICTED,
    MotionBenchmark,
    action_of,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    score_windows,
    zero_velocity,
)
from forecast.models.baselines import ConstantVelocity
from forecast.models.recurrent import GRUForecaster, LSTMForecaster

FAMILIES = {"lstm": LSTMForecaster, "gru": GRUForecaster}
OUT = Path(__file__).parent / "results" / "cmu_mocap.md"


def to_velocity(frame: pd.DataFrame) -> pd.DataFrame:
    """First differences as targets (``d_<col>``) next to the pose (past covariates)."""
    diff = frame.diff().iloc[1:].add_prefix("d_")
    return pd.concat([diff, frame.iloc[1:]], axis=1)


# ---------------------------------------------------------------------- models
@dataclass
class Variant:
    """One network configuration of the comparison."""

    name: str
    family: str
    about: str
    params: dict = field(default_factory=dict)
    velocity: bool = False

    def estimator(self, columns: list[str], base: dict):
        params = {**base, **self.params}
        if self.velocity:
            params["context_length"] = OBSERVED - 1  # 49 differences span the 50 frames
            params["past_covariates"] = list(columns)
        return FAMILIES[self.family](**params)


def variants() -> dict[str, Variant]:
    """The configurations compared, by short name (shared settings come from the options)."""
    rec = {"strategy": "recursive"}
    tbptt = {"windowing": "tbptt", "tbptt_steps": 50, "batch_size": 16}
    long = {"max_epochs": 30, "learning_rate": 3e-4}
    absolute = "pose targets, direct 25-step head, sliding windows"
    out = [
        Variant("lstm", "lstm", absolute),
        Variant("gru", "gru", absolute),
        Variant("lstm-long", "lstm", absolute + "; 30 epochs at lr 3e-4", long),
        Variant("lstm-recursive", "lstm", "pose targets, one-step head rolled out 25 steps", rec),
        Variant("gru-recursive", "gru", "pose targets, one-step head rolled out 25 steps", rec),
        Variant("lstm-tbptt", "lstm", "as lstm, truncated BPTT (chunks of 50, 16 streams)", tbptt),
        Variant("gru-tbptt", "gru", "as gru, truncated BPTT (chunks of 50, 16 streams)", tbptt),
        Variant("lstm-velocity", "lstm", "frame differences + pose input, direct", velocity=True),
        Variant("gru-velocity", "gru", "frame differences + pose input, direct", velocity=True),
    ]
    return {v.name: v for v in out}


def fit_variant(variant: Variant, bench: MotionBenchmark, base: dict):
    """Fit one variant on the training dict; return the model and the fit seconds."""
    model = variant.estimator(bench.columns, base)
    train = bench.train
    if variant.velocity:
        train = {k: to_velocity(f) for k, f in train.items()}
    start = time.perf_counter()
    model.fit(train)
    return model, time.perf_counter() - start


def forecast_variant(model, variant: Variant, bench: MotionBenchmark) -> dict[str, np.ndarray]:
    """Forecasts of the modelled channels, action -> (8, 25, C), from ``predict_origins``."""
    if not variant.velocity:
        return forecast_windows(model, bench, history="sequence")
    out = {}
    for action, frame in bench.test.items():
        origins = bench.origins(action)
        long = model.predict_origins(to_velocity(frame), origins, horizon=PREDICTED)
        targets = model.columns_
        pred = long[targets].to_numpy().reshape(len(origins), PREDICTED, len(targets))
        last = frame.loc[origins].to_numpy()[:, None, :]  # (8, 1, C)
        out[action] = last + np.cumsum(pred, axis=1)
    return out


def constant_velocity(bench: MotionBenchmark) -> dict[str, np.ndarray]:
    """Last observed frame plus k times the last frame difference, action -> (8, 25, C)."""
    model = ConstantVelocity(window=1).fit(bench.train)
    return forecast_windows(model, bench, history="sequence")


def summary_tables(
    scores: dict[str, pd.DataFrame], extra: dict[str, pd.DataFrame], seen: list[str]
) -> tuple[str, str, str]:
    """Mean over actions, mean over actions with training data, and per action.

    ``scores`` (first seed) enter every table, ``extra`` (means over seeds) the first two.
    """
    both = {**scores, **extra}
    mean = pd.DataFrame({m: s.mean() for m, s in both.items()}).T
    mean_seen = pd.DataFrame({m: s.loc[seen].mean() for m, s in both.items()}).T
    mean.index.name = mean_seen.index.name = "model"
    per = (
        pd.concat(scores, names=["model", "action"])
        .swaplevel()
        .sort_index(level=0, sort_remaining=False)
    )
    per.index = [f"{a} / {m}" for a, m in per.index]
    per.index.name = "action / model"
    return tuple(t.to_markdown(floatfmt=".3f") for t in (mean, mean_seen, per))


def run_variant(variant: Variant, bench: MotionBenchmark, base: dict) -> tuple[pd.DataFrame, tuple]:
    """Fit, forecast and score one variant; return its scores and a row of the run table."""
    model, fit_s = fit_variant(variant, bench, base)
    t1 = time.perf_counter()
    pred = forecast_variant(model, variant, bench)
    pred_s = time.perf_counter() - t1
    result = score_windows(full_vectors(pred, bench), bench)
    loss = model.history_["train_loss"]
    seed = base["random_state"]
    row = (variant.name, seed, variant.about, model.n_epochs_, loss[0], loss[-1], fit_s, pred_s)
    avg = result.mean().round(3).tolist()
    print(
        f"{variant.name} (seed {seed}): fit {fit_s:.0f} s, {model.n_epochs_} epochs, error {avg}",
        flush=True,
    )
    return result, row


# ------------------------------------------------------------------------ main
FIGURES_BEGIN = "<!-- figures: written by experiments/cmu_mocap_figures.py -->"
FIGURES_END = "<!-- end of figures -->"
DEFAULTS_BEGIN = "<!-- defaults: written by experiments/cmu_mocap_defaults.py -->"
DEFAULTS_END = "<!-- end of defaults -->"
BEST_BEGIN = "<!-- best: written by experiments/cmu_mocap_test.py -->"
BEST_END = "<!-- end of best -->"


def kept_sections(path: Path) -> str:
    """The sections other scripts wrote into the results file (kept when tables are rewritten)."""
    text = path.read_text() if path.exists() else ""
    kept = ""
    sections = (
        (DEFAULTS_BEGIN, DEFAULTS_END),
        (BEST_BEGIN, BEST_END),
        (FIGURES_BEGIN, FIGURES_END),
    )
    for first, last in sections:
        begin, end = text.find(first), text.find(last)
        if begin >= 0 and end > begin:
            kept += "\n" + text[begin : end + len(last)] + "\n"
    return kept


def write_between(text: str, path: Path, begin: str, end: str) -> None:
    """Replace the section from ``begin`` to ``end`` of ``path`` (``text`` holds the markers),
    or insert it before the figures section (at the end when there is none)."""
    old = path.read_text() if path.exists() else ""
    first, last = old.find(begin), old.find(end)
    if first >= 0 and last > first:
        new = old[:first] + text + old[last + len(end) :]
    else:
        at = old.find(FIGURES_BEGIN)
        at = len(old) if at < 0 else at
        new = old[:at].rstrip("\n") + "\n\n" + text + "\n\n" + old[at:]
    path.write_text(new.rstrip("\n") + "\n")


def build_model(cls: type, base: dict, params: dict, seed: int, blend: dict | None = None):
    """``cls(**base, **params)`` with the seed, or its equal-weight average with a second
    ``cls`` of ``base`` and the ``blend`` overrides (``forecast.EnsembleForecaster``)."""
    first = cls(**{**base, **params, "random_state": seed})
    if blend is None:
        return first
    second = cls(**{**base, **blend, "random_state": seed})
    return EnsembleForecaster([("first", first), ("second", second)])


DEFAULT = "lstm,gru,lstm-long,lstm-recursive,lstm-tbptt,lstm-velocity,gru-velocity"
QUICK = "lstm,lstm-velocity,gru-velocity"
REPEAT = "lstm-velocity,gru-velocity"


def names_of(text: str) -> list[str]:
    """Split a comma-separated option."""
    return [n.strip() for n in text.split(",") if n.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: 3 variants, 2 epochs")
    parser.add_argument("--variants", default=None, help=f"comma-separated (default {DEFAULT})")
    parser.add_argument("--list", action="store_true", help="list the variants and exit")
    parser.add_argument("--epochs", type=int, default=None, help="default 15 (quick: 2)")
    parser.add_argument("--hidden", type=int, default=None, help="default 128 (quick: 64)")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--dropout", type=float, default=0.3, help="on the encoder outputs")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seeds", default=None, help="default 0,1,2 (quick: 0)")
    parser.add_argument(
        "--repeat", default=REPEAT, help="variants fitted with every seed (others: the first)"
    )
    parser.add_argument("--data-dir", default=None)
    parser.add_argument(
        "--output", default=None, help=f"markdown file (default {OUT}; quick: none)"
    )
    args = parser.parse_args(argv)

    table = variants()
    if args.list:
        for v in table.values():
            print(f"{v.name:16s} {v.about} {v.params or ''}")
        return
    torch.set_num_threads(args.threads)
    names = names_of(args.variants or (QUICK if args.quick else DEFAULT))
    unknown = [n for n in names if n not in table]
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {list(table)}")
    seeds = [int(x) for x in names_of(args.seeds or ("0" if args.quick else "0,1,2"))]
    repeat = set(names_of(args.repeat))
    epochs = args.epochs or (2 if args.quick else 15)
    hidden = args.hidden or (64 if args.quick else 128)
    base = dict(
        context_length=OBSERVED,
        horizon=PREDICTED,
        hidden_size=hidden,
        dropout=args.dropout,
        max_epochs=epochs,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        lr_scheduler="cosine",
        validation_fraction=0.0,  # the running files (76-95 frames) leave no room for a tail
        early_stopping_patience=None,
        device="cpu",
    )

    t0 = time.perf_counter()
    bench = load_motion_benchmark(args.data_dir)
    seen = sorted({action_of(k) for k in bench.train})
    seen = [a for a in bench.truth if a in seen]
    print(
        f"loaded in {time.perf_counter() - t0:.1f} s: {len(bench.train)} training sequences, "
        f"{len(bench.columns)} modelled channels, test actions {list(bench.truth)}",
        flush=True,
    )
    zero = score_windows(zero_velocity(bench), bench)
    constant = score_windows(full_vectors(constant_velocity(bench), bench), bench)
    scores, by_seed, runs = {"zero velocity": zero, "constant velocity": constant}, {}, []
    for name in names:
        for seed in seeds if name in repeat else seeds[:1]:
            result, row = run_variant(table[name], bench, {**base, "random_state": seed})
            by_seed[name, seed] = result
            runs.append(row)
            if seed == seeds[0]:
                scores[name] = result

    repeated = [n for n in names if n in repeat and len(seeds) > 1]
    seed_list = ", ".join(map(str, seeds))
    extra = {
        f"{n} (mean of seeds {seed_list})": sum(by_seed[n, s] for s in seeds) / len(seeds)
        for n in repeated
    }
    mean, mean_seen, per = summary_tables(scores, extra, seen)
    spread = pd.DataFrame(
        {"zero velocity": zero.mean(), "constant velocity": constant.mean()}
        | {f"{n} / seed {s}": by_seed[n, s].mean() for n in repeated for s in seeds}
    ).T
    spread.index.name = "model / seed"
    run_table = pd.DataFrame(
        runs,
        columns=["variant", "seed", "what", "epochs", "first loss", "last loss", "fit s", "pred s"],
    ).set_index("variant")
    command = "python experiments/cmu_mocap.py " + " ".join(sys.argv[1:] if argv is None else argv)
    blocks = [
        "# CMU mocap exp-map benchmark: Euler-angle error (radians)",
        "Protocol, test windows and variants: see the docstring of "
        "`experiments/cmu_mocap.py` (reference seed 1234567890, 8 windows per action, "
        "50 observed frames, errors at forecast frames 2/4/8/10/25).",
        f"`{command.strip()}` — {hidden} hidden units, {epochs} epochs, lr {args.lr} (cosine), "
        f"dropout {args.dropout}, batch {args.batch_size}, weight seed {seeds[0]}"
        + (f" (seeds {seed_list} for {', '.join(repeated)})" if repeated else "")
        + f", {args.threads} threads, torch {torch.__version__}, "
        f"{platform.processor() or platform.machine()}; total {time.perf_counter() - t0:.0f} s.",
        f"Mean over the {len(bench.truth)} test actions ({', '.join(bench.truth)}), "
        "8 windows each:",
        mean,
        f"Mean over the {len(seen)} actions with training data (without washwindow):",
        mean_seen,
    ]
    if repeated:
        blocks += [
            "Spread over weight seeds (mean over all test actions):",
            spread.to_markdown(floatfmt=".3f"),
        ]
    blocks += [
        f"Per action (weight seed {seeds[0]}):",
        per,
        "Training (loss of the first and last epoch: MSE of the scaled targets, which are "
        "scaled frame differences for the velocity variants, so compare within a family):",
        run_table.to_markdown(floatfmt=".4g"),
    ]
    text = "\n\n".join(blocks)
    print()
    print(text)
    output = args.output if args.output is not None else ("" if args.quick else str(OUT))
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text + "\n" + kept_sections(Path(output)))


if __name__ == "__main__":
    main()
