import numpy as np
import pandas as pd
import pytest

from forecast import GRUForecaster, LinearLagForecaster, SeasonalNaive, compare
from forecast.parallel import fit_many
from forecast.parallel.engine import chunks
from tests.conftest import make_series

TINY = {"context_length": 12, "horizon": 4, "hidden_size": 4, "max_epochs": 1, "batch_size": 32}


def frames(n=5, length=240):
    return {f"s{k}": make_series(n=length, seed=k) * (1 + k) + 10 * k for k in range(n)}


def test_chunks_cover_every_item_once_in_order():
    items = list(range(10))
    parts = chunks(items, 4)
    assert [len(p) for p in parts] == [3, 3, 2, 2]
    assert sum(parts, []) == items
    assert chunks([1, 2], 8) == [[1], [2]]


def test_sequential_fits_one_clone_per_series_and_leaves_the_template_alone():
    data = frames(3)
    template = SeasonalNaive(season="1D")
    models = fit_many(template, data)
    assert list(models) == ["s0", "s1", "s2"]
    assert not hasattr(template, "columns_")
    for key, model in models.items():
        expected = SeasonalNaive(season="1D").fit(data[key]).predict(horizon=24)
        pd.testing.assert_frame_equal(model.predict(horizon=24), expected)
    # series s2 is 3x series s0 plus 20: its seasonal-naive forecast is too
    np.testing.assert_allclose(
        models["s2"].predict(horizon=24).to_numpy(),
        3 * make_series(n=240, seed=2).iloc[-24:].to_numpy() + 20,
    )


def test_long_frame_is_split_by_id():
    data = frames(2)
    long = pd.concat([f.assign(id=k) for k, f in data.items()])
    models = fit_many(SeasonalNaive(season="1D"), long)
    assert sorted(models) == ["s0", "s1"]


def test_one_frame_without_ids_is_refused():
    with pytest.raises(TypeError, match="one model per series.*'id' column"):
        fit_many(SeasonalNaive(), make_series())


def test_failures_name_every_series_and_return_nothing():
    data = frames(3)
    data["short"] = make_series(n=30)
    data["gappy"] = make_series(n=240).drop(make_series(n=240).index[100])
    with pytest.raises(ValueError, match=r"2 of 5 series failed to fit \('short', 'gappy'\)"):
        fit_many(SeasonalNaive(season="7D"), data)


def test_bad_engine_and_options():
    with pytest.raises(ValueError, match="engine must be one of"):
        fit_many(SeasonalNaive(), frames(2), engine="spark")
    with pytest.raises(ValueError, match="engine='ray' only"):
        fit_many(SeasonalNaive(), frames(2), num_cpus=2)
    with pytest.raises(ValueError, match="only sizes a local Ray"):
        fit_many(SeasonalNaive(), frames(2), engine="ray", address="auto", num_cpus=2)


def test_without_ray_the_ray_engine_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(
        ImportError,
        match=r'needs Ray, which is not installed: pip install "forecast-toolkit\[ray\]"',
    ):
        fit_many(SeasonalNaive(season="1D"), frames(2), engine="ray")
    assert fit_many(SeasonalNaive(season="1D"), frames(2))["s1"].predict(horizon=1).shape == (1, 1)


@pytest.mark.parametrize(
    "template",
    [
        LinearLagForecaster(lags=(1, 2, "1D"), horizon=4),
        GRUForecaster(**TINY, random_state=3, device="cpu"),
    ],
    ids=["linear-lag", "gru"],
)
def test_ray_fits_equal_the_sequential_ones(ray_local, template):
    data = frames(5)
    sequential = fit_many(template, data)
    parallel = fit_many(template, data, engine="ray")
    assert list(parallel) == list(sequential)
    for key in data:
        pd.testing.assert_frame_equal(
            parallel[key].predict(horizon=4), sequential[key].predict(horizon=4), check_exact=True
        )


def test_ray_failures_are_reported_like_sequential_ones(ray_local):
    data = {"ok": make_series(n=240), "short": make_series(n=30)}
    message = r"1 of 2 series failed to fit \('short'\): series 'short'"
    with pytest.raises(ValueError, match=message):
        fit_many(SeasonalNaive(season="7D"), data, engine="ray")


def test_compare_on_ray_equals_sequential(ray_local):
    data = make_series(n=24 * 20, tz="Europe/Berlin")
    models = {
        "snaive": SeasonalNaive(season="1D"),
        "linear": LinearLagForecaster(lags=(1, "1D"), horizon=24),
    }
    kwargs = dict(horizon=24, start=data.index[24 * 16], progress=False)
    plain = compare(models, data, **kwargs)
    on_ray = compare(models, data, engine="ray", **kwargs)
    metric_cols = ["mape", "mae", "rmse", "bias", "n"]
    pd.testing.assert_frame_equal(on_ray.table[metric_cols], plain.table[metric_cols])
    for name in models:
        pd.testing.assert_frame_equal(on_ray.results[name].forecasts, plain.results[name].forecasts)
    assert (on_ray.table["peak_rss_mb"] > 0).all()


def test_backtest_folds_on_ray_equal_sequential(ray_local):
    from forecast import backtest

    data = make_series(n=24 * 20)
    est = GRUForecaster(**{**TINY, "horizon": 24}, random_state=0, device="cpu")
    kwargs = dict(horizon=24, start=data.index[24 * 14], refit_every=2)
    plain = backtest(est, data, **kwargs)
    on_ray = backtest(est, data, engine="ray", **kwargs)
    assert len(plain.folds) == 3
    pd.testing.assert_frame_equal(on_ray.forecasts, plain.forecasts)
    pd.testing.assert_frame_equal(on_ray.metrics, plain.metrics)
    cols = ["train_start", "train_end", "n_train", "first_origin", "last_origin", "n_origins"]
    pd.testing.assert_frame_equal(on_ray.folds[cols], plain.folds[cols])
    pd.testing.assert_frame_equal(
        on_ray.estimator.predict(horizon=3), plain.estimator.predict(horizon=3)
    )


def test_tune_under_its_old_name_warns_and_is_forecast_tune():
    import forecast
    import forecast.parallel

    with pytest.warns(DeprecationWarning, match="tune is deprecated .* moved to forecast.tune"):
        old = forecast.parallel.tune
    assert old is forecast.tune
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        forecast.parallel.nope  # noqa: B018
