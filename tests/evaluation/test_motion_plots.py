import numpy as np
import pytest
from matplotlib.image import imread

from forecast.evaluation.motion_plots import (
    most_moving_channels,
    plot_joint_angles,
    plot_stick_figures,
)

PNG = b"\x89PNG\r\n\x1a\n"


def angles(seed=0, n_obs=10, horizon=5, channels=6):
    rng = np.random.default_rng(seed)
    observed = rng.standard_normal((n_obs, channels)).cumsum(axis=0)
    truth = observed[-1] + rng.standard_normal((horizon, channels)).cumsum(axis=0)
    return observed, truth


def poses(seed=0, n_obs=6, horizon=4):
    """A 4-point chain (root, spine, head, arm) moving a little."""
    rest = np.array([[0, 0, 0], [0, 2, 0], [0, 3, 0], [1, 2, 0]], dtype=float)
    rng = np.random.default_rng(seed)
    frames = rest + 0.1 * rng.standard_normal((n_obs + horizon, 4, 3)).cumsum(axis=0)
    return frames[:n_obs], frames[n_obs:], [-1, 0, 1, 1]


def is_png(path, min_width=200):
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > 5_000
    assert imread(path).shape[1] >= min_width


def test_most_moving_channels_hand_computed():
    observed = np.array([[0.0, 0.0, 5.0], [0.0, 2.0, 5.0]])
    truth = np.array([[0.0, 4.0, 6.0], [1.0, 6.0, 5.0]])
    # std over the 4 frames: ch0 0.433, ch1 2.236, ch2 0.433 (tie broken by index)
    assert most_moving_channels(observed, truth, n=2) == [1, 0]
    assert most_moving_channels(observed, truth, n=10) == [1, 0, 2]


def test_joint_angles_png_and_inputs_untouched(tmp_path):
    observed, truth = angles()
    zero = np.repeat(observed[-1:], len(truth), axis=0)
    model = truth + 0.1
    copies = [observed.copy(), truth.copy(), zero.copy(), model.copy()]
    columns = [f"j{i}_x" for i in range(6)]
    out = plot_joint_angles(
        observed,
        truth,
        {"zero velocity": zero, "model": model},
        tmp_path / "sub" / "angles.png",
        columns=columns,
        channels=["j2_x", 4, "j0_x"],
        unit="rad",
        title="walking",
    )
    assert out == tmp_path / "sub" / "angles.png"
    is_png(out)
    for before, after in zip(copies, [observed, truth, zero, model], strict=True):
        np.testing.assert_array_equal(before, after)
    # a single channel and no forecast at all also draw
    is_png(plot_joint_angles(observed, truth, {}, tmp_path / "one.png", channels=[1], step_ms=None))


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(observed=np.zeros(10)), r"observed must have shape \(n_observed, n_channels\)"),
        (dict(truth=np.zeros((5, 5))), "truth has 5 channels, observed 6"),
        (dict(forecasts={"gru": np.zeros((4, 6))}), r"'gru' has shape \(4, 6\), expected \(5, 6\)"),
        (dict(channels=["nope"]), "channel 'nope' is not one of the columns"),
        (dict(channels=[6]), "channel 6 is neither a column name nor an index < 6"),
        (dict(channels=[]), "channels is empty"),
        (dict(columns=["a", "b"]), "columns names 2 channels, the arrays have 6"),
    ],
)
def test_joint_angles_bad_input_writes_nothing(tmp_path, change, message):
    observed, truth = angles()
    kwargs = dict(observed=observed, truth=truth, forecasts={}, path=tmp_path / "x.png")
    kwargs.update(change)
    with pytest.raises(ValueError, match=message):
        plot_joint_angles(**kwargs)
    assert not (tmp_path / "x.png").exists()


def test_joint_angles_forecasts_must_be_a_mapping(tmp_path):
    observed, truth = angles()
    with pytest.raises(TypeError, match="forecasts must be a mapping name -> array, got list"):
        plot_joint_angles(observed, truth, [truth], tmp_path / "x.png")


def test_stick_figures_png_and_inputs_untouched(tmp_path):
    observed, truth, parents = poses()
    zero = np.repeat(observed[-1:], len(truth), axis=0)
    copies = [observed.copy(), truth.copy(), zero.copy()]
    out = plot_stick_figures(
        observed,
        truth,
        {"zero velocity": zero, "shifted": truth + [0.2, 0, 0]},
        parents,
        tmp_path / "strip.png",
        observed_frames=2,
        forecast_frames=[0, 3],
        azimuth=30,
        frame_ms=40,
        title="toy",
    )
    is_png(out, min_width=400)
    for before, after in zip(copies, [observed, truth, zero], strict=True):
        np.testing.assert_array_equal(before, after)
    width_2x2 = imread(out).shape[1]
    wider = plot_stick_figures(observed, truth, {}, parents, tmp_path / "w.png", forecast_frames=4)
    assert imread(wider).shape[1] > width_2x2  # 3 + 4 panels against 2 + 2


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(observed=np.zeros((6, 4))), r"observed must have shape \(n_observed, n_points, 3\)"),
        (dict(truth=np.zeros((4, 5, 3))), r"observed \(6, 4, 3\) and truth \(4, 5, 3\)"),
        (dict(forecasts={"m": np.zeros((3, 4, 3))}), r"'m' has shape \(3, 4, 3\), expected"),
        (dict(parents=[-1, 0, 1]), r"one index in \[-1, 4\) per point \(4\).*got 3 entries"),
        (dict(parents=[-1, 1, 1, 1]), "not the point itself"),
        (dict(forecast_frames=[4]), r"forecast_frames must be indices in \[0, 4\), got \[4\]"),
        (dict(observed_frames=0), "observed_frames must be a positive count"),
        (dict(up=3), "up must be the axis 0, 1 or 2"),
    ],
)
def test_stick_figures_bad_input_writes_nothing(tmp_path, change, message):
    observed, truth, parents = poses()
    kwargs = dict(
        observed=observed, truth=truth, forecasts={}, parents=parents, path=tmp_path / "x.png"
    )
    kwargs.update(change)
    with pytest.raises(ValueError, match=message):
        plot_stick_figures(**kwargs)
    assert not (tmp_path / "x.png").exists()
