import numpy as np
import pytest

from forecast.datasets import cmu_joint_positions
from forecast.datasets.cmu_skeleton import (
    CMU_EXPMAP_COLUMNS,
    CMU_N_COLUMNS,
    CMU_OFFSET_SCALE,
    CMU_OFFSETS,
    CMU_PARENTS,
)

S = CMU_OFFSET_SCALE  # CMU units -> mm


def frame(**joints):
    """One zero frame with the exp-map triple of some joints set, ``j2=(0, 0, 1)``."""
    x = np.zeros(CMU_N_COLUMNS)
    for name, value in joints.items():
        x[list(CMU_EXPMAP_COLUMNS[int(name[1:])])] = value
    return x


def test_skeleton_tables():
    assert len(CMU_PARENTS) == 38 and CMU_OFFSETS.shape == (38, 3)
    assert CMU_PARENTS[0] == -1 and all(0 <= CMU_PARENTS[j] < j for j in range(1, 38))
    assert CMU_EXPMAP_COLUMNS[0] == (3, 4, 5) and CMU_EXPMAP_COLUMNS[37] == (114, 115, 116)
    assert not CMU_OFFSETS.flags.writeable
    # the reference's femur (joint 3) offset: 70 * (2.5972, -7.13576, 0)
    np.testing.assert_allclose(CMU_OFFSETS[3], [181.804, -499.5032, 0.0])
    zero = [j for j in range(38) if not CMU_OFFSETS[j].any()]
    assert zero == [0, 1, 7, 13, 16, 20, 24, 27, 29, 33, 36]


def test_rest_pose_is_the_cumulative_offsets():
    rest = cmu_joint_positions(np.zeros(CMU_N_COLUMNS))
    assert rest.shape == (38, 3)
    np.testing.assert_allclose(rest[0], 0.0)
    # knee (3) = hip (1, zero offset) + femur head (2) + femur (3), by hand
    np.testing.assert_allclose(
        rest[3], S * np.array([1.65674 + 2.5972, -1.80282 - 7.13576, 0.62477])
    )
    for j in range(1, 38):
        np.testing.assert_allclose(rest[j], rest[CMU_PARENTS[j]] + CMU_OFFSETS[j], atol=1e-12)
    # the global position and orientation (columns 0-5) are not used
    moved = np.zeros(CMU_N_COLUMNS)
    moved[:6] = [100.0, -20.0, 3.0, 0.4, -1.2, 2.0]
    np.testing.assert_allclose(cmu_joint_positions(moved), rest, atol=1e-12)


def test_a_quarter_turn_moves_the_children_by_hand():
    rest = cmu_joint_positions(np.zeros(CMU_N_COLUMNS))
    turned = cmu_joint_positions(frame(j2=(0.0, 0.0, np.pi / 2)))
    # the joint itself and everything outside its subtree stay
    np.testing.assert_allclose(turned[:3], rest[:3], atol=1e-12)
    np.testing.assert_allclose(turned[7:], rest[7:], atol=1e-12)
    # reference convention: child = joint + offset (a row) @ R, with
    # R = Rz(90 deg) = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]: the offset (a, b, c) becomes (b, -a, c)
    a, b = 2.5972, -7.13576
    np.testing.assert_allclose(turned[3], rest[2] + S * np.array([b, -a, 0.0]), atol=1e-9)
    a4, b4 = 2.49236, -6.84770
    np.testing.assert_allclose(turned[4], turned[3] + S * np.array([b4, -a4, 0.0]), atol=1e-9)
    # rotations compose down the chain: a quarter turn back at the knee undoes it below the knee
    back = cmu_joint_positions(frame(j2=(0.0, 0.0, np.pi / 2), j3=(0.0, 0.0, -np.pi / 2)))
    np.testing.assert_allclose(back[4] - back[3], CMU_OFFSETS[4], atol=1e-9)


def test_bone_lengths_survive_any_rotation():
    rng = np.random.default_rng(0)
    x = rng.normal(scale=1.5, size=(5, CMU_N_COLUMNS))
    xyz = cmu_joint_positions(x)
    parents = list(CMU_PARENTS[1:])
    bones = np.linalg.norm(xyz[:, 1:] - xyz[:, parents], axis=-1)  # (5, 37)
    np.testing.assert_allclose(
        bones, np.broadcast_to(np.linalg.norm(CMU_OFFSETS[1:], axis=1), (5, 37))
    )


def test_leading_axes():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 3, CMU_N_COLUMNS))
    xyz = cmu_joint_positions(x)
    assert xyz.shape == (2, 3, 38, 3)
    np.testing.assert_allclose(xyz[1, 2], cmu_joint_positions(x[1, 2]))
    assert cmu_joint_positions(x[:0]).shape == (0, 3, 38, 3)
    np.testing.assert_allclose(cmu_joint_positions(x[0].tolist()), xyz[0])


@pytest.mark.parametrize("shape", [(99,), (4, 116), ()])
def test_bad_shapes(shape):
    with pytest.raises(ValueError, match=r"expmap must have shape \(\.\.\., 117\)"):
        cmu_joint_positions(np.zeros(shape))
