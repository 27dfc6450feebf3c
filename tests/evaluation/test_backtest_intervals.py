import numpy as np
import pytest

from forecast import ConformalForecaster, GRUForecaster, SeasonalNaive, backtest, compare
from forecast.evaluation import metrics as M
from forecast.evaluation.scores import probabilistic_scores
from tests.conftest import make_series

DAY_AHEAD = {"protocol": "day-ahead", "start": "2023-02-10", "end": "2023-02-20"}


def conformal():
    return ConformalForecaster(
        SeasonalNaive(season="1D"), coverage=(0.8, 0.95), horizon=36, calibration="20D", stride=1
    )


def test_probabilistic_scores_hand_computed():
    import pandas as pd

    part = pd.DataFrame(
        {"y_true": [5.0, 12.0], "y_pred_q0.1": [4.0, 4.0], "y_pred_q0.5": [7.0, 7.0],
         "y_pred_q0.9": [10.0, 10.0]}
    )  # fmt: skip
    # the worked example of tests/test_interval_metrics.py
    assert probabilistic_scores(part, (0.1, 0.5, 0.9)) == pytest.approx(
        {"crps": 6.7 / 3, "pinball": 6.7 / 6, "coverage_80": 0.5, "width_80": 6.0,
         "winkler_80": 16.0}
    )  # fmt: skip


def test_backtest_of_intervals_scores_them_per_target_step_and_hour():
    df = make_series(24 * 60, tz="Europe/Berlin")
    res = backtest(conformal(), df, **DAY_AHEAD)
    fc = res.forecasts
    levels = ["y_pred_q0.025", "y_pred_q0.1", "y_pred_q0.9", "y_pred_q0.975"]
    assert list(fc.columns[-4:]) == levels
    assert (np.diff(fc[levels].to_numpy(), axis=1) >= 0).all()
    overall = res.metrics.loc["overall"]
    y = fc["y_true"].to_numpy()
    assert overall["coverage_80"] == pytest.approx(
        M.coverage(y, fc["y_pred_q0.1"], fc["y_pred_q0.9"])
    )
    assert overall["width_95"] == pytest.approx((fc["y_pred_q0.975"] - fc["y_pred_q0.025"]).mean())
    assert overall["crps"] == pytest.approx(
        M.crps(y, fc[levels].to_numpy(), (0.025, 0.1, 0.9, 0.975))
    )
    for table in (res.by_horizon, res.by_hour):
        assert {"crps", "coverage_80", "width_95", "winkler_95"} <= set(table.columns)
    assert len(res.by_hour) == 24 and res.by_horizon.index.min() == 13


def test_point_models_keep_their_tables_and_compare_pools_both():
    df = make_series(24 * 60, tz="Europe/Berlin")
    point = backtest(SeasonalNaive(season="1D"), df, **DAY_AHEAD)
    assert "crps" not in point.metrics and "y_pred_q0.1" not in point.forecasts
    table = compare(
        {"naive": SeasonalNaive(season="1D"), "conformal": conformal()}, df, **DAY_AHEAD
    ).table
    assert np.isnan(table.loc["naive", "crps"]) and table.loc["conformal", "coverage_80"] > 0.5
    assert table.loc["naive", "mae"] == table.loc["conformal", "mae"]  # same point forecasts


def test_quantile_heads_are_scored_in_backtests():
    df = make_series(24 * 20, tz="Europe/Berlin")
    est = GRUForecaster(
        context_length=24, horizon=36, hidden_size=4, max_epochs=1, random_state=0,
        quantiles=(0.1, 0.5, 0.9),
    )  # fmt: skip
    res = backtest(est, df, protocol="day-ahead", start="2023-01-17", end="2023-01-20")
    assert {"y_pred_q0.1", "y_pred_q0.5", "y_pred_q0.9"} <= set(res.forecasts.columns)
    np.testing.assert_array_equal(res.forecasts["y_pred"], res.forecasts["y_pred_q0.5"])
    assert np.isfinite(res.metrics.loc["overall", ["crps", "coverage_80"]]).all()


def test_compare_puts_interval_scores_before_the_counts_and_timings():
    df = make_series(24 * 60, tz="Europe/Berlin")
    models = {"naive": SeasonalNaive(season="1D"), "conformal": conformal()}
    columns = list(compare(models, df, **DAY_AHEAD).table.columns)
    assert columns.index("winkler_95") + 1 == columns.index("n") < columns.index("fit_seconds")
    assert columns[:5] == ["mape", "mae", "rmse", "bias", "crps"]


def test_band_and_reliability_plots(tmp_path):
    from forecast.evaluation.plots import plot_bands, plot_reliability

    df = make_series(24 * 60, tz="Europe/Berlin")
    fc = backtest(conformal(), df, **DAY_AHEAD).forecasts
    band = plot_bands(fc, tmp_path / "band.png", start="2023-02-12", end="2023-02-14")
    reliability = plot_reliability({"conformal": fc}, tmp_path / "rel.png")
    for path in (band, reliability):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    point = backtest(SeasonalNaive(season="1D"), df, **DAY_AHEAD).forecasts
    with pytest.raises(ValueError, match="no pair of quantile columns"):
        plot_bands(point, tmp_path / "x.png")
    with pytest.raises(ValueError, match="model 'naive' has no quantile columns"):
        plot_reliability({"naive": point}, tmp_path / "y.png")
    with pytest.raises(ValueError, match="no forecasts between 2024-01-01"):
        plot_bands(fc, tmp_path / "z.png", start="2024-01-01", end="2024-01-02")
    assert not (tmp_path / "x.png").exists()
