"""The 3-D protocol of the CMU-mocap benchmark: forecasts of joint positions, scored in "mm".

The protocol the 3-D papers run (LTD's ``main_cmu_3d.py``, MSR-GCN's ``cmu_runner.py``,
PGBIG's ``main_cmu_3d.py``), on ``load("cmu-mocap", positions=...)``
(:mod:`forecast.datasets.cmu_positions`):

* data: the positions of the 38 CMU joints, every 2nd frame (40 ms a step), global position
  and orientation removed; models read and forecast the 25 joints that move relative to the
  root (75 columns ``j<k>_pos_x/y/z``), one model over all training takes;
* windows: 10 observed frames, 25 forecast. ``windows="all"`` (MSR-GCN ``test_manner="all"``,
  PGBIG ``test_sample_num=-1``): every 35-frame window of each test take at stride 1, start
  frames ``0 .. n - 35``. ``windows=8`` (LTD's test): per take,
  ``numpy.random.RandomState(1234567890)`` draws ``idx = randint(0, n - 75)`` eight times and
  the window is frames ``idx + 40 .. idx + 74`` (the last 10 of the 50 frames the angle
  protocol observes, then the same 25);
* error: per forecast frame, the Euclidean distance of each of the 38 joints, averaged
  over the 38; the 6 fixed joints (root, hips, lower back:
  :data:`~forecast.datasets.cmu_skeleton.FIXED_JOINTS`) take the true positions and the 7
  joints that sit on another (:data:`~forecast.datasets.cmu_skeleton.SAME_AS_PARENT`) the
  forecast of their twin, as their test code does; then the mean over the windows of an
  action, at 80, 160, 320, 400, 560 and 1000 ms (forecast frames 2, 4, 8, 10, 14, 25;
  nominal labels: the takes are 120 Hz and a step is 1/60 s, but the field calls it 40 ms
  and so do we);
* means: over the six actions with a test take (what the papers average) and over the five
  of them with training takes (washwindow has none in our copy of the data).

The truth is the forward kinematics of the raw test frames (every exp-map value), as theirs.
``split="validation"`` cuts the windows from the last training take of each action and fits
on the others, as :mod:`forecast.evaluation.motion_data` does for angles.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.datasets.cmu_positions import check_position_columns
from forecast.datasets.cmu_skeleton import PREDICTED_JOINTS, SAME_AS_PARENT
from forecast.evaluation.motion import chosen_actions, fit_seeds
from forecast.evaluation.motion3d import joint_position_error
from forecast.evaluation.motion_positions_data import (
    FRAME_INDEX_3D,
    HORIZONS_3D,
    HORIZONS_3D_MS,
    OBSERVED_3D,
    PREDICTED_3D,
    PositionBenchmark,
    load_position_benchmark,
)

__all__ = [
    "HORIZONS_3D",
    "HORIZONS_3D_MS",
    "OBSERVED_3D",
    "PREDICTED_3D",
    "PositionBenchmark",
    "action_means",
    "constant_velocity_positions",
    "forecast_positions",
    "load_position_benchmark",
    "position_benchmark",
    "score_positions",
    "step_errors",
    "step_weights",
    "zero_velocity_positions",
]

_CHUNK = 512  # windows scored at once


def _last_observed(bench: PositionBenchmark) -> dict[str, np.ndarray]:
    """Per action, the last two observed frames of the predicted joints ``(n, 2, 75)``."""
    out = {}
    for action in bench.actions:
        values = bench.test[action].to_numpy(dtype=float)
        idx = np.asarray(bench.starts[action]) + OBSERVED_3D - 1
        out[action] = np.stack([values[idx - 1], values[idx]], axis=1)
    return out


def zero_velocity_positions(bench: PositionBenchmark) -> dict[str, np.ndarray]:
    """Repeat the last observed frame: action -> ``(n_windows, 25, 75)``."""
    return {
        a: np.repeat(last[:, 1:], PREDICTED_3D, axis=1) for a, last in _last_observed(bench).items()
    }


def constant_velocity_positions(bench: PositionBenchmark) -> dict[str, np.ndarray]:
    """Last observed frame plus ``k`` times the last step: action -> ``(n_windows, 25, 75)``."""
    steps = np.arange(1, PREDICTED_3D + 1)[None, :, None]
    return {
        a: last[:, 1:] + steps * (last[:, 1:] - last[:, :1])
        for a, last in _last_observed(bench).items()
    }


def forecast_positions(model: Any, bench: PositionBenchmark) -> dict[str, np.ndarray]:
    """Forecasts of a fitted estimator for every window: action -> ``(n_windows, 25, 75)``.

    Each forecast reads the 10 observed frames of its window only (one
    ``predict(horizon=25, history=windows)`` call for all windows).

    Raises
    ------
    ValueError
        When the model was fitted on other columns than the benchmark's (angles, a missing
        joint or axis), naming the first column that differs.
    """
    columns = [str(c) for c in model.columns_]
    if columns != bench.columns:
        check_position_columns(columns, "the model's fitted columns")
        differ = next(
            (
                f"{c!r} where {b!r} is expected"
                for c, b in zip(columns, bench.columns, strict=False)
                if c != b
            ),
            f"{len(columns)} columns where {len(bench.columns)} are expected",
        )
        raise ValueError(
            f"the model was fitted on other columns than the benchmark's 25 joints: {differ}"
        )
    fc = model.predict(horizon=PREDICTED_3D, history=bench.windows())
    return {
        a: np.stack([fc[f"{a}/{k}"][columns].to_numpy() for k in range(len(bench.starts[a]))])
        for a in bench.actions
    }


def step_errors(pred: Mapping[str, np.ndarray], bench: PositionBenchmark) -> pd.DataFrame:
    """Mean per-joint position error at every forecast step, one row per action ("mm").

    Parameters
    ----------
    pred : mapping of str to ndarray
        Per action, ``(n_windows, 25, 75)`` forecasts of the 25 predicted joints.
    bench : PositionBenchmark

    Returns
    -------
    DataFrame
        Index ``action`` (the actions of ``pred``), columns the steps ``1 .. 25`` (40 ms
        each); :func:`score_positions` keeps the six of :data:`HORIZONS_3D`.

    Raises
    ------
    ValueError
        When a forecast has another shape than the action's windows, or a non-finite value.
    """
    rows = {}
    joints = list(PREDICTED_JOINTS)
    for action, forecast in pred.items():
        truth = bench.truth[action]
        values = np.asarray(forecast, dtype=float)
        expected = (truth.shape[0], PREDICTED_3D, 3 * len(joints))
        if values.shape != expected:
            raise ValueError(
                f"forecast of {action!r} has shape {values.shape}, expected {expected}"
            )
        if not np.isfinite(values).all():
            raise ValueError(f"forecast of {action!r} has non-finite values")
        total = np.zeros(PREDICTED_3D)
        for lo in range(0, len(values), _CHUNK):  # chunks bound the memory of every window
            true = truth[lo : lo + _CHUNK, OBSERVED_3D:]  # (k, 25, 38, 3)
            guess = np.array(true)  # fixed joints: the truth
            guess[..., joints, :] = values[lo : lo + _CHUNK].reshape(len(true), PREDICTED_3D, -1, 3)
            for joint, twin in SAME_AS_PARENT.items():
                guess[..., joint, :] = guess[..., twin, :]
            total += joint_position_error(true, guess) * len(true)
        rows[action] = total / len(values)
    table = pd.DataFrame.from_dict(rows, orient="index", columns=range(1, PREDICTED_3D + 1))
    table.index.name = "action"
    return table


def score_positions(pred: Mapping[str, np.ndarray], bench: PositionBenchmark) -> pd.DataFrame:
    """Mean per-joint position error at the six horizons, one row per action ("mm").

    Parameters
    ----------
    pred : mapping of str to ndarray
        Per action, ``(n_windows, 25, 75)`` forecasts of the 25 predicted joints.
    bench : PositionBenchmark

    Returns
    -------
    DataFrame
        Index ``action`` (the actions of ``pred``), columns :data:`HORIZONS_3D`.
    """
    table = step_errors(pred, bench).iloc[:, list(FRAME_INDEX_3D)]
    table.columns = pd.Index(list(HORIZONS_3D))
    return table


def step_weights(
    members: Mapping[str, Mapping[str, np.ndarray]],
    bench: PositionBenchmark,
    *,
    resolution: int = 20,
) -> list[list[float]]:
    """Per forecast step, the convex weights of several forecasts with the least error.

    Every weighting on a grid of ``1 / resolution`` (non-negative, summing to 1) is scored
    by :func:`step_errors`, averaged over the actions (as the protocol's means are); each
    step keeps the weighting with the least error there (the first on ties, in the order
    the grid is walked: the first member's weight falling from 1). Choose them on the
    validation split and pass them to ``EnsembleForecaster(weights=..., weights_by="step")``.

    Parameters
    ----------
    members : mapping of str to (mapping of str to ndarray)
        Per member, its forecasts as :func:`forecast_positions` returns them, every action
        of ``bench``.
    bench : PositionBenchmark
    resolution : int, default=20
        Grid steps between 0 and 1 (20: weights 0, 0.05, ... 1).

    Returns
    -------
    list of list of float
        25 rows (steps 1-25), each one weight per member in the order of ``members``.

    Examples
    --------
    >>> weights = step_weights({"gru": gru, "ltd": ltd}, bench)  # doctest: +SKIP
    >>> model = EnsembleForecaster(
    ...     [("gru", gru_model), ("ltd", ltd_model)], weights=weights, weights_by="step"
    ... )  # doctest: +SKIP
    """
    names = list(members)
    if not names:
        raise ValueError("members is empty: give the forecasts of at least one member")
    if not isinstance(resolution, int) or resolution < 1:
        raise ValueError(f"resolution must be a positive integer, got {resolution!r}")
    for name in names:
        missing = [a for a in bench.actions if a not in members[name]]
        if missing:
            raise ValueError(f"member {name!r} has no forecasts for the actions {missing}")
    stacked = {  # per action, (members, windows, steps, columns): converted once
        a: np.stack([np.asarray(members[n][a], dtype=float) for n in names]) for a in bench.actions
    }
    best = np.full(PREDICTED_3D, np.inf)
    chosen = np.zeros((PREDICTED_3D, len(names)))
    for counts in _compositions(resolution, len(names)):
        w = np.asarray(counts, dtype=float) / resolution
        blend = {a: np.tensordot(w, values, axes=1) for a, values in stacked.items()}
        error = step_errors(blend, bench).mean().to_numpy()
        better = error < best
        best[better] = error[better]
        chosen[better] = w
    return [[float(v) for v in row] for row in chosen]


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts`` non-negative integers summing to ``total``, first part first."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def action_means(table: pd.DataFrame, bench: PositionBenchmark) -> pd.DataFrame:
    """Average the actions: over every one and over those with training takes, per seed.

    Parameters
    ----------
    table : DataFrame
        Indexed by ``action`` or by (``seed``, ``action``), as :func:`score_positions` or
        :func:`position_benchmark` return it.
    bench : PositionBenchmark

    Returns
    -------
    DataFrame
        One row per (seed and) mean: ``"mean (N actions)"`` over every action of the table
        and ``"mean (M with training takes)"``.
    """
    if table.index.nlevels == 1:
        return action_means(pd.concat({0: table}, names=["seed"]), bench).droplevel("seed")
    trained = set(bench.trained_actions)
    parts = {}
    for seed, part in table.groupby(level="seed"):
        part = part.droplevel("seed")
        every: list[str] = [str(a) for a in part.index]
        with_takes = [a for a in every if a in trained]
        parts[seed] = pd.DataFrame(
            {
                f"mean ({len(every)} actions)": part.loc[every].mean(),
                f"mean ({len(with_takes)} with training takes)": part.loc[with_takes].mean(),
            }
        ).T
    return pd.concat(parts, names=["seed", "action"])


def position_benchmark(
    estimator: Any,
    data_dir: str | Path | None = None,
    *,
    split: str = "test",
    windows: int | str = "all",
    seeds: Sequence[int] | None = None,
    actions: Iterable[str] | None = None,
    benchmark: PositionBenchmark | None = None,
) -> pd.DataFrame:
    """Fit an estimator on the CMU training takes as positions and score the 3-D protocol.

    Parameters
    ----------
    estimator : estimator or callable
        An unfitted estimator (cloned for every seed; ``random_state`` set to the seed), or
        a function ``seed -> estimator``.
    data_dir : str or Path, optional
        Folder holding ``cmu_mocap_expmap/``.
    split : {"test", "validation"}
        Score on the test takes or on the held-out last training take of each action.
    windows : int or "all", default="all"
        Every window at stride 1, or that many of LTD's seeded windows (8) per take.
    seeds : sequence of int, optional
        One fit per seed; default one fit of ``estimator`` as given.
    actions : iterable of str, optional
        Score these actions only (fitting still uses every training take).
    benchmark : PositionBenchmark, optional
        Already loaded (then ``data_dir``, ``split`` and ``windows`` are not read).

    Returns
    -------
    DataFrame
        One row per (``seed``, ``action``): the error at :data:`HORIZONS_3D` ("mm"), then
        ``fit_seconds`` and ``fit_peak_mb``; :func:`action_means` adds the two means.

    Examples
    --------
    >>> from forecast import DCTMixerForecaster
    >>> from forecast.models import LTD_3D
    >>> table = position_benchmark(DCTMixerForecaster(**LTD_3D), seeds=[0])  # doctest: +SKIP
    """
    bench = benchmark or load_position_benchmark(data_dir, split, windows)
    chosen = chosen_actions(bench.actions, actions)

    def score(model: Any) -> pd.DataFrame:
        pred = forecast_positions(model, bench)
        return score_positions({a: pred[a] for a in chosen}, bench)

    return fit_seeds(estimator, bench.train, seeds, score)
