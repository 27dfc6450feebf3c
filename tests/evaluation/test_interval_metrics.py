import numpy as np
import pytest

from forecast.evaluation import metrics as M
from forecast.frames.quantiles import central_pairs, check_levels, level_name, quantile_column

# Worked example: two actuals, three levels (0.1, 0.5, 0.9)
#   y = 5:  forecasts 4, 7, 10 -> d = y - q = 1, -2, -5
#           pinball: 0.1*1 = 0.1, 0.5*2 = 1.0, 0.1*5 = 0.5   -> mean 1.6/3
#   y = 12: forecasts 4, 7, 10 -> d = 8, 5, 2
#           pinball: 0.1*8 = 0.8, 0.5*5 = 2.5, 0.9*2 = 1.8   -> mean 5.1/3
#   pinball over both: (1.6 + 5.1) / 6 = 6.7/6; CRPS = 2 * that = 6.7/3
#   80 % interval [4, 10]: y=5 inside, y=12 outside by 2 -> coverage 0.5, width 6,
#   Winkler (alpha 0.2): (6 + (6 + 2/0.2 * 2)) / 2 = (6 + 26) / 2 = 16
Y = np.array([5.0, 12.0])
Q = np.array([[4.0, 7.0, 10.0], [4.0, 7.0, 10.0]])
LEVELS = (0.1, 0.5, 0.9)


def test_pinball_and_crps_hand_computed():
    assert M.pinball_loss(Y, Q, LEVELS) == pytest.approx(6.7 / 6)
    assert M.crps(Y, Q, LEVELS) == pytest.approx(6.7 / 3)
    # per observation (axis over the columns of a (2, 1) layout): 1.6/3 and 5.1/3
    per_row = M.pinball_loss(Y[:, None], Q[:, None], LEVELS, axis=1)
    np.testing.assert_allclose(per_row, [1.6 / 3, 5.1 / 3])
    # one level: forecasts of the shape of y_true
    assert M.pinball_loss(Y, Q[:, 2], 0.9) == pytest.approx((0.1 * 5 + 0.9 * 2) / 2)


def test_crps_of_the_median_alone_is_the_absolute_error():
    y = np.array([1.0, 2.0, 4.0])
    med = np.array([2.0, 2.0, 1.0])
    assert M.crps(y, med[:, None], (0.5,)) == pytest.approx(M.mae(y, med))


def test_crps_from_many_quantiles_approaches_the_closed_form_for_a_point_mass():
    # forecast distribution = point mass at 0, actual 1: CRPS = |1 - 0| = 1; every
    # quantile is 0, so mean_k 2 * tau_k * 1 = 2 * mean(tau) = 1 for symmetric levels
    levels = tuple(np.round(np.arange(1, 100) / 100, 2))
    assert M.crps([1.0], np.zeros((1, 99)), levels) == pytest.approx(1.0)


def test_coverage_width_winkler_hand_computed():
    lo, hi = Q[:, 0], Q[:, 2]
    assert M.coverage(Y, lo, hi) == 0.5
    assert M.interval_width(Y, lo, hi) == 6.0
    assert M.winkler_score(Y, lo, hi, 0.8) == pytest.approx(16.0)
    # below the interval: y=1 in [4, 10], alpha=0.5: 6 + 4 * 3 = 18
    assert M.winkler_score([1.0], [4.0], [10.0], 0.5) == pytest.approx(18.0)
    # bounds count as inside
    assert M.coverage([4.0, 10.0], [4.0, 4.0], [10.0, 10.0]) == 1.0
    assert M.interval_scores(Y, Q, LEVELS) == {
        0.8: {"coverage": 0.5, "width": 6.0, "winkler": 16.0}
    }


def test_per_axis_and_nan_policy_follow_the_point_metrics():
    y = np.array([[5.0, np.nan], [12.0, 3.0]])
    lo = np.array([[4.0, 0.0], [4.0, 0.0]])
    hi = np.array([[10.0, 1.0], [10.0, 1.0]])
    # column 0: covered 1 of 2; column 1: only y=3 counts, outside [0, 1]
    assert M.coverage(y, lo, hi, axis=0).tolist() == [0.5, 0.0]
    assert M.interval_width(y, lo, hi, axis=0).tolist() == [6.0, 1.0]
    assert np.isnan(M.coverage(y, lo, hi, nan_policy="propagate"))
    with pytest.raises(ValueError, match=r"y_true has NaN at index \(0, 1\)"):
        M.coverage(y, lo, hi, nan_policy="raise")
    q = np.stack([lo, hi], axis=-1)
    assert M.pinball_loss(y, q, (0.1, 0.9)) == pytest.approx(
        M.pinball_loss(y[~np.isnan(y)], q[~np.isnan(y)], (0.1, 0.9))
    )
    with pytest.raises(ValueError, match=r"y_quantiles\[\.\.\., 1\] has NaN at index \(0,\)"):
        M.pinball_loss([1.0], [[0.0, np.nan]], (0.1, 0.9), nan_policy="raise")
    assert np.isnan(M.crps([np.nan], [[0.0, 1.0]], (0.1, 0.9)))  # nothing left to score


def test_bad_shapes_levels_and_intervals_are_named():
    with pytest.raises(ValueError, match=r"y_quantiles has shape \(2, 2\).*expected \(2, 3\)"):
        M.pinball_loss(Y, Q[:, :2], LEVELS)
    with pytest.raises(ValueError, match="sorted and distinct"):
        M.crps(Y, Q, (0.9, 0.5, 0.1))
    with pytest.raises(ValueError, match="strictly between 0 and 1, got 1.0"):
        M.crps(Y, Q, (0.1, 0.5, 1.0))
    with pytest.raises(ValueError, match=r"lower exceeds upper at index \(1,\) \(5.0 > 3.0\)"):
        M.coverage([1.0, 2.0], [0.0, 5.0], [1.0, 3.0])
    with pytest.raises(ValueError, match="lower has shape"):
        M.interval_width([1.0], [0.0, 0.0], [1.0])


def test_level_names_and_central_pairs():
    assert level_name(0.1) == "q0.1"
    assert quantile_column("load", 1 - 0.975) == "load_q0.025"
    assert quantile_column("load", (1 + 0.95) / 2) == "load_q0.975"
    assert central_pairs((0.025, 0.1, 0.5, 0.9, 0.975)) == [(0.8, 0.1, 0.9), (0.95, 0.025, 0.975)]
    assert central_pairs((0.1, 0.5)) == []
    assert check_levels([0.1, 0.9]) == (0.1, 0.9)
    with pytest.raises(TypeError, match="sorted tuple of levels"):
        check_levels("0.1")
