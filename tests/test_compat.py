"""Module paths of 0.1.0 that moved stay importable, with a warning naming the new home."""

from __future__ import annotations

import importlib
import subprocess
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


def test_every_old_public_name_imports_in_a_fresh_process():
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
        "import forecast\n"
        "from forecast import backtest, compare, ConformalForecaster, EnsembleForecaster\n"
        "from forecast.models import get_estimator, register_estimator\n"
        "from forecast.persistence import load, save\n"
        "from forecast.training import train, TrainConfig\n"
        "assert get_estimator('conformal') is ConformalForecaster\n"
        "assert get_estimator('ensemble') is EnsembleForecaster\n"
        "assert get_estimator('GRUForecaster') is forecast.GRUForecaster\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
