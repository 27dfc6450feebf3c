import gzip

import numpy as np
import pandas as pd
import pytest

from forecast import Naive
from forecast.datasets import cmu_joint_positions, expmap_columns, load, position_columns
from forecast.datasets.cmu_skeleton import PREDICTED_JOINTS, SAME_AS_PARENT
from forecast.evaluation.motion_data import draw_windows
from forecast.evaluation.motion_positions import (
    HORIZONS_3D,
    OBSERVED_3D,
    PositionBenchmark,
    action_means,
    constant_velocity_positions,
    forecast_positions,
    position_benchmark,
    score_positions,
    step_errors,
    step_weights,
    zero_velocity_positions,
)
from forecast.models import DCTMixerForecaster

COLUMNS = expmap_columns(117)
ALL = position_columns(range(38))


def expmap(n, seed):
    """A CMU-sized exp-map take: the global motion wanders, a knee, the spine and an elbow turn."""
    rng = np.random.default_rng(seed)
    values = np.zeros((n, 117))
    values[:, :6] = rng.normal(size=(n, 6)).cumsum(axis=0) * 0.01
    t = np.arange(n)
    values[:, COLUMNS.index("j3_x")] = 0.2 + 0.01 * t
    values[:, COLUMNS.index("j14_y")] = 0.1 * np.sin(t / 7)
    values[:, COLUMNS.index("j22_z")] = -0.3 + 0.02 * t
    index = pd.date_range("1970-01-01", periods=n, freq="40ms", name="time")
    return pd.DataFrame(values, index=index, columns=COLUMNS)


def as_positions(frame):
    xyz = cmu_joint_positions(frame.to_numpy()).reshape(len(frame), -1)
    return pd.DataFrame(xyz, index=frame.index, columns=ALL)


def frames():
    """Takes of all 38 joints; washwindow has a test take but no training take."""
    out = {}
    for a, action in enumerate(("walking", "running")):
        for i, n in enumerate((120, 130), 1):
            out[f"train/{action}_{i}"] = as_positions(expmap(n, 10 * a + i))
        out[f"test/{action}_1"] = as_positions(expmap(100, 10 * a + 9))
    out["test/washwindow_1"] = as_positions(expmap(90, 99))
    return out


@pytest.fixture(scope="module")
def bench():
    return PositionBenchmark.from_frames(frames())


def test_loader_gives_positions_of_the_predicted_joints(tmp_path):
    raw = expmap(41, 3).to_numpy()
    folder = tmp_path / "cmu_mocap_expmap" / "train" / "walking"
    folder.mkdir(parents=True)
    with gzip.open(folder / "walking_1.txt.gz", "wt") as handle:
        np.savetxt(handle, raw, delimiter=",")
    takes = load("cmu-mocap", data_dir=tmp_path, positions=True)
    take = takes["train/walking_1"]
    assert list(take.columns) == position_columns(PREDICTED_JOINTS)
    assert take.columns[:3].tolist() == ["j3_pos_x", "j3_pos_y", "j3_pos_z"]
    assert len(take) == 21  # every 2nd frame
    expected = cmu_joint_positions(raw[::2])[:, list(PREDICTED_JOINTS)].reshape(21, -1)
    np.testing.assert_allclose(take.to_numpy(), expected, atol=1e-9)
    every = load("cmu-mocap", data_dir=tmp_path, positions="all")["train/walking_1"]
    assert list(every.columns) == ALL
    with pytest.raises(ValueError, match="drop_global"):
        load("cmu-mocap", data_dir=tmp_path, positions=True, drop_global=True)
    with pytest.raises(ValueError, match="positions must be"):
        load("cmu-mocap", data_dir=tmp_path, positions="some")


def test_windows_all_and_ltd_draws(bench):
    assert bench.actions == ["running", "walking", "washwindow"]
    assert bench.trained_actions == ["running", "walking"]
    assert bench.starts["walking"] == list(range(100 - 35 + 1))
    assert bench.truth["walking"].shape == (66, 35, 38, 3)
    last = bench.truth["walking"][-1, -1]  # last frame of the last window: the take's last
    np.testing.assert_allclose(last.reshape(-1), frames()["test/walking_1"].iloc[-1].to_numpy())
    eight = PositionBenchmark.from_frames(frames(), windows=8)
    assert eight.starts["walking"] == [i + 40 for i in draw_windows(100, 8)]
    window = eight.windows()["walking/0"]
    assert len(window) == OBSERVED_3D
    assert window.index[0] == eight.test["walking"].index[eight.starts["walking"][0]]


def test_validation_holds_out_the_last_training_take():
    val = PositionBenchmark.from_frames(frames(), split="validation")
    assert sorted(val.train) == ["train/running_1", "train/walking_1"]
    assert val.starts["walking"] == list(range(130 - 35 + 1))


def test_perfect_forecast_scores_zero_and_a_shift_scores_by_hand(bench):
    truth = {
        a: bench.truth[a][:, OBSERVED_3D:, list(PREDICTED_JOINTS)].reshape(len(t), 25, 75)
        for a, t in bench.truth.items()
    }
    assert np.allclose(score_positions(truth, bench).to_numpy(), 0.0)
    shift = np.tile([3.0, 4.0, 0.0], 25)  # every predicted joint 5 mm off
    table = score_positions({a: p + shift for a, p in truth.items()}, bench)
    # 25 predicted joints and their 7 twins are off by 5, the 6 fixed joints by 0, over 38
    assert list(table.columns) == list(HORIZONS_3D)
    np.testing.assert_allclose(table.to_numpy(), 5 * (25 + len(SAME_AS_PARENT)) / 38)


def test_zero_and_constant_velocity(bench):
    values = bench.test["walking"].to_numpy()
    start = bench.starts["walking"][4]
    last, before = values[start + 9], values[start + 8]
    zero = zero_velocity_positions(bench)["walking"][4]
    const = constant_velocity_positions(bench)["walking"][4]
    np.testing.assert_allclose(zero, np.tile(last, (25, 1)))
    np.testing.assert_allclose(const[2], last + 3 * (last - before))


def test_means_over_all_actions_and_those_with_training_takes(bench):
    table = pd.DataFrame(
        [[1.0] * 6, [2.0] * 6, [6.0] * 6], index=["running", "walking", "washwindow"],
        columns=list(HORIZONS_3D),
    )  # fmt: skip
    table.index.name = "action"
    means = action_means(table, bench)
    assert list(means.index) == ["mean (3 actions)", "mean (2 with training takes)"]
    np.testing.assert_allclose(means.iloc[:, 0], [3.0, 1.5])


def test_benchmark_of_naive_is_zero_velocity(bench):
    table = position_benchmark(Naive(), benchmark=bench)
    reference = score_positions(zero_velocity_positions(bench), bench)
    np.testing.assert_allclose(table[list(HORIZONS_3D)].droplevel("seed"), reference)
    assert {"fit_seconds", "fit_peak_mb"} <= set(table.columns)


def test_angles_where_positions_are_expected_are_refused(bench):
    angles = {k: expmap(80, i)[["j3_x", "j3_y", "j3_z"]] for i, k in enumerate(["a", "b"])}
    model = Naive().fit(angles)
    with pytest.raises(ValueError, match="angle column 'j3_x'"):
        forecast_positions(model, bench)
    partial = Naive().fit({k: f.drop(columns=["j4_pos_y"]) for k, f in bench.train.items()})
    with pytest.raises(ValueError, match="'j4_pos_y'"):
        forecast_positions(partial, bench)
    broken = frames()
    broken["test/walking_1"] = broken["test/walking_1"].drop(columns=["j9_pos_z"])
    with pytest.raises(ValueError, match="j9"):
        PositionBenchmark.from_frames(broken)


def test_a_network_trains_on_positions_with_the_position_loss(bench):
    model = DCTMixerForecaster(
        context_length=10, horizon=25, hidden_size=8, num_layers=1, loss="position",
        max_epochs=2, batch_size=64, random_state=0,
    )  # fmt: skip
    table = position_benchmark(model, benchmark=bench)
    assert np.isfinite(table[list(HORIZONS_3D)].to_numpy()).all()
    fitted = model.fit(bench.train)
    np.testing.assert_allclose(fitted.channel_weight_, fitted.scaler_.scale_)
    assert fitted.history_["train_loss"][-1] < fitted.history_["train_loss"][0]


def true_forecasts(bench):
    return {
        a: bench.truth[a][:, OBSERVED_3D:, list(PREDICTED_JOINTS)].reshape(len(t), 25, 75)
        for a, t in bench.truth.items()
    }


def off_by(truth, per_step):
    """Every predicted joint moved ``per_step[k]`` mm along x at step k + 1."""
    shift = np.zeros((25, 75))
    shift[:, 0::3] = np.asarray(per_step, dtype=float)[:, None]
    return {a: p + shift for a, p in truth.items()}


def test_step_errors_at_every_step_and_the_six_horizons_among_them(bench):
    steps = np.arange(1, 26)
    table = step_errors(off_by(true_forecasts(bench), steps), bench)
    assert list(table.columns) == list(range(1, 26))
    assert list(table.index) == bench.actions
    # 25 predicted joints and their 7 twins off by k mm at step k, the 6 fixed joints by 0
    np.testing.assert_allclose(table.to_numpy(), np.tile(steps * 32 / 38, (3, 1)))
    six = score_positions(off_by(true_forecasts(bench), steps), bench)
    np.testing.assert_allclose(six.to_numpy(), table[[2, 4, 8, 10, 14, 25]].to_numpy())


def test_step_weights_pick_the_better_member_per_step(bench):
    truth = true_forecasts(bench)
    steps = np.arange(1, 26)
    growing, flat = off_by(truth, steps), off_by(truth, np.full(25, 10.5))
    weights = step_weights({"early": growing, "late": flat}, bench)
    assert len(weights) == 25
    # step k: the first is k mm off, the second 10.5 mm, both the same way: the nearer wins
    assert weights == [[1.0, 0.0]] * 10 + [[0.0, 1.0]] * 15
    # members off the opposite ways by the same amount: the even blend is exact
    up, down = off_by(truth, np.full(25, 4.0)), off_by(truth, np.full(25, -4.0))
    assert step_weights({"up": up, "down": down}, bench, resolution=4) == [[0.5, 0.5]] * 25
    # three members: the grid covers the simplex, the exact blend is found
    three = step_weights({"up": up, "down": down, "far": flat}, bench, resolution=2)
    assert three == [[0.5, 0.5, 0.0]] * 25


def test_step_weights_refuse_missing_forecasts_and_a_bad_grid(bench):
    truth = true_forecasts(bench)
    partial = {a: p for a, p in truth.items() if a != "washwindow"}
    with pytest.raises(
        ValueError, match=r"member 'b' has no forecasts for the actions \['washwindow'\]"
    ):
        step_weights({"a": truth, "b": partial}, bench)
    with pytest.raises(ValueError, match="resolution must be a positive integer, got 0"):
        step_weights({"a": truth}, bench, resolution=0)
    with pytest.raises(ValueError, match="members is empty"):
        step_weights({}, bench)
