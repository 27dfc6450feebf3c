import numpy as np
import pandas as pd
import pytest

from forecast.datasets import cmu_joint_positions, expmap_columns
from forecast.datasets.cmu_skeleton import CMU_OFFSETS, CMU_PARENTS
from forecast.evaluation.motion import MotionBenchmark, zero_velocity
from forecast.evaluation.motion3d import (
    FIXED_JOINTS,
    HORIZONS,
    OBSERVED,
    PREDICTED,
    PREDICTED_JOINTS,
    SAME_AS_PARENT,
    joint_position_error,
    score_windows_3d,
)

COLUMNS = expmap_columns(117)


def sequence(n, seed):
    """A CMU-sized exp-map sequence: the global motion wanders, the knee and an elbow turn."""
    rng = np.random.default_rng(seed)
    values = np.zeros((n, 117))
    values[:, :6] = rng.normal(size=(n, 6)).cumsum(axis=0) * 0.01
    t = np.arange(n)
    values[:, COLUMNS.index("j3_x")] = 0.2 + 0.01 * t
    values[:, COLUMNS.index("j22_z")] = -0.3 + 0.02 * t
    index = pd.date_range("1970-01-01", periods=n, freq="40ms", name="time")
    return pd.DataFrame(values, index=index, columns=COLUMNS)


def cmu_frames():
    out = {}
    for a, action in enumerate(("walking", "running")):
        for i, n in enumerate((120, 130), 1):
            out[f"train/{action}_{i}"] = sequence(n, seed=10 * a + i)
        out[f"test/{action}_1"] = sequence(100, seed=10 * a + 9)
    return out


@pytest.fixture(scope="module")
def bench():
    return MotionBenchmark.from_frames(cmu_frames())


def test_protocol_joints():
    assert len(PREDICTED_JOINTS) == 25  # node_n=75 of the reference GCN
    assert all(CMU_PARENTS[j] == p for j, p in SAME_AS_PARENT.items())
    assert all(not CMU_OFFSETS[j].any() for j in SAME_AS_PARENT)
    assert set(FIXED_JOINTS) | set(SAME_AS_PARENT) | set(PREDICTED_JOINTS) == set(range(38))


def test_joint_position_error_by_hand():
    truth = np.zeros((2, 3, 4, 3))  # (windows, frames, joints, xyz)
    assert joint_position_error(truth, truth).tolist() == [0.0, 0.0, 0.0]
    pred = truth.copy()
    pred[:, 1, 2] = [3.0, 4.0, 0.0]  # 5 mm at joint 2 of frame 1, in both windows
    pred[0, 2, 0] = [0.0, 0.0, 8.0]  # 8 mm at joint 0 of frame 2, first window only
    np.testing.assert_allclose(joint_position_error(truth, pred), [0.0, 5 / 4, 8 / 4 / 2])
    np.testing.assert_allclose(joint_position_error(truth, pred, joints=[2]), [0.0, 5.0, 0.0])
    np.testing.assert_allclose(joint_position_error(truth[0], pred[0]), [0.0, 5 / 4, 2.0])


def test_joint_position_error_bad_inputs():
    with pytest.raises(ValueError, match="differ in shape"):
        joint_position_error(np.zeros((3, 4, 3)), np.zeros((3, 5, 3)))
    with pytest.raises(ValueError, match=r"shape \(\.\.\., n_frames, n_joints, 3\)"):
        joint_position_error(np.zeros((3, 4, 2)), np.zeros((3, 4, 2)))
    with pytest.raises(ValueError, match=r"shape \(\.\.\., n_frames, n_joints, 3\)"):
        joint_position_error(np.zeros((4, 3)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="joints must be indices below 4"):
        joint_position_error(np.zeros((3, 4, 3)), np.zeros((3, 4, 3)), joints=[4])
    with pytest.raises(ValueError, match="joints must be indices below 4"):
        joint_position_error(np.zeros((3, 4, 3)), np.zeros((3, 4, 3)), joints=[])


def test_identical_forecast_scores_zero(bench):
    exact = {a: t[:, OBSERVED:] for a, t in bench.truth.items()}
    table = score_windows_3d(exact, bench)
    assert list(table.columns) == list(HORIZONS) and table.index.name == "action"
    assert list(table.index) == ["running", "walking"]
    np.testing.assert_allclose(table.to_numpy(), 0.0, atol=1e-9)
    # the modelled channels alone are put into full vectors first
    pos = [bench.all_columns.index(c) for c in bench.columns]
    assert bench.columns == ["j3_x", "j22_z"]
    short = {a: p[..., pos] for a, p in exact.items()}
    pd.testing.assert_frame_equal(score_windows_3d(short, bench), table)


def test_global_motion_does_not_count(bench):
    moved = {a: t[:, OBSERVED:].copy() for a, t in bench.truth.items()}
    for p in moved.values():
        p[..., :6] += [500.0, -3.0, 7.0, 0.5, 1.0, -2.0]
    np.testing.assert_allclose(score_windows_3d(moved, bench).to_numpy(), 0.0, atol=1e-9)


def test_a_half_turn_of_the_ankle_moves_the_toe_by_twice_its_bone(bench):
    pred = {a: t[:, OBSERVED:].copy() for a, t in bench.truth.items()}
    j5 = [COLUMNS.index(f"j5_{c}") for c in "xyz"]
    for p in pred.values():
        p[..., j5] = [np.pi, 0.0, 0.0]  # joint 6 (a leaf, offset (0, 0, 77.87)) flips
    toe = 2 * 70 * 1.11249  # mm
    table = score_windows_3d(pred, bench)
    np.testing.assert_allclose(table.to_numpy(), toe / 38, rtol=1e-9)  # mean over 38 joints


def test_zero_velocity_matches_positions_by_hand(bench):
    table = score_windows_3d(zero_velocity(bench), bench)
    truth = bench.truth["walking"]
    xyz = cmu_joint_positions(truth)  # (8, 75, 38, 3)
    last = xyz[:, OBSERVED - 1 : OBSERVED]
    dist = np.linalg.norm(xyz[:, OBSERVED:] - last, axis=-1).mean(axis=(0, 2))  # (25,)
    np.testing.assert_allclose(table.loc["walking"], dist[[1, 3, 7, 9, 24]])
    assert (table.to_numpy() > 0).all()
    assert (np.diff(table.to_numpy(), axis=1) > 0).all()  # the error grows with the horizon


def test_bad_inputs(bench):
    with pytest.raises(ValueError, match=r"forecast of 'walking' has shape \(8, 24, 117\)"):
        score_windows_3d({"walking": np.zeros((8, 24, 117))}, bench)
    with pytest.raises(ValueError, match=r"expected \(8, 25, 117\) or \(8, 25, 2\)"):
        score_windows_3d({"walking": np.zeros((8, PREDICTED, 5))}, bench)
    small = MotionBenchmark.from_frames(
        {k: f.iloc[:, :15] for k, f in cmu_frames().items()}
    )  # 4 joints only
    with pytest.raises(
        ValueError, match="needs the 117 CMU exp-map dimensions, the benchmark has 15"
    ):
        score_windows_3d(zero_velocity(small), small)
