"""3-D joint-position error of the CMU-mocap benchmark, and the protocol constants it shares.

The exp-map forecasts of :mod:`forecast.evaluation.motion` are turned into joint positions
with the literature's CMU skeleton (:func:`~forecast.datasets.cmu_joint_positions`, in
millimetres, global position and orientation removed) and scored as the 3-D papers score
their forecasts (LTD: ``main_cmu_3d.py`` ``test`` in ``wei-mao-2019/LearnTrajDep``; the
same in ``run/cmu_runner.py`` of ``Droliven/MSRGCN`` and ``main_cmu_3d.py`` of
``705062791/PGBIG``):

* per forecast frame, the Euclidean distance between true and forecast position of every
  one of the 38 joints, averaged over the 38 joints, then over the windows of an action;
* the joints 0, 1, 2, 7, 8 and 13 (root, hips, lower back: :data:`FIXED_JOINTS`) take
  the true position in the forecast, so they count as zero error but are still among the
  38 of the mean; the joints that sit on their parent (:data:`SAME_AS_PARENT`) count with
  their parent's error. The models of those papers predict the other 25 joints
  (:data:`PREDICTED_JOINTS`, their ``dim_used``);
* horizons 80, 160, 320, 400 and 1000 ms (forecast frames 2, 4, 8, 10 and 25).

Windows: by default the 8 windows per action (seeded draw, 50 observed frames) of the
Euler-angle protocol; LTD draws the same 8 windows (``load_data_cmu_3d``, test branch) but
its models see the last 10 observed frames only. MSR-GCN (``test_manner="all"``) and PGBIG
(``test_sample_num=-1``) score every window of the test files: ``windows="all"`` of
:func:`~forecast.evaluation.motion.load_motion_benchmark` does the same. Our ground truth
carries the training mean in the exp-map dimensions that are not modelled (the benchmark's
fill), where the papers use the raw test frames.

This module also holds the window lengths, horizons and the fill of forecasts
(:func:`full_vectors`), which :mod:`forecast.evaluation.motion` re-exports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from forecast.datasets.cmu_skeleton import (
    CMU_N_COLUMNS,
    FIXED_JOINTS,
    PREDICTED_JOINTS,
    SAME_AS_PARENT,
    cmu_joint_positions,
)

__all__ = [
    "FIXED_JOINTS",
    "FRAME_INDEX",
    "HORIZONS",
    "HORIZONS_MM",
    "HORIZONS_MS",
    "OBSERVED",
    "PREDICTED",
    "PREDICTED_JOINTS",
    "SAME_AS_PARENT",
    "full_forecast",
    "full_vectors",
    "joint_position_error",
    "score_windows_3d",
]

OBSERVED, PREDICTED = 50, 25
HORIZONS_MS = (80, 160, 320, 400, 1000)
#: Column names of the score tables.
HORIZONS = tuple(f"{ms} ms" for ms in HORIZONS_MS)
#: Names of the 3-D error columns of :func:`~forecast.evaluation.motion.motion_benchmark`.
HORIZONS_MM = tuple(f"{ms} ms mm" for ms in HORIZONS_MS)
_CHUNK = 256  # windows turned into joint positions at once
#: Index of each horizon's frame among the forecast frames (40 ms per frame).
FRAME_INDEX = (1, 3, 7, 9, 24)

# FIXED_JOINTS, SAME_AS_PARENT and PREDICTED_JOINTS are facts of the skeleton
# (forecast.datasets.cmu_skeleton), re-exported here where the protocol names them.


class _Benchmark(Protocol):
    """What the scoring reads of a :class:`~forecast.evaluation.motion.MotionBenchmark`."""

    truth: dict[str, np.ndarray]
    columns: list[str]
    all_columns: list[str]
    fill: np.ndarray


def full_vectors(pred: dict[str, np.ndarray], bench: _Benchmark) -> dict[str, np.ndarray]:
    """Put forecasts of the modelled channels into full exp-map vectors (the rest: ``fill``)."""
    pos = [bench.all_columns.index(c) for c in bench.columns]
    out = {}
    for action, p in pred.items():
        full = np.broadcast_to(bench.fill, (*p.shape[:2], len(bench.fill))).copy()
        full[..., pos] = p
        out[action] = full
    return out


def full_forecast(action: str, forecast: ArrayLike, bench: _Benchmark) -> np.ndarray:
    """Check the forecast of one action and return it as full vectors ``(8, 25, D)``.

    Parameters
    ----------
    action : str
        An action of ``bench``.
    forecast : array_like
        ``(8, 25, D)`` full vectors or ``(8, 25, C)`` modelled channels.
    bench : MotionBenchmark

    Returns
    -------
    ndarray of shape (n_windows, 25, D)
    """
    truth = bench.truth[action]
    values = np.asarray(forecast, dtype=float)
    if values.shape[-1] == len(bench.columns) != len(bench.all_columns):
        values = full_vectors({action: values}, bench)[action]
    expected = (truth.shape[0], PREDICTED, truth.shape[2])
    if values.shape != expected:
        raise ValueError(
            f"forecast of {action!r} has shape {values.shape}, expected {expected} or "
            f"{expected[:2] + (len(bench.columns),)} (modelled channels)"
        )
    return values


def joint_position_error(
    truth_xyz: ArrayLike, pred_xyz: ArrayLike, joints: Sequence[int] | None = None
) -> np.ndarray:
    """Mean per-joint position error per frame (the literature's 3-D error, "MPJPE").

    Parameters
    ----------
    truth_xyz, pred_xyz : array_like of shape (..., n_frames, n_joints, 3)
        Joint positions, any leading axes (windows).
    joints : sequence of int, optional
        Joints averaged over; default every joint (the CMU protocol averages over all 38,
        see the module notes).

    Returns
    -------
    ndarray of shape (n_frames,)
        Euclidean distance per joint, averaged over the joints and the leading axes, in
        the unit of the positions.
    """
    truth = np.asarray(truth_xyz, dtype=float)
    pred = np.asarray(pred_xyz, dtype=float)
    if truth.shape != pred.shape:
        raise ValueError(f"truth_xyz {truth.shape} and pred_xyz {pred.shape} differ in shape")
    if truth.ndim < 3 or truth.shape[-1] != 3:
        raise ValueError(
            f"positions must have shape (..., n_frames, n_joints, 3), got {truth.shape}"
        )
    dist = np.linalg.norm(truth - pred, axis=-1)  # (..., T, J)
    if joints is not None:
        chosen = [int(j) for j in joints]
        bad = [j for j in chosen if not 0 <= j < dist.shape[-1]]
        if bad or not chosen:
            raise ValueError(f"joints must be indices below {dist.shape[-1]}, got {list(joints)}")
        dist = dist[..., chosen]
    n_frames = dist.shape[-2]
    per_frame: np.ndarray = dist.mean(axis=-1).reshape(-1, n_frames).mean(axis=0)
    return per_frame


def score_windows_3d(pred: dict[str, np.ndarray], bench: _Benchmark) -> pd.DataFrame:
    """3-D joint-position error at 80/160/320/400/1000 ms, one row per action (mm).

    Parameters
    ----------
    pred : dict of str to ndarray
        Per action, ``(n_windows, 25, D)`` forecasts: full 117-value exp-map vectors or the
        modelled channels only (put into full vectors first).
    bench : MotionBenchmark
        A CMU benchmark (117 exp-map dimensions).

    Returns
    -------
    DataFrame
        Index ``action`` (the actions of ``pred``), columns :data:`HORIZONS`; the mean
        error over the 38 joints and the windows, in millimetres.
    """
    if len(bench.all_columns) != CMU_N_COLUMNS:
        raise ValueError(
            f"the 3-D error needs the {CMU_N_COLUMNS} CMU exp-map dimensions, the benchmark "
            f"has {len(bench.all_columns)}"
        )
    rows = {}
    for action, forecast in pred.items():
        full = full_forecast(action, forecast, bench)  # (n, 25, 117)
        total = np.zeros(PREDICTED)
        for start in range(0, len(full), _CHUNK):  # chunks bound the memory of every window
            part = slice(start, start + _CHUNK)
            truth = cmu_joint_positions(bench.truth[action][part, OBSERVED:])  # (k, 25, 38, 3)
            guess = cmu_joint_positions(full[part])
            guess[..., FIXED_JOINTS, :] = truth[..., FIXED_JOINTS, :]
            total += joint_position_error(truth, guess) * len(guess)
        rows[action] = (total / len(full))[list(FRAME_INDEX)]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(HORIZONS))
    table.index.name = "action"
    return table
