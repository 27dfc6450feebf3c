"""The [tune] table of a spec is checked without Ray, before anything runs."""

import pytest

from forecast.specs.spec import read_spec
from forecast.specs.tune import parse_space, parse_tune

MODELS = {"gru": {"model": "gru", "hidden_size": 8}}
BACKTEST = {"start": "2023-01-01", "end": "2023-12-31", "protocol": "day-ahead"}
TUNE = {
    "model": "gru",
    "validation_start": "2022-01-01",
    "validation_end": "2022-12-31",
    "space": {"hidden_size": {"choice": [8, 16]}},
}


def test_a_good_table_parses_with_defaults():
    settings = parse_tune(
        {**TUNE, "space": {"learning_rate": {"loguniform": [1e-4, 1e-2]}}}, MODELS, BACKTEST
    )
    assert settings.space == {"learning_rate": ("loguniform", [1e-4, 1e-2])}
    assert (settings.metric, settings.num_samples, settings.grace_period) == ("mape", 16, 1)
    assert settings.max_concurrent is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"validation_end": "2023-01-01"}, r"\(2022-01-01 to 2023-01-01\) must end before"),
        ({"validation_end": "2023"}, "must end before the test period starts"),
        ({"validation_end": "2021-06-30"}, "validation_end '2021-06-30' is before"),
        ({"model": "lstm"}, r"model = 'lstm' is not a \[models\.\*\] table; have \['gru'\]"),
        ({"num_samples": 0}, "num_samples must be an int >= 1, got 0"),
        ({"reduction_factor": 1}, "reduction_factor must be an int >= 2"),
        ({"trials": 3}, r"unknown key\(s\) \['trials'\]"),
        ({"space": {}}, r"\[tune.space\] is missing or empty"),
    ],
)
def test_bad_tables_say_what_and_where(change, message):
    with pytest.raises(ValueError, match=message):
        parse_tune({**TUNE, **change}, MODELS, BACKTEST)


def test_the_test_period_is_required():
    with pytest.raises(ValueError, match=r"needs \[backtest\] start \(the test period\)"):
        parse_tune(TUNE, MODELS, {})


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"normal": [0, 1]}, "must be one of"),
        ({"choice": []}, "choice takes a non-empty list"),
        ({"uniform": [1, 0]}, r"uniform needs lo < hi, got \[1, 0\]"),
        ({"uniform": [0, "a"]}, "two finite numbers"),
        ({"loguniform": [0, 1]}, "loguniform needs 0 < lo"),
        ({"randint": [1.5, 4]}, r"randint takes two ints \[lo, hi\)"),
        ({"uniform": [0, 1, 2]}, r"takes \[lo, hi\], got \[0, 1, 2\]"),
    ],
)
def test_bad_space_entries(entry, message):
    with pytest.raises(ValueError, match=message):
        parse_space({"dropout": entry})


def test_read_spec_checks_the_table_and_the_parameter_names(tmp_path):
    path = tmp_path / "spec.toml"
    body = """
[data]
path = "x.csv"
[backtest]
start = "2023-01-01"
[models.gru]
model = "gru"
[tune]
model = "gru"
validation_start = "2022-01-01"
validation_end = "2022-12-31"
[tune.space]
hidden = { choice = [8, 16] }
"""
    path.write_text(body)
    with pytest.raises(ValueError, match=r"\['hidden'\] not parameters of GRUForecaster"):
        read_spec(path)
    path.write_text(body.replace("hidden =", "hidden_size =").replace('"2022-12-31"', '"2023-06"'))
    with pytest.raises(ValueError, match=r"spec.toml: \[tune\] the validation period"):
        read_spec(path)
    path.write_text(body.replace("hidden =", "hidden_size ="))
    assert read_spec(path)["tune"]["space"] == {"hidden_size": {"choice": [8, 16]}}
