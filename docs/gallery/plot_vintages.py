"""
Weather forecasts as inputs: vintages
=====================================

A load forecast issued at noon may use the weather *forecast* known at noon, not the weather
that was later observed. Here the Victorian demand data's observed temperature is turned into
simulated forecast vintages (one issue a day at 06:00, 48 hours ahead, with an error that grows
with the lead), and a linear model on lags and temperature forecasts demand from a noon origin
reading, for every step, the latest vintage issued by then.
"""

import matplotlib.pyplot as plt
import pandas as pd

from forecast import LinearLagForecaster
from forecast.datasets import load
from forecast.frames.vintage_sources import simulate_vintages
from forecast.frames.vintages import as_of, check_vintages

zone = "Australia/Melbourne"
df = load("elecdemand")[["demand", "temperature"]].tz_convert(zone)
train = df.loc["2014-06-01":"2014-11-30"]

model = LinearLagForecaster(lags=(1, 2, "1D", "7D"), horizon=72, future_covariates=["temperature"])
model.fit(train)  # trained on the observed temperature (no forecast archive exists)

issues = pd.date_range("2014-11-25 06:00", "2014-12-05 06:00", freq="D", tz=zone)
vintages = simulate_vintages(df["temperature"], issues, "48h", random_state=0)
print(vintages.attrs["vintages"])
print(vintages.head(3))

# %%
# ``predict(future=vintages)`` reads, for each forecast step, the latest value issued at or
# before the origin (the last observed half hour, 12:00 on 1 December). ``as_of`` shows which
# issue each step read: the 06:00 issue of the same day for the first hours, and nothing
# issued after noon.

origin = pd.Timestamp("2014-12-01 12:00", tz=zone)
history = df.loc[:origin]
fc = model.predict(72, history=history, future=vintages)
perfect = model.predict(72, history=history, future=df)  # observed temperature: upper bound
used = as_of(check_vintages(vintages, ["temperature"], zone), origin, fc.index, ["temperature"],
             issues=True)  # fmt: skip
print(used["issue_time"].value_counts())

fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
window = df.loc[origin - pd.Timedelta("12h") : fc.index[-1]]
top.plot(window.index, window["temperature"], color="0.2", label="observed")
for k, (issue, part) in enumerate(vintages.groupby("issue_time")):
    if origin - pd.Timedelta("2D") < issue <= origin + pd.Timedelta("1D"):
        late = issue > origin
        label = f"issued {issue:%d %b %H:%M}" + (" (after the origin)" if late else "")
        style = dict(lw=0.8, ls=":" if late else "-", color=f"C{k % 10}", label=label)
        top.plot(part["valid_time"], part["temperature"], **style)
read = used["temperature"]
top.scatter(read.index, read, s=6, color="k", zorder=3, label="read by the forecast")
top.axvline(origin, color="0.5", lw=0.8)
top.set_ylabel("temperature (°C)")
top.legend(fontsize=7, ncol=2, loc="upper left")
bottom.plot(window.index, window["demand"], color="0.2", label="observed")
bottom.plot(fc.index, fc["demand"], color="C0", label="with the forecast vintages")
bottom.plot(
    perfect.index, perfect["demand"], color="C1", ls="--", label="with observed temperature"
)
bottom.axvline(origin, color="0.5", lw=0.8)
bottom.set_ylabel("demand (GW)")
bottom.legend(fontsize=7, loc="upper left")
fig.tight_layout()
