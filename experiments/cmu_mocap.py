"""CMU motion capture: LSTM and GRU against zero velocity on the exp-map benchmark.

Protocol (the CMU-mocap exp-map benchmark of Li et al. 2018, as later papers use it):

* data: ``forecast.datasets.load("cmu-mocap")``, every 2nd frame (40 ms per step);
* modelled channels: the dimensions that move in the training split (std >= 1e-4; 70, the
  width of the reference network's output) minus the global translation and rotation
  (``root_*``, ``j0_*``), which the metric ignores: 64 channels;
* one global model over all 32 training sequences (a dict of frames);
* test sequences: for each test file, ``numpy.random.RandomState(1234567890)`` (re-seeded per
  action) draws 8 start frames ``idx = rng.randint(0, n - 75)``; frames ``idx .. idx + 49``
  are observed, ``idx + 50 .. idx + 74`` are predicted (``get_test_batch`` of the reference
  code). Six actions have a test file here (basketball_signal and directing_traffic do
  not); washwindow has no training file, so it tests generalisation to an unseen action;
* full 117-dimensional vectors are rebuilt as the reference ``unNormalizeData`` does: the
  dimensions constant over the training split carry the training mean, both in the ground
  truth and in every forecast; the global dimensions are ignored by the metric;
* error: ``forecast.evaluation.metrics.euler_angle_error`` on the 75 ground-truth frames against the
  50 observed frames followed by the 25 forecast frames, so that its near-constant filter
  (std <= 1e-4) sees all 75 frames as the reference does; the error of the forecast frames
  is kept. 80/160/320/400/1000 ms are forecast frames 2/4/8/10/25, i.e. indices
  1/3/7/9/24 of the per-frame error (the reference prints ``mean_mean_errors[ms]`` for
  ``ms in [1, 3, 7, 9, 13, 24]``), averaged over the 8 samples of an action, then over
  actions;
* zero velocity repeats the last observed frame (frame 49 of the 75); constant velocity
  (``forecast.ConstantVelocity``) adds ``k`` times the last frame difference (49 - 48) to it
  at forecast frame ``k = 1 .. 25``, in the modelled channels.

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

from forecast.datasets import constant_columns, load
from forecast.evaluation.metrics import euler_angle_error
from forecast.models.baselines import ConstantVelocity
from forecast.models.recurrent import GRUForecaster, LSTMForecaster

SEED = 1234567890  # the reference's test seed
N_SAMPLES = 8  # test windows per action
OBSERVED, PREDICTED = 50, 25
MS = (80, 160, 320, 400, 1000)
FRAME_INDEX = (1, 3, 7, 9, 24)  # per-frame error index of each entry of MS (40 ms per frame)
GLOBAL = ["root_x", "root_y", "root_z", "j0_x", "j0_y", "j0_z"]
FAMILIES = {"lstm": LSTMForecaster, "gru": GRUForecaster}
OUT = Path(__file__).parent / "results" / "cmu_mocap.md"


# ------------------------------------------------------------------------- data
@dataclass
class Benchmark:
    """Training frames (modelled channels) and the test windows with their ground truth."""

    train: dict[str, pd.DataFrame]  # key -> frame of the modelled channels
    test: dict[str, pd.DataFrame]  # action -> frame of the modelled channels
    starts: dict[str, list[int]]  # action -> first frame of each test window
    truth: dict[str, np.ndarray]  # action -> (8, 75, 117) exp-map ground truth
    columns: list[str]  # modelled channels
    all_columns: list[str]  # the 117 exp-map dimensions
    fill: np.ndarray  # (117,) value of the dimensions that are not modelled


def action_of(key: str) -> str:
    """Action of a file key: ``"train/walking_3"`` -> ``"walking"``."""
    return key.split("/", 1)[1].rsplit("_", 1)[0]


def modelled_channels(train_full: dict[str, pd.DataFrame]) -> tuple[list, list, np.ndarray]:
    """Modelled channels, all 117 dimensions and the fill of the others, from training files."""
    all_columns = list(next(iter(train_full.values())).columns)
    constant = set(constant_columns(train_full.values()))
    columns = [c for c in all_columns if c not in constant and c not in GLOBAL]
    stacked = pd.concat(list(train_full.values())).to_numpy()
    fill = stacked.mean(axis=0)  # training mean, as unNormalizeData fills ignored dimensions
    return columns, all_columns, fill


def draw_windows(
    frames: dict[str, pd.DataFrame], columns: list[str], all_columns: list[str], fill: np.ndarray
) -> tuple[dict, dict, dict]:
    """Windows of the reference code from one file per action (action -> 117-column frame).

    Returns the modelled channels of each file, the first frame of its 8 windows
    (``RandomState(SEED)`` re-seeded per action) and the (8, 75, 117) ground truth with the
    dimensions that are not modelled set to ``fill``.
    """
    not_modelled = np.array([c not in columns for c in all_columns])
    kept, starts, truth = {}, {}, {}
    for action, frame in frames.items():
        rng = np.random.RandomState(SEED)  # re-seeded per action, as the reference does
        n = len(frame)
        idx = [int(rng.randint(0, n - OBSERVED - PREDICTED)) for _ in range(N_SAMPLES)]
        values = frame.to_numpy().copy()
        values[:, not_modelled] = fill[not_modelled]
        kept[action] = frame[columns]
        starts[action] = idx
        truth[action] = np.stack([values[i : i + OBSERVED + PREDICTED] for i in idx])
    return kept, starts, truth


def load_benchmark(data_dir: str | None) -> Benchmark:
    """Read the benchmark files and draw the test windows of the reference code."""
    frames = load("cmu-mocap", data_dir=data_dir)  # every 2nd frame, all 117 dimensions
    train_full = {k: f for k, f in frames.items() if k.startswith("train/")}
    columns, all_columns, fill = modelled_channels(train_full)
    tests = {action_of(k): f for k, f in sorted(frames.items()) if k.startswith("test/")}
    test, starts, truth = draw_windows(tests, columns, all_columns, fill)
    return Benchmark(
        train={k: f[columns] for k, f in train_full.items()},
        test=test,
        starts=starts,
        truth=truth,
        columns=columns,
        all_columns=all_columns,
        fill=fill,
    )


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


def fit_variant(variant: Variant, bench: Benchmark, base: dict):
    """Fit one variant on the training dict; return the model and the fit seconds."""
    model = variant.estimator(bench.columns, base)
    train = bench.train
    if variant.velocity:
        train = {k: to_velocity(f) for k, f in train.items()}
    start = time.perf_counter()
    model.fit(train)
    return model, time.perf_counter() - start


def forecast_variant(model, variant: Variant, bench: Benchmark) -> dict[str, np.ndarray]:
    """Forecasts of the modelled channels, action -> (8, 25, C), from ``predict_origins``."""
    out = {}
    for action, frame in bench.test.items():
        data = to_velocity(frame) if variant.velocity else frame
        origins = frame.index[[i + OBSERVED - 1 for i in bench.starts[action]]]
        long = model.predict_origins(data, origins, horizon=PREDICTED)
        targets = model.columns_
        pred = long[targets].to_numpy().reshape(len(origins), PREDICTED, len(targets))
        if variant.velocity:
            last = frame.loc[origins].to_numpy()[:, None, :]  # (8, 1, C)
            pred = last + np.cumsum(pred, axis=1)
        out[action] = pred
    return out


def zero_velocity(bench: Benchmark) -> dict[str, np.ndarray]:
    """Repeat the last observed frame, action -> (8, 25, 117)."""
    return {
        a: np.repeat(t[:, OBSERVED - 1 : OBSERVED], PREDICTED, axis=1)
        for a, t in bench.truth.items()
    }


def constant_velocity(bench: Benchmark) -> dict[str, np.ndarray]:
    """Last observed frame plus k times the last frame difference, action -> (8, 25, C).

    The library's :class:`~forecast.ConstantVelocity` on the modelled channels, from the
    same origins as the networks (one batched ``predict_origins`` call per action).
    """
    return forecast_windows(ConstantVelocity(window=1).fit(bench.train), bench)


def forecast_windows(model, bench: Benchmark) -> dict[str, np.ndarray]:
    """Forecasts of a fitted library model of the modelled channels, action -> (8, 25, C)."""
    out = {}
    for action, frame in bench.test.items():
        origins = frame.index[[i + OBSERVED - 1 for i in bench.starts[action]]]
        long = model.predict_origins(frame, origins, horizon=PREDICTED)
        values = long[model.columns_].to_numpy()
        out[action] = values.reshape(len(origins), PREDICTED, len(model.columns_))
    return out


def full_vectors(pred: dict[str, np.ndarray], bench: Benchmark) -> dict[str, np.ndarray]:
    """Put forecasts of the modelled channels into 117-dimensional vectors."""
    pos = [bench.all_columns.index(c) for c in bench.columns]
    out = {}
    for action, p in pred.items():
        full = np.broadcast_to(bench.fill, (*p.shape[:2], len(bench.fill))).copy()
        full[..., pos] = p
        out[action] = full
    return out


# --------------------------------------------------------------------- scoring
def score(pred_full: dict[str, np.ndarray], bench: Benchmark) -> pd.DataFrame:
    """Euler error at the reported horizons, one row per action (radians)."""
    rows = {}
    for action, truth in bench.truth.items():
        joined = np.concatenate([truth[:, :OBSERVED], pred_full[action]], axis=1)  # (8, 75, D)
        per_frame = euler_angle_error(truth, joined)[OBSERVED:]  # (25,)
        rows[action] = per_frame[list(FRAME_INDEX)]
    return pd.DataFrame.from_dict(rows, orient="index", columns=[f"{ms} ms" for ms in MS])


def markdown(frame: pd.DataFrame, floatfmt: str = ".3f") -> str:
    """A plain markdown table (no tabulate dependency)."""
    head = "| " + " | ".join([frame.index.name or ""] + list(frame.columns)) + " |"
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    rule = "|---|" + "".join("---:|" if n else "---|" for n in numeric)
    lines = [head, rule]
    for idx, row in frame.iterrows():
        cells = [format(v, floatfmt) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join([str(idx)] + cells) + " |")
    return "\n".join(lines)


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
    return markdown(mean), markdown(mean_seen), markdown(per)


def run_variant(variant: Variant, bench: Benchmark, base: dict) -> tuple[pd.DataFrame, tuple]:
    """Fit, forecast and score one variant; return its scores and a row of the run table."""
    model, fit_s = fit_variant(variant, bench, base)
    t1 = time.perf_counter()
    pred = forecast_variant(model, variant, bench)
    pred_s = time.perf_counter() - t1
    result = score(full_vectors(pred, bench), bench)
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
    from forecast import EnsembleForecaster

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
    bench = load_benchmark(args.data_dir)
    seen = sorted({action_of(k) for k in bench.train})
    seen = [a for a in bench.truth if a in seen]
    print(
        f"loaded in {time.perf_counter() - t0:.1f} s: {len(bench.train)} training sequences, "
        f"{len(bench.columns)} modelled channels, test actions {list(bench.truth)}",
        flush=True,
    )
    zero = score(zero_velocity(bench), bench)
    constant = score(full_vectors(constant_velocity(bench), bench), bench)
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
        blocks += ["Spread over weight seeds (mean over all test actions):", markdown(spread)]
    blocks += [
        f"Per action (weight seed {seeds[0]}):",
        per,
        "Training (loss of the first and last epoch: MSE of the scaled targets, which are "
        "scaled frame differences for the velocity variants, so compare within a family):",
        markdown(run_table, ".4g"),
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
