"""One contract suite over every estimator the package exports.

Each estimator runs with tiny parameters (``TEST_PARAMS``); an exported estimator without an
entry fails, so nothing new escapes the contract.
"""

import inspect
import pickle

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import forecast
from forecast.base import BaseForecaster
from forecast.models.neural import NeuralForecaster
from tests.conftest import make_series

NEURAL = {"max_epochs": 2, "hidden_size": 4, "context_length": 24, "horizon": 6, "batch_size": 32}

TEST_PARAMS = {
    "ElmanForecaster": NEURAL,
    "LSTMForecaster": NEURAL,
    "GRUForecaster": NEURAL,
    "OrthogonalRNNForecaster": NEURAL,
    "TransformerForecaster": {**NEURAL, "n_heads": 2},
    "HopfieldForecaster": {**NEURAL, "n_heads": 2},
    "DCTMixerForecaster": {**NEURAL, "num_layers": 1},
    "Naive": {},
    "SeasonalNaive": {"season": "1D"},
    "ConstantVelocity": {"window": 2},
    "ETSForecaster": {"seasonal_periods": 24},
    "SARIMAXForecaster": {"order": (1, 0, 0), "seasonal_order": (0, 0, 0, 0)},
    "MSTLForecaster": {"periods": ("1D",)},
    "LinearLagForecaster": {"lags": 24},
    "BoostedLagForecaster": {"lags": 24, "horizon": 6, "max_iter": 5, "min_samples_leaf": 10},
    "ExternalForecast": {"column": "tso"},
    "ConformalForecaster": {
        "estimator": forecast.SeasonalNaive(season="1D"),
        "horizon": 6,
        "calibration": "3D",
    },
    "AnalogDayForecaster": {
        "reference_model": forecast.LinearLagForecaster(lags=24),
        "context": "1D",
        "country": "DE",
    },
    "EnsembleForecaster": {
        "estimators": [
            ("last", forecast.Naive()),
            ("daily", forecast.SeasonalNaive(season="1D")),
        ],
        "weights": (0.25, 0.75),
    },
}

# every public name, through the lazy loader (vars(forecast) holds only those looked up so far)
ESTIMATORS = sorted(
    (name, obj)
    for name, obj in ((name, getattr(forecast, name)) for name in forecast.__all__)
    if inspect.isclass(obj) and issubclass(obj, BaseForecaster) and obj is not BaseForecaster
)
IDS = [name for name, _ in ESTIMATORS]


def same_params(a, b):
    """Equal parameters; nested estimators compared by class and parameters."""
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    if pa.keys() != pb.keys():
        return False
    for key, value in pa.items():
        if isinstance(value, BaseForecaster):
            if type(value) is not type(pb[key]) or not same_params(value, pb[key]):
                return False
        elif isinstance(value, list) and value and isinstance(value[0], tuple):  # named members
            other = pb[key]
            if [n for n, _ in value] != [n for n, _ in other]:
                return False
            if not all(
                type(x) is type(y) and same_params(x, y)
                for (_, x), (_, y) in zip(value, other, strict=True)
            ):
                return False
        elif value != pb[key]:
            return False
    return True


def make(name, cls, **extra):
    params = dict(TEST_PARAMS[name])
    accepted = inspect.signature(cls.__init__).parameters
    if "random_state" in accepted:
        params["random_state"] = 0
    params.update(extra)
    return cls(**params)


def data_for(name, n=24 * 8, channels=1):
    df = make_series(n, channels=channels, tz="Europe/Berlin", start="2023-03-20")
    if name == "ExternalForecast":
        df["tso"] = df.iloc[:, 0] + 0.1
    return df


@pytest.fixture(params=ESTIMATORS, ids=IDS)
def case(request):
    name, cls = request.param
    if name not in TEST_PARAMS:
        pytest.fail(f"exported estimator {name} has no TEST_PARAMS entry in tests/test_contract.py")
    return name, cls


_FITTED: dict[tuple[str, str], tuple] = {}


def fit_once(name, cls):
    """``(estimator, frame, the frame's copy before fit, what fit returned)``: one fit per
    estimator and parameters, shared by the checks that only read the fitted estimator
    (predict, pickle, save); ``test_same_seed_same_forecast`` fits it again."""
    key = (name, repr(TEST_PARAMS[name]))
    if key not in _FITTED:
        df = data_for(name)
        before = df.copy()
        est = make(name, cls)
        _FITTED[key] = (est, df, before, est.fit(df))
    return _FITTED[key]


@pytest.fixture
def fitted(case):
    return fit_once(*case)


def test_every_export_has_test_params():
    assert ESTIMATORS, "the package exports no estimator"
    assert set(IDS) <= set(TEST_PARAMS), set(IDS) - set(TEST_PARAMS)


def test_init_stores_params_verbatim(case):
    name, cls = case
    est = make(name, cls)
    params = est.get_params(deep=False)
    signature = inspect.signature(cls.__init__).parameters
    assert set(params) == set(signature) - {"self"}
    for key, value in TEST_PARAMS[name].items():
        assert params[key] is value
    assert not [k for k in vars(est) if k.endswith("_")], "fitted state set in __init__"


def test_clone_and_set_params_round_trip(case):
    name, cls = case
    est = make(name, cls)
    twin = clone(est)
    assert twin is not est and same_params(twin, est)
    params = est.get_params(deep=False)
    twin.set_params(**params)
    assert same_params(twin, est)


def test_not_fitted_error(case):
    name, cls = case
    with pytest.raises(NotFittedError):
        make(name, cls).predict(horizon=3)


def test_fit_returns_self_and_forecast_frame(case, fitted):
    name, _ = case
    est, df, _, returned = fitted
    assert returned is est
    fc = est.predict(horizon=5, **future_kwargs(name, df, 5))
    assert list(fc.columns) == ["load"]
    assert len(fc) == 5 and np.isfinite(fc.to_numpy()).all()
    expected = pd.date_range(df.index[-1], periods=6, freq="h")[1:]
    pd.testing.assert_index_equal(fc.index, expected, check_names=False)
    assert str(fc.index.tz) == "Europe/Berlin"


def test_input_frame_unchanged(case, fitted):
    name, _ = case
    est, df, before, _ = fitted  # fitted on df
    pd.testing.assert_frame_equal(df, before)
    est.predict(horizon=4, history=df, **future_kwargs(name, df, 4))
    pd.testing.assert_frame_equal(df, before)


def test_same_seed_same_forecast(case, fitted):
    name, cls = case
    est, df, _, _ = fitted
    kw = future_kwargs(name, df, 4)
    first = est.predict(horizon=4, **kw)
    second = make(name, cls).fit(df).predict(horizon=4, **kw)
    pd.testing.assert_frame_equal(first, second)


def test_pickle_and_save_load_round_trip(case, fitted, tmp_path):
    name, cls = case
    est, df, _, _ = fitted
    kw = future_kwargs(name, df, 4)
    expected = est.predict(horizon=4, **kw)
    restored = pickle.loads(pickle.dumps(est))
    pd.testing.assert_frame_equal(restored.predict(horizon=4, **kw), expected)
    est.save(tmp_path / "model")
    loaded = BaseForecaster.load(tmp_path / "model", device="cpu")
    assert type(loaded) is cls and same_params(loaded, est)
    pd.testing.assert_frame_equal(loaded.predict(horizon=4, **kw), expected)


def test_history_without_refit_moves_the_index(case, fitted):
    name, _ = case
    est, df, _, _ = fitted
    shifted = df.copy()
    shifted.index = shifted.index + pd.Timedelta("30D")
    fc = est.predict(horizon=3, history=shifted, **future_kwargs(name, shifted, 3))
    assert fc.index[0] == shifted.index[-1] + pd.Timedelta("1h")


def future_kwargs(name, df, horizon):
    if name != "ExternalForecast":
        return {}
    index = pd.date_range(df.index[-1], periods=horizon + 1, freq="h")[1:]
    return {"future": pd.DataFrame({"tso": np.linspace(9, 11, horizon)}, index=index)}


NEURAL_CASES = [(n, c) for n, c in ESTIMATORS if issubclass(c, NeuralForecaster)]


@pytest.mark.parametrize("name, cls", NEURAL_CASES, ids=[n for n, _ in NEURAL_CASES])
def test_quantile_head_contract(name, cls, tmp_path):
    df = data_for(name)
    est = make(name, cls, quantiles=(0.1, 0.5, 0.9))
    assert clone(est).get_params() == est.get_params()
    fc = est.fit(df).predict(horizon=8, quantiles=True)
    assert list(fc.columns) == ["load", "load_q0.1", "load_q0.5", "load_q0.9"]
    values = fc.to_numpy()
    assert np.isfinite(values).all() and (np.diff(values[:, 1:], axis=1) > 0).all()
    est.save(tmp_path / "model")
    loaded = BaseForecaster.load(tmp_path / "model", device="cpu")
    pd.testing.assert_frame_equal(loaded.predict(horizon=8, quantiles=True), fc)


def test_conformal_intervals_wrap_every_estimator_with_the_contract_columns():
    df = data_for("ConformalForecaster")
    est = make("ConformalForecaster", forecast.ConformalForecaster, coverage=(0.8, 0.95))
    fc = est.fit(df).predict(horizon=6, quantiles=True)
    names = ["load", "load_q0.025", "load_q0.1", "load_q0.9", "load_q0.975"]
    assert list(fc.columns) == names
    assert (np.diff(fc[names[1:]].to_numpy(), axis=1) >= 0).all()


# The DCT mixer is residual by construction and forecasts directly (no recursive or seq2seq
# strategy): tests/models/test_dct_mixer.py checks that its zero correction forecasts the
# last value and reloads.
RESIDUAL_CASES = [(n, c) for n, c in NEURAL_CASES if n != "DCTMixerForecaster"]


@pytest.mark.parametrize("name, cls", RESIDUAL_CASES, ids=[n for n, _ in RESIDUAL_CASES])
def test_residual_contract(name, cls, tmp_path):
    """residual=True on every family: a zero network forecasts the last value, and reloads."""
    df = data_for(name, channels=2)
    last = np.tile(df.iloc[-1].to_numpy(), (8, 1))
    for strategy in ("recursive", "seq2seq"):
        est = make(name, cls, residual=True, strategy=strategy)
        assert clone(est).get_params()["residual"] is True
        fc = est.fit(df).predict(horizon=8)
        est.save(tmp_path / strategy)
        loaded = BaseForecaster.load(tmp_path / strategy, device="cpu")
        assert loaded.residual_ is True
        pd.testing.assert_frame_equal(loaded.predict(horizon=8), fc)
        with torch.no_grad():
            for p in loaded.module_.parameters():
                p.zero_()
        np.testing.assert_allclose(loaded.predict(horizon=8).to_numpy(), last, atol=1e-5)
