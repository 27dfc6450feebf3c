"""Record the golden forecasts: ``python -m tests.golden.record`` (run before code moves).

``python -m tests.golden.record --add CASE ...`` records only new cases of ``cases.py``,
leaving every recorded forecast and folder as it is (and refuses another torch or numpy build).

Writes ``tests/golden/forecasts.npz`` (every case's forecasts), ``tests/golden/versions.json``
(the library versions they were made with) and one saved model folder per case under
``tests/golden/folders/``, each loaded later by ``test_golden.py``.
"""

from __future__ import annotations

import argparse
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


def record(names: list[str], arrays: dict[str, np.ndarray]) -> None:
    """Fit the cases ``names``, put their forecasts in ``arrays`` and save their folders."""
    folders = HERE / "folders"
    folders.mkdir(exist_ok=True)
    for name in names:
        cls, params, kind = cases()[name]
        model = build(cls, params).fit(data(kind))
        calls = forecasts(model, kind)
        for call, values in calls.items():
            arrays[f"{name}/{call}"] = values
        shutil.rmtree(folders / name, ignore_errors=True)
        model.save(folders / name)
        print(f"{name}: {sorted(calls)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--add",
        nargs="+",
        metavar="CASE",
        help="record only these new cases; every recorded case and folder stays as it is",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    versions = {"torch": torch.__version__, "numpy": np.__version__}
    if args.add:
        recorded = json.loads((HERE / "versions.json").read_text())
        if recorded != versions:
            raise SystemExit(f"the golden cases were recorded with {recorded}, this is {versions}")
        with np.load(HERE / "forecasts.npz") as golden:
            arrays = {key: golden[key] for key in golden.files}
        old = {key.split("/")[0] for key in arrays}
        unknown = sorted(set(args.add) - set(cases()))
        if unknown or old & set(args.add):
            raise SystemExit(f"not new cases: {sorted(old & set(args.add)) or unknown}")
        record(args.add, arrays)
    else:
        arrays = {}
        shutil.rmtree(HERE / "folders", ignore_errors=True)
        record(list(cases()), arrays)
        arrays.update(comparison_arrays())
        (HERE / "versions.json").write_text(json.dumps(versions, indent=1) + "\n")
    np.savez(HERE / "forecasts.npz", **arrays)


if __name__ == "__main__":
    main()
