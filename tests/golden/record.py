"""Record the golden forecasts: ``python -m tests.golden.record`` (run before code moves).

Writes ``tests/golden/forecasts.npz`` (every case's forecasts), ``tests/golden/versions.json``
(the library versions they were made with) and one saved model folder per case under
``tests/golden/folders/``, each loaded later by ``test_golden.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import torch

from .cases import build, cases, comparison, data, future

HERE = Path(__file__).resolve().parent


def forecasts(model, kind: str) -> dict[str, np.ndarray]:
    """The calls whose outputs are golden, by name."""
    train = data(kind)
    h = 6
    out = {"predict": model.predict(horizon=h, future=future(kind, h)).to_numpy()}
    hist = train.iloc[:-30]
    fut = future(kind, 0)
    if fut is None:
        out["long"] = model.predict(horizon=15).to_numpy()
        if len(hist) >= model._min_history():  # MSTL needs two weeks
            out["history"] = model.predict(horizon=h, history=hist).to_numpy()
    if model._quantile_levels():  # quantile heads and conformal intervals
        out["quantiles"] = model.predict(horizon=h, quantiles=True).to_numpy()
    return out


SCORES = ["mape", "mae", "rmse", "bias", "n", "mape_special", "n_special"]


def comparison_arrays() -> dict[str, np.ndarray]:
    """The golden comparison's scores, and each model's forecasts and scores by hour."""
    result = comparison()
    out = {"compare/table": result.table[SCORES].to_numpy(dtype=float)}
    for name, res in result.results.items():
        out[f"compare/{name}/forecasts"] = res.forecasts["y_pred"].to_numpy(dtype=float)
        out[f"compare/{name}/by_hour"] = res.by_hour.to_numpy(dtype=float)
        out[f"compare/{name}/by_horizon"] = res.by_horizon.to_numpy(dtype=float)
    return out


def main() -> None:
    torch.set_num_threads(1)
    arrays = {}
    folders = HERE / "folders"
    shutil.rmtree(folders, ignore_errors=True)
    folders.mkdir()
    for name, (cls, params, kind) in cases().items():
        model = build(cls, params).fit(data(kind))
        for call, values in forecasts(model, kind).items():
            arrays[f"{name}/{call}"] = values
        model.save(folders / name)
        print(f"{name}: {sorted(forecasts(model, kind))}")
    arrays.update(comparison_arrays())
    np.savez(HERE / "forecasts.npz", **arrays)
    versions = {"torch": torch.__version__, "numpy": np.__version__}
    (HERE / "versions.json").write_text(json.dumps(versions, indent=1) + "\n")


if __name__ == "__main__":
    main()
