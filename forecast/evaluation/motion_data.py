"""The data of the CMU-mocap benchmark: training sequences, benchmark windows, ground truth.

:class:`MotionBenchmark` holds what :mod:`forecast.evaluation.motion` fits and scores on;
:func:`load_motion_benchmark` reads it from the data folder, and
:meth:`MotionBenchmark.from_frames` builds it from frames already in memory. The protocol
notes (frames, modelled channels, error) are those of :mod:`forecast.evaluation.motion`;
this module cuts the windows:

* ``windows=8`` (the default, Li et al. 2018's reference code ``get_test_batch``): for each
  test file (one per action), ``numpy.random.RandomState(1234567890)``, re-seeded per
  action, draws 8 start frames ``idx = randint(0, n - 75)``; any other int draws that many
  with the same generator, so its first draws are those of the 8-window case;
* ``windows="all"`` (the 3-D protocol of MSR-GCN, ``test_manner="all"``, and PGBIG,
  ``test_sample_num=-1``): every start frame ``idx = 0 .. n - 75`` in order, ``n - 74``
  windows per action;
* frames ``idx .. idx + 49`` of a window are observed and ``idx + 50 .. idx + 74``
  predicted; the ground truth carries the training mean in the dimensions that are not
  modelled (the reference ``unNormalizeData``).

``split="validation"`` cuts the windows from the last training file of each action (highest
number) instead, and holds that file out of the training sequences.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from forecast.datasets import constant_columns, load
from forecast.evaluation.motion3d import OBSERVED, PREDICTED

__all__ = [
    "MotionBenchmark",
    "action_of",
    "draw_windows",
    "load_motion_benchmark",
]

SEED = 1234567890  # the reference code's test seed
N_WINDOWS = 8  # windows per action
SPAN = OBSERVED + PREDICTED  # frames of a window
GLOBAL_COLUMNS = ("root_x", "root_y", "root_z", "j0_x", "j0_y", "j0_z")
_SPLITS = ("test", "validation")


def _check(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def _check_windows(windows: object) -> int | str:
    """Return ``windows`` as a positive int or ``"all"``; raise ValueError otherwise."""
    if isinstance(windows, str) and windows == "all":
        return "all"
    if isinstance(windows, numbers.Integral) and not isinstance(windows, bool):
        if int(windows) > 0:
            return int(windows)
    raise ValueError(f"windows must be a positive int or 'all', got {windows!r}")


def action_of(key: str) -> str:
    """Return the action of a file key: ``"train/walking_3"`` -> ``"walking"``."""
    return key.split("/", 1)[1].rsplit("_", 1)[0]


def draw_windows(n_frames: int, n_windows: int | str = N_WINDOWS, seed: int = SEED) -> list[int]:
    """First frames of the benchmark windows of one sequence of ``n_frames`` frames.

    Parameters
    ----------
    n_frames : int
        Frames of the sequence (after subsampling): more than 75 for a seeded draw, at
        least 75 for ``"all"``.
    n_windows : int or "all", default=8
        Windows drawn (the reference code's draw), or ``"all"``: every start frame.
    seed : int, default=1234567890
        Seed of ``numpy.random.RandomState``, re-seeded for every sequence (not used by
        ``"all"``).

    Returns
    -------
    list of int
        ``randint(0, n_frames - 75)`` drawn ``n_windows`` times, or ``0 .. n_frames - 75``.
    """
    count = _check_windows(n_windows)
    if isinstance(count, str):  # "all"
        if n_frames < SPAN:
            raise ValueError(f"a sequence of {n_frames} frames is shorter than a window of 75")
        return list(range(n_frames - SPAN + 1))
    if n_frames <= SPAN:
        raise ValueError(f"a sequence of {n_frames} frames is too short for a window of 75 frames")
    rng = np.random.RandomState(seed)
    return [int(rng.randint(0, n_frames - SPAN)) for _ in range(count)]


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
        Per action, the ``(n_windows, 75, D)`` exp-map ground truth of the windows (``D``
        every dimension, 117 for CMU), with the dimensions that are not modelled set to
        ``fill``. With ``windows="all"`` a read-only view of the filled sequence (no copy
        per window); otherwise an array of its own.
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
    def from_frames(
        cls, frames: dict[str, pd.DataFrame], split: str = "test", windows: int | str = N_WINDOWS
    ) -> MotionBenchmark:
        """Build the benchmark from sequences keyed ``"train/<action>_<n>"``/``"test/..."``.

        Parameters
        ----------
        frames : dict of str to DataFrame
            Exp-map sequences with all dimensions, as ``load("cmu-mocap")`` returns them.
        split : {"test", "validation"}
            Windows from the test files, or from the last training file of each action
            (held out of ``train``).
        windows : int or "all", default=8
            Windows per action: that many seeded draws (8: the reference protocol), or
            ``"all"``: every start frame ``0 .. n - 75`` (see the module notes).

        Returns
        -------
        MotionBenchmark
        """
        _check("split", split, _SPLITS)
        count = _check_windows(windows)
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
                starts[action] = draw_windows(len(frame), count)
            except ValueError as err:
                raise ValueError(f"{split} sequence of {action!r}: {err}") from err
            values = frame.to_numpy().copy()  # (n, D)
            values[:, not_modelled] = fill[not_modelled]
            test[action] = frame[columns]
            every = sliding_window_view(values, SPAN, axis=0).transpose(0, 2, 1)  # (n-74, 75, D)
            # "all": the read-only view itself; a draw: a copy of its windows
            truth[action] = every if count == "all" else np.ascontiguousarray(every[starts[action]])
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
    data_dir: str | Path | None = None, split: str = "test", windows: int | str = N_WINDOWS
) -> MotionBenchmark:
    """Read the CMU exp-map files (every 2nd frame) and cut the benchmark windows.

    Parameters
    ----------
    data_dir : str or Path, optional
        Folder holding ``cmu_mocap_expmap/`` (see :func:`forecast.datasets.load`).
    split : {"test", "validation"}
        ``"validation"`` reads the training files only.
    windows : int or "all", default=8
        Windows per action: that many seeded draws, or every window (see the module notes).

    Returns
    -------
    MotionBenchmark
    """
    _check("split", split, _SPLITS)
    _check_windows(windows)  # before reading the files
    options = {"split": "train"} if split == "validation" else {}
    frames = load("cmu-mocap", data_dir=data_dir, **options)
    return MotionBenchmark.from_frames(frames, split, windows)
