"""A year of hourly updates saved and loaded: the size of meta.json and the load time.

A model updated every hour appends one lineage record per update. Before issue 49 the whole
lineage went into ``meta.json``, which passed its 1 MiB cap after about 3,900 updates (five
months): ``save`` succeeded and ``load`` refused the folder. Now the lineage keeps the fit
record, the ``KEEP_UPDATES`` (500) latest updates and one ``"earlier"`` record of totals.

This script fits a seasonal naive model on four weeks of hourly data, updates it with one new
hour 8,760 times (a year), saves and loads it every month of updates, and prints a table:
updates so far, lineage records kept, ``meta.json`` and ``fitted.json`` sizes, save and load
seconds (median of three loads), and the bytes the whole lineage would take in ``meta.json``
without folding. Run::

    python experiments/lineage_year.py [--updates 8760] [--every 730]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import forecast
from forecast import SeasonalNaive
from forecast.frames import lineage

ZONE = "Europe/Berlin"
FIT_HOURS = 24 * 28


def series(hours: int) -> pd.DataFrame:
    index = pd.date_range("2023-01-01", periods=hours, freq="h", tz=ZONE)
    t = np.arange(hours)
    rng = np.random.default_rng(0)
    load = 50 + 8 * np.sin(2 * np.pi * t / 24) + rng.normal(0, 0.5, hours)
    return pd.DataFrame({"load": load}, index=index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=8760)
    parser.add_argument("--every", type=int, default=730)
    args = parser.parse_args()
    data = series(FIT_HOURS + args.updates)
    model = SeasonalNaive(season=24).fit(data.iloc[:FIT_HOURS])
    unfolded = list(model.lineage_)  # what the lineage held before folding
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model"
        for n in range(1, args.updates + 1):
            model.update(data.iloc[FIT_HOURS + n - 1 : FIT_HOURS + n])
            unfolded.append(model.lineage_[-1])
            if n % args.every and n != args.updates:
                continue
            t0 = time.perf_counter()
            model.save(path, overwrite=True)
            save_s = time.perf_counter() - t0
            loads = []
            for _ in range(3):
                t0 = time.perf_counter()
                loaded = forecast.load(path)
                loads.append(time.perf_counter() - t0)
            assert (
                loaded.n_updates_ == n and loaded.updated_through_ == data.index[FIT_HOURS + n - 1]
            )
            whole = lineage.summary(unfolded, n, model.updated_through_)
            rows.append(
                {
                    "updates": n,
                    "records": len(model.lineage_),
                    "meta_json_bytes": (path / "meta.json").stat().st_size,
                    "fitted_json_bytes": (path / "fitted.json").stat().st_size,
                    "save_s": round(save_s, 3),
                    "load_s": round(statistics.median(loads), 3),
                    "unfolded_lineage_bytes": len(json.dumps(whole, indent=2)),
                }
            )
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    print(
        f"\n{args.updates} updates in {time.perf_counter() - started:.0f} s; meta.json cap 1048576"
    )


if __name__ == "__main__":
    main()
