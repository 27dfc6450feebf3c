"""The CMU-mocap exp-map benchmark protocol: forecasts, scores and the whole run.

The protocol of Li et al. (2018), as later papers use it, on ``load("cmu-mocap")``:

* frames: every 2nd frame of the files (40 ms per step); 50 observed frames, 25 predicted;
* modelled channels: the dimensions that move in the training split (std >= 1e-4) minus the
  global translation and rotation (``root_*``, ``j0_*``), which the metric ignores (64 of the
  117 for CMU); one model is fitted on all training sequences (a dict of frames);
* windows: for each test file (one per action), ``numpy.random.RandomState(1234567890)``,
  re-seeded per action, draws 8 start frames ``idx = randint(0, n - 75)``; frames
  ``idx .. idx + 49`` are observed and ``idx + 50 .. idx + 74`` predicted (the reference
  code's ``get_test_batch``). ``windows="all"`` takes every start ``0 .. n - 75`` instead,
  as the 3-D results of MSR-GCN and PGBIG are averaged, and an int draws that many; the
  data side (:class:`MotionBenchmark`, the windows and their ground truth) lives in
  :mod:`forecast.evaluation.motion_data`, re-exported here;
* full 117-dimensional vectors are rebuilt as the reference ``unNormalizeData`` does: the
  dimensions that are not modelled carry the training mean, in the ground truth and in every
  forecast;
* error: :func:`~forecast.evaluation.metrics.euler_angle_error` of the 75 true frames against
  the 50 observed frames followed by the 25 forecast ones (its near-constant filter sees all
  75 frames, as in the reference), kept for the forecast frames 2/4/8/10/25 (80, 160, 320,
  400 and 1000 ms); the mean over the windows of an action, then over actions;
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
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

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
from forecast.evaluation.motion_data import (
    N_WINDOWS,
    MotionBenchmark,
    _check,
    _check_windows,
    action_of,
    draw_windows,
    load_motion_benchmark,
)
from forecast.evaluation.motion_data import SEED as SEED  # importable here, as before

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

_HISTORIES = ("window", "sequence")
_CHUNK = 256  # windows scored at once (every window of a take: over 1,000)


def zero_velocity(bench: MotionBenchmark) -> dict[str, np.ndarray]:
    """Repeat the last observed frame: action -> ``(n_windows, 25, D)``."""
    return {
        a: np.repeat(t[:, OBSERVED - 1 : OBSERVED], PREDICTED, axis=1)
        for a, t in bench.truth.items()
    }


def forecast_windows(
    model: Any, bench: MotionBenchmark, history: str = "window"
) -> dict[str, np.ndarray]:
    """Forecasts of a fitted estimator of the modelled channels: action -> ``(n_windows, 25, C)``.

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
        values = long[columns].to_numpy()  # (n_windows * 25, C), origin by origin
        out[action] = values.reshape(-1, PREDICTED, len(columns))
    return out


def score_windows(
    pred: dict[str, np.ndarray], bench: MotionBenchmark, std_threshold: float | None = 1e-4
) -> pd.DataFrame:
    """Euler-angle error at 80/160/320/400/1000 ms, one row per action (radians).

    Parameters
    ----------
    pred : dict of str to ndarray
        Per action, ``(n_windows, 25, D)`` forecasts: full vectors (``D`` = every dimension) or the
        modelled channels only (put into full vectors first).
    bench : MotionBenchmark
    std_threshold : float or None, default=1e-4
        The near-constant filter of :func:`~forecast.evaluation.metrics.euler_angle_error`
        (the reference code's); None keeps every dimension, as LTD's test code does.

    Returns
    -------
    DataFrame
        Index ``action`` (the actions of ``pred``), columns :data:`HORIZONS`.
    """
    rows = {}
    for action, forecast in pred.items():
        truth = bench.truth[action]
        full = full_forecast(action, forecast, bench)  # (W, 25, D), shape checked
        parts, sizes = [], []  # chunks of windows bound the memory of the angle arrays
        for lo in range(0, len(truth), _CHUNK):
            true = truth[lo : lo + _CHUNK]
            joined = np.concatenate([true[:, :OBSERVED], full[lo : lo + _CHUNK]], axis=1)
            error = euler_angle_error(true, joined, std_threshold=std_threshold)  # (75,)
            parts.append(error[OBSERVED:])  # (25,)
            sizes.append(len(true))
        per_frame = parts[0] if len(parts) == 1 else np.average(parts, axis=0, weights=sizes)
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
    windows: int | str = N_WINDOWS,
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
        A benchmark already loaded (then ``data_dir``, ``split`` and ``windows`` are not
        read).
    positions : bool, default=False
        Also score the 3-D joint-position error in millimetres
        (:func:`~forecast.evaluation.motion3d.score_windows_3d`; CMU's 117 dimensions).
    windows : int or "all", default=8
        Windows per action: that many seeded draws (8: the reference protocol) or
        ``"all"``, every window of the file (see :mod:`~forecast.evaluation.motion_data`).

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
    _check_windows(windows)
    if benchmark is None:
        benchmark = load_motion_benchmark(data_dir, split, windows)
    bench = benchmark
    chosen = chosen_actions(bench.actions, actions)
    _check("history", history, _HISTORIES)

    def score(model: Any) -> pd.DataFrame:
        pred = forecast_windows(model, bench, history)
        table = score_windows({a: pred[a] for a in chosen}, bench)
        if positions:
            mm = score_windows_3d({a: pred[a] for a in chosen}, bench)
            table = table.join(mm.set_axis(list(HORIZONS_MM), axis=1))
        return table

    return fit_seeds(estimator, bench.train, seeds, score)


def chosen_actions(every: list[str], actions: Iterable[str] | None) -> list[str]:
    """Return the actions to score: ``actions`` (checked against ``every``), or all of them."""
    chosen = every if actions is None else list(actions)
    unknown = [a for a in chosen if a not in every]
    if unknown or not chosen:
        raise ValueError(f"unknown actions {unknown or chosen}; the benchmark has {every}")
    return chosen


def fit_seeds(
    estimator: Any,
    train: Any,
    seeds: Sequence[int] | None,
    score: Callable[[Any], pd.DataFrame],
) -> pd.DataFrame:
    """Fit the estimator of each seed on ``train`` and score it: the rows of a benchmark.

    Parameters
    ----------
    estimator : estimator or callable
        Cloned per seed (``random_state`` set), or a function ``seed -> estimator``.
    train : dict of str to DataFrame
        The training takes.
    seeds : sequence of int or None
        One fit per seed; None: one fit of ``estimator`` as given.
    score : callable
        ``score(fitted) -> DataFrame`` indexed by action.

    Returns
    -------
    DataFrame
        ``score``'s rows per (``seed``, ``action``) with ``fit_seconds`` and ``fit_peak_mb``.
    """
    if seeds is not None and len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat, got {list(seeds)}")
    frames, peak = {}, PeakRSS()
    for seed in [None] if seeds is None else list(seeds):
        model = _build(estimator, seed)
        peak.start()
        start = time.perf_counter()
        model.fit(train)
        fit_seconds, fit_peak_mb = time.perf_counter() - start, peak.peak_mb()
        table = score(model)
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
