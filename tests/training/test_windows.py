import numpy as np
import pytest
import torch

from forecast.training.windows import (
    StreamChunks,
    WindowDataset,
    batch_slices,
    even_slices,
    n_windows,
    sliding_windows,
    stream_segment_length,
    validation_start,
)


def clock_series(n, offset=0.0, n_inputs=2, future=False):
    """Arrays whose values are their own time step, so windows can be checked by arithmetic."""
    t = np.arange(n, dtype=float) + offset
    inputs = np.repeat(t[:, None], n_inputs, axis=1)
    targets = t[:, None]
    fut = (t[:, None] * 10) if future else None
    return inputs, targets, fut


def test_sliding_windows_are_views_of_the_source():
    a = np.arange(20.0).reshape(10, 2)
    w = sliding_windows(a, 4)
    assert w.shape == (7, 4, 2)
    assert np.shares_memory(w, a)
    np.testing.assert_array_equal(w[3], a[3:7])
    t = torch.from_numpy(a)
    wt = sliding_windows(t, 4)
    assert wt.shape == (7, 4, 2)
    assert np.shares_memory(wt.numpy(), a)
    np.testing.assert_array_equal(wt[5].numpy(), a[5:9])


def test_window_count_and_targets_never_in_their_own_input():
    ds = WindowDataset([clock_series(50)], context=8, horizon=3)
    assert len(ds) == n_windows(50, 8, 3) == 40
    b = ds[np.arange(len(ds))]
    assert b.x.shape == (40, 8, 2) and b.y.shape == (40, 3, 1) and b.future is None
    first_target, last_input = b.y[:, 0, 0], b.x[:, -1, 0]
    assert torch.all(first_target == last_input + 1)  # targets start right after the context
    assert torch.all(b.x.amax(dim=(1, 2)) < b.y.amin(dim=(1, 2)))
    assert b.x[0, 0, 0] == 0 and b.y[-1, -1, 0] == 49  # every step is used, none invented


def test_windows_never_straddle_two_series():
    ds = WindowDataset([clock_series(20), clock_series(15, offset=1000)], context=5, horizon=2)
    assert len(ds) == n_windows(20, 5, 2) + n_windows(15, 5, 2)
    b = ds[np.arange(len(ds))]
    span = b.y[:, -1, 0] - b.x[:, 0, 0]
    assert torch.all(span == 5 + 2 - 1)  # contiguous in time, so within one series


def test_future_covariates_of_the_target_steps():
    ds = WindowDataset([clock_series(30, future=True)], context=6, horizon=4)
    b = ds[np.array([0, 7])]
    assert b.future.shape == (2, 4, 1)
    torch.testing.assert_close(b.future, b.y * 10)
    single = ds[3]
    assert single.x.shape == (6, 2) and single.y.shape == (4, 1)


def test_spans_keep_training_targets_out_of_the_validation_tail():
    n, context, horizon = 100, 10, 5
    start = validation_start(n, 0.2, horizon)
    assert start == 80
    train = WindowDataset([clock_series(n)], context, horizon, [(0, start)])
    val = WindowDataset([clock_series(n)], context, horizon, [(start, n)])
    ty = train[np.arange(len(train))].y
    vy = val[np.arange(len(val))].y
    assert ty.max() == start - 1
    assert vy.min() == start and vy.max() == n - 1
    assert len(val) == n - start - horizon + 1
    # a tail shorter than the horizon is widened to one horizon
    assert validation_start(100, 0.01, horizon=7) == 93
    assert validation_start(100, 0.0, horizon=7) == 100


def test_batches_cover_every_window_once_in_random_order():
    ds = WindowDataset([clock_series(40)], context=4, horizon=2)
    seen = torch.cat([b.x[:, 0, 0] for b in ds.batches(8, np.random.default_rng(0))])
    assert sorted(seen.tolist()) == list(range(len(ds)))
    assert seen.tolist() != sorted(seen.tolist())


@pytest.mark.parametrize(
    ("n", "size", "min_last", "expected"),
    [
        (65, 32, 1, [(0, 32), (32, 64), (64, 65)]),  # as range(0, n, size) cuts them
        (65, 32, 2, [(0, 32), (32, 65)]),  # a last batch of one joins the one before it
        (66, 32, 2, [(0, 32), (32, 64), (64, 66)]),  # two samples stand alone
        (1, 32, 2, [(0, 1)]),  # nothing to join
        (0, 32, 2, []),
    ],
)
def test_batch_slices_by_hand(n, size, min_last, expected):
    assert [(s.start, s.stop) for s in batch_slices(n, size, min_last)] == expected


def test_min_last_joins_a_lone_window_or_stream_and_changes_nothing_else():
    ds = WindowDataset([clock_series(40)], context=4, horizon=2)  # 35 windows
    assert len(ds) == 35
    plain = [len(b.x) for b in ds.batches(17, np.random.default_rng(0))]
    joined = list(ds.batches(17, np.random.default_rng(0), min_last=2))
    assert plain == [17, 17, 1]
    assert [len(b.x) for b in joined] == [17, 18]
    seen = torch.cat([b.x[:, 0, 0] for b in joined])
    again = torch.cat([b.x[:, 0, 0] for b in ds.batches(17, np.random.default_rng(0))])
    assert seen.tolist() == again.tolist()  # the same windows in the same order
    streams = StreamChunks([clock_series(100)], horizon=2, steps=10, n_streams=5)
    groups = {len(b.x) for b in streams.batches(2, min_last=2)}
    assert len(streams) == 5 and groups == {2, 3}


def test_segment_length_is_a_multiple_of_the_chunk():
    assert stream_segment_length([100], steps=10, n_streams=4) == 30  # 4 segments of <= 30
    assert stream_segment_length([100, 100], steps=10, n_streams=4) == 50
    assert stream_segment_length([35, 20, 12], steps=10, n_streams=2) == 40  # 3 series > 2 streams


def test_tbptt_chunk_boundaries_targets_and_mask():
    n, horizon, steps = 50, 3, 5
    streams = StreamChunks([clock_series(n, future=True)], horizon, steps, n_streams=3, ends=[n])
    usable = n - horizon  # steps whose whole horizon exists
    seg = streams.segment_length
    assert seg % steps == 0 and len(streams) == int(np.ceil(usable / seg))
    chunks = list(streams.batches())
    assert chunks[0].reset and not any(c.reset for c in chunks[1:])
    x = torch.cat([c.x for c in chunks], dim=1)  # (S, seg, I): stitched chunks
    y = torch.cat([c.y for c in chunks], dim=1)  # (S, seg, h, C)
    f = torch.cat([c.future for c in chunks], dim=1)
    mask = torch.cat([c.mask for c in chunks], dim=1)
    assert all(c.x.shape[1] == steps for c in chunks)
    steps_seen = x[..., 0][mask]
    assert sorted(steps_seen.tolist()) == list(range(usable))  # each loss step exactly once
    # segment j starts where segment j-1 ended
    np.testing.assert_array_equal(x[:, 0, 0].numpy(), np.arange(len(streams)) * seg)
    # the target of step t is t+1 .. t+h, inside the series
    expected = x[..., 0, None] + torch.arange(1, horizon + 1)
    assert torch.equal(y[..., 0][mask], expected[mask])
    assert y[..., 0][mask].max() == n - 1
    torch.testing.assert_close(f[mask], y[mask] * 10)


def test_tbptt_respects_the_training_end_and_several_series():
    a, b = clock_series(30), clock_series(22, offset=1000)
    streams = StreamChunks([a, b], horizon=2, steps=4, n_streams=4, ends=[25, 22])
    chunks = list(streams.batches(batch_size=4))
    y = torch.cat([c.y for c in chunks], dim=1)[..., 0]
    mask = torch.cat([c.mask for c in chunks], dim=1)
    valid = y[mask]
    assert valid[valid < 1000].max() == 24  # nothing at or after the end of series a
    assert valid[valid >= 1000].max() == 1021
    assert int(mask.sum()) == (25 - 2) + (22 - 2)


def test_tbptt_groups_when_streams_exceed_the_batch():
    series = [clock_series(12, offset=100 * i) for i in range(5)]
    streams = StreamChunks(series, horizon=1, steps=4, n_streams=2)
    assert len(streams) == 5  # one stream per series
    batches = list(streams.batches(batch_size=2, rng=np.random.default_rng(1)))
    assert sum(b.reset for b in batches) == 3  # groups of 2, 2 and 1 streams
    assert all(b.x.shape[0] <= 2 for b in batches)


@pytest.mark.parametrize("n_streams", [1, 7])
def test_tbptt_stream_count(n_streams):
    streams = StreamChunks([clock_series(200)], horizon=1, steps=10, n_streams=n_streams)
    assert len(streams) <= n_streams


@pytest.mark.parametrize(
    ("n", "size", "expected"),
    [
        (5, 4, [(0, 2), (2, 5)]),  # not (0, 4), (4, 5): no lone remainder of one
        (9, 4, [(0, 3), (3, 6), (6, 9)]),
        (8, 4, [(0, 4), (4, 8)]),
        (3, 4, [(0, 3)]),  # fits: one slice, the same pass as without slicing
        (1, 4, [(0, 1)]),
        (0, 4, [(0, 0)]),
    ],
)
def test_even_slices_by_hand(n, size, expected):
    assert [(s.start, s.stop) for s in even_slices(n, size)] == expected


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 1000, 1025])
def test_even_slices_cover_in_order_at_most_size_and_near_equal(n):
    parts = even_slices(n, 256)
    lengths = [s.stop - s.start for s in parts]
    assert parts[0].start == 0 and parts[-1].stop == n
    assert all(a.stop == b.start for a, b in zip(parts[:-1], parts[1:], strict=False))
    assert max(lengths) <= 256 and max(lengths) - min(lengths) <= 1
    assert len(parts) == -(-n // 256)  # the fewest slices possible
