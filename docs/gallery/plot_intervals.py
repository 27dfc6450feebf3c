"""
Prediction intervals
====================

``ConformalForecaster`` turns any point estimator into one with calibrated intervals (split
conformal): it forecasts a calibration period from rolling origins, keeps the residuals per
step ahead, then refits the estimator on all the data. Here 80 % and 95 % intervals around a
linear model on lags, calibrated on the last 60 days before December.
"""

import matplotlib.pyplot as plt

from forecast import ConformalForecaster, LinearLagForecaster
from forecast.datasets import load

df = load("elecdemand")[["demand"]].tz_convert("Australia/Melbourne")
train = df.loc["2014-06-01":"2014-11-30"]

model = ConformalForecaster(
    LinearLagForecaster(lags=(1, 2, "1D", "7D"), horizon=48),
    coverage=(0.8, 0.95),
    horizon=48,
    calibration="60D",
    stride=48,
)
model.fit(train)
fc = model.predict(48, quantiles=True)
print(fc.columns.tolist())

# %%
# The point column is the estimator's forecast; ``demand_q0.025`` to ``demand_q0.975`` are
# the bounds of the two central intervals.

fig, ax = plt.subplots(figsize=(8, 3.5))
ax.fill_between(
    fc.index, fc["demand_q0.025"], fc["demand_q0.975"], color="C0", alpha=0.2, label="95 %"
)
ax.fill_between(fc.index, fc["demand_q0.1"], fc["demand_q0.9"], color="C0", alpha=0.4, label="80 %")
ax.plot(fc.index, fc["demand"], color="C0", label="forecast")
observed = df.loc[fc.index[0] : fc.index[-1], "demand"]
ax.plot(observed.index, observed, color="0.2", label="observed")
ax.set_ylabel("demand (GW)")
ax.legend(loc="upper left")
fig.tight_layout()
