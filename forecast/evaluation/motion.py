"""The CMU-mocap exp-map benchmark protocol of the motion-prediction literature.

The protocol of Li et al. (2018), as later papers use it, on ``load("cmu-mocap")``:

* frames: every 2nd frame of the files (40 ms per step); 50 observed frames, 25 predicted;
* modelled channels: the dimensions that move in the training split (std >= 1e-4) minus the
  global translation and rotation (``root_*``, ``j0_*``), which the metric ignores (64 of the
  117 for CMU); one model is fitted on all training sequences (a dict of frames);
* windows: for each test file (one per action), ``numpy.random.RandomState(1234567890)``,
  re-seeded per action, draws 8 start frames ``idx = randint(0, n - 75)``; frames
  ``idx .. idx + 49`` are observed and ``idx + 50 .. idx + 74`` predicted (the reference
  code's ``get_test_batch``);
* full 117-dimensional vectors are rebuilt as the reference ``unNormalizeData`` does: the
  dimensions that are not modelled carry the training mean, in the ground truth and in every
  forecast;
* error: :func:`~forecast.evaluation.metrics.euler_angle_error` of the 75 true frames against
  the 50 observed frames followed by the 25 forecast ones (its near-constant filter sees all
  75 frames, as in the reference), kept for the forecast frames 2/4/8/10/25 (80, 160, 320,
  400 and 1000 ms); the mean over the 8 windows of an action, then over actions;
* 3-D error (``positions=True``): the mean per-joint position error in millimetres of the
  same windows, as :mod:`forecast.evaluation.motion3d` describes.

``split="validation"`` chooses settings without the test files: of each action's training
files the last one (highest number) is held out and its windows are drawn in the same way;
the model is fitted on the other training files (modelled channels and fill still from the
whole training split, so a setting chosen there applies unchanged to the test benchmark).

:func:`motion_benchmark` runs the whole protocol for an estimator; the steps are public for
experiments that change one of them (:func:`load_motion_benchmark`, :func:`forecast_windows`,
:func:`zero_velocity`, :func:`full_vectors`, :func:`score_windows`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
from sklearn.base import clone

from forecast.datasets import constant_columns, load
from forecast.evaluation.memory import PeakRSS
from forecast.evaluation.metrics import euler_angle_error
from forecast.evaluation.motion3d import (
    FRAME_INDEX,
    HORIZONS,
    HORIZONS_MM,
    HORIZONS_MS,
    OBSERVED,
    PREDICTED,
    full_forecast,
    full_vectors,
    score_windows_3d,
)

__all__ = [
    "HORIZONS",
    "HORIZONS_MM",
    "HORIZONS_MS",
    "OBSERVED",
    "PREDICTED",
    "MotionBenchmark",
    "action_of",
    "draw_windows",
    "forecast_windows",
    "full_vectors",
    "load_motion_benchmark",
    "motion_benchmark",
    "score_windows",
    "zero_velocity",
]

SEED = 1234567890  # the reference code's test seed
N_WINDOWS = 8  # windows per action
GLOBAL_COLUMNS = ("root_x", "root_y", "root_z", "j0_x", "j0_y", "j0_z")
_SPLITS, _HISTORIES = ("test", "validation"), ("window", "sequence")


def _check(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def action_of(key: str) -> str:
    """Return the action of a file key: ``"train/walking_3"`` -> ``"walking"``."""
    return key.split("/", 1)[1].rsplit("_", 1)[0]


def draw_windows(n_frames: int, n_windows: int = N_WINDOWS, seed: int = SEED) -> list[int]:
    """First frames of the reference code's windows of one sequence of ``n_frames`` frames.

    Parameters
    ----------
    n_frames : int
        Frames of the sequence (after subsampling); more than 75.
    n_windows : int, default=8
        Windows drawn.
    seed : int, default=1234567890
        Seed of ``numpy.random.RandomState``, re-seeded for every sequence.

    Returns
    -------
    list of int
        ``randint(0, n_frames - 75)`` drawn ``n_windows`` times.
    """
    if n_frames <= OBSERVED + PREDICTED:
        raise ValueError(f"a sequence of {n_frames} frames is too short for a window of 75 frames")
    rng = np.random.RandomState(seed)
    return [int(rng.randint(0, n_frames - OBSERVED - PREDICTED)) for _ in range(n_windows)]


@dataclass
class MotionBenchmark:
    """Training sequences and the benchmark windows with their ground truth.

    Attributes
    ----------
    train : dict of str to DataFrame
        Training sequences (file key -> frame of the modelled channels).
    test : dict of str to DataFrame
        The sequence the windows of each action are cut from (modelled channels).
    starts : dict of str to list of int
        First frame of each window, per action.
    truth : dict of str to ndarray
        Per action, the ``(8, 75, 117)`` exp-map ground truth of the windows, with the
        dimensions that are not modelled set to ``fill``.
    columns : list of str
        Modelled channels.
    all_columns : list of str
        Every exp-map dimension.
    fill : ndarray
        Training mean of every dimension (the value of those not modelled).
    """

    train: dict[str, pd.DataFrame]
    test: dict[str, pd.DataFrame]
    starts: dict[str, list[int]]
    truth: dict[str, np.ndarray]
    columns: list[str]
    all_columns: list[str]
    fill: np.ndarray

    @classmethod
    def from_frames(cls, frames: dict[str, pd.DataFrame], split: str = "test") -> MotionBenchmark:
        """Build the benchmark from sequences keyed ``"train/<action>_<n>"``/``"test/..."``.

        Parameters
        ----------
        frames : dict of str to DataFrame
            Exp-map sequences with all dimensions, as ``load("cmu-mocap")`` returns them.
        split : {"test", "validation"}
            Windows from the test files, or from the last training file of each action
            (held out of ``train``).

        Returns
        -------
        MotionBenchmark
        """
        _check("split", split, _SPLITS)
        train_full = {k: f for k, f in frames.items() if k.startswith("train/")}
        if not train_full:
            raise ValueError("no training sequence: keys must start with 'train/'")
        all_columns = list(next(iter(train_full.values())).columns)
        constant = set(constant_columns(train_full.values()))
        columns = [c for c in all_columns if c not in constant and c not in GLOBAL_COLUMNS]
        fill = pd.concat(list(train_full.values())).to_numpy().mean(axis=0)
        if split == "test":
            sources = {action_of(k): f for k, f in sorted(frames.items()) if k.startswith("test/")}
            held: set[str] = set()
        else:
            last = _last_files(list(train_full))
            sources, held = {a: train_full[k] for a, k in last.items()}, set(last.values())
        if not sources:
            raise ValueError(f"no sequence to draw {split} windows from")
        not_modelled = np.array([c not in columns for c in all_columns])
        test, starts, truth = {}, {}, {}
        for action, frame in sources.items():
            try:
                starts[action] = draw_windows(len(frame))
            except ValueError as err:
                raise ValueError(f"{split} sequence of {action!r}: {err}") from err
            values = frame.to_numpy().copy()
            values[:, not_modelled] = fill[not_modelled]
            test[action] = frame[columns]
            span = OBSERVED + PREDICTED
            truth[action] = np.stack([values[i : i + span] for i in starts[action]])
        train = {k: f[columns] for k, f in train_full.items() if k not in held}
        return cls(train, test, starts, truth, columns, all_columns, fill)

    @property
    def actions(self) -> list[str]:
        """Actions with windows, in order."""
        return list(self.truth)

    def origins(self, action: str) -> pd.DatetimeIndex:
        """Timestamps of the last observed frame of each window of ``action``."""
        frame = self.test[action]
        return cast(pd.DatetimeIndex, frame.index[[i + OBSERVED - 1 for i in self.starts[action]]])

    def windows(self) -> dict[str, pd.DataFrame]:
        """Return the 50 observed frames of each window, keyed ``"<action>/<k>"``."""
        return {
            f"{action}/{k}": self.test[action].iloc[start : start + OBSERVED]
            for action in self.actions
            for k, start in enumerate(self.starts[action])
        }


def _last_files(keys: list[str]) -> dict[str, str]:
    """Return the last training file of each action (highest file number), action -> key."""
    last: dict[str, str] = {}
    for key in sorted(keys, key=lambda k: (action_of(k), int(k.rsplit("_", 1)[1]))):
        last[action_of(key)] = key
    return last


def load_motion_benchmark(
    data_dir: str | Path | None = None, split: str = "test"
) -> MotionBenchmark:
    """Read the CMU exp-map files (every 2nd frame) and draw the benchmark windows.

    Parameters
    ----------
    data_dir : str or Path, optional
        Folder holding ``cmu_mocap_expmap/`` (see :func:`forecast.datasets.load`).
    split : {"test", "validation"}
        ``"validation"`` reads the training files only.

    Returns
    -------
    MotionBenchmark
    """
    _check("split", split, _SPLITS)
    options = {"split": "train"} if split == "validation" else {}
    return MotionBenchmark.from_frames(load("cmu-mocap", data_dir=data_dir, **options), split)


def zero_velocity(bench: MotionBenchmark) -> dict[str, np.ndarray]:
    """Repeat the last observed frame: action -> ``(8, 25, 117)``."""
    return {
        a: np.repeat(t[:, OBSERVED - 1 : OBSERVED], PREDICTED, axis=1)
        for a, t in bench.truth.items()
    }


def forecast_windows(
    model: Any, bench: MotionBenchmark, history: str = "window"
) -> dict[str, np.ndarray]:
    """Forecasts of a fitted estimator of the modelled channels: action -> ``(8, 25, C)``.

    Parameters
    ----------
    model : estimator
        Fitted on ``bench.train`` (or on frames of the same channels).
    bench : MotionBenchmark
    history : {"window", "sequence"}
        ``"window"``: each forecast sees its 50 observed frames only (one
        ``predict(horizon=25, history=windows)`` call for all windows), as the protocol
        has it. ``"sequence"``: ``predict_origins`` on the whole sequence, so a model may
        read frames before the window.

    Returns
    -------
    dict of str to ndarray
    """
    _check("history", history, _HISTORIES)
    columns = list(model.columns_)
    if history == "window":
        fc = model.predict(horizon=PREDICTED, history=bench.windows())
        return {
            a: np.stack([fc[f"{a}/{k}"][columns].to_numpy() for k in range(len(bench.starts[a]))])
            for a in bench.actions
        }
    out = {}
    for action in bench.actions:
        long = model.predict_origins(bench.test[action], bench.origins(action), PREDICTED)
        values = long[columns].to_numpy()  # (8 * 25, C), origin by origin
        out[action] = values.reshape(-1, PREDICTED, len(columns))
    return out


def score_windows(pred: dict[str, np.ndarray], bench: MotionBenchmark) -> pd.DataFrame:
    """Euler-angle error at 80/160/320/400/1000 ms, one row per action (radians).

    Parameters
    ----------
    pred : dict of str to ndarray
        Per action, ``(8, 25, D)`` forecasts: full vectors (``D`` = every dimension) or the
        modelled channels only (put into full vectors first).
    bench : MotionBenchmark

    Returns
    -------
    DataFrame
        Index ``action`` (the actions of ``pred``), columns :data:`HORIZONS`.
    """
    rows = {}
    for action, forecast in pred.items():
        truth = bench.truth[action]
        full = full_forecast(action, forecast, bench)  # (8, 25, D), shape checked
        joined = np.concatenate([truth[:, :OBSERVED], full], axis=1)  # (8, 75, D)
        per_frame = euler_angle_error(truth, joined)[OBSERVED:]  # (25,)
        rows[action] = per_frame[list(FRAME_INDEX)]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(HORIZONS))
    table.index.name = "action"
    return table


def motion_benchmark(
    estimator: Any,
    data_dir: str | Path | None = None,
    *,
    split: str = "test",
    actions: Iterable[str] | None = None,
    seeds: Sequence[int] | None = None,
    history: str = "window",
    benchmark: MotionBenchmark | None = None,
    positions: bool = False,
) -> pd.DataFrame:
    """Fit an estimator on the CMU-mocap training sequences and score it on the benchmark.

    Parameters
    ----------
    estimator : estimator or callable
        An unfitted estimator (cloned for every seed; ``random_state`` is set to the seed
        when it has that parameter), or a function ``seed -> estimator``.
    data_dir : str or Path, optional
        Folder holding ``cmu_mocap_expmap/``.
    split : {"test", "validation"}
        Score on the test windows or on validation windows cut from the training files
        (see the module notes).
    actions : iterable of str, optional
        Score these actions only (fitting still uses every training sequence).
    seeds : sequence of int, optional
        One fit per seed. Default: one fit of ``estimator`` as given (a function is
        called with 0).
    history : {"window", "sequence"}
        What each forecast may read (see :func:`forecast_windows`).
    benchmark : MotionBenchmark, optional
        A benchmark already loaded (then ``data_dir`` and ``split`` are not read).
    positions : bool, default=False
        Also score the 3-D joint-position error in millimetres
        (:func:`~forecast.evaluation.motion3d.score_windows_3d`; CMU's 117 dimensions).

    Returns
    -------
    DataFrame
        One row per (``seed``, ``action``), columns :data:`HORIZONS` (radians), with
        ``positions`` then :data:`HORIZONS_MM` (millimetres), then ``fit_seconds`` and
        ``fit_peak_mb`` (peak resident memory of the process during the fit,
        :class:`~forecast.evaluation.memory.PeakRSS`). The mean over actions of one seed is
        ``table.groupby("seed").mean()``.

    Examples
    --------
    >>> from forecast import Naive
    >>> table = motion_benchmark(Naive())  # the data folder  # doctest: +SKIP
    >>> table[list(HORIZONS)].mean().round(3).tolist()  # zero velocity  # doctest: +SKIP
    [0.406, 0.68, 1.153, 1.32, 1.841]
    """
    bench = benchmark if benchmark is not None else load_motion_benchmark(data_dir, split)
    chosen = bench.actions if actions is None else list(actions)
    unknown = [a for a in chosen if a not in bench.truth]
    if unknown or not chosen:
        raise ValueError(f"unknown actions {unknown or chosen}; the benchmark has {bench.actions}")
    _check("history", history, _HISTORIES)
    if seeds is not None and len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat, got {list(seeds)}")
    frames, peak = {}, PeakRSS()
    for seed in [None] if seeds is None else list(seeds):
        model = _build(estimator, seed)
        peak.start()
        start = time.perf_counter()
        model.fit(bench.train)
        fit_seconds, fit_peak_mb = time.perf_counter() - start, peak.peak_mb()
        pred = forecast_windows(model, bench, history)
        table = score_windows({a: pred[a] for a in chosen}, bench)
        if positions:
            mm = score_windows_3d({a: pred[a] for a in chosen}, bench)
            table = table.join(mm.set_axis(list(HORIZONS_MM), axis=1))
        label = model.get_params().get("random_state") if seed is None else seed
        frames[label] = table.assign(fit_seconds=fit_seconds, fit_peak_mb=fit_peak_mb)
    return pd.concat(frames, names=["seed", "action"])


def _build(estimator: Any, seed: int | None) -> Any:
    """Return the estimator of one seed: a clone (seeded where it can be) or ``factory(seed)``."""
    if not hasattr(estimator, "fit"):
        if callable(estimator):
            return estimator(0 if seed is None else seed)
        kind = type(estimator).__name__
        raise TypeError(f"estimator must be an estimator or a function seed -> estimator: {kind}")
    model = clone(estimator)
    if seed is not None and "random_state" in model.get_params():
        model.set_params(random_state=seed)
    return model
