"""Blend weights for the day-ahead models, chosen on the validation year, scored on the test year.

Reads the forecasts ``experiments/day_ahead_neural.py --save-forecasts DIR`` keeps
(``DIR/<period>_<model>_<seed>.parquet``; the models fitted on 2019-2021 forecast 2022, those
fitted on 2019-2022 forecast 2023), finds the non-negative weights summing to 1 that minimise
the MAPE of the weighted mean on 2022 (a linear programme: MAPE is a weighted sum of absolute
errors; :func:`forecast.blend_weights`), and applies them unchanged to the 2023 forecasts.
The test year is read only to score the weights fixed on 2022.

    python experiments/day_ahead_blend.py --dir runs/fc
    python experiments/day_ahead_blend.py --dir runs/fc --members linear-lag hopfield gru
    python experiments/day_ahead_blend.py --dir runs/fc --seeds 0 1 2   # members: seed means
    python experiments/day_ahead_blend.py --dir runs/fc --by-hour       # + weights per hour

Prints, per member and for the blend: weight, MAPE on 2022, and on 2023 MAPE, bias (MW) and
the MAPE on special days (``special_days="holidays-DE"`` of ``forecast.compare``: a public
holiday or bridge day in any German state, or 24 Dec - 1 Jan). With ``--by-hour`` it also
prints the per-hour weights as a TOML snippet for a ``model = "ensemble"`` table of a spec.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from forecast import blend_weights
from forecast.evaluation import metrics as M
from forecast.frames.special_days import special_mask

TZ = "Europe/Berlin"


def read(folder: Path, period: str, members: list[str], seeds: list[int]) -> pd.DataFrame:
    """One column per member (its mean over the seeds saved) plus ``y_true``, on shared rows."""
    columns, truth = {}, None
    for name in members:
        runs = [folder / f"{period}_{name}_{seed}.parquet" for seed in seeds]
        runs = [path for path in runs if path.exists()]
        if not runs:
            raise FileNotFoundError(
                f"no {period} forecasts of {name} for seeds {seeds} in {folder}"
            )
        preds = []
        for path in runs:
            frame = pd.read_parquet(path).set_index(["origin", "time"]).sort_index()
            preds.append(frame["y_pred"])
            truth = frame["y_true"] if truth is None else truth
        columns[name] = pd.concat(preds, axis=1).mean(axis=1)
        columns[f"{name}_n"] = pd.Series(len(runs), index=preds[0].index)
    table = pd.DataFrame(columns).join(truth).dropna()
    if len(table) != len(truth):
        raise ValueError(f"{period}: members cover different (origin, time) rows")
    return table


def scores(pred: pd.Series, truth: pd.Series, special: np.ndarray) -> dict:
    """MAPE %, bias MW and special-day MAPE % of one forecast column."""
    y, f = truth.to_numpy(), pred.to_numpy()
    return {
        "mape": M.mape(y, f),
        "bias": M.bias(y, f),
        "mape_special": M.mape(y[special], f[special]),
    }


def hourly_blend(
    val: pd.DataFrame, test: pd.DataFrame, members: list[str]
) -> tuple[np.ndarray, np.ndarray, list[list[float]]]:
    """Blend with one set of weights per local hour of the target, each chosen on ``val``.

    Returns the blends of ``val`` and ``test`` and the 24 rows of weights.
    """
    table = blend_weights(val[members], val["y_true"], by="hour", timezone=TZ)
    hours = [frame.index.get_level_values("time").tz_convert(TZ).hour for frame in (val, test)]
    out = [np.empty(len(val)), np.empty(len(test))]
    for hour, weights in enumerate(table):
        for frame, hour_of, blend in zip((val, test), hours, out, strict=True):
            blend[hour_of == hour] = frame[members].to_numpy()[hour_of == hour] @ np.array(weights)
    return out[0], out[1], table


def toml_snippet(members: list[str], table: list[list[float]]) -> str:
    """The per-hour weights as lines of a spec's ``model = "ensemble"`` table (3 decimals)."""
    rows = [
        f"    [{', '.join(f'{w:.3f}' for w in weights)}],  # {hour:02d}:00"
        for hour, weights in enumerate(table)
    ]
    names = ", ".join(f'"{m}"' for m in members)
    return "\n".join(
        [
            "# members: the keys of the [models] tables that made these forecasts",
            f"members = [{names}]",
            'weights_by = "hour"  # rows: local hours 0-23 of the target time',
            "weights = [",
            *rows,
            "]",
        ]
    )


def main() -> None:  # noqa: D103
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="folder of saved forecasts")
    parser.add_argument("--members", nargs="+", help="model names (default: all in --dir)")
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[0], help="average each member over these seeds"
    )
    parser.add_argument("--out", type=Path, help="write the table as markdown here")
    parser.add_argument(
        "--by-hour", action="store_true", help="also: one set of weights per local target hour"
    )
    args = parser.parse_args()
    members = args.members or sorted(
        {p.stem.split("_")[1] for p in args.dir.glob(f"val_*_{args.seeds[0]}.parquet")}
        & {p.stem.split("_")[1] for p in args.dir.glob(f"test_*_{args.seeds[0]}.parquet")}
    )
    val = read(args.dir, "val", members, args.seeds)
    test = read(args.dir, "test", members, args.seeds)
    weights = np.array(blend_weights(val[members], val["y_true"]))
    val["blend"] = val[members].to_numpy() @ weights
    test["blend"] = test[members].to_numpy() @ weights
    special = special_mask(test.index.get_level_values("time"), "holidays-DE", TZ)
    if args.by_hour:
        val["by hour"], test["by hour"], per_hour = hourly_blend(val, test, members)
    rows = []
    blends = [("blend", 1.0)] + ([("by hour", 1.0)] if args.by_hour else [])
    for name, weight in [*zip(members, weights, strict=True), *blends]:
        val_mape = scores(val[name], val["y_true"], np.ones(len(val), bool))["mape"]
        rows.append(
            {"model": name, "seeds": str(test[f"{name}_n"].iloc[0]) if name in members else ""}
            | {"weight": weight, "val_mape": val_mape}
            | scores(test[name], test["y_true"], special)
        )
    table = pd.DataFrame(rows).set_index("model")
    text = table.to_markdown(floatfmt=".3f")
    print(text)
    print(f"\n{len(val)} validation values (2022), {len(test)} test values (2023), "
          f"{int(special.sum())} on special days (holiday or bridge day in any state)")  # fmt: skip
    if args.by_hour:
        print("\nPer-hour weights (chosen on 2022) for a spec's [models.<name>] table:\n")
        print(toml_snippet(members, per_hour))
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
