"""
Motion: a residual network against zero velocity
================================================

Motion prediction forecasts joint angles: one column per angle, many short takes as a dict of
frames trained as one global model. The bar to clear is zero velocity (the last pose held,
``Naive()``). ``residual=True`` makes the network forecast changes from the last pose, so an
untrained network is already the zero-velocity forecast. The takes here are synthetic (smooth
periodic angles with noise, 25 frames a second), so the example runs anywhere; the real CMU
benchmark is ``forecast.evaluation.motion.motion_benchmark``.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from forecast import GRUForecaster, Naive


def take(seed: int, n: int = 200) -> pd.DataFrame:
    """Return one synthetic take: four joint angles (radians) at 25 frames a second."""
    r = np.random.default_rng(seed)
    t = np.arange(n) / 25.0
    freq, phase = r.uniform(0.8, 1.6), r.uniform(0, 2 * np.pi)
    angles = {
        f"joint{j}": 0.6 * np.sin(2 * np.pi * freq * t + phase + j) + 0.02 * r.normal(size=n)
        for j in range(4)
    }
    index = pd.date_range("2024-01-01", periods=n, freq="40ms")
    return pd.DataFrame(angles, index=index)


train = {f"take{k}": take(k) for k in range(12)}
test = take(100)
observed, future = test.iloc[:50], test.iloc[50:75]  # 50 frames seen, 25 (1 s) forecast

net = GRUForecaster(
    context_length=50, horizon=25, hidden_size=32, residual=True, max_epochs=15, random_state=0
).fit(train)
fc_net = net.predict(horizon=25, history=observed)
fc_zero = Naive().fit(observed).predict(horizon=25)

for name, fc in {"zero velocity": fc_zero, "residual GRU": fc_net}.items():
    err = np.abs(fc.to_numpy() - future.to_numpy()).mean()
    print(f"{name:14s} mean abs error {err:.3f} rad")

# %%
# The first joint's angle: observed frames, truth and both forecasts.

fig, ax = plt.subplots(figsize=(8, 3.2))
seconds = (test.index - test.index[0]).total_seconds()
ax.plot(seconds[:75], test["joint0"].iloc[:75], color="0.3", label="truth")
ax.plot(seconds[50:75], fc_zero["joint0"], color="C7", linestyle="--", label="zero velocity")
ax.plot(seconds[50:75], fc_net["joint0"], color="C3", label="residual GRU")
ax.axvline(seconds[49], color="0.6", linestyle=":")
ax.set_xlabel("seconds")
ax.set_ylabel("angle (rad)")
ax.legend()
fig.tight_layout()
