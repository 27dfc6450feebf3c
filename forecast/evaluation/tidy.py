"""Backtest forecasts as a tidy table: the scored steps of each origin, with the actuals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from forecast.evaluation.schedule import Plan
from forecast.frames import validation
from forecast.frames.quantiles import quantile_column


def tidy_forecasts(
    pred: pd.DataFrame,
    plan: Plan,
    index: pd.DatetimeIndex,
    frames: dict[Any, pd.DataFrame],
    kind: str,
    targets: list[str],
    levels: tuple[float, ...] = (),
) -> pd.DataFrame:
    """Keep the scored steps of each origin, add actuals, and melt to one row per value."""
    origin_pos = pd.Series(plan.origin_pos, index=index[plan.origin_pos])
    o_pos = origin_pos.reindex(pred["origin"]).to_numpy()
    t_pos = index.get_indexer(pd.DatetimeIndex(pred["time"]))
    first = dict(zip(plan.origin_pos, plan.first_pos, strict=True))
    first_pos = np.array([first[p] for p in o_pos])
    keep = (t_pos >= first_pos) & (t_pos >= 0)
    pred = pred.loc[keep].reset_index(drop=True)
    step = (t_pos - o_pos)[keep]
    ids = pred[validation.ID_COLUMN].to_numpy() if kind != "frame" else np.full(len(pred), None)
    truth = np.full((len(pred), len(targets)), np.nan)
    for key, frame in frames.items():
        rows = np.flatnonzero(ids == key) if kind != "frame" else np.arange(len(pred))
        times = pd.DatetimeIndex(pred["time"].to_numpy()[rows])
        truth[rows] = frame[targets].reindex(times).to_numpy(dtype=float)
    head = pred[["origin"] + ([validation.ID_COLUMN] if kind != "frame" else []) + ["time"]]
    head = head.assign(step=step)
    blocks = []
    for c, column in enumerate(targets):
        bands = {
            quantile_column("y_pred", q): pred[quantile_column(column, q)].to_numpy(dtype=float)
            for q in levels
        }
        blocks.append(
            head.assign(
                target=column,
                y_pred=pred[column].to_numpy(dtype=float),
                y_true=truth[:, c],
                **bands,
            )
        )
    out = pd.concat(blocks, ignore_index=True)
    order = ["origin"] + ([validation.ID_COLUMN] if kind != "frame" else []) + ["time"]
    out["target"] = pd.Categorical(out["target"], categories=targets)
    out = out.sort_values(order + ["target"], kind="stable", ignore_index=True)
    out["target"] = out["target"].astype(str)
    return out
