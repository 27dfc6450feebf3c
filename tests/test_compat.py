"""Module paths of 0.1.0 that moved stay importable until 0.3.0, with a warning naming the
new home and the version that removes the old path."""

from __future__ import annotations

import importlib
import sys

import pytest
from packaging.version import Version

import forecast
from forecast import _compat
from forecast._compat import DEPRECATED_IN, MOVED, REMOVED_IN

DEPRECATION = f"is deprecated in forecast {DEPRECATED_IN} and will be removed in {REMOVED_IN}: "


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_new_module_and_warns(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")) as caught:
        module = importlib.import_module(old)
    assert str(caught[0].message).startswith(f"{old} {DEPRECATION}the module moved to")
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

    with pytest.warns(DeprecationWarning) as caught:
        assert forecast.parallel.tune is forecast.tune
    assert str(caught[0].message).startswith(f"forecast.parallel.tune {DEPRECATION}")
    assert str(caught[0].message).endswith("use forecast.tune")


def reached(version: str, removed_in: str = REMOVED_IN) -> bool:
    """Whether ``version`` is the release ``removed_in`` or later, its development releases
    included: the shims go while that release is developed, not when it is tagged."""
    return Version(Version(version).base_version) >= Version(removed_in)


def shims() -> list[str]:
    """The deprecated paths still in the code, each as where to delete it."""
    import forecast.nn.heads as heads

    found = [
        f"forecast/_compat.py: {name}"
        for name in ("MOVED", "_Alias", "_parallel_attribute")
        if getattr(_compat, name, None)
    ]
    if "__getattr__" in vars(heads):
        found.append("forecast/nn/heads.py: the module __getattr__ (ForecastNet)")
    return found


def test_the_release_check_counts_the_development_releases_of_the_removal():
    assert reached("0.3.0.dev0") and reached("0.3.0rc1") and reached("0.3.0") and reached("1.0")
    assert not reached("0.2.0.dev0") and not reached("0.2.9") and not reached("0.2.99.post1")


def test_no_shim_outlives_the_release_that_removes_it():
    assert shims(), "the shims are gone: delete this test, REMOVED_IN and DEPRECATED_IN"
    assert not reached(forecast.__version__), (
        f"forecast {forecast.__version__} reaches {REMOVED_IN}, which removes: {shims()}"
    )


def test_forecast_net_under_its_old_module_names_the_versions_of_the_other_aliases():
    import forecast.nn.heads as heads
    from forecast.nn.net import ForecastNet

    with pytest.warns(DeprecationWarning) as caught:
        assert heads.ForecastNet is ForecastNet
    message = str(caught[0].message)
    assert message.startswith(f"forecast.nn.heads.ForecastNet {DEPRECATION}")
