"""
Calendar features and covariates
================================

``calendar=True`` adds the hour, weekday and day of year in local time and, with a
``country``, the public holidays; ``future_covariates`` names columns known in advance (here
the temperature, as a stand-in for a weather forecast), whose values at the forecast steps go
to ``predict(future=...)``. The same linear model with and without them, scored on the last
two weeks of the year, Christmas included.
"""

import matplotlib.pyplot as plt

from forecast import LinearLagForecaster, compare
from forecast.datasets import load

TZ = "Australia/Melbourne"
df = load("elecdemand")[["demand", "temperature"]].tz_convert(TZ).loc["2014-07-01":]

plain = LinearLagForecaster(lags=(1, 2, "1D", "7D"), horizon=48)
rich = LinearLagForecaster(
    lags=(1, 2, "1D", "7D"),
    horizon=48,
    calendar=True,
    country="AU-VIC",
    timezone=TZ,
    future_covariates=["temperature"],
)
cmp = compare(
    {"lags only": plain, "lags + calendar + temperature": rich},
    df,
    horizon=48,
    origins="1D",
    start="2014-12-18",
    end="2014-12-31",
    target="demand",
    timezone=TZ,
    progress=False,
)
print(cmp.table[["mape", "mae"]].round(3))

# %%
# The calendar block itself is a public function, to inspect or feed to another library.

from forecast import calendar_features  # noqa: E402 (shown where it is used)

cal = calendar_features(df.index[: 48 * 7], country="AU-VIC", timezone=TZ)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))
cmp.table["mape"].plot.barh(ax=ax1, color=["C0", "C1"])
ax1.set_xlabel("MAPE (%)")
cal.iloc[:, :4].plot(ax=ax2)
ax2.set_title("first calendar columns, one week")
ax2.legend(fontsize=7)
fig.tight_layout()
