import numpy as np
import pytest

from forecast.evaluation import metrics as M

# Worked example used by several tests:
#   y_true = [1, 2, 4], y_pred = [2, 2, 1]  ->  errors y_pred - y_true = [1, 0, -3]
#   MAE  = (1 + 0 + 3) / 3 = 4/3
#   MSE  = (1 + 0 + 9) / 3 = 10/3,  RMSE = sqrt(10/3)
#   bias = (1 + 0 - 3) / 3 = -2/3
#   MAPE = 100 * (1/1 + 0/2 + 3/4) / 3 = 100 * 1.75 / 3
#   sMAPE = 100 * (2*1/(1+2) + 0 + 2*3/(4+1)) / 3 = 100 * (2/3 + 6/5) / 3
Y_TRUE = np.array([1.0, 2.0, 4.0])
Y_PRED = np.array([2.0, 2.0, 1.0])


def test_point_metrics_hand_computed():
    assert M.mae(Y_TRUE, Y_PRED) == pytest.approx(4 / 3)
    assert M.mse(Y_TRUE, Y_PRED) == pytest.approx(10 / 3)
    assert M.rmse(Y_TRUE, Y_PRED) == pytest.approx(np.sqrt(10 / 3))
    assert M.bias(Y_TRUE, Y_PRED) == pytest.approx(-2 / 3)
    assert M.mape(Y_TRUE, Y_PRED) == pytest.approx(100 * 1.75 / 3)
    assert M.smape(Y_TRUE, Y_PRED) == pytest.approx(100 * (2 / 3 + 6 / 5) / 3)
    assert isinstance(M.mae(Y_TRUE, Y_PRED), float)


def test_mase_uses_in_sample_seasonal_naive_scale():
    train = np.array([1.0, 3.0, 2.0, 6.0])
    # m=1: |3-1|, |2-3|, |6-2| = 2, 1, 4 -> scale 7/3; MAE 4/3 -> MASE 4/7
    assert M.mase(Y_TRUE, Y_PRED, train) == pytest.approx(4 / 7)
    # m=2: |2-1|, |6-3| = 1, 3 -> scale 2 -> MASE (4/3)/2 = 2/3
    assert M.mase(Y_TRUE, Y_PRED, train, m=2) == pytest.approx(2 / 3)


def test_mase_scales_each_channel_separately():
    train = np.array([[0.0, 0.0], [1.0, 10.0], [0.0, 0.0]])  # scales 1 and 10
    y_true = np.zeros((2, 2))
    y_pred = np.array([[1.0, 10.0], [3.0, 30.0]])
    # channel 0: |e| = 1, 3 over scale 1; channel 1: 10, 30 over scale 10 -> both mean 2
    assert M.mase(y_true, y_pred, train, axis=0).tolist() == [2.0, 2.0]
    assert M.mase(y_true, y_pred, train) == pytest.approx(2.0)


def test_mase_rejects_zero_scale_and_short_train():
    with pytest.raises(ValueError, match="in-sample naive error at lag m=2 is 0"):
        M.mase(Y_TRUE, Y_PRED, np.array([1.0, 2.0, 1.0, 2.0]), m=2)
    with pytest.raises(ValueError, match="more than m=3 rows"):
        M.mase(Y_TRUE, Y_PRED, np.array([1.0, 2.0, 3.0]), m=3)


def test_nan_pairs_omitted_raised_or_propagated():
    y_true = np.array([1.0, np.nan, 4.0])
    y_pred = np.array([2.0, 5.0, np.nan])
    # only the first pair counts: |2 - 1| = 1
    assert M.mae(y_true, y_pred) == 1.0
    assert M.rmse(y_true, y_pred) == 1.0
    assert np.isnan(M.mae(y_true, y_pred, nan_policy="propagate"))
    with pytest.raises(ValueError, match=r"y_true has NaN at index \(1,\) \(2 NaN pair"):
        M.mae(y_true, y_pred, nan_policy="raise")
    # nothing left to average -> NaN, not an exception
    assert np.isnan(M.mae([np.nan], [1.0]))
    with pytest.raises(ValueError, match="nan_policy"):
        M.mae(Y_TRUE, Y_PRED, nan_policy="skip")


def test_mape_zero_actual_raises_or_is_dropped():
    y_true, y_pred = np.array([0.0, 2.0]), np.array([1.0, 3.0])
    with pytest.raises(ValueError, match=r"y_true is 0 at index \(0,\)"):
        M.mape(y_true, y_pred)
    # dropping the zero leaves |3 - 2| / 2 = 50 %
    assert M.mape(y_true, y_pred, zero_actual="omit") == pytest.approx(50.0)


def test_smape_counts_double_zero_as_perfect():
    # pairs (0, 0) -> 0 and (1, 3) -> 2*2/4 = 1  -> mean 0.5 -> 50 %
    assert M.smape([0.0, 1.0], [0.0, 3.0]) == pytest.approx(50.0)
    assert M.smape([1.0], [-1.0]) == pytest.approx(200.0)


def test_shape_mismatch_is_reported():
    with pytest.raises(ValueError, match=r"shape \(3,\) but y_pred has shape \(2,\)"):
        M.mae(Y_TRUE, Y_PRED[:2])


def test_by_horizon_two_and_three_dimensional():
    y_true = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    y_pred = np.array([[1.0, 3.0, 5.0], [4.0, 2.0, 2.0]])
    # errors [[0, 1, 2], [2, 0, 0]] -> MAE per step [1, 0.5, 1]
    np.testing.assert_allclose(M.by_horizon(M.mae, y_true, y_pred), [1.0, 0.5, 1.0])
    # RMSE per step: sqrt([(0+4)/2, (1+0)/2, (4+0)/2])
    np.testing.assert_allclose(M.by_horizon(M.rmse, y_true, y_pred), np.sqrt([2.0, 0.5, 2.0]))
    # add a second channel with errors ten times larger
    true3 = np.stack([y_true, y_true], axis=-1)
    pred3 = np.stack([y_pred, y_true + 10 * (y_pred - y_true)], axis=-1)
    per = M.by_horizon(M.mae, true3, pred3, per_channel=True)
    np.testing.assert_allclose(per, [[1.0, 10.0], [0.5, 5.0], [1.0, 10.0]])
    # pooled over channels: mean of 1 and 10 etc.
    np.testing.assert_allclose(M.by_horizon(M.mae, true3, pred3), [5.5, 2.75, 5.5])
    # extra keyword arguments reach the metric
    train = np.array([0.0, 1.0, 0.0])  # scale 1
    np.testing.assert_allclose(M.by_horizon(M.mase, y_true, y_pred, y_train=train), [1, 0.5, 1])
    with pytest.raises(ValueError, match="n_forecasts, horizon"):
        M.by_horizon(M.mae, Y_TRUE, Y_PRED)


def test_by_horizon_omits_nan_per_step():
    y_true = np.array([[1.0, np.nan], [3.0, 5.0]])
    y_pred = np.array([[2.0, 0.0], [3.0, 7.0]])
    # step 0: errors 1, 0 -> 0.5; step 1: only the second forecast counts -> 2
    np.testing.assert_allclose(M.by_horizon(M.mae, y_true, y_pred), [0.5, 2.0])


def _rot_z(theta):
    return np.stack([np.zeros_like(theta), np.zeros_like(theta), theta], axis=-1)


def test_euler_angle_error_hand_computed():
    pytest.importorskip("forecast.datasets.rotations")
    # D = 12: dims 0-5 (translation, global rotation) are skipped, then two joints.
    # Joint A rotates about z by theta per frame; in the benchmark convention the Euler
    # vector of Rz(theta) is (0, 0, -theta), so predicting no rotation costs |theta|.
    # Joint B is held at a constant rotation about x by 0.5 in the truth: its Euler angles
    # do not move, so the benchmark drops it even though the prediction (0) is wrong.
    theta = np.array([[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]])  # (sequences, frames)
    true = np.zeros((2, 3, 12))
    true[..., 6:9] = _rot_z(theta)
    true[..., 9] = 0.5
    pred = np.zeros_like(true)
    pred[..., :6] = 7.0  # ignored
    err = M.euler_angle_error(true, pred)
    np.testing.assert_allclose(err, [0.2, 0.3, 0.4], atol=1e-12)  # mean over the 2 sequences
    # without the constant-dimension filter joint B counts: sqrt(theta^2 + 0.5^2)
    full = M.euler_angle_error(true, pred, std_threshold=None)
    np.testing.assert_allclose(full, np.sqrt(theta**2 + 0.25).mean(axis=0), atol=1e-12)
    # a single sequence may be passed as (frames, D)
    np.testing.assert_allclose(M.euler_angle_error(true[0], pred[0]), [0.1, 0.2, 0.3], atol=1e-12)
    assert np.all(M.euler_angle_error(true, true) == 0)


def test_euler_angle_error_checks_shapes():
    pytest.importorskip("forecast.datasets.rotations")
    with pytest.raises(ValueError, match="multiple of 3"):
        M.euler_angle_error(np.zeros((2, 3, 10)), np.zeros((2, 3, 10)))
    with pytest.raises(ValueError, match="expmap_pred has"):
        M.euler_angle_error(np.zeros((2, 3, 9)), np.zeros((2, 4, 9)))
