import copy

import numpy as np
import pandas as pd
import pytest

from forecast.datasets import (
    BvhJoint,
    forward_kinematics,
    read_bvh,
    skeleton_names,
    skeleton_parents,
)
from forecast.datasets.rotations import axis_rotmat

ROOT6 = ["Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"]
ROT3 = ["Zrotation", "Xrotation", "Yrotation"]


def toy(root_channels=ROOT6):
    """Hips (root at the origin), Spine 2 up, Head 1 above the spine, Arm 1 along x."""
    return [
        BvhJoint("Hips", None, (0.0, 0.0, 0.0), list(root_channels)),
        BvhJoint("Spine", "Hips", (0.0, 2.0, 0.0), list(ROT3)),
        BvhJoint("Head", "Spine", (0.0, 1.0, 0.0), [], end_site=(0.0, 0.5, 0.0)),
        BvhJoint("Arm", "Hips", (1.0, 0.0, 0.0), list(ROT3)),
    ]


def motion(rows, joints):
    """Frames from dicts {column: value}; unnamed channels are 0, root at (1, 2, 3)."""
    columns = [f"{j.name}_{c}" for j in joints for c in j.channels]
    base = {"Hips_Xposition": 1.0, "Hips_Yposition": 2.0, "Hips_Zposition": 3.0}
    data = [[{**base, **row}.get(c, 0.0) for c in columns] for row in rows]
    return pd.DataFrame(data, columns=columns)


def test_axis_rotations_quarter_turns():
    x, y, z = np.eye(3)
    q = np.pi / 2
    np.testing.assert_allclose(axis_rotmat("z", q) @ x, y, atol=1e-15)
    np.testing.assert_allclose(axis_rotmat("X", q) @ y, z, atol=1e-15)
    np.testing.assert_allclose(axis_rotmat("y", q) @ z, x, atol=1e-15)
    assert axis_rotmat("x", np.zeros((4, 2))).shape == (4, 2, 3, 3)
    with pytest.raises(ValueError, match="axis must be 'x', 'y' or 'z', got 'w'"):
        axis_rotmat("w", 0.0)


def test_hand_computed_quarter_turns_about_each_axis():
    joints = toy()
    frames = motion(
        [
            {},  # rest pose, translated to (1, 2, 3)
            {"Hips_Zrotation": 90},  # z: up (y) turns to -x
            {"Hips_Xrotation": 90},  # x: up turns to +z
            {"Hips_Yrotation": 90},  # y: up stays, +x (the arm) turns to -z
            {"Hips_Zrotation": 90, "Spine_Xrotation": 90},  # chained: spine's own x
        ],
        joints,
    )
    pos = forward_kinematics(joints, frames)
    assert pos.shape == (5, 4, 3)
    expected = np.array(
        [
            [[1, 2, 3], [1, 4, 3], [1, 5, 3], [2, 2, 3]],
            [[1, 2, 3], [-1, 2, 3], [-2, 2, 3], [1, 3, 3]],
            [[1, 2, 3], [1, 2, 5], [1, 2, 6], [2, 2, 3]],
            [[1, 2, 3], [1, 4, 3], [1, 5, 3], [1, 2, 2]],
            # spine at root + Rz(0, 2, 0); head: Rz @ Rx @ (0, 1, 0) = Rz @ (0, 0, 1) = +z
            [[1, 2, 3], [-1, 2, 3], [-1, 2, 4], [1, 3, 3]],
        ],
        dtype=float,
    )
    np.testing.assert_allclose(pos, expected, atol=1e-12)
    with_ends = forward_kinematics(joints, frames, end_sites=True)
    assert skeleton_names(joints, end_sites=True) == ["Hips", "Spine", "Head", "Arm", "Head_end"]
    assert skeleton_parents(joints, end_sites=True) == [-1, 0, 1, 0, 2]
    np.testing.assert_allclose(with_ends[:, :4], expected, atol=1e-12)
    np.testing.assert_allclose(with_ends[0, 4], [1, 5.5, 3])
    np.testing.assert_allclose(with_ends[2, 4], [1, 2, 6.5], atol=1e-12)


def test_rotation_order_follows_the_channels_line():
    rows = [{"Hips_Zrotation": 90, "Hips_Xrotation": 90}]
    zx = toy()  # Z then X: R = Rz @ Rx
    xz = toy(["Xposition", "Yposition", "Zposition", "Xrotation", "Zrotation", "Yrotation"])
    a = forward_kinematics(zx, motion(rows, zx))[0]
    b = forward_kinematics(xz, motion(rows, xz))[0]
    # Rz @ Rx: spine (0, 2, 0) -> (0, 0, 2) -> (0, 0, 2); arm (1, 0, 0) -> (1, 0, 0) -> (0, 1, 0)
    np.testing.assert_allclose(a[[1, 3]], [[1, 2, 5], [1, 3, 3]], atol=1e-12)
    # Rx @ Rz: spine (0, 2, 0) -> (-2, 0, 0) -> (-2, 0, 0); arm (1, 0, 0) -> (0, 1, 0) -> (0, 0, 1)
    np.testing.assert_allclose(b[[1, 3]], [[-1, 2, 3], [1, 2, 4]], atol=1e-12)


def test_array_input_in_file_order_equals_frame_input():
    joints = toy()
    frames = motion([{"Hips_Zrotation": 30, "Arm_Yrotation": -45, "Spine_Zrotation": 10}], joints)
    shuffled = frames[frames.columns[::-1]].assign(extra=7.0)  # order and extras do not matter
    expected = forward_kinematics(joints, frames)
    np.testing.assert_allclose(forward_kinematics(joints, shuffled), expected)
    np.testing.assert_allclose(forward_kinematics(joints, frames.to_numpy()), expected)


def test_bad_inputs_name_what_and_where_and_leave_inputs_alone():
    joints = toy()
    frames = motion([{}, {"Hips_Zrotation": 10}], joints)
    before, joints_before = frames.copy(), copy.deepcopy(joints)
    forward_kinematics(joints, frames, end_sites=True)
    pd.testing.assert_frame_equal(frames, before)
    assert joints == joints_before
    with pytest.raises(ValueError, match=r"lacks 1 channel column.*'Arm_Yrotation'"):
        forward_kinematics(joints, frames.drop(columns="Arm_Yrotation"))
    with pytest.raises(ValueError, match=r"shape \(n_frames, 12\).*got \(2, 11\)"):
        forward_kinematics(joints, frames.to_numpy()[:, :11])
    broken = frames.copy()
    broken.loc[1, "Spine_Xrotation"] = np.nan
    with pytest.raises(ValueError, match=r"non-finite value \(nan\) at frame 1, channel 'Spine_X"):
        forward_kinematics(joints, broken)
    with pytest.raises(TypeError, match="DataFrame or an ndarray, got list"):
        forward_kinematics(joints, frames.to_numpy().tolist())
    orphan = [*joints, BvhJoint("Hand", "Wrist", (0.0, 1.0, 0.0))]
    with pytest.raises(ValueError, match="'Hand' names parent 'Wrist', which does not come"):
        forward_kinematics(orphan, frames)
    with pytest.raises(ValueError, match="no joints"):
        forward_kinematics([], frames)


def test_cmu_sample_bones_keep_their_length_and_feet_reach_the_floor(data_dir):
    bvh = read_bvh(data_dir / "cmu_mocap_bvh_sample" / "131_01.bvh.gz")
    pos = forward_kinematics(bvh.joints, bvh.motion, end_sites=True)
    assert pos.shape == (994, 38, 3)
    parents = skeleton_parents(bvh.joints, end_sites=True)
    offsets = [j.offset for j in bvh.joints] + [j.end_site for j in bvh.joints if j.end_site]
    for child, parent in enumerate(parents):
        if parent < 0:
            continue
        length = np.linalg.norm(pos[:, child] - pos[:, parent], axis=1)  # (F,)
        np.testing.assert_allclose(length, np.linalg.norm(offsets[child]), rtol=0, atol=1e-9)
    # the root sits at its translation channels (offset 0 0 0)
    np.testing.assert_allclose(pos[:, 0], bvh.motion.iloc[:, :3].to_numpy(), atol=1e-12)
    # Y is up and the take is "start, walk, stop": in every frame the lowest point (a foot)
    # is on the floor, y within [-1, 2]; with the rotation order reversed it leaves it
    lowest = pos[..., 1].min(axis=1)
    assert lowest.min() > -1 and lowest.max() < 2
    reversed_order = copy.deepcopy(bvh.joints)
    for joint in reversed_order:
        joint.channels = joint.channels[:-3] + joint.channels[-3:][::-1]
    wrong = forward_kinematics(reversed_order, bvh.motion, end_sites=True)[..., 1].min(axis=1)
    assert wrong.max() > 5
