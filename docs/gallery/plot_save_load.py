"""
Saving and loading a model safely
=================================

``save`` writes a folder of data only (JSON, numeric arrays, safetensors weights) and a
manifest with the size and SHA-256 of every file; ``forecast.load`` checks the folder against
the manifest before parsing anything and never unpickles or imports anything named in it.
The loaded model forecasts exactly what the saved one did.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import forecast
from forecast import GRUForecaster
from forecast.datasets import load

df = load("elecdemand")[["demand"]].tz_convert("Australia/Melbourne").loc["2014-10":"2014-11"]
model = GRUForecaster(
    context_length=96, horizon=48, hidden_size=8, max_epochs=2, random_state=0
).fit(df)

with tempfile.TemporaryDirectory() as tmp:
    folder = Path(tmp) / "gru-vic"
    model.save(folder)
    print(sorted(p.name for p in folder.iterdir()))
    again = forecast.load(folder, device="cpu")

before, after = model.predict(horizon=48), again.predict(horizon=48)
print("largest difference:", float(np.abs(before.to_numpy() - after.to_numpy()).max()))

# %%
# A folder that was changed after saving (a file edited, added or replaced by a link) is
# refused with a ``forecast.ModelFormatError`` that names the file.

fig, ax = plt.subplots(figsize=(8, 3))
before["demand"].plot(ax=ax, color="C0", linewidth=4, alpha=0.4, label="saved model")
after["demand"].plot(ax=ax, color="C3", linestyle="--", label="loaded model")
ax.set_ylabel("demand (GW)")
ax.legend()
fig.tight_layout()
