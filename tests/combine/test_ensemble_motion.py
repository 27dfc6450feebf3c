"""EnsembleForecaster on the motion benchmark: the weighted mean of its members' forecasts."""

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

from forecast import ConstantVelocity, EnsembleForecaster, GRUForecaster
from forecast.evaluation.motion import PREDICTED, MotionBenchmark, forecast_windows
from tests.evaluation.test_motion import frames

RESULTS = Path(__file__).parents[2] / "experiments" / "results"


@pytest.mark.parametrize("history", ["window", "sequence"])
def test_window_forecasts_are_the_weighted_mean_of_the_members(history):
    bench = MotionBenchmark.from_frames(frames())
    gru = GRUForecaster(context_length=10, horizon=5, hidden_size=4, max_epochs=2,
                        batch_size=16, random_state=0)  # fmt: skip
    velocity = ConstantVelocity(window=2)
    w = 0.3
    ensemble = EnsembleForecaster([("gru", gru), ("velocity", velocity)], weights=[w, 1 - w])
    got = forecast_windows(ensemble.fit(bench.train), bench, history)
    alone = [forecast_windows(clone(m).fit(bench.train), bench, history) for m in (gru, velocity)]
    for action, pred in got.items():
        assert pred.shape == (8, PREDICTED, 2)
        hand = w * alone[0][action] + (1 - w) * alone[1][action]
        np.testing.assert_allclose(pred, hand, rtol=1e-6, atol=1e-7)
        assert not np.allclose(alone[0][action], alone[1][action])  # the members differ


def test_motion_angles_is_the_documented_average_and_fits():
    from forecast.combine import SIMLPE_ANGLES, motion_angles
    from forecast.models import MOTION_BEST

    model = motion_angles(random_state=3)
    members = dict(model.estimators)
    assert list(members) == ["simlpe", "simlpe_2", "gru", "transformer"]
    assert model.weights == [0.4, 0.4, 0.1, 0.1]
    seeds = [m.random_state for m in members.values()]
    assert seeds == [3, 4, 3, 3]
    params = members["simlpe"].get_params()
    assert all(params[k] == v for k, v in SIMLPE_ANGLES.items())
    assert members["simlpe"].hidden_size == 64 and members["simlpe"].max_epochs == 30
    assert all(members["gru"].get_params()[k] == v for k, v in MOTION_BEST.items())
    assert motion_angles().estimators[1][1].random_state == 1  # a new ensemble each call
    bench = MotionBenchmark.from_frames(frames())
    tiny = {"context_length": 10, "horizon": 5, "max_epochs": 1, "batch_size": 64}
    model.set_params(
        **{f"{n}__{k}": v for n in members for k, v in tiny.items()},
        simlpe__hidden_size=2, simlpe_2__hidden_size=2, simlpe__num_layers=1,
        simlpe_2__num_layers=1, gru__hidden_size=4, transformer__hidden_size=4,
    )  # fmt: skip
    pred = forecast_windows(model.fit(bench.train), bench)
    assert all(p.shape == (8, PREDICTED, 2) and np.isfinite(p).all() for p in pred.values())


def test_step_weights_on_positions_equal_the_blend_of_separate_fits():
    """What the 3-D experiment scores (members fitted apart, blended per step) is the ensemble."""
    from forecast import DCTMixerForecaster
    from forecast.evaluation.motion_positions import (
        PositionBenchmark,
        forecast_positions,
    )
    from tests.evaluation.test_motion_positions import frames as position_frames

    bench = PositionBenchmark.from_frames(position_frames())
    window = {"context_length": 10, "horizon": 25, "loss": "position", "max_epochs": 1}
    gru = GRUForecaster(**window, hidden_size=4, batch_size=32, random_state=0)
    mixer = DCTMixerForecaster(**window, mixer="gcn", hidden_size=8, num_layers=1,
                               batch_size=32, random_state=0)  # fmt: skip
    alone = {n: forecast_positions(clone(m).fit(bench.train), bench)
             for n, m in (("gru", gru), ("mixer", mixer))}  # fmt: skip
    weights = [[k, 24 - k] for k in range(25)]  # from all on the mixer to all on the GRU
    w = np.asarray(weights) / 24
    ensemble = EnsembleForecaster([("gru", gru), ("mixer", mixer)], weights=weights,
                                  weights_by="step")  # fmt: skip
    got = forecast_positions(ensemble.fit(bench.train), bench)
    for action, pred in got.items():
        hand = (
            w[None, :, 0, None] * alone["gru"][action]
            + w[None, :, 1, None] * alone["mixer"][action]
        )
        np.testing.assert_allclose(pred, hand, rtol=1e-6, atol=1e-6)
    assert not np.allclose(alone["gru"]["walking"], alone["mixer"]["walking"])


def logged_weights(members: str) -> list[list[float]]:
    """The step weights the CMU 3-D experiment chose on the validation split for seed 0."""
    log = RESULTS / f"cmu_mocap_3d_steps_{members}_validation.jsonl"
    chosen = [json.loads(line) for line in log.read_text().splitlines()]
    return next(r["weights"] for r in chosen if r["seed"] == 0)


def test_motion_3d_is_the_documented_step_blend_and_fits():
    from forecast import DCTMixerForecaster
    from forecast.combine import LTD_3D_40, MOTION_3D_WEIGHTS, motion_3d
    from forecast.evaluation.motion_positions import PositionBenchmark, forecast_positions
    from forecast.models import LTD_3D, MOTION_BEST_3D, SIMLPE_3D
    from tests.evaluation.test_motion_positions import frames as position_frames

    model = motion_3d(random_state=2)
    members = dict(model.estimators)
    assert list(members) == ["gru", "ltd", "simlpe"] and model.weights_by == "step"
    assert isinstance(members["gru"], GRUForecaster)
    assert isinstance(members["ltd"], DCTMixerForecaster)
    assert isinstance(members["simlpe"], DCTMixerForecaster)
    assert all(members["simlpe"].get_params()[k] == v for k, v in SIMLPE_3D.items())
    assert all(members["gru"].get_params()[k] == v for k, v in MOTION_BEST_3D.items())
    assert LTD_3D_40 == {**LTD_3D, "max_epochs": 40}
    assert all(members["ltd"].get_params()[k] == v for k, v in LTD_3D_40.items())
    assert [m.random_state for m in members.values()] == [2, 2, 2]
    w = np.asarray(MOTION_3D_WEIGHTS)
    assert w.shape == (25, 3)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert (np.diff(w[:, 0]) <= 0).all()  # the GRU's share falls with the step
    # the weights are those the experiment chose on the validation split (its log)
    assert MOTION_3D_WEIGHTS == logged_weights("gru_ltd3d_simlpe3d")
    model.weights[0][0] = 0.0  # each call builds its own rows
    assert motion_3d().weights[0] == [0.7, 0.1, 0.2]
    bench = PositionBenchmark.from_frames(position_frames(), "test", 8)  # LTD's 8 windows a take
    tiny = {"max_epochs": 1, "batch_size": 64}
    model.set_params(
        **{f"{n}__{k}": v for n in members for k, v in tiny.items()},
        gru__hidden_size=4, ltd__hidden_size=8, ltd__num_layers=1, simlpe__hidden_size=4,
        simlpe__num_layers=1,
    )  # fmt: skip
    pred = forecast_positions(model.fit(bench.train), bench)
    assert all(p.shape == (len(bench.starts[a]), 25, 75) and np.isfinite(p).all()
               for a, p in pred.items())  # fmt: skip


def test_motion_3d_with_pgbig_adds_the_fourth_network_and_its_logged_weights():
    from forecast import DCTMixerForecaster
    from forecast.combine import MOTION_3D_PGBIG_WEIGHTS, PGBIG_3D_14, motion_3d
    from forecast.evaluation.motion_positions import PositionBenchmark, forecast_positions
    from forecast.models import PGBIG_3D
    from tests.evaluation.test_motion_positions import frames as position_frames

    model = motion_3d(random_state=1, pgbig=True)
    members = dict(model.estimators)
    assert list(members) == ["gru", "ltd", "simlpe", "pgbig"] and model.weights_by == "step"
    assert isinstance(members["pgbig"], DCTMixerForecaster)
    assert PGBIG_3D_14 == {**PGBIG_3D, "max_epochs": 14}
    assert all(members["pgbig"].get_params()[k] == v for k, v in PGBIG_3D_14.items())
    assert [m.random_state for m in members.values()] == [1, 1, 1, 1]
    # the three members before it are motion_3d's own
    three = dict(motion_3d(random_state=1).estimators)
    assert all(members[n].get_params() == three[n].get_params() for n in three)
    w = np.asarray(MOTION_3D_PGBIG_WEIGHTS)
    assert w.shape == (25, 4) and model.weights == MOTION_3D_PGBIG_WEIGHTS
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert (np.diff(w[:, 0]) <= 0).all()  # the GRU's share falls with the step
    assert MOTION_3D_PGBIG_WEIGHTS == logged_weights("gru_ltd3d_simlpe3d_pgbig3d")
    bench = PositionBenchmark.from_frames(position_frames(), "test", 8)  # LTD's 8 windows a take
    model.set_params(
        **{f"{n}__{k}": v for n in members for k, v in {"max_epochs": 1, "batch_size": 64}.items()},
        gru__hidden_size=4, ltd__hidden_size=8, ltd__num_layers=1, simlpe__hidden_size=4,
        simlpe__num_layers=1, pgbig__hidden_size=4, pgbig__num_layers=1,
    )  # fmt: skip
    pred = forecast_positions(model.fit(bench.train), bench)
    alone = forecast_positions(model.estimators_[3], bench)  # the fitted PGBIG member
    for action, p in pred.items():
        assert p.shape == (8, 25, 75) and np.isfinite(p).all()
        assert not np.allclose(p, alone[action])  # the blend is not the last member alone
