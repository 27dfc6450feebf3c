"""Sweep the GRU on German load (validation 2022), then score best and default on 2023.

    FORECAST_DATA_DIR=../shared/data python experiments/tune_gru_de.py [NUM_CPUS] [--resume]

Runs ``forecast.tune`` on experiments/gru_sweep_de.toml (16 trials, ASHA, MLflow parent and
child runs in ./mlflow.db), then backtests the best configuration and the spec's default
GRU on the 2023 test year with the day-ahead protocol, and writes
experiments/results/gru-sweep-de/best_vs_default.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import torch

from forecast import backtest
from forecast.specs.spec import load_data, read_spec
from forecast.specs.tune import parse_tune
from forecast.tuning.sweep import build_tuned, tune

torch.set_num_threads(1)
SPEC = Path(__file__).with_name("gru_sweep_de.toml")


def main(num_cpus: int = 2, resume: bool = False) -> None:
    result = tune(SPEC, num_cpus=num_cpus, resume=resume)
    print(result.trials.to_markdown(index=False, floatfmt=".4g"), flush=True)
    spec = read_spec(SPEC)
    settings = parse_tune(spec["tune"], spec["models"], spec["backtest"])
    data = load_data(spec["data"])
    rows = {}
    default = build_tuned(spec, settings, {}).get_params()
    default = {k: default[k] for k in settings.space}
    for name, config in (("default", default), ("best", result.best_config)):
        estimator = build_tuned(spec, settings, config)
        test = backtest(estimator, data, **spec["backtest"])
        rows[name] = {**config, **test.metrics.loc["overall"][["mape", "mae", "rmse"]].to_dict()}
        print(name, rows[name], flush=True)
    table = pd.DataFrame.from_dict(rows, orient="index")
    out = Path("experiments/results/gru-sweep-de")
    out.mkdir(parents=True, exist_ok=True)
    text = (
        f"# GRU sweep, German load (validation 2022, test 2023)\n\n"
        f"Parent run {result.parent_run_id}, best model {result.model_uri}\n\n"
        f"## Trials (validation MAPE, %)\n\n{result.trials.to_markdown(index=False)}\n\n"
        f"## Test year 2023, day-ahead protocol\n\n{table.to_markdown(floatfmt='.3f')}\n"
    )
    (out / "best_vs_default.md").write_text(text)
    print(text)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--resume"]
    main(int(args[0]) if args else 2, resume="--resume" in sys.argv)
