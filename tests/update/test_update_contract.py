"""``update`` on every registered estimator: the rule of its family, lineage, a forecast after.

The estimators, their tiny parameters and the skipped ones are those of the contract suite
(tests/test_contract.py), which runs over the registry.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.base import BaseForecaster
from forecast.models.neural import NeuralForecaster
from tests.test_contract import CASES, data_for, future_kwargs, make

EXTEND = {
    "naive",
    "seasonal-naive",
    "constant-velocity",
    "external",
    "ets",
    "sarimax",
    "mstl",
}


@pytest.mark.parametrize("case", CASES)
def test_every_estimator_updates_by_the_rule_of_its_family(case, tmp_path):
    name, cls = case
    df = data_for(name, n=24 * 10)  # the linear models need a week of lags before the last 2 days
    seen, new = df.iloc[:-48], df.iloc[-48:]
    est = make(name, cls).fit(seen)
    expected = "continue" if issubclass(cls, NeuralForecaster) else "refit"
    expected = "extend" if name in EXTEND else expected
    assert est._update_rule == expected
    options = {"history": seen} if expected == "refit" else {}
    options |= {"epochs": 1} if expected == "continue" else {}
    assert est.update(new, **options) is est
    assert est.n_updates_ == 1 and est.updated_through_ == df.index[-1]
    assert [r["rule"] for r in est.lineage_] == ["fit", expected]
    fc = est.predict(horizon=4, **future_kwargs(name, df, 4))
    assert fc.index[0] == df.index[-1] + pd.Timedelta("1h")
    assert np.isfinite(fc.to_numpy()).all()
    est.save(tmp_path / "model")
    loaded = BaseForecaster.load(tmp_path / "model", device="cpu")
    assert loaded.lineage_ == est.lineage_ and loaded.n_updates_ == 1
    pd.testing.assert_frame_equal(loaded.predict(horizon=4, **future_kwargs(name, df, 4)), fc)
