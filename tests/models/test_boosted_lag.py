"""BoostedLagForecaster: ridge on lags and the calendar plus boosted trees on its residuals."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingRegressor

from forecast import backtest
from forecast.models.baselines import BoostedLagForecaster, LinearLagForecaster
from forecast.models.baselines import _trees as T
from forecast.persistence.format import load, save

SMALL = {"max_iter": 60, "min_samples_leaf": 20, "learning_rate": 0.1}


def regime_series(days=120, seed=0):
    """Hourly load whose daily swing is large two days after a high day, small after a low one.

    The day's level follows an AR(1); the swing of day d switches with the sign of the level
    of day d - 2, which a day-ahead origin (noon of d - 1) has seen whole in its lags, but no
    linear function of the lags reproduces.
    """
    rng = np.random.default_rng(seed)
    level = np.zeros(days)
    for d in range(1, days):
        level[d] = 0.8 * level[d - 1] + rng.normal(0, 0.3)
    hours = np.arange(24)
    before = np.concatenate([[0.0, 0.0], level[:-2]])
    swing = np.where(before > 0, 3.0, 0.3)[:, None] * np.sin(2 * np.pi * hours / 24)[None, :]
    values = (level[:, None] + swing).ravel() + rng.normal(0, 0.05, days * 24)
    index = pd.date_range("2023-01-02", periods=days * 24, freq="h")
    return pd.DataFrame({"load": values}, index=index)


def test_exported_trees_predict_what_scikit_learn_predicts():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 5))
    x[rng.random(x.shape) < 0.05] = np.nan  # missing values take the learned side
    y = np.nan_to_num(x[:, 0]) ** 2 + np.nan_to_num(x[:, 1]) * np.nan_to_num(x[:, 2])
    params = {"max_iter": 40, "max_leaf_nodes": 9, "random_state": 0, "early_stopping": False}
    first = T.fit_trees(x, y, **params)
    second = T.fit_trees(x[:500], -y[:500], **params)
    arrays = T.stack([first, second])
    which = rng.integers(0, 2, len(x))  # each row read by its own model
    expected = np.where(
        which == 0,
        HistGradientBoostingRegressor(**params).fit(x, y).predict(x),
        HistGradientBoostingRegressor(**params).fit(x[:500], -y[:500]).predict(x),
    )
    np.testing.assert_allclose(T.predict_trees(arrays, which, x), expected, atol=1e-12)


def test_trees_learn_what_the_ridge_cannot():
    df = regime_series()
    common = {"horizon": 36, "calendar": False}
    kw = {"protocol": "day-ahead", "start": "2023-04-01", "end": "2023-05-01"}
    linear = backtest(LinearLagForecaster(**common), df, **kw).metrics.loc["overall", "mae"]
    boosted = backtest(BoostedLagForecaster(**common, **SMALL), df, **kw)
    assert boosted.metrics.loc["overall", "mae"] < 0.8 * linear
    assert boosted.estimator.trees_["feature"].shape[:2] == (36, 60)  # 36 leads, 60 trees


def test_forecasts_read_nothing_after_the_origin():
    df = regime_series(days=60)
    est = BoostedLagForecaster(horizon=24, calendar=False, **SMALL).fit(df.iloc[: 24 * 40])
    origin = df.index[24 * 50 - 1]
    got = est.predict_origins(df, [origin], horizon=30)
    changed = df.copy()
    changed.iloc[24 * 50 :, 0] += 100.0
    again = est.predict_origins(changed, [origin], horizon=30)
    pd.testing.assert_frame_equal(got, again)


def test_save_load_gives_the_same_forecasts(tmp_path):
    df = regime_series(days=50)
    est = BoostedLagForecaster(horizon=12, calendar=False, **SMALL).fit(df)
    save(est, tmp_path / "m")
    back = load(tmp_path / "m")
    pd.testing.assert_frame_equal(back.predict(horizon=30), est.predict(horizon=30))
    assert back.trees_["threshold"].dtype == np.float64


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_iter": 0}, "max_iter must be an int >= 1"),
        ({"learning_rate": 0.0}, "learning_rate must be a positive number"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes must be an int >= 2"),
        ({"l2_regularization": -1.0}, "l2_regularization must be a non-negative number"),
    ],
)
def test_bad_tree_settings_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        BoostedLagForecaster(calendar=False, **params).fit(regime_series(days=20))
