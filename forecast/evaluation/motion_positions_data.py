"""The data of the CMU 3-D protocol: training takes as positions, windows, ground truth.

:class:`PositionBenchmark` holds what :mod:`forecast.evaluation.motion_positions` fits and
scores on; :func:`load_position_benchmark` reads it from the data folder. The protocol
(windows, error, means) is described in :mod:`forecast.evaluation.motion_positions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

from forecast.datasets import load
from forecast.datasets.cmu_positions import check_position_columns, position_columns
from forecast.datasets.cmu_skeleton import CMU_N_JOINTS, PREDICTED_JOINTS
from forecast.evaluation.motion_data import (
    OBSERVED,
    _check,
    _check_windows,
    _last_files,
    action_of,
    draw_windows,
)

__all__ = [
    "FRAME_INDEX_3D",
    "HORIZONS_3D",
    "HORIZONS_3D_MS",
    "OBSERVED_3D",
    "PREDICTED_3D",
    "PositionBenchmark",
    "load_position_benchmark",
]

OBSERVED_3D, PREDICTED_3D = 10, 25
SPAN_3D = OBSERVED_3D + PREDICTED_3D
HORIZONS_3D_MS = (80, 160, 320, 400, 560, 1000)
#: Column names of the 3-D score tables.
HORIZONS_3D = tuple(f"{ms} ms" for ms in HORIZONS_3D_MS)
#: Index of each horizon's frame among the 25 forecast frames.
FRAME_INDEX_3D = (1, 3, 7, 9, 13, 24)
_SPLITS = ("test", "validation")


@dataclass
class PositionBenchmark:
    """Training takes and the 3-D benchmark windows with their ground truth.

    Attributes
    ----------
    train : dict of str to DataFrame
        Training takes (file key -> the 25 predicted joints' positions, 75 columns).
    test : dict of str to DataFrame
        The take the windows of each action are cut from (the same 75 columns).
    starts : dict of str to list of int
        First frame of each 35-frame window (10 observed, 25 forecast), per action.
    truth : dict of str to ndarray
        Per action, ``(n_windows, 35, 38, 3)`` positions of every joint in the windows; with
        ``windows="all"`` a read-only view of the take (no copy per window).
    columns : list of str
        The modelled columns (:func:`~forecast.datasets.cmu_positions.position_columns`).
    """

    train: dict[str, pd.DataFrame]
    test: dict[str, pd.DataFrame]
    starts: dict[str, list[int]]
    truth: dict[str, np.ndarray]
    columns: list[str]

    @classmethod
    def from_frames(
        cls, frames: dict[str, pd.DataFrame], split: str = "test", windows: int | str = "all"
    ) -> PositionBenchmark:
        """Build the benchmark from takes of all 38 joints keyed ``"train/..."``/``"test/..."``.

        Parameters
        ----------
        frames : dict of str to DataFrame
            ``load("cmu-mocap", positions="all")``: 114 columns ``j0_pos_x .. j37_pos_z``.
        split : {"test", "validation"}
            Windows from the test takes, or from the last training take of each action
            (held out of ``train``).
        windows : int or "all", default="all"
            Every window at stride 1, or that many of LTD's seeded windows per take.

        Returns
        -------
        PositionBenchmark
        """
        _check("split", split, _SPLITS)
        count = _check_windows(windows)
        every = position_columns(range(CMU_N_JOINTS))
        for key, frame in frames.items():
            check_position_columns(list(frame.columns), f"take {key!r}")
            if list(frame.columns) != every:
                missing = [c for c in every if c not in frame.columns]
                raise ValueError(
                    f"take {key!r} must hold the positions of all 38 joints in order "
                    f"(positions='all'); missing {missing[:3]}"
                )
        train_full = {k: f for k, f in frames.items() if k.startswith("train/")}
        if not train_full:
            raise ValueError("no training take: keys must start with 'train/'")
        if split == "test":
            sources = {action_of(k): f for k, f in sorted(frames.items()) if k.startswith("test/")}
            held: set[str] = set()
        else:
            last = _last_files(list(train_full))
            sources, held = {a: train_full[k] for a, k in last.items()}, set(last.values())
        if not sources:
            raise ValueError(f"no take to cut {split} windows from")
        columns = position_columns(PREDICTED_JOINTS)
        test, starts, truth = {}, {}, {}
        for action, frame in sources.items():
            n = len(frame)
            try:
                if count == "all":
                    if n < SPAN_3D:
                        raise ValueError(f"{n} frames are fewer than a window of {SPAN_3D}")
                    starts[action] = list(range(n - SPAN_3D + 1))
                else:  # LTD's draw of 75-frame windows, of which the last 35 are read
                    starts[action] = [i + OBSERVED - OBSERVED_3D for i in draw_windows(n, count)]
            except ValueError as err:
                raise ValueError(f"{split} take of {action!r}: {err}") from err
            xyz = frame.to_numpy(dtype=float).reshape(n, CMU_N_JOINTS, 3)
            view = sliding_window_view(xyz, SPAN_3D, axis=0).transpose(0, 3, 1, 2)
            truth[action] = view if count == "all" else np.ascontiguousarray(view[starts[action]])
            test[action] = frame[columns]
        train = {k: f[columns] for k, f in train_full.items() if k not in held}
        return cls(train, test, starts, truth, columns)

    @property
    def actions(self) -> list[str]:
        """Actions with windows, in order."""
        return list(self.truth)

    @property
    def trained_actions(self) -> list[str]:
        """Actions with windows that also have a training take."""
        seen = {action_of(k) for k in self.train}
        return [a for a in self.actions if a in seen]

    def windows(self) -> dict[str, pd.DataFrame]:
        """Return the 10 observed frames of each window, keyed ``"<action>/<k>"``."""
        return {
            f"{action}/{k}": self.test[action].iloc[start : start + OBSERVED_3D]
            for action in self.actions
            for k, start in enumerate(self.starts[action])
        }


def load_position_benchmark(
    data_dir: str | Path | None = None, split: str = "test", windows: int | str = "all"
) -> PositionBenchmark:
    """Read the CMU takes as joint positions and cut the 3-D benchmark windows.

    Parameters
    ----------
    data_dir : str or Path, optional
        Folder holding ``cmu_mocap_expmap/`` (see :func:`forecast.datasets.load`).
    split : {"test", "validation"}
        ``"validation"`` reads the training takes only.
    windows : int or "all", default="all"
        Every window, or that many of LTD's seeded windows per take (see the module notes).

    Returns
    -------
    PositionBenchmark
    """
    _check("split", split, _SPLITS)
    _check_windows(windows)
    options = {"split": "train"} if split == "validation" else {}
    frames = load("cmu-mocap", data_dir=data_dir, positions="all", **options)
    return PositionBenchmark.from_frames(frames, split, windows)
