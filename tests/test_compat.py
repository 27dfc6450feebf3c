"""Module paths of 0.1.0 that moved stay importable until 0.3.0, with a warning naming the
new home and the version that removes the old path."""

from __future__ import annotations

import importlib
import sys

import pytest

import forecast
from forecast._compat import DEPRECATED_IN, MOVED, REMOVED_IN


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_new_module_and_warns(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")) as caught:
        module = importlib.import_module(old)
    assert f"will be removed in {REMOVED_IN}" in str(caught[0].message)
    assert module is importlib.import_module(MOVED[old])


def test_public_functions_keep_their_names_after_an_alias_import():
    sys.modules.pop("forecast.backtest", None)
    with pytest.warns(DeprecationWarning):
        from forecast.backtest import BacktestResult, backtest  # noqa: F401
    import forecast.evaluation.compare  # noqa: F401

    assert callable(forecast.backtest) and forecast.backtest.__name__ == "backtest"
    assert forecast.compare.__module__ == "forecast.evaluation.compare"
    assert forecast.backtest is backtest


def test_parallel_tune_names_its_removal_version():
    import forecast.parallel

    with pytest.warns(DeprecationWarning, match=rf"removed in {REMOVED_IN}; use forecast\.tune"):
        assert forecast.parallel.tune is forecast.tune


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3])


def test_the_old_paths_are_gone_by_the_release_that_removes_them():
    assert version(forecast.__version__) < version(REMOVED_IN), (
        f"forecast {forecast.__version__} removes the 0.1.0 module paths: delete MOVED, "
        "_Alias and _parallel_attribute from forecast/_compat.py"
    )


def test_forecast_net_under_its_old_module_names_the_versions_of_the_other_aliases():
    import forecast.nn.heads as heads
    from forecast.nn.net import ForecastNet

    with pytest.warns(DeprecationWarning) as caught:
        assert heads.ForecastNet is ForecastNet
    message = str(caught[0].message)
    assert f"in forecast {DEPRECATED_IN} and will be removed in {REMOVED_IN}" in message
    assert version(forecast.__version__) < version(REMOVED_IN), (
        f"forecast {forecast.__version__} removes forecast.nn.heads.ForecastNet: delete the "
        "module __getattr__ of forecast/nn/heads.py"
    )
