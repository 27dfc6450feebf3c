"""Datasets: readers for power-load and motion-capture files, and the dataset catalogue.

Readers return pandas frames on a regular ``DatetimeIndex`` (UTC for power load) with
numeric columns only; metadata (bidding zones, gap report, frame rate) is in ``df.attrs``.
Rotation conversions for exp-map data are in :mod:`forecast.datasets.rotations`, forward
kinematics of BVH skeletons (joint positions) in :mod:`forecast.datasets.kinematics`.
"""

from forecast.datasets.bvh import BvhData, BvhJoint, read_bvh
from forecast.datasets.catalogue import DATASETS, list_datasets, load, resolve_data_dir
from forecast.datasets.cmu_positions import check_position_columns, position_columns
from forecast.datasets.cmu_skeleton import cmu_joint_positions
from forecast.datasets.entsoe import read_entsoe
from forecast.datasets.fetch import download, fetch
from forecast.datasets.gaps import find_gaps, missing_runs
from forecast.datasets.germany import german_load
from forecast.datasets.kinematics import forward_kinematics, skeleton_names, skeleton_parents
from forecast.datasets.mocap import constant_columns, expmap_columns, read_expmap
from forecast.datasets.opsd import read_opsd
from forecast.datasets.smard import read_smard
from forecast.datasets.weather import read_de_weather, read_dwd_daily

__all__ = [
    "DATASETS",
    "BvhData",
    "BvhJoint",
    "check_position_columns",
    "cmu_joint_positions",
    "constant_columns",
    "download",
    "expmap_columns",
    "fetch",
    "find_gaps",
    "forward_kinematics",
    "german_load",
    "list_datasets",
    "load",
    "missing_runs",
    "position_columns",
    "read_bvh",
    "read_de_weather",
    "read_dwd_daily",
    "read_entsoe",
    "read_expmap",
    "read_opsd",
    "read_smard",
    "resolve_data_dir",
    "skeleton_names",
    "skeleton_parents",
]
