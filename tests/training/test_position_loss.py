import numpy as np
import pandas as pd
import pytest
import torch

from forecast import GRUForecaster
from forecast.frames.positions import check_position_columns
from forecast.training.losses import masked_position, training_loss


def test_position_loss_is_the_mean_joint_distance_by_hand():
    pred = torch.zeros(1, 2, 6)  # one window, two steps, two joints
    target = torch.tensor([[[3.0, 4.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 6.0, 8.0, 0.0]]])
    # distances: step 1: 5 and 1; step 2: 0 and 10 -> mean 4
    assert masked_position(pred, target).item() == pytest.approx(4.0)
    scale = torch.tensor([2.0, 2.0, 2.0, 1.0, 1.0, 1.0])  # back to data units per channel
    assert masked_position(pred, target, weight=scale).item() == pytest.approx(
        (10 + 1 + 0 + 10) / 4
    )
    mask = torch.tensor([[True, False]])  # only the first step carries a loss
    assert masked_position(pred, target, mask).item() == pytest.approx(3.0)


def test_position_loss_with_velocity_and_lead_weights():
    pred = torch.zeros(1, 2, 3)
    target = torch.tensor([[[3.0, 4.0, 0.0], [3.0, 4.0, 0.0]]])
    loss = training_loss(None, "position", velocity=(0.5, [7.0, 7.0, 7.0]), lead_weight=[1.5, 0.5])
    # values: leads weigh 1.5 * 5 and 0.5 * 5 -> mean 5; changes (in data units, not /7):
    # 5 (from the shared last value) then 0, weighted 1.5 and 0.5 -> mean 3.75
    assert loss(pred, target).item() == pytest.approx(5.0 + 0.5 * 3.75)


def test_position_loss_gradient_is_finite_at_zero_error():
    pred = torch.zeros(2, 3, 6, requires_grad=True)
    masked_position(pred, torch.zeros(2, 3, 6)).backward()
    assert torch.isfinite(pred.grad).all()


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        (["j3_x", "j3_y", "j3_z"], "angle column 'j3_x'"),
        (["j3_pos_x", "j3_pos_y"], r"\['j3_pos_z'\] missing"),
        (["j3_pos_x", "j3_pos_z", "j3_pos_y"], "out of order"),
        (["j3_pos_x", "j3_pos_y", "j3_pos_z"] * 2, "appears twice"),
        (["load", "a", "b"], "column 'load' names no joint position"),
    ],
)
def test_position_columns_are_checked_by_name(columns, message):
    with pytest.raises(ValueError, match=message):
        check_position_columns(columns)


def test_position_columns_return_the_joints():
    assert check_position_columns(["hand_pos_x", "hand_pos_y", "hand_pos_z"]) == ["hand"]


def _frame(columns, n=60):
    rng = np.random.default_rng(0)
    index = pd.date_range("2020-01-01", periods=n, freq="40ms")
    return pd.DataFrame(rng.normal(size=(n, len(columns))).cumsum(axis=0), index, columns)


def test_estimator_with_position_loss_refuses_other_columns_and_channel_weights():
    small = {"context_length": 5, "horizon": 3, "hidden_size": 4, "max_epochs": 1}
    with pytest.raises(ValueError, match="angle column 'j3_x'"):
        GRUForecaster(**small, loss="position").fit(_frame(["j3_x", "j3_y", "j3_z"]))
    positions = _frame(["j3_pos_x", "j3_pos_y", "j3_pos_z"])
    with pytest.raises(ValueError, match="channel_weight='scale' does not combine"):
        GRUForecaster(**small, loss="position", channel_weight="scale").fit(positions)
    model = GRUForecaster(**small, loss="position", random_state=0).fit(positions)
    np.testing.assert_allclose(model.channel_weight_, model.scaler_.scale_)
    assert model.predict(horizon=3).columns.tolist() == list(positions.columns)


def test_a_position_model_saves_loads_and_updates(tmp_path):
    import forecast

    columns = ["j3_pos_x", "j3_pos_y", "j3_pos_z", "j4_pos_x", "j4_pos_y", "j4_pos_z"]
    full = _frame(columns, n=260) * 30
    model = GRUForecaster(
        context_length=10, horizon=5, hidden_size=4, max_epochs=1, loss="position",
        velocity_weight=1.0, random_state=0,
    ).fit(full.iloc[:200])  # fmt: skip
    model.save(tmp_path / "m")
    back = forecast.load(tmp_path / "m")
    pd.testing.assert_frame_equal(back.predict(horizon=5), model.predict(horizon=5))
    np.testing.assert_allclose(back.channel_weight_, model.scaler_.scale_)
    back.update(full.iloc[200:], epochs=1)
    assert back.n_updates_ == 1
    back.save(tmp_path / "m", overwrite=True)  # the updated model passes load's own check
    assert forecast.load(tmp_path / "m").n_updates_ == 1
