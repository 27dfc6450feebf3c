"""Parameters declared once: table, signature, get_params and docs agree (neural, baselines)."""

import inspect
import re
from dataclasses import replace

import pytest
from sklearn.base import clone

from forecast.models import GRUForecaster, HopfieldForecaster, OrthogonalRNNForecaster, baselines
from forecast.models.baselines._options import CovariateOptions, InputOptions
from forecast.models.declare import Param, declare_params, declared
from forecast.models.neural import NeuralForecaster
from forecast.models.neural_params import NEURAL_PARAMS
from tests.conftest import neural_families

FAMILY_PARAMS = {
    "ElmanForecaster": ["nonlinearity"],
    "LSTMForecaster": ["peephole"],
    "GRUForecaster": [],
    "OrthogonalRNNForecaster": ["nonlinearity", "stiefel_lr", "stiefel_rmsprop", "init"],
    "TransformerForecaster": ["n_heads", "ff_size", "positional", "causal"],
    "HopfieldForecaster": ["n_heads", "beta", "update_steps", "positional"],
    "DCTMixerForecaster": ["mixer", "n_coefficients", "observed_loss"],
}

FAMILY_DEFAULTS = {  # shared parameters with another default in one family
    "OrthogonalRNNForecaster": {"hidden_size": 128},
    "ElmanForecaster": {"num_layers": 2, "n_ensemble": 3},
}


def documented(cls) -> list[tuple[str, str]]:
    """(name, default text) of every entry of the Parameters section of ``cls.__doc__``."""
    doc = inspect.getdoc(cls)
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = re.split(r"\n\n[A-Z][A-Za-z ]*\n-{3,}\n", section, maxsplit=1)[0]
    return re.findall(r"^(\w+) : .*, default=(.*)$", section, flags=re.MULTILINE)


@pytest.mark.parametrize("cls", neural_families(), ids=lambda c: c.__name__)
def test_table_signature_get_params_and_docstring_agree(cls):
    table = cls._param_table
    names = [p.name for p in table]
    assert names == FAMILY_PARAMS[cls.__name__] + [p.name for p in NEURAL_PARAMS]
    changed = FAMILY_DEFAULTS.get(cls.__name__, {})  # the shared records, own defaults aside
    shared = tuple(replace(p, default=changed.get(p.name, p.default)) for p in NEURAL_PARAMS)
    assert table[len(table) - len(NEURAL_PARAMS) :] == shared
    signature = inspect.signature(cls.__init__).parameters
    assert list(signature) == ["self", *names]
    for param in table:
        assert signature[param.name].kind is inspect.Parameter.KEYWORD_ONLY
        assert signature[param.name].default == param.default, param.name
    assert cls._get_param_names() == sorted(names)
    assert cls().get_params() == {p.name: p.default for p in table}
    assert documented(cls) == [(p.name, repr(p.default)) for p in table]


@pytest.mark.parametrize("cls", neural_families(), ids=lambda c: c.__name__)
def test_init_stores_verbatim_and_clone_keeps_identity(cls):
    marker = ["load"]
    est = cls(future_covariates=marker, context_length="not validated in __init__")
    assert est.future_covariates is marker and est.context_length == "not validated in __init__"
    assert not [k for k in vars(est) if k.endswith("_")]
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    assert twin.future_covariates is not marker and twin.future_covariates == marker


def test_unknown_and_positional_arguments_are_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        GRUForecaster(hidden=4)
    with pytest.raises(TypeError, match="positional"):
        GRUForecaster(24)


def test_repr_and_set_params_follow_the_table():
    est = GRUForecaster(hidden_size=4, residual=True)
    assert repr(est) == "GRUForecaster(hidden_size=4, residual=True)"
    assert est.set_params(dropout=0.1) is est and est.dropout == 0.1
    with pytest.raises(ValueError, match="Invalid parameter 'dropouts'"):
        est.set_params(dropouts=0.1)


def test_a_family_adds_its_parameters_in_front_and_checks_them():
    @declare_params(Param("width", 2, "int", "A width.", lambda n, v: None))
    class Wide(NeuralForecaster):
        """A test family.

        Attributes
        ----------
        module_ : ForecastNet
            The network.
        """

    class Same(Wide):
        """Inherits the table and ``__init__`` unchanged."""

    assert [p.name for p in Wide._param_table][:2] == ["width", "context_length"]
    assert Same._get_param_names() == Wide._get_param_names()
    assert Same(width=3).width == 3
    doc = inspect.getdoc(Wide)
    assert doc.index("width : int, default=2") < doc.index("Attributes\n----------")
    with pytest.raises(ValueError, match=r"parameters \['horizon'\] are declared twice"):
        declare_params(Param("horizon", 1, "int", "Again."))(type("Twice", (Wide,), {}))


def test_a_subclass_without_init_takes_the_shared_parameters():
    class Plain(NeuralForecaster):
        pass

    assert Plain._get_param_names() == sorted(p.name for p in NEURAL_PARAMS)
    assert Plain(hidden_size=3).get_params()["hidden_size"] == 3


@pytest.mark.parametrize(
    ("cls", "name", "value", "message"),
    [
        (OrthogonalRNNForecaster, "stiefel_lr", 0.0, "stiefel_lr must be None or > 0, got 0.0"),
        (HopfieldForecaster, "beta", -1.0, "beta must be None or > 0, got -1.0"),
    ],
)
def test_family_checks_come_from_the_table(cls, name, value, message):
    cls(**{name: None})._check_params()
    with pytest.raises(ValueError, match=message):
        cls(**{name: value})._check_params()


BASELINES = [
    baselines.Naive,
    baselines.SeasonalNaive,
    baselines.ConstantVelocity,
    baselines.ETSForecaster,
    baselines.SARIMAXForecaster,
    baselines.MSTLForecaster,
    baselines.LinearLagForecaster,
    baselines.BoostedLagForecaster,
    baselines.ExternalForecast,
]


@pytest.mark.parametrize("cls", BASELINES, ids=lambda c: c.__name__)
def test_the_baselines_share_one_declaration_of_their_input_options(cls):
    shared = declared(InputOptions)
    if issubclass(cls, CovariateOptions):
        shared = declared(CovariateOptions)
    table = {p.name: p for p in declared(cls)}
    assert all(table[p.name] is p for p in shared)  # the records themselves, not copies
    signature = inspect.signature(cls).parameters
    assert [n for n, p in signature.items() if p.kind is p.KEYWORD_ONLY][-2:] == [
        "nan_policy",
        "fill_gaps",
    ]
    assert list(signature) == [p.name for p in declared(cls)]
    assert cls().get_params() == {p.name: p.default for p in declared(cls)}
    assert documented(cls) == [(p.name, repr(p.default)) for p in declared(cls)]


def test_baseline_options_of_their_own_may_be_given_by_position():
    est = baselines.SeasonalNaive("1D", 2)
    assert (est.season, est.n_seasons, est.nan_policy) == ("1D", 2, "raise")
    boosted = baselines.BoostedLagForecaster(48, (), None, 1.0, True, False, 10)
    assert (boosted.lags, boosted.calendar, boosted.max_iter) == (48, False, 10)
    with pytest.raises(TypeError, match="too many positional arguments"):
        baselines.Naive("raise")
    with pytest.raises(TypeError, match="multiple values for argument 'season'"):
        baselines.SeasonalNaive("1D", season="7D")


def test_an_annotation_in_a_declared_class_must_be_a_param_field():
    with pytest.raises(TypeError, match=r"Odd\.width_ is annotated .* declare it with param"):

        @declare_params()
        class Odd(NeuralForecaster):
            """A family with a stray annotation."""

            width_: int


def test_a_family_may_change_an_inherited_default_and_keeps_its_check():
    shared = {p.name: p for p in NEURAL_PARAMS}["hidden_size"]
    assert shared.default == 64 and GRUForecaster().hidden_size == 64
    assert OrthogonalRNNForecaster().hidden_size == 128  # the orthogonal RNN's own default
    assert inspect.signature(OrthogonalRNNForecaster).parameters["hidden_size"].default == 128
    assert "hidden_size : int, default=128" in OrthogonalRNNForecaster.__doc__
    assert clone(OrthogonalRNNForecaster()).get_params()["hidden_size"] == 128

    @declare_params(defaults={"max_epochs": 7})
    class Short(NeuralForecaster):
        """A family with a shorter default budget."""

    class Shorter(Short):
        pass

    assert Short().max_epochs == 7 and Shorter().max_epochs == 7  # subclasses inherit it
    assert Short(max_epochs=2).max_epochs == 2
    assert GRUForecaster().max_epochs == 30  # the shared record is untouched
    record = {p.name: p for p in declared(Short)}["max_epochs"]
    assert (record.doc, record.type, record.check) == (
        {p.name: p for p in NEURAL_PARAMS}["max_epochs"].doc,
        "int",
        {p.name: p for p in NEURAL_PARAMS}["max_epochs"].check,
    )
    with pytest.raises(ValueError, match=r"max_epochs must be"):
        record.check("max_epochs", -1)
    with pytest.raises(ValueError, match=r"Odd: defaults for \['width'\], which it does not"):
        declare_params(defaults={"width": 3})(type("Odd", (NeuralForecaster,), {}))
