import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from forecast import ConstantVelocity, GRUForecaster, Naive
from forecast.datasets import expmap_columns
from forecast.evaluation.motion import (
    HORIZONS,
    HORIZONS_MM,
    OBSERVED,
    PREDICTED,
    SEED,
    MotionBenchmark,
    draw_windows,
    forecast_windows,
    full_vectors,
    load_motion_benchmark,
    motion_benchmark,
    score_windows,
    zero_velocity,
)
from forecast.evaluation.motion3d import score_windows_3d

A, B = 0.01, -0.005  # slopes (radians per frame) of the two channels that move
FRAMES = (2, 4, 8, 10, 25)  # forecast frames of 80, 160, 320, 400 and 1000 ms


def sequence(n, seed):
    """One exp-map sequence of 4 joints: j1_z and j3_x turn at constant speed.

    The global position and orientation (root_*, j0_*) wander (never modelled), j2 holds a
    constant non-zero pose (not modelled: constant over the training split).
    """
    rng = np.random.default_rng(seed)
    columns = expmap_columns(15)
    values = np.zeros((n, len(columns)))
    values[:, :6] = rng.normal(size=(n, 6)).cumsum(axis=0) * 0.01
    t = np.arange(n)
    values[:, columns.index("j1_z")] = 0.1 + A * t
    values[:, columns.index("j2_x")] = 0.2
    values[:, columns.index("j3_x")] = 0.3 + B * t
    index = pd.date_range("1970-01-01", periods=n, freq="40ms", name="time")
    return pd.DataFrame(values, index=index, columns=columns)


def frames(test_length=100):
    out = {}
    for a, action in enumerate(("walking", "running")):
        for i, n in enumerate((120, 130, 140), 1):
            out[f"train/{action}_{i}"] = sequence(n, seed=10 * a + i)
        out[f"test/{action}_1"] = sequence(test_length, seed=10 * a + 9)
    return out


@pytest.fixture
def bench():
    return MotionBenchmark.from_frames(frames())


def test_windows_are_drawn_as_the_reference_code(bench):
    rng = np.random.RandomState(SEED)
    expected = [rng.randint(0, 100 - 75) for _ in range(8)]
    assert draw_windows(100) == expected
    assert bench.actions == ["running", "walking"]
    assert bench.starts == {"running": expected, "walking": expected}  # re-seeded per action
    assert bench.columns == ["j1_z", "j3_x"] and len(bench.all_columns) == 15
    assert sorted(bench.train) == sorted(k for k in frames() if k.startswith("train/"))
    assert all(list(f.columns) == ["j1_z", "j3_x"] for f in bench.train.values())
    full = frames()["test/walking_1"]
    truth = bench.truth["walking"]
    assert truth.shape == (8, OBSERVED + PREDICTED, 15)
    modelled = [full.columns.get_loc(c) for c in bench.columns]
    for k, start in enumerate(expected):
        window = full.to_numpy()[start : start + 75]
        np.testing.assert_array_equal(truth[k][:, modelled], window[:, modelled])
    others = [i for i in range(15) if i not in modelled]
    np.testing.assert_array_equal(
        truth[..., others], np.broadcast_to(bench.fill[others], (8, 75, 13))
    )
    assert bench.fill[full.columns.get_loc("j2_x")] == pytest.approx(0.2)
    # origins: the last observed frame; windows: the 50 observed frames
    origins = bench.origins("walking")
    assert list(origins) == [full.index[s + OBSERVED - 1] for s in expected]
    windows = bench.windows()
    assert list(windows) == [f"{a}/{k}" for a in ("running", "walking") for k in range(8)]
    assert all(len(w) == OBSERVED for w in windows.values())
    assert windows["walking/3"].index[-1] == origins[3]


def test_zero_velocity_error_by_hand(bench):
    table = score_windows(zero_velocity(bench), bench)
    # Euler angle of a rotation about one axis is minus its angle: the error of frame k is
    # the distance travelled, k * sqrt(A^2 + B^2), in every window
    hand = [k * np.hypot(A, B) for k in FRAMES]
    assert list(table.columns) == list(HORIZONS) and table.index.name == "action"
    np.testing.assert_allclose(table.loc["walking"], hand, atol=1e-12)
    np.testing.assert_allclose(table.loc["running"], hand, atol=1e-12)
    # the modelled channels alone are put into full vectors first
    pos = [bench.all_columns.index(c) for c in bench.columns]
    short = {a: p[..., pos] for a, p in zero_velocity(bench).items()}
    pd.testing.assert_frame_equal(score_windows(short, bench), table)
    np.testing.assert_array_equal(
        full_vectors(short, bench)["walking"], zero_velocity(bench)["walking"]
    )


@pytest.mark.parametrize("history", ["window", "sequence"])
def test_baselines_through_the_entry_function(bench, history):
    naive = motion_benchmark(Naive(), benchmark=bench, history=history)
    assert naive.index.names == ["seed", "action"] and len(naive) == 2
    assert list(naive.columns) == [*HORIZONS, "fit_seconds", "fit_peak_mb"]
    hand = [k * np.hypot(A, B) for k in FRAMES]
    np.testing.assert_allclose(naive[list(HORIZONS)].to_numpy(), [hand, hand], atol=1e-12)
    velocity = motion_benchmark(ConstantVelocity(window=1), benchmark=bench, history=history)
    np.testing.assert_allclose(velocity[list(HORIZONS)].to_numpy(), 0.0, atol=1e-9)
    walking = motion_benchmark(Naive(), benchmark=bench, actions=["walking"])
    assert list(walking.index.get_level_values("action")) == ["walking"]


def widen(f):
    """A CMU-sized sequence (117 dimensions): the 4 joints of `sequence` and 34 still ones."""
    wide = pd.DataFrame(0.0, index=f.index, columns=expmap_columns(117))
    wide[f.columns] = f
    return wide


def test_positions_add_the_3d_error_columns(bench):
    cmu = MotionBenchmark.from_frames({k: widen(f) for k, f in frames().items()})
    table = motion_benchmark(Naive(), benchmark=cmu, positions=True)
    assert list(table.columns) == [*HORIZONS, *HORIZONS_MM, "fit_seconds", "fit_peak_mb"]
    assert HORIZONS_MM == ("80 ms mm", "160 ms mm", "320 ms mm", "400 ms mm", "1000 ms mm")
    hand = [k * np.hypot(A, B) for k in FRAMES]  # the Euler-angle columns are unchanged
    np.testing.assert_allclose(table[list(HORIZONS)].to_numpy(), [hand, hand], atol=1e-12)
    mm = score_windows_3d(zero_velocity(cmu), cmu)  # Naive is zero velocity
    np.testing.assert_allclose(table[list(HORIZONS_MM)].droplevel("seed"), mm, atol=1e-9)
    assert (mm.to_numpy() > 0).all()
    plain = motion_benchmark(Naive(), benchmark=cmu)
    assert list(plain.columns) == [*HORIZONS, "fit_seconds", "fit_peak_mb"]
    with pytest.raises(ValueError, match="needs the 117 CMU exp-map dimensions"):
        motion_benchmark(Naive(), benchmark=bench, positions=True)


def test_forecast_windows_shapes(bench):
    model = ConstantVelocity(window=1).fit(bench.train)
    for history in ("window", "sequence"):
        pred = forecast_windows(model, bench, history=history)
        assert {a: p.shape for a, p in pred.items()} == {
            "running": (8, PREDICTED, 2),
            "walking": (8, PREDICTED, 2),
        }


def test_validation_windows_come_from_the_last_training_file():
    val = MotionBenchmark.from_frames(frames(), split="validation")
    assert sorted(val.train) == ["train/running_1", "train/running_2", "train/walking_1",
                                 "train/walking_2"]  # fmt: skip
    assert val.starts["walking"] == draw_windows(140)  # from walking_3 (140 frames)
    test = MotionBenchmark.from_frames(frames())
    assert val.columns == test.columns  # channels and fill from the whole training split
    np.testing.assert_array_equal(val.fill, test.fill)
    table = motion_benchmark(Naive(), benchmark=val)
    np.testing.assert_allclose(table.iloc[0, :5], [k * np.hypot(A, B) for k in FRAMES])


def test_seeds_and_factories(bench):
    tiny = GRUForecaster(context_length=OBSERVED, horizon=PREDICTED, hidden_size=4,
                         max_epochs=1, batch_size=16, random_state=0)  # fmt: skip
    table = motion_benchmark(tiny, benchmark=bench, seeds=[1, 2], actions=["walking"])
    assert tiny.get_params()["random_state"] == 0 and not hasattr(tiny, "module_")  # cloned
    assert list(table.index.get_level_values("seed")) == [1, 2]
    values = table[list(HORIZONS)].to_numpy()
    again = motion_benchmark(tiny, benchmark=bench, seeds=[1], actions=["walking"])
    np.testing.assert_array_equal(again[list(HORIZONS)].to_numpy()[0], values[0])  # same seed
    assert not np.array_equal(values[0], values[1])
    seen = []

    def factory(seed):
        seen.append(seed)
        return Naive()

    made = motion_benchmark(factory, benchmark=bench, seeds=[5, 6])
    assert seen == [5, 6] and sorted(set(made.index.get_level_values("seed"))) == [5, 6]


def test_bad_inputs(bench):
    with pytest.raises(ValueError, match="split must be one of"):
        MotionBenchmark.from_frames(frames(), split="train")
    with pytest.raises(ValueError, match=r"unknown actions \['dancing'\]"):
        motion_benchmark(Naive(), benchmark=bench, actions=["dancing"])
    with pytest.raises(ValueError, match="history must be one of"):
        motion_benchmark(Naive(), benchmark=bench, history="all")
    with pytest.raises(ValueError, match="test sequence of 'running': .* 75 frames is too short"):
        MotionBenchmark.from_frames(frames(test_length=75))
    with pytest.raises(ValueError, match=r"seeds must not repeat, got \[1, 1\]"):
        motion_benchmark(Naive(), benchmark=bench, seeds=[1, 1])
    with pytest.raises(TypeError, match="estimator must be an estimator or a function"):
        motion_benchmark(42, benchmark=bench)
    with pytest.raises(ValueError, match=r"forecast of 'walking' has shape \(8, 24, 15\)"):
        score_windows({"walking": np.zeros((8, 24, 15))}, bench)


def test_every_window(bench):
    every = MotionBenchmark.from_frames(frames(), windows="all")  # test files of 100 frames
    assert draw_windows(100, "all") == list(range(26)) and draw_windows(75, "all") == [0]
    assert every.starts == {"running": list(range(26)), "walking": list(range(26))}
    full = frames()["test/walking_1"].to_numpy()
    truth = every.truth["walking"]
    assert truth.shape == (26, 75, 15) and not truth.flags.writeable  # a view of the take
    modelled = [every.all_columns.index(c) for c in every.columns]
    for start in range(26):
        np.testing.assert_array_equal(truth[start][:, modelled], full[start : start + 75, modelled])
    others = [i for i in range(15) if i not in modelled]
    np.testing.assert_array_equal(
        truth[..., others], np.broadcast_to(every.fill[others], (26, 75, 13))
    )
    index = frames()["test/walking_1"].index
    assert list(every.origins("walking")) == list(index[OBSERVED - 1 : OBSERVED + 25])
    windows = every.windows()
    assert len(windows) == 52 and windows["walking/25"].index[0] == index[25]
    # the windows of the seeded draw are among them, with the same ground truth
    np.testing.assert_array_equal(truth[bench.starts["walking"]], bench.truth["walking"])
    val = MotionBenchmark.from_frames(frames(), split="validation", windows="all")
    assert val.starts["walking"] == list(range(140 - 74))  # walking_3, 140 frames
    hand = [k * np.hypot(A, B) for k in FRAMES]  # the same in every window
    np.testing.assert_allclose(score_windows(zero_velocity(every), every), [hand, hand], atol=1e-12)


@pytest.mark.parametrize("n", [1, 3, 12])
def test_other_window_counts_continue_the_same_draw(bench, n):
    rng = np.random.RandomState(SEED)
    expected = [rng.randint(0, 100 - 75) for _ in range(n)]
    assert draw_windows(100, n) == expected
    drawn = MotionBenchmark.from_frames(frames(), windows=np.int64(n))
    assert drawn.starts == {"running": expected, "walking": expected}
    shared = min(n, 8)  # the first draws are those of the 8-window benchmark
    assert drawn.starts["walking"][:shared] == bench.starts["walking"][:shared]
    assert drawn.truth["walking"].shape == (n, 75, 15)
    np.testing.assert_array_equal(drawn.truth["walking"][:shared], bench.truth["walking"][:shared])
    assert len(drawn.windows()) == 2 * n


@pytest.mark.parametrize("bad", [0, -3, 2.0, True, None, "every", "ALL"])
def test_bad_window_counts(bench, bad):
    message = rf"windows must be a positive int or 'all', got {re.escape(repr(bad))}$"
    with pytest.raises(ValueError, match=message):
        MotionBenchmark.from_frames(frames(), windows=bad)
    with pytest.raises(ValueError, match=message):
        draw_windows(100, bad)
    with pytest.raises(ValueError, match=message):  # before the files are read
        load_motion_benchmark("/no/such/folder", windows=bad)
    with pytest.raises(ValueError, match=message):
        motion_benchmark(Naive(), benchmark=bench, windows=bad)
    with pytest.raises(ValueError, match="test sequence of 'running': .* 74 frames is shorter"):
        MotionBenchmark.from_frames(frames(test_length=74), windows="all")


@pytest.mark.parametrize("history", ["window", "sequence"])
def test_every_window_through_the_entry_function(monkeypatch, bench, history):
    calls = []

    def fake_load(name, data_dir=None, **options):
        calls.append((name, data_dir, options))
        return frames()

    monkeypatch.setattr("forecast.evaluation.motion_data.load", fake_load)
    naive = motion_benchmark(Naive(), "folder", windows="all", history=history)
    assert calls == [("cmu-mocap", "folder", {})]
    hand = [k * np.hypot(A, B) for k in FRAMES]
    np.testing.assert_allclose(naive[list(HORIZONS)].to_numpy(), [hand, hand], atol=1e-12)
    velocity = motion_benchmark(ConstantVelocity(window=1), "folder", windows="all")
    np.testing.assert_allclose(velocity[list(HORIZONS)].to_numpy(), 0.0, atol=1e-9)
    model = ConstantVelocity(window=1).fit(bench.train)
    every = load_motion_benchmark("folder", windows="all")
    pred = forecast_windows(model, every, history=history)
    assert {a: p.shape for a, p in pred.items()} == {"running": (26, 25, 2), "walking": (26, 25, 2)}


def test_windows_are_scored_in_chunks(monkeypatch):
    every = MotionBenchmark.from_frames(frames(), windows="all")  # 26 windows per action
    rng = np.random.default_rng(0)
    pred = {a: p + rng.normal(0, 0.05, p.shape) for a, p in zero_velocity(every).items()}
    whole = score_windows(pred, every)  # one chunk
    ones = [score_windows({"walking": p[None]}, replace(every, truth={"walking": t[None]}))
            for p, t in zip(pred["walking"], every.truth["walking"], strict=True)]  # fmt: skip
    np.testing.assert_allclose(whole.loc["walking"], pd.concat(ones).mean(), rtol=1e-12)
    monkeypatch.setattr("forecast.evaluation.motion._CHUNK", 5)  # 5 chunks of 5, one of 1
    np.testing.assert_allclose(score_windows(pred, every), whole, rtol=1e-12)


def test_every_window_in_3d_is_the_mean_over_windows():
    wide = {k: widen(f) for k, f in frames().items()}
    every = MotionBenchmark.from_frames(wide, windows="all")
    table = motion_benchmark(Naive(), benchmark=every, positions=True)
    mm = score_windows_3d(zero_velocity(every), every)
    np.testing.assert_allclose(table[list(HORIZONS_MM)].droplevel("seed"), mm, atol=1e-9)
    # the error of the 26 windows is the mean of the errors of the windows one by one
    one_by_one = [
        score_windows_3d({"walking": p[None]}, replace(every, truth={"walking": t[None]}))
        for p, t in zip(zero_velocity(every)["walking"], every.truth["walking"], strict=True)
    ]
    np.testing.assert_allclose(mm.loc["walking"], pd.concat(one_by_one).mean(), rtol=1e-12)
    drawn = MotionBenchmark.from_frames(wide)  # and the 8 drawn windows are among them
    picked = [one_by_one[i] for i in drawn.starts["walking"]]
    eight = score_windows_3d(zero_velocity(drawn), drawn).loc["walking"]
    np.testing.assert_allclose(eight, pd.concat(picked).mean(), rtol=1e-12)


def test_windows_in_3d_are_scored_in_chunks(monkeypatch):
    every = MotionBenchmark.from_frames({k: widen(f) for k, f in frames().items()}, windows="all")
    rng = np.random.default_rng(1)
    pred = {a: p + rng.normal(0, 0.05, p.shape) for a, p in zero_velocity(every).items()}
    whole = score_windows_3d(pred, every)  # one chunk of 26 windows per action
    monkeypatch.setattr("forecast.evaluation.motion3d._CHUNK", 4)  # 6 chunks of 4, one of 2
    np.testing.assert_allclose(score_windows_3d(pred, every), whole, rtol=1e-12)


def test_real_zero_velocity_is_the_published_row(data_dir):
    table = motion_benchmark(Naive(), data_dir)
    scores = table[list(HORIZONS)].droplevel("seed")
    # experiments/results/cmu_mocap.md: zero velocity, mean over the 6 test actions
    assert scores.mean().round(3).tolist() == [0.406, 0.680, 1.153, 1.320, 1.841]
    assert scores.loc["basketball"].round(3).tolist() == [0.488, 0.821, 1.404, 1.640, 2.831]
    assert scores.loc["washwindow"].round(3).tolist() == [0.340, 0.567, 0.896, 1.093, 1.468]
    val = load_motion_benchmark(data_dir, split="validation")
    assert val.starts["basketball"] == [2, 102, 47, 12, 51, 33, 43, 105]
    mean = score_windows(zero_velocity(val), val).mean()
    # experiments/results/cmu_mocap_validation.jsonl, first line
    assert mean.round(4).tolist() == [0.4602, 0.7284, 1.2096, 1.3731, 2.0578]


def test_without_the_near_constant_filter_a_still_channel_counts(bench):
    # a forecast that moves j2_x (constant in the truth, so filtered out by the reference
    # code) is scored only without the filter, as LTD's test code scores
    j2 = bench.all_columns.index("j2_x")
    pred = zero_velocity(bench)
    exact = {a: bench.truth[a][:, OBSERVED:].copy() for a in pred}
    for p in exact.values():
        p[..., j2] += 0.05
    filtered = score_windows(exact, bench)
    np.testing.assert_allclose(filtered.to_numpy(), 0.0, atol=1e-12)
    kept = score_windows(exact, bench, std_threshold=None)
    assert (kept.to_numpy() > 0.04).all()
    same = score_windows(pred, bench, std_threshold=None)  # moving channels: both count them
    pd.testing.assert_frame_equal(same, score_windows(pred, bench))
