"""An ensemble compared beside its members reuses their fits, and only then."""

import numpy as np
import pytest

from forecast import EnsembleForecaster, GRUForecaster, Naive, SeasonalNaive
from forecast.evaluation.backtest import backtest
from forecast.evaluation.compare import compare
from forecast.models import fit_cache as cache
from tests.conftest import make_series

TINY = dict(context_length=24, horizon=6, hidden_size=4, max_epochs=1, batch_size=32)


@pytest.fixture
def fits(monkeypatch):
    """Count the fits of SeasonalNaive (clones included)."""
    calls = []
    original = SeasonalNaive.fit

    def counted(self, X, y=None, **kwargs):
        calls.append(self)
        return original(self, X, y, **kwargs)

    monkeypatch.setattr(SeasonalNaive, "fit", counted)
    return calls


def test_compare_fits_a_member_once_and_blends_its_forecasts(fits):
    df = make_series(24 * 30)
    blend = EnsembleForecaster(
        [("week", SeasonalNaive(season="7D")), ("last", Naive())], weights=[3, 1]
    )
    models = {"week": SeasonalNaive(season="7D"), "last": Naive(), "blend": blend}
    result = compare(models, df, horizon=24, start="2023-01-25", progress=False)
    assert len(fits) == 1  # the blend's "week" member is the compared model's fit
    member = result.results["blend"].estimator.named_estimators_["week"]
    assert member is result.results["week"].estimator
    value = {k: r.forecasts["y_pred"].to_numpy() for k, r in result.results.items()}
    np.testing.assert_allclose(value["blend"], 0.75 * value["week"] + 0.25 * value["last"])
    fit_s = {k: r.fit_seconds for k, r in result.results.items()}
    assert fit_s["blend"] >= fit_s["week"]  # the reused fit's time is counted


def test_each_fold_and_each_call_fits_anew(fits):
    df = make_series(24 * 30)
    week = SeasonalNaive(season="7D")
    backtest(week, df, horizon=24, start="2023-01-25", refit_every=2)
    assert len(fits) == 3  # three folds on three training sets: no reuse across data
    backtest(week, df, horizon=24, start="2023-01-25")
    backtest(week, df, horizon=24, start="2023-01-25")
    assert len(fits) == 5  # outside compare nothing is kept


def test_only_seeded_fits_are_reused():
    df = make_series(200)
    with cache.fit_cache():
        seeded = [cache.fit(GRUForecaster(**TINY, random_state=0), df) for _ in range(2)]
        free = [cache.fit(GRUForecaster(**TINY, random_state=None), df) for _ in range(2)]
        other = cache.fit(GRUForecaster(**TINY, random_state=0), df.iloc[:-1])
        deeper = cache.fit(GRUForecaster(**{**TINY, "hidden_size": 5}, random_state=0), df)
    assert seeded[0] is seeded[1]
    assert free[0] is not free[1]
    assert other is not seeded[0] and deeper is not seeded[0]
    with cache.credited() as reused:
        assert cache.fit(GRUForecaster(**TINY, random_state=0), df) is not seeded[0]
    assert reused == [0.0]  # the cache closed with its block
