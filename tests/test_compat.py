"""Module paths of 0.1.0 that moved stay importable, with a warning naming the new home."""

from __future__ import annotations

import importlib
import sys

import pytest

from forecast._compat import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_new_module_and_warns(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


def test_public_functions_keep_their_names_after_an_alias_import():
    sys.modules.pop("forecast.backtest", None)
    with pytest.warns(DeprecationWarning):
        from forecast.backtest import BacktestResult, backtest  # noqa: F401
    import forecast.evaluation.compare  # noqa: F401

    assert callable(forecast.backtest) and forecast.backtest.__name__ == "backtest"
    assert forecast.compare.__module__ == "forecast.evaluation.compare"
    assert forecast.backtest is backtest
