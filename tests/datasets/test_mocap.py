import gzip

import numpy as np
import pandas as pd
import pytest

from forecast.datasets import constant_columns, expmap_columns, read_expmap


def write_expmap(path, n_frames=10, n_columns=117, seed=0):
    rng = np.random.default_rng(seed)
    values = np.zeros((n_frames, n_columns))
    values[:, :6] = rng.standard_normal((n_frames, 6))  # global position and orientation
    values[:, 9:12] = rng.standard_normal((n_frames, 3))  # joint 2
    values[:, 12] = 0.25  # constant non-zero
    values[:, 0] = np.arange(n_frames)  # frame number in root_x
    text = "\n".join(",".join(f"{v:.8e}" for v in row) for row in values) + "\n"
    with gzip.open(path, "wt") as f:
        f.write(text)
    return values


def test_column_names():
    names = expmap_columns(117)
    assert names[:6] == ["root_x", "root_y", "root_z", "j0_x", "j0_y", "j0_z"]
    assert names[-1] == "j37_z" and len(names) == 117
    assert expmap_columns(99)[-1] == "j31_z"
    with pytest.raises(ValueError, match="3 \\+ 3 \\* n_joints"):
        expmap_columns(100)


def test_read_raw_and_benchmark_step(tmp_path):
    values = write_expmap(tmp_path / "walking_1.txt.gz", n_frames=11)
    raw = read_expmap(tmp_path / "walking_1.txt.gz")
    assert raw.shape == (11, 117) and raw.attrs["skeleton"] == "cmu"
    assert np.allclose(raw.to_numpy(), values)
    assert raw.index.freq == pd.Timedelta("20ms") and raw.attrs["frame_rate"] == 50.0
    sub = read_expmap(tmp_path / "walking_1.txt.gz", step=2)
    assert sub["root_x"].tolist() == [0, 2, 4, 6, 8, 10]
    assert sub.index.freq == pd.Timedelta("40ms") and sub.attrs["frame_rate"] == 25.0
    assert sub.index[0] == pd.Timestamp("1970-01-01") and sub.index.name == "time"
    physical = read_expmap(tmp_path / "walking_1.txt.gz", step=2, frame_rate=120)
    assert physical.attrs["frame_rate"] == 60.0
    # 1/60 s is not a whole number of nanoseconds: the step is rounded to the nanosecond
    assert abs(physical.index[3] - physical.index[0] - pd.Timedelta(seconds=0.05)) <= pd.Timedelta(
        3, "ns"
    )


def test_drop_options(tmp_path):
    write_expmap(tmp_path / "a.txt.gz", n_columns=99)
    no_global = read_expmap(tmp_path / "a.txt.gz", drop_global=True)
    assert no_global.columns[0] == "j1_x" and no_global.shape[1] == 93
    moving = read_expmap(tmp_path / "a.txt.gz", drop_constant=True)
    assert list(moving.columns) == expmap_columns(99)[:6] + ["j2_x", "j2_y", "j2_z"]
    both = read_expmap(tmp_path / "a.txt.gz", drop_constant=True, drop_global=True)
    assert list(both.columns) == ["j2_x", "j2_y", "j2_z"]
    explicit = read_expmap(tmp_path / "a.txt.gz", drop_constant=["j3_x"])
    assert "j3_x" not in explicit.columns and explicit.shape[1] == 98
    with pytest.raises(ValueError, match="unknown columns"):
        read_expmap(tmp_path / "a.txt.gz", drop_constant=["j99_x"])


def test_constant_columns_over_a_set():
    a = pd.DataFrame({"x": [1.0, 1.0], "y": [0.0, 0.0], "z": [2.0, 2.0]})
    b = pd.DataFrame({"x": [1.0, 1.0], "y": [0.0, 0.0], "z": [3.0, 3.0]})
    # z is constant within each frame but not across the set
    assert constant_columns([a, b]) == ["x", "y"]


def test_bad_input(tmp_path):
    (tmp_path / "b.txt").write_text("1,2,3,4,5,6\n1,2,x,4,5,6\n")
    with pytest.raises(ValueError, match="frame 1, column 2|could not convert"):
        read_expmap(tmp_path / "b.txt")
    with pytest.raises(ValueError, match="step"):
        read_expmap(tmp_path / "b.txt", step=0)


def test_real_cmu_walking(data_dir):
    path = data_dir / "cmu_mocap_expmap" / "train" / "walking" / "walking_1.txt.gz"
    raw = read_expmap(path)
    assert raw.shape == (344, 117)
    bench = read_expmap(path, step=2, drop_global=True)
    assert bench.shape == (172, 111)
    assert np.allclose(bench.to_numpy(), raw.to_numpy()[::2, 6:])
