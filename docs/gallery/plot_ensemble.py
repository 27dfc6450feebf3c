"""
Blending forecasts
==================

``EnsembleForecaster`` fits a clone of each member and forecasts the weighted mean of their
point forecasts; ``blend_weights`` chooses non-negative weights summing to 1 with the least
MAPE on validation forecasts. Here the weights are chosen on November and the blend is scored
on December.
"""

import matplotlib.pyplot as plt
import pandas as pd

from forecast import (
    EnsembleForecaster,
    LinearLagForecaster,
    SeasonalNaive,
    backtest,
    blend_weights,
    compare,
)
from forecast.datasets import load

TZ = "Australia/Melbourne"
df = load("elecdemand")[["demand"]].tz_convert(TZ).loc["2014-07-01":]
members = [
    ("linear", LinearLagForecaster(lags=(1, 2, "1D"), horizon=48)),
    ("weekly", SeasonalNaive(season="7D")),
]
settings = dict(horizon=48, origins="1D", target="demand", timezone=TZ)

val = {
    name: backtest(
        est, df.loc[:"2014-11-30"], start="2014-11-01", end="2014-11-30", **settings
    ).forecasts.set_index(["origin", "time"])
    for name, est in members
}
forecasts = pd.DataFrame({name: f["y_pred"] for name, f in val.items()})
truth = next(iter(val.values()))["y_true"]
weights = blend_weights(forecasts, truth)
print("weights chosen on November:", [round(w, 3) for w in weights])

models = dict(members) | {"blend": EnsembleForecaster(members, weights=weights)}
cmp = compare(models, df, start="2014-12-01", end="2014-12-31", progress=False, **settings)
print(cmp.table[["mape", "mae"]].round(3))

# %%
# The blend reuses its members' fits inside ``compare``. On this month it lands between its
# members: weights chosen on one month need not carry to the next, which is why the
# project's day-ahead blends choose them on a whole validation year.

fig, ax = plt.subplots(figsize=(6, 2.8))
cmp.table["mape"].plot.barh(ax=ax, color=["C0", "C1", "C2"])
ax.set_xlabel("MAPE on December (%)")
fig.tight_layout()
