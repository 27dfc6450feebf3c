import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast import ExternalForecast
from forecast.evaluation.backtest import backtest

ZONE = "Europe/Berlin"


def _frame(days=10):
    index = pd.date_range("2023-03-20", periods=24 * days, freq="h", tz=ZONE)
    load = 100 + np.arange(len(index), dtype=float)
    return pd.DataFrame({"load": load, "forecast": load + 1.0}, index=index)


def test_published_forecast_is_read_at_noon_and_refused_before_ten():
    df = _frame()
    model = ExternalForecast(column="forecast", published="10:00 D-1").fit(df.iloc[: 24 * 3 + 12])
    # origin 12:00 on 23 Mar: 24 Mar was published at 10:00 today, so 36 steps are known
    out = model.predict(horizon=36, future=df)
    assert out["load"].tolist() == df["forecast"].iloc[24 * 3 + 12 : 24 * 3 + 48].tolist()
    early = ExternalForecast(column="forecast", published="10:00 D-1").fit(df.iloc[: 24 * 3 + 9])
    with pytest.raises(
        ValueError, match=r"2023-03-24 00:00:00\+01:00 is published at 2023-03-23 10:00"
    ):
        early.predict(horizon=24, future=df)


def test_published_day_ahead_backtest_equals_the_unchecked_one():
    df = _frame(14)
    kwargs = dict(protocol="day-ahead", start="2023-03-27", end="2023-04-01", timezone=ZONE)
    checked = backtest(ExternalForecast(column="forecast", published="10:00 D-1"), df, **kwargs)
    plain = backtest(ExternalForecast(column="forecast"), df, **kwargs)
    pd.testing.assert_frame_equal(checked.forecasts, plain.forecasts)
    assert checked.metrics.loc["overall", "mae"] == pytest.approx(1.0)


def test_publication_after_an_origin_in_a_backtest_is_refused():
    df = _frame(14)
    model = ExternalForecast(column="forecast", published="10:00 D-1")
    with pytest.raises(ValueError, match="published at .* after the origin"):
        backtest(
            model,
            df,
            origins="09:00",
            horizon=24,
            lead=15,
            start="2023-03-27",
            end="2023-03-30",
            timezone=ZONE,
        )


@pytest.mark.parametrize("bad", ["10 D-1", "10:00 D+1", "noon"])
def test_a_bad_schedule_is_named_at_fit(bad):
    with pytest.raises(ValueError, match="expected 'HH:MM D-k'"):
        ExternalForecast(column="forecast", published=bad).fit(_frame(3))


def test_published_is_a_parameter_that_clones():
    model = ExternalForecast(column="forecast", published="10:00 D-1")
    assert clone(model).get_params()["published"] == "10:00 D-1"
