import numpy as np
import pytest

from forecast.datasets.rotations import (
    euler_to_rotmat,
    expmap_to_euler,
    expmap_to_rotmat,
    rotmat_to_euler,
    rotmat_to_expmap,
)

HALF_PI = np.pi / 2


def reference_rotmat2euler(R):
    """Scalar transcription of the benchmark's rotmat2euler (non-gimbal branch)."""
    e2 = -np.arcsin(R[0, 2])
    e1 = np.arctan2(R[1, 2] / np.cos(e2), R[2, 2] / np.cos(e2))
    e3 = np.arctan2(R[0, 1] / np.cos(e2), R[0, 0] / np.cos(e2))
    return np.array([e1, e2, e3])


def random_expmaps(n, seed=0, max_angle=np.pi):
    rng = np.random.default_rng(seed)
    axis = rng.standard_normal((n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    return axis * rng.uniform(0, max_angle, n)[:, None]


def test_identity():
    assert np.allclose(expmap_to_rotmat(np.zeros(3)), np.eye(3))
    assert np.allclose(rotmat_to_expmap(np.eye(3)), 0)
    assert np.allclose(rotmat_to_euler(np.eye(3)), 0)
    assert np.allclose(euler_to_rotmat(np.zeros(3)), np.eye(3))


@pytest.mark.parametrize(
    "axis, expected",
    [
        (0, [[1, 0, 0], [0, 0, -1], [0, 1, 0]]),
        (1, [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]),
        (2, [[0, -1, 0], [1, 0, 0], [0, 0, 1]]),
    ],
)
def test_quarter_turn_about_each_axis(axis, expected):
    r = np.zeros(3)
    r[axis] = HALF_PI
    R = expmap_to_rotmat(r)
    assert np.allclose(R, expected, atol=1e-12)
    # active rotation: the next axis is carried onto the one after it
    e = np.eye(3)
    assert np.allclose(R @ e[(axis + 1) % 3], e[(axis + 2) % 3])
    assert np.allclose(rotmat_to_expmap(R), r)


def test_quarter_turn_euler_by_hand():
    # R = Rx(-E1) Ry(-E2) Rz(-E3): a +90 deg turn about x is E = (-pi/2, 0, 0)
    assert np.allclose(expmap_to_euler([HALF_PI, 0, 0]), [-HALF_PI, 0, 0])
    assert np.allclose(expmap_to_euler([0, 0, HALF_PI]), [0, 0, -HALF_PI])
    # a 90 deg turn about y is the gimbal case R[0, 2] = 1
    E = expmap_to_euler([0, HALF_PI, 0])
    assert np.allclose(E, [0, -HALF_PI, 0])
    assert np.allclose(euler_to_rotmat(E), expmap_to_rotmat([0, HALF_PI, 0]))


def test_small_angles_are_accurate():
    for angle in (1e-12, 1e-8, 1e-5):
        r = np.array([angle, -2 * angle, 0.5 * angle])
        K = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        R = expmap_to_rotmat(r)
        assert np.allclose(R, np.eye(3) + K + K @ K / 2, rtol=0, atol=1e-13)  # 2nd-order Taylor
        assert np.allclose(rotmat_to_expmap(R), r, rtol=1e-6, atol=1e-20)


@pytest.mark.parametrize("angle", [np.pi, np.pi - 1e-9, np.pi - 1e-4, 3.0])
def test_angles_near_pi_round_trip(angle):
    r = random_expmaps(200, seed=1)
    r = r / np.linalg.norm(r, axis=1, keepdims=True) * angle
    R = expmap_to_rotmat(r)
    back = rotmat_to_expmap(R)
    assert np.allclose(np.linalg.norm(back, axis=1), angle, atol=1e-9)
    assert np.allclose(expmap_to_rotmat(back), R, atol=1e-12)
    if angle < np.pi - 1e-6:  # unique below pi
        assert np.allclose(back, r, atol=1e-6)


def test_half_turn_by_hand():
    R = expmap_to_rotmat([0, 0, np.pi])
    assert np.allclose(R, np.diag([-1, -1, 1]), atol=1e-12)
    back = rotmat_to_expmap(R)
    assert np.allclose(np.abs(back), [0, 0, np.pi])


def test_round_trips_and_batch_shapes():
    r = random_expmaps(60, seed=2).reshape(5, 4, 3, 3)  # (..., 3) with leading dims (5, 4, 3)
    R = expmap_to_rotmat(r)
    assert R.shape == (5, 4, 3, 3, 3)
    assert np.allclose(R @ np.swapaxes(R, -1, -2), np.eye(3), atol=1e-12)
    assert np.allclose(np.linalg.det(R), 1)
    assert np.allclose(rotmat_to_expmap(R), r, atol=1e-9)
    E = rotmat_to_euler(R)
    assert E.shape == (5, 4, 3, 3)
    assert np.allclose(euler_to_rotmat(E), R, atol=1e-12)
    assert np.allclose(expmap_to_euler(r), E)


def test_matches_benchmark_rotmat2euler():
    R = expmap_to_rotmat(random_expmaps(300, seed=3))
    ours = rotmat_to_euler(R)
    ref = np.stack([reference_rotmat2euler(m) for m in R])
    assert np.allclose(ours, ref, atol=1e-12)


def test_euler_ranges():
    E = rotmat_to_euler(expmap_to_rotmat(random_expmaps(500, seed=4)))
    assert (np.abs(E[:, 1]) <= HALF_PI + 1e-12).all()
    assert (np.abs(E[:, [0, 2]]) <= np.pi + 1e-12).all()


def test_gimbal_lock_reproduces_matrix():
    for e1, e2 in [(0.3, HALF_PI), (-1.1, -HALF_PI)]:
        R = euler_to_rotmat([e1, e2, 0.0])
        R[0, 2] = np.sign(R[0, 2])  # exactly +-1
        E = rotmat_to_euler(R)
        assert E[2] == 0
        assert np.allclose(euler_to_rotmat(E), R, atol=1e-12)


def test_bad_shapes_raise():
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        expmap_to_rotmat(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"\(\.\.\., 3, 3\)"):
        rotmat_to_euler(np.zeros((3, 4)))
