"""
A backtest under the day-ahead protocol
=======================================

The day-ahead market protocol: each forecast is issued at 12:00 on the day before from the
data observed up to then, and scored on the whole next local day (48 half-hours here; 46 or
50 on the days daylight saving switches). The model is fitted once, on the data before the
first issue, and never sees a value after its issue time.
"""

import matplotlib.pyplot as plt

from forecast import LinearLagForecaster, backtest
from forecast.datasets import load

TZ = "Australia/Melbourne"
df = load("elecdemand")[["demand"]].tz_convert(TZ).loc["2014-08-01":"2014-12-31"]

model = LinearLagForecaster(
    lags=(1, 2, "1D", "7D"), horizon=74, calendar=True, country="AU-VIC", timezone=TZ
)
res = backtest(
    model,
    df,
    protocol="day-ahead",
    start="2014-12-04",
    end="2014-12-31",
    target="demand",
    timezone=TZ,
)
print(res.metrics)

# %%
# ``res.forecasts`` holds one row per issued value (origin, time, step, target, prediction,
# truth); ``res.by_hour`` the error by local hour of the target.

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))
f = res.forecasts.set_index("time").sort_index().loc["2014-12-20":"2014-12-27"]
f["y_true"].plot(ax=ax1, color="0.3", label="observed")
f["y_pred"].plot(ax=ax1, color="C2", label="day-ahead forecast")
ax1.set_ylabel("demand (GW)")
ax1.legend()
res.by_hour["mape"].plot.bar(ax=ax2, color="C2")
ax2.set_xlabel("local hour of the target")
ax2.set_ylabel("MAPE (%)")
fig.tight_layout()
