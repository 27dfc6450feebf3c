"""CMU mocap: stick figures of the motion preset's test forecasts, beside LTD's README errors.

Fits ``<Family>Forecaster(**MOTION_BEST, random_state=seed)`` (as
``experiments/cmu_mocap_sota.py`` does) on the training takes, forecasts the test windows,
turns truth and forecasts into joint positions (forward kinematics of the exp-map skeleton,
``forecast.datasets.cmu_joint_positions``) and draws, per action asked for, the strip of
one window: three observed poses, then the poses at 80/160/320/400/1000 ms, truth in black
and the forecast and zero velocity in colour. The title gives the window's errors next to
LTD's README means.

    python experiments/cmu_mocap_sota_figures.py --actions walking basketball   # docs/img
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from cmu_mocap_sota import LTD  # the script next to this one

from forecast.datasets import cmu_joint_positions
from forecast.datasets.cmu_skeleton import CMU_PARENTS
from forecast.evaluation.motion import (
    OBSERVED,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    zero_velocity,
)
from forecast.evaluation.motion3d import FRAME_INDEX
from forecast.evaluation.motion_plots import plot_stick_figures
from forecast.models import get_estimator
from forecast.models.presets import MOTION_BEST

OUT = Path(__file__).resolve().parents[1] / "docs" / "img"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", default="gru")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--actions", nargs="+", default=["walking", "basketball"])
    parser.add_argument("--window", type=int, default=0, help="which of the 8 windows")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    bench = load_motion_benchmark(args.data_dir)
    cls = get_estimator(args.family)
    model = cls(**MOTION_BEST, random_state=args.seed).fit(bench.train)
    ours = full_vectors(forecast_windows(model, bench), bench)
    still = zero_velocity(bench)
    k = args.window
    for action in args.actions:
        truth = cmu_joint_positions(bench.truth[action][k])  # (75, 38, 3)
        forecasts = {
            f"{args.family} preset": cmu_joint_positions(ours[action][k]),
            "zero velocity": cmu_joint_positions(still[action][k]),
        }
        error = np.linalg.norm(forecasts[f"{args.family} preset"] - truth[OBSERVED:], axis=-1)
        at = error.mean(axis=1)[list(FRAME_INDEX)]
        path = plot_stick_figures(
            truth[:OBSERVED],
            truth[OBSERVED:],
            forecasts,
            CMU_PARENTS,
            Path(args.out) / f"motion_sota_{action}.png",
            observed_frames=3,
            forecast_frames=list(FRAME_INDEX),
            frame_ms=40.0,
            title=(
                f"CMU {action}, test window {k}: black truth; mean joint error "
                f"{'/'.join(f'{v:.0f}' for v in at)} mm at 80/160/320/400/1000 ms "
                f"(LTD README angles {'/'.join(map(str, LTD))} rad)"
            ),
        )
        print(path)


if __name__ == "__main__":
    main()
