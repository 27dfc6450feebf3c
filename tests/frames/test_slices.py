"""Contiguous blocks of a fit's series, as the out-of-fold fits cut them."""

import numpy as np
import pandas as pd

from forecast.frames.slices import block_bounds, without_block


def hourly(days):
    index = pd.date_range("2022-03-01", periods=24 * days, freq="h")
    return pd.DataFrame({"load": np.arange(24.0 * days)}, index=index)


def test_blocks_cover_every_step_once():
    for n, folds in [(72, 3), (73, 4), (5, 5)]:
        bounds = [block_bounds(n, b, folds) for b in range(folds)]
        assert bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(hi == lo for (_, hi), (lo, _) in zip(bounds, bounds[1:], strict=False))
    assert block_bounds(72, 1, 3) == (24, 48)


def test_the_folds_leave_out_one_contiguous_block_per_series():
    a, b = hourly(3), hourly(2)
    parts = without_block({"a": a, "b": b}, 1, 3)  # the middle third of each
    assert [len(p) for p in parts.values()] == [24, 24, 16, 16]
    pd.testing.assert_frame_equal(parts[1], a.iloc[48:])
    assert list(without_block({None: a}, 0, 2).values())[0].index[0] == a.index[36]
    assert len(without_block({None: a}, 2, 3)) == 1  # nothing after the last block
