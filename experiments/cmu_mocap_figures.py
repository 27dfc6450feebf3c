"""CMU mocap, looked at: joint-angle curves per test action and a BVH stick-figure strip.

1. Exp-map benchmark (the windows and scoring of ``forecast.evaluation.motion``): for each of
   the six test actions, a PNG of the 4 modelled channels that move most in its first test
   window: 50 observed frames, the 25 true frames, and the forecasts of zero velocity,
   constant velocity (``forecast.ConstantVelocity``) and the best configuration of
   ``experiments/cmu_mocap_test.py`` (chosen on validation: a residual GRU ensemble averaged
   with a difference-target GRU, seed 0) fitted on the training dict (``--no-model`` skips
   it). The scores of the three on the full benchmark are printed and written next to the
   pictures.
2. BVH (``131_02.bvh.gz``, "start, walk, stop", every 4th frame = 30 fps): a residual GRU
   is fitted on the first 70 % of the take (the 4 phase-shifted subsamplings as 4 series;
   moving channels, rotations unwrapped), then forecasts 15 frames (0.5 s) from origins in
   the remaining 30 %, whose targets it never saw. Joint positions come from forward
   kinematics of the file's skeleton; the error is the mean per-joint position error
   (file units) against zero and constant velocity, and one origin is drawn as a strip.

    python experiments/cmu_mocap_figures.py            # about 6 min on one core
    python experiments/cmu_mocap_figures.py --no-model # baselines only, seconds

Writes PNGs to ``experiments/results/cmu_mocap/`` and a section (between markers) at the
end of ``experiments/results/cmu_mocap.md``; ``cmu_mocap.py`` keeps that section when it
rewrites the tables.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from cmu_mocap import FIGURES_BEGIN, FIGURES_END, constant_velocity  # the scripts next to
from cmu_mocap_test import build  # this one: results file, velocity baseline, best model

from forecast.datasets import forward_kinematics, read_bvh, resolve_data_dir, skeleton_parents
from forecast.evaluation.motion import (
    OBSERVED,
    MotionBenchmark,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    score_windows,
    zero_velocity,
)
from forecast.evaluation.motion_plots import plot_joint_angles, plot_stick_figures
from forecast.models.baselines import ConstantVelocity
from forecast.models.recurrent import GRUForecaster

RESULTS = Path(__file__).parent / "results"
FIG_DIR = RESULTS / "cmu_mocap"
# The best configuration of the motion results (chosen on the validation split): the residual
# GRU (three networks; its "auto" lead weights and dropout) averaged with a GRU forecasting
# summed step changes.
BEST_FIRST = {"n_ensemble": 3}
BEST_SECOND = {
    "residual": False, "target_transform": "difference", "dropout": 0.3, "batch_size": 64,
    "learning_rate": 1e-3, "lr_scheduler": "cosine", "max_epochs": 15,
    "validation_fraction": 0.0, "early_stopping_patience": None, "train_origins": None,
}  # fmt: skip
TAKE, STEP, TRAIN_SHARE = "131_02", 4, 0.7  # BVH take, subsampling, share used for fitting
CONTEXT, HORIZON, ORIGIN_EVERY = 30, 15, 5  # 1 s observed, 0.5 s forecast at 30 fps
GRU_BVH = dict(
    context_length=CONTEXT, horizon=HORIZON, hidden_size=64, residual=True, max_epochs=30,
    dropout=0.0, horizon_weight=None,  # as pictured, before the "auto" defaults of residual
    validation_fraction=0.0, early_stopping_patience=None, random_state=0, device="cpu",
)  # fmt: skip


# ------------------------------------------------------------------ exp-map benchmark
def expmap_figures(bench: MotionBenchmark, with_model: bool) -> tuple[str, list[Path]]:
    """Score the forecasts, draw one PNG per action; return a markdown block and the PNGs."""
    preds = {
        "zero velocity": zero_velocity(bench),
        "constant velocity": full_vectors(constant_velocity(bench), bench),
    }
    fit_note = ""
    if with_model:
        start = time.perf_counter()
        model = build("gru", BEST_FIRST, 0, BEST_SECOND).fit(bench.train)
        fit_s = time.perf_counter() - start
        name = "GRU residual + difference (best)"
        preds[name] = full_vectors(forecast_windows(model, bench, history="sequence"), bench)
        fit_note = f" Fit: {fit_s:.0f} s on one core (four networks)."
    scores = {m: score_windows(p, bench) for m, p in preds.items()}
    mean = pd.DataFrame({m: s.mean() for m, s in scores.items()}).T
    mean.index.name = "model"
    per = pd.concat(scores, names=["model", "action"]).swaplevel()
    per = per.sort_index(level=0, sort_remaining=False)
    per.index = [f"{a} / {m}" for a, m in per.index]
    per.index.name = "action / model"
    print(mean.to_markdown(floatfmt=".3f"), flush=True)

    pos = [bench.all_columns.index(c) for c in bench.columns]
    paths = []
    for action, truth in bench.truth.items():
        window = truth[0][:, pos]  # first test window, modelled channels (75, C)
        observed, future = window[:OBSERVED], window[OBSERVED:]
        forecasts = {m: p[action][0][:, pos] for m, p in preds.items()}
        path = plot_joint_angles(
            observed,
            future,
            forecasts,
            FIG_DIR / f"angles_{action}.png",
            columns=bench.columns,
            unit="exp-map",
            title=f"{action}: test window 1 of 8 (start frame {bench.starts[action][0]})",
        )
        paths.append(path)
    block = [
        "### Exp-map benchmark: joint-angle curves",
        "Mean Euler-angle error over the 6 test actions (radians; the protocol of the tables "
        "above). Constant velocity is the last observed frame plus k times the last frame "
        "difference in the modelled channels. The model is the best configuration of the "
        "motion results (seed 0): `EnsembleForecaster` of `GRUForecaster(context_length=50, "
        "horizon=25, hidden_size=128, residual=True, n_ensemble=3)` and a GRU "
        "of the same size with `target_transform='difference'` (15 epochs, cosine schedule), "
        "chosen on the validation split." + fit_note,
        mean.to_markdown(floatfmt=".3f"),
        "<details><summary>Per action</summary>\n\n"
        + per.to_markdown(floatfmt=".3f")
        + "\n\n</details>",
        "Each picture: the first of the 8 test windows of an action, the 4 modelled channels "
        "that move most in it (exp-map components, 40 ms per frame, 0 = last observed frame).",
    ]
    block += [f"![{p.stem}](cmu_mocap/{p.name})" for p in paths]
    return "\n\n".join(block), paths


# ---------------------------------------------------------------------------- BVH take
def bvh_series(motion: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Moving channels with rotations unwrapped (no 360-degree jumps between frames)."""
    out = motion[columns].copy()
    rot = [c for c in columns if c.endswith("rotation")]
    out[rot] = np.unwrap(out[rot].to_numpy(), period=360.0, axis=0)
    return out


def bvh_figure(data_dir: Path) -> tuple[str, Path]:
    """Fit on the take's first part, forecast the rest; a strip and an error table."""
    bvh = read_bvh(data_dir / "cmu_mocap_bvh_sample" / f"{TAKE}.bvh.gz")
    full = bvh.motion
    n_train = int(TRAIN_SHARE * len(full))
    moving = [c for c in full.columns if full.iloc[:n_train][c].std() > 1e-6]
    phases = {p: bvh_series(full.iloc[p:n_train:STEP], moving) for p in range(STEP)}
    test = bvh_series(full.iloc[::STEP], moving)  # phase 0, whole take (same unwrapping)
    first_unseen = len(full.iloc[:n_train:STEP])  # first subsampled frame after training

    start = time.perf_counter()
    model = GRUForecaster(**GRU_BVH).fit(phases)
    fit_s = time.perf_counter() - start
    cv = ConstantVelocity().fit(phases)
    origins_pos = np.arange(max(first_unseen - 1, CONTEXT - 1), len(test) - HORIZON, ORIGIN_EVERY)
    origins = test.index[origins_pos]
    preds = {}
    for name, est in [("GRU (residual)", model), ("constant velocity", cv)]:
        long = est.predict_origins(test, origins, horizon=HORIZON)
        preds[name] = long[moving].to_numpy().reshape(len(origins), HORIZON, len(moving))
    last = test.to_numpy()[origins_pos]  # (N, C)
    preds["zero velocity"] = np.repeat(last[:, None], HORIZON, axis=1)

    # joint positions: forecast channels into full frames (constant channels as observed)
    constant = full.iloc[::STEP].drop(columns=moving)

    def positions(values: np.ndarray, at: np.ndarray) -> np.ndarray:
        """(N, H, C) channel values at frame positions ``at`` (N, H) -> (N, H, P, 3)."""
        frame = pd.DataFrame(values.reshape(-1, len(moving)), columns=moving)
        frame[list(constant.columns)] = constant.to_numpy()[at.ravel()]
        pos = forward_kinematics(bvh.joints, frame, end_sites=True)
        return pos.reshape(*values.shape[:2], *pos.shape[1:])

    target_at = origins_pos[:, None] + np.arange(1, HORIZON + 1)  # (N, H)
    truth_pos = positions(test.to_numpy()[target_at], target_at)
    errors = {}
    for name, values in preds.items():
        fc_pos = positions(values, target_at)
        errors[name] = np.linalg.norm(fc_pos - truth_pos, axis=-1).mean(axis=(0, 2))  # (H,)
    steps = [3, 6, 9, 15]  # 100, 200, 300, 500 ms
    table = pd.DataFrame(
        {n: [e[s - 1] for s in steps] + [e.mean()] for n, e in errors.items()},
        index=[f"{round(s * 1000 * STEP / 120)} ms" for s in steps] + ["mean 1-15"],
    ).T
    table.index.name = "forecast"
    print(table.to_markdown(floatfmt=".2f"), flush=True)

    # the strip: the origin where the hips move fastest over the forecast
    hips = truth_pos[:, :, 0, :]  # (N, H, 3)
    k = int(np.argmax(np.linalg.norm(hips[:, -1] - hips[:, 0], axis=-1)))
    observed_at = np.arange(origins_pos[k] - CONTEXT + 1, origins_pos[k] + 1)[None, :]
    observed_pos = positions(test.to_numpy()[observed_at], observed_at)[0]
    walk = hips[k, -1] - hips[k, 0]
    azimuth = float(np.degrees(np.arctan2(walk[2], walk[0])))  # screen x along the walk
    shown = {n: positions(preds[n][k : k + 1], target_at[k : k + 1])[0] for n in preds}
    path = plot_stick_figures(
        observed_pos,
        truth_pos[k],
        {"zero velocity": shown["zero velocity"], "GRU (residual)": shown["GRU (residual)"]},
        skeleton_parents(bvh.joints, end_sites=True),
        FIG_DIR / f"stick_{TAKE}.png",
        observed_frames=3,
        forecast_frames=[2, 5, 9, 14],
        azimuth=azimuth,
        frame_ms=1000 * STEP / 120,
        title=f"CMU {TAKE} (start, walk, stop), 30 fps: black truth, colour forecasts",
    )
    n_ends = sum(j.end_site is not None for j in bvh.joints)
    block = [
        "### BVH take: stick figures",
        f"`{TAKE}.bvh.gz`, every {STEP}th frame (30 fps), {len(moving)} moving channels "
        f"(rotations unwrapped). A residual GRU (`GRUForecaster(context_length={CONTEXT}, "
        f"horizon={HORIZON}, hidden_size=64, residual=True, max_epochs=30, random_state=0)`, "
        f"no validation split) is fitted on the first {TRAIN_SHARE:.0%} of the take, given as "
        f"its {STEP} phase-shifted subsamplings ({fit_s:.0f} s on one core); it forecasts "
        f"{HORIZON} frames (0.5 s) from {len(origins)} origins every {ORIGIN_EVERY} frames "
        "whose targets lie in the remaining part. Mean per-joint position error "
        f"({len(bvh.joints)} joints and {n_ends} end sites, file units, forward kinematics of "
        "the file's skeleton):",
        table.to_markdown(floatfmt=".2f"),
        f"Strip: the origin where the hips travel furthest in the forecast (origin "
        f"{k + 1} of {len(origins)}), seen from the side of the walk; the last observed "
        "panels are the input, the shaded panels overlay the truth (black) and forecasts.",
        f"![{path.stem}](cmu_mocap/{path.name})",
    ]
    return "\n\n".join(block), path


def write_section(text: str, path: Path) -> None:
    """Replace (or append) the figures section at the end of the results file."""
    old = path.read_text() if path.exists() else ""
    begin = old.find(FIGURES_BEGIN)
    kept = old if begin < 0 else old[:begin]
    section = f"{FIGURES_BEGIN}\n\n## Pictures\n\n{text}\n\n{FIGURES_END}\n"
    path.write_text(kept.rstrip("\n") + "\n\n" + section)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-model", action="store_true", help="exp-map: baselines only")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--output", default=str(RESULTS / "cmu_mocap.md"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    bench = load_motion_benchmark(args.data_dir)
    expmap_block, _ = expmap_figures(bench, with_model=not args.no_model)
    bvh_block, _ = bvh_figure(resolve_data_dir(args.data_dir))
    command = "python experiments/cmu_mocap_figures.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    head = f"`{command.strip()}`, torch {torch.__version__}, 1 thread; total "
    head += f"{time.perf_counter() - t0:.0f} s."
    write_section("\n\n".join([head, expmap_block, bvh_block]), Path(args.output))
    for png in sorted(FIG_DIR.glob("*.png")):
        print(f"{png.relative_to(RESULTS)}: {png.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
