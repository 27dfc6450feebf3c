"""The contract suite of tests/test_contract.py, run on the foundation wrappers.

Each check is the suite's own function, called with the wrapper and its tiny checkpoint
(``TEST_PARAMS`` gets the checkpoint path for the duration of the test).
"""

import inspect

import pytest

from forecast.base import BaseForecaster
from forecast.models.foundation import Chronos2Forecaster, TiRexForecaster
from tests import test_contract

CHECKS = [
    test_contract.test_init_stores_params_verbatim,
    test_contract.test_clone_and_set_params_round_trip,
    test_contract.test_not_fitted_error,
    test_contract.test_fit_returns_self_and_forecast_frame,
    test_contract.test_input_frame_unchanged,
    test_contract.test_same_seed_same_forecast,
    test_contract.test_pickle_and_save_load_round_trip,
    test_contract.test_history_without_refit_moves_the_index,
]
WRAPPERS = {"Chronos2Forecaster": Chronos2Forecaster, "TiRexForecaster": TiRexForecaster}
WEIGHTS = {"Chronos2Forecaster": "chronos_weights", "TiRexForecaster": "tirex_weights"}


@pytest.fixture(params=sorted(WRAPPERS))
def case(request, monkeypatch):
    name = request.param
    weights = request.getfixturevalue(WEIGHTS[name])
    params = {"weights": str(weights), "device": "cpu", "quantiles": (0.1, 0.5, 0.9)}
    monkeypatch.setitem(test_contract.TEST_PARAMS, name, params)
    return name, WRAPPERS[name]


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_contract_check(check, case, tmp_path):
    given = {"case": case, "tmp_path": tmp_path}
    if "fitted" in inspect.signature(check).parameters:  # the suite's one shared fit
        given["fitted"] = test_contract.fit_once(*case)
    check(**{name: given[name] for name in inspect.signature(check).parameters})


def test_wrappers_leave_the_public_methods_to_the_base():  # as tests/test_base.py checks
    public = {"fit", "predict", "predict_origins", "save", "load"}
    for cls in WRAPPERS.values():
        for klass in cls.__mro__:
            if klass is not BaseForecaster and issubclass(klass, BaseForecaster):
                assert not public & set(vars(klass)), f"{klass.__name__} overrides {public}"
