"""Property tests of input validation, forecast indexes and training windows (hypothesis).

* Random regular frames (frequencies from minutes to months, five time zones including
  Lord Howe's half-hour daylight saving, starts next to DST switches), optionally broken
  (a gap, a duplicate, NaN/inf, swapped rows, a shifted or missing stamp): ``fit`` either
  accepts or raises a ValueError/TypeError; clean frames (and repaired ones) are accepted;
  when accepted, ``predict(horizon=h)`` continues the index exactly.
* Sliding windows and truncated-BPTT chunks over random lengths: no target precedes or
  overlaps its context, no window straddles two series, and the counts are exact.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecast import Naive, SeasonalNaive
from forecast.frames import validation as V
from forecast.training.windows import StreamChunks, WindowDataset, n_windows

FIXED = ["min", "15min", "30min", "h"]
CALENDAR = ["D", "B", "W", "MS"]
ZONES = [None, "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]
# days before a DST switch in 2023: Berlin, New York, Lord Howe (30 minutes), spring and autumn
DST_EVES = ["2023-03-25", "2023-10-28", "2023-03-11", "2023-11-04", "2023-04-01", "2023-09-30"]
BREAKS = ["none", "drop", "duplicate", "nan", "inf", "swap", "shift", "nat"]

FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@st.composite
def regular_index(draw, freqs=FIXED + CALENDAR, zones=ZONES, min_size=3, max_size=60):
    """A regular DatetimeIndex as pandas builds it: fixed steps in UTC, calendar ones local."""
    freq = draw(st.sampled_from(freqs))
    tz = draw(st.sampled_from(zones))
    n = draw(st.integers(min_size, max_size))
    near_dst = draw(st.booleans())
    if near_dst:
        day = pd.Timestamp(draw(st.sampled_from(DST_EVES)))
    else:
        day = pd.Timestamp(draw(st.dates(dt.date(2015, 1, 1), dt.date(2030, 12, 31))))
    if freq in FIXED:
        start = (day + pd.Timedelta(minutes=draw(st.integers(0, 24 * 60 - 1)))).floor(freq)
        if tz is None:
            return pd.date_range(start, periods=n, freq=freq), freq
        return pd.date_range(start.tz_localize("UTC"), periods=n, freq=freq).tz_convert(tz), freq
    return pd.date_range(day, periods=n, freq=freq, tz=tz), freq  # local midnights


def frame_on(index: pd.DatetimeIndex, draw) -> pd.DataFrame:
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return pd.DataFrame({"load": rng.normal(100.0, 30.0, len(index))}, index=index)


def break_frame(frame: pd.DataFrame, how: str, pos: int, freq: str) -> pd.DataFrame:
    """Break ``frame`` at the interior row ``pos`` (the first and last rows stay)."""
    out = frame.copy()
    if how == "none":
        return out
    if how == "drop":
        return out.drop(out.index[pos])
    if how == "duplicate":
        return pd.concat([out.iloc[: pos + 1], out.iloc[pos:]])
    if how in ("nan", "inf"):
        out.iloc[pos, 0] = np.nan if how == "nan" else np.inf
        return out
    if how == "swap":
        return out.iloc[[*range(pos), pos + 1, pos, *range(pos + 2, len(out))]]
    if how in ("shift", "nat"):
        stamp = pd.NaT if how == "nat" else out.index[pos] + pd.Timedelta("7s")
        return out.set_axis(out.index.delete(pos).insert(pos, stamp))
    return out


def check_continuation(last: pd.Timestamp, index: pd.DatetimeIndex, freq: str, h: int):
    """``index`` is the ``h`` steps after ``last``, checked without pandas offsets on ``last``."""
    assert len(index) == h
    assert str(index.tz) == str(last.tz)
    stamps = pd.DatetimeIndex([last]).append(index)
    if freq in FIXED:  # elapsed time: every step is exactly one period, across DST too
        assert (
            stamps[1:] - stamps[:-1] == pd.Timedelta(pd.tseries.frequencies.to_offset(freq))
        ).all()
        return
    wall = stamps.tz_localize(None) if stamps.tz is not None else stamps
    assert (wall == wall.normalize()).all(), "calendar steps stay at local midnight"
    expected = pd.date_range(wall[0], periods=h + 1, freq=freq)  # in naive local time
    assert list(wall) == list(expected)


# --------------------------------------------------------------------- fit and predict
@FAST
@given(
    data=st.data(),
    generated=regular_index(),
    how=st.sampled_from(BREAKS),
    fill_gaps=st.booleans(),
    interpolate=st.booleans(),
    h=st.integers(1, 40),
)
def test_fit_accepts_or_raises_clearly_and_forecasts_the_continuation(
    data, generated, how, fill_gaps, interpolate, h
):
    index, freq = generated
    clean = frame_on(index, data.draw)
    how = how if len(index) >= 4 else "none"
    frame = break_frame(clean, how, data.draw(st.integers(1, max(1, len(index) - 3))), freq)
    before = frame.copy()
    model = Naive(fill_gaps=fill_gaps, nan_policy="interpolate" if interpolate else "raise")
    repaired = (how == "drop" and fill_gaps and len(index) >= 6) or (
        how in ("nan", "inf") and (fill_gaps or interpolate)
    )
    try:
        model.fit(frame)
    except (ValueError, TypeError) as err:
        assert how != "none" and not repaired, f"valid input rejected: {err}"
        assert len(str(err)) > 20
        return
    finally:
        pd.testing.assert_frame_equal(frame, before)
    assert how in ("none", "drop", "nan", "inf"), f"broken input ({how}) accepted"
    fc = model.predict(horizon=h)
    check_continuation(index[-1], fc.index, freq, h)
    assert np.isfinite(fc.to_numpy()).all()


@FAST
@given(data=st.data(), generated=regular_index(min_size=6), h=st.integers(1, 30))
def test_a_filled_gap_keeps_the_calendar_frequency(data, generated, h):
    # Daily data with a gap across a DST switch, months with a gap: the grid is still
    # calendar days / month starts, not the most common elapsed step.
    index, freq = generated
    clean = frame_on(index, data.draw)
    pos = data.draw(st.integers(1, len(index) - 2))
    model = Naive(fill_gaps=True).fit(clean.drop(index[pos]))
    grid = pd.date_range(index[0], index[-1], freq=model.freq_)
    pd.testing.assert_index_equal(grid, index, check_names=False, exact=False)
    check_continuation(index[-1], model.predict(horizon=h).index, freq, h)


@FAST
@given(data=st.data(), generated=regular_index(), how=st.sampled_from(BREAKS), h=st.integers(1, 30))
def test_predict_from_broken_history_raises_clearly(data, generated, how, h):
    index, freq = generated
    clean = frame_on(index, data.draw)
    model = SeasonalNaive(season=2).fit(clean)
    how = how if len(index) >= 4 else "none"
    history = break_frame(clean, how, data.draw(st.integers(1, max(1, len(index) - 3))), freq)
    before = history.copy()
    try:
        fc = model.predict(horizon=h, history=history)
    except (ValueError, TypeError) as err:
        assert how != "none", f"valid history rejected: {err}"
        assert len(str(err)) > 20
        return
    finally:
        pd.testing.assert_frame_equal(history, before)
    assert how == "none", f"broken history ({how}) accepted"
    check_continuation(index[-1], fc.index, freq, h)
    season = clean["load"].to_numpy()[-2:]
    np.testing.assert_array_equal(fc["load"].to_numpy(), np.resize(season, h))


@FAST
@given(
    data=st.data(),
    freq=st.sampled_from(FIXED),
    fit_tz=st.sampled_from(ZONES),
    history_tz=st.sampled_from(ZONES),
    h=st.integers(1, 30),
)
def test_history_in_another_zone_is_converted_or_rejected(data, freq, fit_tz, history_tz, h):
    fit_index, _ = data.draw(regular_index(freqs=[freq], zones=[fit_tz]))
    history_index, _ = data.draw(regular_index(freqs=[freq], zones=[history_tz]))
    model = Naive().fit(frame_on(fit_index, data.draw))
    history = frame_on(history_index, data.draw)
    if fit_tz is None and history_tz is not None:  # a naive model has no zone to read them in
        with pytest.raises(ValueError, match="naive timestamps"):
            model.predict(horizon=h, history=history)
        return
    if history_tz is None and fit_tz is not None:  # naive stamps: local times in the model's zone
        local = history_index.tz_localize(fit_tz, ambiguous="NaT", nonexistent="NaT")
        if local.isna().any():
            with pytest.raises(ValueError, match=f"is read as local time in {fit_tz}"):
                model.predict(horizon=h, history=history)
            return
        history_index = local
    fc = model.predict(horizon=h, history=history)
    last = history_index[-1] if fit_tz is None else history_index[-1].tz_convert(fit_tz)
    check_continuation(last, fc.index, freq, h)
    assert fc["load"].iloc[0] == history["load"].iloc[-1]


@FAST
@given(
    horizon=st.one_of(
        st.integers(-5, 20_000), st.floats(allow_nan=True), st.booleans(), st.text(), st.none()
    ),
    limit=st.one_of(st.none(), st.integers(1, 15_000)),
)
def test_check_horizon_returns_the_int_or_raises(horizon, limit):
    try:
        got = V.check_horizon(horizon, limit)
    except (TypeError, ValueError) as err:
        assert "horizon" in str(err)
        ok = isinstance(horizon, int) and not isinstance(horizon, bool) and horizon >= 1
        assert not ok or (limit is not None and horizon > limit)
        return
    assert got == horizon and type(got) is int and 1 <= got <= (limit or got)


# ---------------------------------------------------------------------------- windows
def clock_series(lengths: list[int], future: bool) -> list:
    """Series whose every value is ``1000 * series + step``: windows show where they came from."""
    out = []
    for i, n in enumerate(lengths):
        t = (1000 * i + np.arange(n, dtype=np.float64))[:, None]
        out.append((t, t.copy(), -t if future else None))
    return out


@FAST
@given(
    lengths=st.lists(st.integers(1, 60), min_size=1, max_size=4),
    context=st.integers(1, 12),
    horizon=st.integers(1, 8),
    future=st.booleans(),
    data=st.data(),
)
def test_sliding_windows_never_leak_and_count_exactly(lengths, context, horizon, future, data):
    series = clock_series(lengths, future)
    spans = None
    if data.draw(st.booleans()):  # restrict targets, as the validation split does
        spans = []
        for n in lengths:
            first = data.draw(st.integers(0, n))
            spans.append((first, data.draw(st.integers(first, n))))
    windows = WindowDataset(series, context, horizon, spans)
    expected = 0
    for i, n in enumerate(lengths):
        first, end = spans[i] if spans else (0, n)
        expected += sum(
            1 for s in range(n) if s + context >= first and s + context + horizon <= end
        )
        if spans is None:
            assert n_windows(n, context, horizon) == max(0, n - context - horizon + 1)
    assert len(windows) == expected
    seen = set()
    for k in range(len(windows)):
        b = windows[k]
        x, y = b.x[:, 0].numpy().astype(int), b.y[:, 0].numpy().astype(int)
        assert len(x) == context and len(y) == horizon
        series_id, t0 = divmod(int(x[0]), 1000)
        assert (x == 1000 * series_id + t0 + np.arange(context)).all(), "context is contiguous"
        assert (y == x[-1] + 1 + np.arange(horizon)).all(), "targets follow the context end"
        first, end = spans[series_id] if spans else (0, lengths[series_id])
        assert y[0] % 1000 >= first and y[-1] % 1000 < end
        if future:
            assert (b.future[:, 0].numpy() == -y).all()
        seen.add((series_id, t0))
    assert len(seen) == expected


@FAST
@given(
    lengths=st.lists(st.integers(2, 80), min_size=1, max_size=5),
    horizon=st.integers(1, 6),
    steps=st.integers(1, 16),
    n_streams=st.integers(1, 6),
    cut=st.floats(0.5, 1.0),
    shuffle=st.booleans(),
)
def test_tbptt_chunks_never_leak_and_cover_each_step_once(
    lengths, horizon, steps, n_streams, cut, shuffle
):
    lengths = [max(n, horizon + 1) for n in lengths]
    ends = [max(horizon + 1, int(n * cut)) for n in lengths]  # the training part of each series
    chunks = StreamChunks(clock_series(lengths, True), horizon, steps, n_streams, ends)
    rng = np.random.default_rng(0) if shuffle else None
    covered = []
    previous = {}  # stream of the group -> last step read: chunks of a stream are consecutive
    for batch in chunks.batches(rng=rng):
        if batch.reset:
            previous = {}
        x = batch.x[..., 0].numpy()  # (B, k)
        y = batch.y[..., 0].numpy()  # (B, k, h)
        mask = batch.mask.numpy()
        assert x.shape[1] <= steps and y.shape[2] == horizon
        for b in range(x.shape[0]):
            live = x[b][mask[b]].astype(int)
            if len(live) == 0:
                continue
            assert (np.diff(live) == 1).all(), "steps of a chunk are consecutive"
            if b in previous:
                assert live[0] == previous[b] + 1, "the carried state continues the stream"
            previous[b] = live[-1]
            series_id = live // 1000
            assert (series_id == series_id[0]).all(), "a stream segment stays in one series"
            targets = y[b][mask[b]].astype(int)
            assert (targets == live[:, None] + 1 + np.arange(horizon)).all(), "leak"
            for t, s in zip(live % 1000, series_id, strict=True):
                assert t + horizon < ends[s], "a target at or after the training end"
            covered += list(live)
            if batch.future is not None:
                assert (batch.future[..., 0].numpy()[b][mask[b]] == -targets).all()
    expected = [1000 * i + t for i, end in enumerate(ends) for t in range(end - horizon)]
    assert sorted(covered) == expected
