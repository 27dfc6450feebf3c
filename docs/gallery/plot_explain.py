"""
Why does tomorrow's forecast say that?
======================================

``explain`` attributes each step of a forecast to the inputs it read: the lagged demand, the
covariates, the calendar. The contributions of one forecast add up to the forecast minus the
forecast of a baseline input (every input at its training mean), so they answer "how far, and
why, is this forecast from the typical level?". Here the same day-ahead forecast of Melbourne
demand (half-hours, issued at 12:00 for the next local day) is explained for a linear model on
lags (its exact regression terms) and a small GRU (integrated gradients through the network).
"""

import matplotlib.pyplot as plt
import pandas as pd
import torch

from forecast import GRUForecaster, LinearLagForecaster
from forecast.attribution import explain, plot_explanation
from forecast.datasets import load

torch.set_num_threads(1)
TZ = "Australia/Melbourne"
df = load("elecdemand")[["demand", "temperature"]].tz_convert(TZ).loc["2014-09-01":"2014-11-30"]
train, origin = df.loc[:"2014-11-20"], pd.Timestamp("2014-11-25 12:00", tz=TZ)

linear = LinearLagForecaster(
    lags=(1, 2, "1D", "7D"), horizon=72, future_covariates=["temperature"], timezone=TZ
).fit(train)
gru = GRUForecaster(
    context_length=96,
    horizon=72,
    hidden_size=16,
    max_epochs=3,
    future_covariates=["temperature"],
    calendar=True,
    timezone=TZ,
    random_state=0,
).fit(train)

# %%
# One call per model: the forecast issued at ``origin`` (the last observed half-hour), 72
# steps (the rest of today and the whole of tomorrow). The temperature of the forecast steps
# is read from ``df`` (observed here, standing in for a weather forecast).

tables = {
    "linear on lags (exact terms)": explain(linear, df, horizon=72, origins=[origin]),
    "GRU (integrated gradients)": explain(gru, df, horizon=72, origins=[origin]),
}
table = tables["GRU (integrated gradients)"]
print(table.attrs["baseline"])
print(table.head())

# %%
# Completeness: per step, the contributions add up to the forecast minus the baseline's
# forecast (exactly for the linear model, up to the integration error for the network).

for name, t in tables.items():
    print(f"{name}: largest gap {t.attrs['completeness_gap']:.2g} MW, "
          f"{t.attrs['seconds']:.2f} s per explained forecast")  # fmt: skip

# %%
# Left: each cell sums the contributions of the inputs at one step relative to the origin
# (columns; right of the line: the forecast steps' temperature and calendar) to one lead
# (rows). Right: the inputs with the largest mean contribution over tomorrow's 48 half-hours.

fig, axes = plt.subplots(2, 2, figsize=(12, 8), layout="constrained")
for row, (name, t) in zip(axes, tables.items(), strict=True):
    plot_explanation(t[t["lead"] > 24], title=name, top=10, axes=(row[0], row[1]))

# %%
# By kind of input: how much of tomorrow's forecast (its mean over the day, relative to the
# baseline) comes from recent demand, from temperature and from the calendar.

tomorrow = table[table["lead"] > 24]
share = tomorrow.groupby("input_kind")["contribution"].sum() / tomorrow["lead"].nunique()
print(share.round(3))
