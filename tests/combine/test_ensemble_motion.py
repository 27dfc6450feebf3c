"""EnsembleForecaster on the motion benchmark: the weighted mean of its members' forecasts."""

import numpy as np
import pytest
from sklearn.base import clone

from forecast import ConstantVelocity, EnsembleForecaster, GRUForecaster
from forecast.evaluation.motion import PREDICTED, MotionBenchmark, forecast_windows
from tests.evaluation.test_motion import frames


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
