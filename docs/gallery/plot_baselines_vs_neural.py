"""
Baselines against a network
===========================

Every network must beat the statistical baselines on the same folds. ``compare`` backtests
several estimators from the same origins (here a forecast of the next day issued every
midnight over the last two weeks of November) and returns one table.
"""

import matplotlib.pyplot as plt

from forecast import GRUForecaster, LinearLagForecaster, Naive, SeasonalNaive, compare
from forecast.datasets import load

df = load("elecdemand")[["demand"]].tz_convert("Australia/Melbourne")
df = df.loc["2014-09-01":"2014-11-30"]

models = {
    "last value": Naive(),
    "same time last week": SeasonalNaive(season="7D"),
    "linear on lags": LinearLagForecaster(lags=(1, 2, "1D", "7D"), horizon=48),
    "GRU": GRUForecaster(
        context_length=96, horizon=48, hidden_size=16, max_epochs=3, random_state=0
    ),
}
cmp = compare(
    models,
    df,
    horizon=48,
    origins="1D",
    start="2014-11-17",
    end="2014-11-30",
    target="demand",
    timezone="Australia/Melbourne",
    progress=False,
)
print(cmp.table[["mape", "mae", "rmse"]].round(3))

# %%
# Lower is better; the table also holds fit and backtest seconds per model.

fig, ax = plt.subplots(figsize=(6, 3))
cmp.table["mape"].sort_values().plot.barh(ax=ax, color="C0")
ax.set_xlabel("MAPE (%)")
fig.tight_layout()
