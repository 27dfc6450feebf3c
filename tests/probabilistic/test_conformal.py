import json

import numpy as np
import pandas as pd
import pytest

from forecast import ConformalForecaster, ModelFormatError, Naive, SeasonalNaive, load
from forecast.probabilistic.table import aci_path, bounds, build_table, min_scores
from forecast.training.callbacks import Callback
from tests.conftest import make_series


def noise_series(n, scale=None, seed=0, start="2023-01-01", tz=None):
    """Level 10 plus i.i.d. normal noise (scale per row, default 1)."""
    rng = np.random.default_rng(seed)
    index = pd.date_range(start, periods=n, freq="h", tz=tz)
    scale = np.ones(n) if scale is None else scale
    return pd.DataFrame({"load": 10 + scale * rng.standard_normal(n)}, index=index)


def test_order_statistics_hand_computed():
    # one group of residuals -4 .. 4 (n = 9)
    resid = np.arange(-4.0, 5.0)
    zeros = np.zeros(9, dtype=np.int64)
    shape = (1, 1, 1, 1)
    sym = build_table(resid, zeros, zeros, zeros, zeros, shape, "symmetric", 1)
    # |e| sorted: 0 1 1 2 2 3 3 4 4; alpha 0.2: rank ceil(10 * 0.8) = 8 -> 4
    low, high = bounds(sym, np.array([0]), np.array([0.2]), "symmetric")
    assert (low[0], high[0]) == (-4.0, 4.0)
    # alpha 0.5: rank ceil(10 * 0.5) = 5 -> 2
    assert bounds(sym, np.array([0]), np.array([0.5]), "symmetric")[1][0] == 2.0
    signed = build_table(resid, zeros, zeros, zeros, zeros, shape, "signed", 1)
    # alpha 0.4: low rank floor(10 * 0.2) = 2 -> -3; high rank ceil(10 * 0.8) = 8 -> 3
    low, high = bounds(signed, np.array([0]), np.array([0.4]), "signed")
    assert (low[0], high[0]) == (-3.0, 3.0)
    # alpha 0.05: ranks 0 and 10 lie outside 1..9 and are clipped to the extremes
    low, high = bounds(signed, np.array([0]), np.array([0.05]), "signed")
    assert (low[0], high[0]) == (-4.0, 4.0)
    assert min_scores([0.2, 0.05], "signed") == 39 and min_scores([0.2], "symmetric") == 4


def test_aci_path_hand_computed():
    resid = np.arange(-4.0, 5.0)
    zeros = np.zeros(9, dtype=np.int64)
    table = build_table(resid, zeros, zeros, zeros, zeros, (1, 1, 1, 1), "symmetric", 1)
    # two forecasts of 2 values, point 0; at alpha 0.2 the interval is +-4 (rank 8 of 9)
    truth = np.array([[5.0, 1.0, 0.0, np.nan]])  # first: one miss of 2; second: 0 of 1 seen
    path = aci_path(table, np.zeros((1, 4), np.int64), truth, np.zeros((1, 4)), 2,
                    np.array([0.2]), 0.1, "symmetric")  # fmt: skip
    # 0.2 + 0.1 * (0.2 - 0.5) = 0.17; then + 0.1 * (0.2 - 0) = 0.19
    np.testing.assert_allclose(path[:, 0], [0.2, 0.17, 0.19])


def test_small_hour_groups_fall_back_to_the_step_pool():
    # step 0: hour 0 has 5 residuals, hour 1 only 2 -> hour 1 uses the step's pool of 7
    resid = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0])
    hour = np.array([0, 0, 0, 0, 0, 1, 1])
    zeros = np.zeros(7, dtype=np.int64)
    table = build_table(resid, zeros, zeros, zeros, hour, (1, 1, 1, 2), "symmetric", 4)
    own, pooled = table.group[0, 0, 0]
    assert table.counts[own] == 5 and table.counts[pooled] == 7
    with pytest.raises(ValueError, match="calibration left 7 residual.*needs at least 39"):
        build_table(resid, zeros, zeros, zeros, hour, (1, 1, 1, 2), "signed", 39)


def test_intervals_cover_exchangeable_errors_at_the_nominal_rate():
    df = noise_series(24 * 200, seed=1)
    model = ConformalForecaster(
        Naive(), coverage=(0.8, 0.95), horizon=4, calibration="60D", stride=3
    ).fit(df.iloc[: 24 * 100])
    origins = df.index[24 * 100 : 24 * 200 - 4 : 5]
    pred = model.predict_origins(df, origins, 4, quantiles=True)
    y = df["load"].reindex(pd.DatetimeIndex(pred["time"])).to_numpy()
    for lo, hi, nominal in (("q0.1", "q0.9", 0.8), ("q0.025", "q0.975", 0.95)):
        inside = (y >= pred[f"load_{lo}"]) & (y <= pred[f"load_{hi}"])
        assert inside.mean() == pytest.approx(nominal, abs=0.03)
    # a Naive forecast error is the difference of two N(0, 1): the 90 % quantile ~ 1.81
    width = (pred["load_q0.9"] - pred["load"]).median()
    assert width == pytest.approx(1.2816 * np.sqrt(2), rel=0.15)


def test_calibration_never_sees_data_after_its_origins():
    fits = []

    class Spy(Naive):
        def fit(self, X, y=None, **kw):
            fits.append(X.index[-1])
            return super().fit(X, y, **kw)

    df = noise_series(24 * 20)
    model = ConformalForecaster(Spy(), horizon=6, calibration="5D").fit(df)
    assert fits == [model.calibration_start_, df.index[-1]]
    assert df.index[-1] - pd.Timedelta("5D") <= model.calibration_start_ < df.index[-6]
    # the intervals of the fitted model do not depend on data after the fit end
    later = pd.concat([df, noise_series(48, seed=9, start=df.index[-1] + pd.Timedelta("1h"))])
    a = model.predict(6, quantiles=True)
    b = model.predict_origins(later, [df.index[-1]], 6, quantiles=True)
    np.testing.assert_allclose(b.iloc[:, 2:].to_numpy(), a.to_numpy())


def test_per_hour_groups_follow_an_hourly_noise_profile():
    n = 24 * 120
    hours = np.arange(n) % 24
    df = noise_series(n, scale=np.where(hours < 12, 0.2, 2.0), seed=2)
    kw = {"horizon": 24, "calibration": "90D", "coverage": 0.8, "stride": 1}
    by_hour = ConformalForecaster(SeasonalNaive(season="1D"), **kw).fit(df)
    fc = by_hour.predict(24, quantiles=True)
    width = (fc["load_q0.9"] - fc["load_q0.1"]).groupby(fc.index.hour < 12).mean()
    assert width[True] * 5 < width[False]  # quiet mornings, noisy afternoons
    pooled = ConformalForecaster(
        SeasonalNaive(season="1D"), per_step=False, by_hour=False, **kw
    ).fit(df)
    widths = (lambda f: f["load_q0.9"] - f["load_q0.1"])(pooled.predict(24, quantiles=True))
    assert np.ptp(widths) < 1e-9  # one pool: the same width at every step


def test_adaptive_levels_widen_intervals_when_errors_grow():
    n = 24 * 80
    scale = np.where(np.arange(n) < 24 * 40, 1.0, 1.6)  # noise grows after the fit end
    df = noise_series(n, scale=scale, seed=3)
    kw = {"horizon": 6, "calibration": "20D", "coverage": 0.8, "stride": 6, "by_hour": False}
    static = ConformalForecaster(Naive(), **kw).fit(df.iloc[: 24 * 40])
    aci = ConformalForecaster(Naive(), adaptive=True, gamma=0.02, **kw).fit(df.iloc[: 24 * 40])
    origins = df.index[24 * 60 : n - 6 : 6]
    y = df["load"].reindex(pd.DatetimeIndex(static.predict_origins(df, origins, 6)["time"]))
    cover = {}
    for name, model in (("static", static), ("aci", aci)):
        pred = model.predict_origins(df, origins, 6, quantiles=True)
        inside = (y.to_numpy() >= pred["load_q0.1"]) & (y.to_numpy() <= pred["load_q0.9"])
        cover[name] = inside.mean()
    assert cover["static"] < 0.7  # calibrated on the quiet period (expected 0.58)
    assert cover["aci"] == pytest.approx(0.8, abs=0.08)
    # predict(history=...) replays the same updates: last origin, same bounds
    last = aci.predict(6, history=df.loc[: origins[-1]], quantiles=True)
    same = aci.predict_origins(df, origins[-1:], 6, quantiles=True)
    np.testing.assert_allclose(last.to_numpy(), same.iloc[:, 2:].to_numpy())


def test_multi_series_and_multivariate():
    a, b = make_series(24 * 20, channels=2, seed=1), make_series(24 * 20, channels=2, seed=2)
    b = b * 10  # another scale: calibrated separately
    model = ConformalForecaster(Naive(), horizon=3, calibration="5D").fit({"a": a, "b": b})
    fc = model.predict(3, quantiles=True)
    assert set(fc) == {"a", "b"}
    assert list(fc["a"].columns) == ["y0", "y1", "y0_q0.1", "y0_q0.9", "y1_q0.1", "y1_q0.9"]
    width = {k: (f["y0_q0.9"] - f["y0_q0.1"]).mean() for k, f in fc.items()}
    assert width["b"] > 5 * width["a"]
    with pytest.raises(ValueError, match=r"series 'c' was not calibrated; calibrated series"):
        model.predict(3, history={"c": a}, quantiles=True)


def test_bad_parameters_and_requests_say_what_is_wrong():
    df = noise_series(24 * 10)
    with pytest.raises(TypeError, match="estimator must be a forecast estimator"):
        ConformalForecaster("naive").fit(df)
    with pytest.raises(ValueError, match=r"coverage levels must lie strictly between 0 and 1"):
        ConformalForecaster(Naive(), coverage=1.0).fit(df)
    with pytest.raises(ValueError, match="method must be one of"):
        ConformalForecaster(Naive(), method="both").fit(df)
    with pytest.raises(ValueError, match="calibration must be a fraction"):
        ConformalForecaster(Naive(), calibration="soon").fit(df)
    with pytest.raises(ValueError, match=r"calibration left \d+ residual.*at least 39"):
        ConformalForecaster(Naive(), coverage=0.95, horizon=3, calibration=8).fit(df)
    model = ConformalForecaster(Naive(), horizon=3, calibration="3D").fit(df)
    with pytest.raises(ValueError, match="calibrated for horizon=3 steps; asked for 5"):
        model.predict(5, quantiles=True)
    with pytest.raises(ValueError, match=r"no quantile level 0.05; it was fitted for levels"):
        model.predict(2, quantiles=(0.05,))
    assert list(model.predict(5).columns) == ["load"]  # points need no calibration


def test_save_load_round_trip_and_tampered_nested_folder(tmp_path):
    df = noise_series(24 * 20, tz="Europe/Berlin")
    model = ConformalForecaster(
        SeasonalNaive(season="1D"), coverage=(0.8, 0.95), horizon=6, calibration="6D",
        adaptive=True,
    ).fit(df)  # fmt: skip
    model.save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert meta["estimator"] == "conformal" and list(meta["nested"]) == ["estimator_"]
    loaded = load(tmp_path / "m")
    assert loaded.get_params(deep=False)["coverage"] == (0.8, 0.95)
    assert loaded.estimator.get_params() == model.estimator.get_params()
    history = noise_series(24 * 25, tz="Europe/Berlin")
    pd.testing.assert_frame_equal(
        loaded.predict(6, history=history, quantiles=True),
        model.predict(6, history=history, quantiles=True),
    )
    params = tmp_path / "m" / "estimator_" / "params.json"
    params.write_text(params.read_text().replace('"1D"', '"2D"'))
    with pytest.raises(ModelFormatError, match=r"estimator_/params.json: SHA-256 differs"):
        load(tmp_path / "m")
    meta_file = tmp_path / "m" / "estimator_" / "meta.json"
    meta_file.write_text(meta_file.read_text().replace('"format"', '"format" ', 1))
    with pytest.raises(ModelFormatError, match="differs from the parent folder"):
        load(tmp_path / "m")


def test_daily_stride_keeps_the_clock_time_of_the_fit_end():
    df = noise_series(24 * 30).iloc[:-12]  # ends at 11:00, like a day-ahead fold
    model = ConformalForecaster(Naive(), horizon=36, calibration="10D", stride=24).fit(df)
    assert df.index[-1].hour == 11 and model.calibration_start_.hour == 11
    # last origin: two strides (>= horizon 36) before the end; 240 rows of calibration hold
    # origins end - 48h, end - 72h, ..., end - 216h (8 of them)
    assert model.calibration_start_ == df.index[-1] - pd.Timedelta(hours=216)


def test_checks_and_calibration_come_before_the_callbacks_hear_of_the_fit():
    seen, fits = [], []

    class Record(Callback):
        def on_fit_start(self, estimator):
            seen.append(("start", hasattr(estimator, "estimator_"), len(fits)))

        def on_fit_end(self, estimator):
            seen.append(("end", len(fits)))

    class Counting(Naive):
        def _fit(self, series, callbacks):
            fits.append(len(series[0].y))
            super()._fit(series, callbacks)

    df = noise_series(24 * 10)
    with pytest.raises(TypeError, match="X must be a pandas DataFrame"):
        ConformalForecaster(Naive(), horizon=3).fit([1.0], callbacks=[Record()])
    with pytest.raises(ValueError, match="calibration must be a fraction"):
        ConformalForecaster(Naive(), calibration="soon").fit(df, callbacks=[Record()])
    assert seen == []
    ConformalForecaster(Counting(), horizon=3, calibration="3D").fit(df, callbacks=[Record()])
    # the calibration clone is fitted (before the last 3 days) before the callbacks hear of
    # the fit, as before the hooks; the final fit on all the data comes between
    assert seen == [("start", False, 1), ("end", 2)] and fits[1] == len(df) > fits[0]
