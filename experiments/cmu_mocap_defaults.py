"""CMU mocap: does the plain residual GRU carry motion prediction? Measured once on test.

``GRUForecaster(context_length=50, horizon=25, hidden_size=128, residual=True,
random_state=seed)`` with nothing else set is fitted on the 32 training sequences (the
64 modelled channels of ``forecast.evaluation.motion``) for seeds 0, 1, 2; each test window
is forecast with ``predict(horizon=25, history=window)`` (the 48 windows as one dict, one
batched call: ``forecast_windows(history="window")``) and scored with ``score_windows``.
The settings its ``"auto"`` parameters resolve to were chosen on the validation protocol of
``experiments/cmu_mocap_validation.py`` (training files only); this script reads the test
files and is run once per reported configuration. It writes its section (the validation
table from the log, then the test table) into ``results/cmu_mocap.md``.

    python experiments/cmu_mocap_defaults.py             # 3 fits, about 2-5 min each on one core
    python experiments/cmu_mocap_defaults.py --seeds 0 --output ""   # print only
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from cmu_mocap import DEFAULTS_BEGIN, DEFAULTS_END, OUT, write_between  # the scripts next to
from cmu_mocap_validation import LOG, table  # this one: results file and validation log

from forecast.evaluation.motion import (
    HORIZONS,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    score_windows,
    zero_velocity,
)
from forecast.models.recurrent import GRUForecaster

RES_SUP = (0.390, 0.588, 0.980, 1.130, 1.528)  # Martinez et al. 2017, 6-action mean (issue 10)
BEGIN, END = DEFAULTS_BEGIN, DEFAULTS_END


def section(validation: str, test: pd.DataFrame, fits: pd.DataFrame, note: str) -> str:
    """The markdown section: validation table, then the one test table."""
    return "\n\n".join(
        [
            BEGIN,
            "## The defaults: residual GRU chosen on validation, measured once on test",
            note,
            "Validation (training files only; last file of each action held out, 8 windows "
            "each drawn like the test ones; mean over 7 actions; seeds as listed):",
            validation,
            "Test, the plain constructor (mean over the 6 test actions; mean +- sample std "
            "over seeds):",
            test.to_markdown(floatfmt=".3f"),
            "Fits (one thread, machine shared with other jobs):",
            fits.to_markdown(floatfmt=".4g"),
            END,
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--output", default=str(OUT), help="results file ('' to print only)")
    parser.add_argument("--note", default="", help="paragraph under the section title")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    bench = load_motion_benchmark(args.data_dir)
    rows, fits = {}, {}
    for seed in [int(s) for s in args.seeds.split(",")]:
        model = GRUForecaster(
            context_length=50, horizon=25, hidden_size=128, residual=True, random_state=seed
        )
        start = time.perf_counter()
        model.fit(bench.train)
        fit_s = time.perf_counter() - start
        pred = forecast_windows(model, bench, history="window")
        rows[seed] = score_windows(full_vectors(pred, bench), bench).mean()
        fits[f"seed {seed}"] = {
            "fit s": fit_s,
            "epochs": model.n_epochs_,
            "best epoch": model.best_epoch_,
            "held out whole": ", ".join(model.validation_series_ or []) or "-",
            "trained without a tail": ", ".join(model.untailed_series_ or []) or "-",
        }
        print(f"seed {seed}: {rows[seed].round(3).tolist()} fit {fit_s:.0f} s", flush=True)
    runs = pd.DataFrame(rows).T  # seeds x horizons
    zero = score_windows(zero_velocity(bench), bench).mean()
    cells = {
        "zero velocity": [f"{v:.3f}" for v in zero],
        "Res-sup. (Martinez et al. 2017)": [f"{v:.3f}" for v in RES_SUP],
        f"GRU defaults, seeds {args.seeds}": [
            f"{m:.3f} +- {s:.3f}" for m, s in zip(runs.mean(), runs.std(ddof=1), strict=True)
        ],
    }
    cells |= {f"GRU defaults, seed {s}": [f"{v:.3f}" for v in r] for s, r in runs.iterrows()}
    test = pd.DataFrame(cells, index=list(HORIZONS)).T
    test.index.name = "model"
    below = runs.mean().to_numpy() < np.array(RES_SUP)
    verdict = ", ".join(
        f"{ms}: {'below' if b else 'ABOVE'}" for ms, b in zip(HORIZONS, below, strict=True)
    )
    print(test.to_markdown(floatfmt=".3f"), "\nmean vs Res-sup.:", verdict)
    fit_table = pd.DataFrame(fits).T
    fit_table.index.name = "fit"
    text = section(table(LOG), test, fit_table, args.note)
    if args.output:
        write_between(text, Path(args.output), BEGIN, END)


if __name__ == "__main__":
    main()
