"""One contract suite over every estimator of the registry.

The suite runs over :func:`forecast.persistence.registry.all_estimators`, as scikit-learn's
``check_estimator`` over its ``all_estimators``: each estimator runs with tiny parameters
(``TEST_PARAMS``) or is listed in ``SKIP`` with its reason, and a registered name in neither
fails, so nothing new escapes the contract.
"""

import inspect
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import forecast
from forecast.base import BaseForecaster
from forecast.models.neural import NeuralForecaster
from forecast.models.referenced import ReferenceResidualMixin
from forecast.persistence.registry import all_estimators
from tests.conftest import make_series
from tests.models.foundation.checkpoints import tiny_chronos2, tiny_tirex

NEURAL = {"max_epochs": 2, "hidden_size": 4, "context_length": 24, "horizon": 6, "batch_size": 32}
FOUNDATION = {"device": "cpu", "quantiles": (0.1, 0.5, 0.9)}  # + "weights": a tiny checkpoint

# Keyed by registry name (the name a saved folder stores).
TEST_PARAMS = {
    "elman": NEURAL,
    "lstm": NEURAL,
    "gru": NEURAL,
    "orthogonal": NEURAL,
    "transformer": {**NEURAL, "n_heads": 2},
    "hopfield": {**NEURAL, "n_heads": 2},
    "dct-mixer": {**NEURAL, "num_layers": 1},
    "referenced-hopfield": {
        **NEURAL,
        "n_heads": 2,
        "reference_model": forecast.LinearLagForecaster(
            lags=24, seasonal_lags=("1D",), horizon=6, calendar=False
        ),
    },
    "referenced-transformer": {
        **NEURAL,
        "n_heads": 2,
        "reference_model": forecast.SeasonalNaive(season="1D"),
    },
    "chronos2": FOUNDATION,
    "tirex": FOUNDATION,
    "naive": {},
    "seasonal-naive": {"season": "1D"},
    "constant-velocity": {"window": 2},
    "ets": {"seasonal_periods": 24},
    "sarimax": {"order": (1, 0, 0), "seasonal_order": (0, 0, 0, 0)},
    "mstl": {"periods": ("1D",)},
    "linear-lag": {"lags": 24},
    "boosted-lag": {"lags": 24, "horizon": 6, "max_iter": 5, "min_samples_leaf": 10},
    "external": {"column": "tso"},
    "conformal": {
        "estimator": forecast.SeasonalNaive(season="1D"),
        "horizon": 6,
        "calibration": "3D",
    },
    "analog-day": {
        "reference_model": forecast.LinearLagForecaster(lags=24),
        "context": "1D",
        "country": "DE",
    },
    "ensemble": {
        "estimators": [
            ("last", forecast.Naive()),
            ("daily", forecast.SeasonalNaive(season="1D")),
        ],
        "weights": (0.25, 0.75),
    },
}

# Registered estimators the suite cannot run, each with its reason (none at present: the
# foundation wrappers run on tiny random checkpoints, skipped only where their extra is not
# installed).
SKIP: dict[str, str] = {}

# The foundation wrappers load a checkpoint: a tiny random one in each package's own format
# (tests/models/foundation/checkpoints.py), written once per process on first use.
CHECKPOINTS = {"chronos2": tiny_chronos2, "tirex": tiny_tirex}
_WRITTEN: dict[str, Path] = {}


def checkpoint(name):
    """The tiny checkpoint folder of the wrapper ``name`` (skips if its extra is missing)."""
    if name not in _WRITTEN:
        # under the session's temporary folder (tests/conftest.py points tempfile there)
        _WRITTEN[name] = CHECKPOINTS[name](Path(tempfile.mkdtemp(prefix=f"{name}-")))
    return _WRITTEN[name]


REGISTRY = all_estimators()
ESTIMATORS = [(name, cls) for name, cls in REGISTRY if name not in SKIP]
IDS = [name for name, _ in ESTIMATORS]
# every registered estimator, as one parameter; those of SKIP skipped with their reason
CASES = [
    pytest.param(
        (name, cls), id=name, marks=[pytest.mark.skip(reason=SKIP[name])] if name in SKIP else []
    )
    for name, cls in REGISTRY
]


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
    if name in CHECKPOINTS:
        params["weights"] = str(checkpoint(name))
    accepted = inspect.signature(cls.__init__).parameters
    if "random_state" in accepted:
        params["random_state"] = 0
    params.update(extra)
    return cls(**params)


def data_for(name, n=24 * 8, channels=1):
    df = make_series(n, channels=channels, tz="Europe/Berlin", start="2023-03-20")
    if name == "external":
        df["tso"] = df.iloc[:, 0] + 0.1
    return df


@pytest.fixture(params=CASES)
def case(request):
    return request.param


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


def test_every_registered_estimator_is_covered_or_skipped_with_a_reason():
    names = {name for name, _ in REGISTRY}
    assert len(names) >= 23, "the registry lists fewer estimators than the package defines"
    assert not set(TEST_PARAMS) & set(SKIP), "an estimator both tested and skipped"
    missing = names - set(TEST_PARAMS) - set(SKIP)
    assert not missing, f"registered without TEST_PARAMS or a SKIP reason: {sorted(missing)}"
    assert set(TEST_PARAMS) | set(SKIP) <= names, "an entry names no registered estimator"
    assert all(isinstance(why, str) and why.strip() for why in SKIP.values())


def test_public_methods_exist_once_in_the_base(case):  # as tests/test_base.py checks
    _, cls = case
    public = {"fit", "predict", "predict_origins", "save", "load"}
    for klass in cls.__mro__:
        if klass is not BaseForecaster and issubclass(klass, BaseForecaster):
            assert not public & set(vars(klass)), f"{klass.__name__} overrides {public}"


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
    if name != "external":
        return {}
    index = pd.date_range(df.index[-1], periods=horizon + 1, freq="h")[1:]
    return {"future": pd.DataFrame({"tso": np.linspace(9, 11, horizon)}, index=index)}


NEURAL_CASES = [(n, c) for n, c in ESTIMATORS if issubclass(c, NeuralForecaster)]


@pytest.mark.parametrize("name, cls", NEURAL_CASES, ids=[n for n, _ in NEURAL_CASES])
def test_quantile_head_contract(name, cls, tmp_path):
    df = data_for(name)
    # a network with a reference forecasts at most its head's horizon (no roll-out)
    longer = {"horizon": 8} if issubclass(cls, ReferenceResidualMixin) else {}
    est = make(name, cls, quantiles=(0.1, 0.5, 0.9), **longer)
    assert same_params(clone(est), est)
    fc = est.fit(df).predict(horizon=8, quantiles=True)
    assert list(fc.columns) == ["load", "load_q0.1", "load_q0.5", "load_q0.9"]
    values = fc.to_numpy()
    assert np.isfinite(values).all() and (np.diff(values[:, 1:], axis=1) > 0).all()
    est.save(tmp_path / "model")
    loaded = BaseForecaster.load(tmp_path / "model", device="cpu")
    pd.testing.assert_frame_equal(loaded.predict(horizon=8, quantiles=True), fc)


def test_conformal_intervals_wrap_every_estimator_with_the_contract_columns():
    df = data_for("conformal")
    est = make("conformal", forecast.ConformalForecaster, coverage=(0.8, 0.95))
    fc = est.fit(df).predict(horizon=6, quantiles=True)
    names = ["load", "load_q0.025", "load_q0.1", "load_q0.9", "load_q0.975"]
    assert list(fc.columns) == names
    assert (np.diff(fc[names[1:]].to_numpy(), axis=1) >= 0).all()


# The DCT mixer is residual by construction and forecasts directly (no recursive or seq2seq
# strategy): tests/models/test_dct_mixer.py checks that its zero correction forecasts the
# last value and reloads. The networks with a reference add their correction to the
# reference's forecast, not to the last value, and do not roll out:
# tests/models/test_referenced.py checks that a zero correction forecasts the reference.
RESIDUAL_CASES = [
    (n, c)
    for n, c in NEURAL_CASES
    if n != "dct-mixer" and not issubclass(c, ReferenceResidualMixin)
]


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
