"""EnsembleForecaster: weighted mean of members, parameters, persistence, backtests."""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from forecast import (
    EnsembleForecaster,
    ExternalForecast,
    ModelFormatError,
    Naive,
    SeasonalNaive,
    backtest,
    load,
)
from forecast.training.callbacks import Callback
from tests.conftest import make_series


def members():
    return [("last", Naive()), ("daily", SeasonalNaive(season="1D"))]


@pytest.fixture
def df():
    return make_series(24 * 10, tz="Europe/Berlin", start="2023-03-20")


def test_weighted_mean_equals_the_hand_computed_combination(df):
    model = EnsembleForecaster(members(), weights=[3, 1]).fit(df)
    np.testing.assert_array_equal(model.weights_, [0.75, 0.25])
    fc = model.predict(30)
    last = df["load"].iloc[-1]
    daily = np.tile(df["load"].iloc[-24:].to_numpy(), 2)[:30]  # same hour yesterday
    np.testing.assert_array_equal(fc["load"].to_numpy(), 0.75 * last + 0.25 * daily)
    alone = SeasonalNaive(season="1D").fit(df).predict(30)
    pd.testing.assert_index_equal(fc.index, alone.index)
    assert list(fc.columns) == ["load"]
    origins = df.index[[100, 150]]
    got = model.predict_origins(df, origins, 6)
    a = Naive().fit(df).predict_origins(df, origins, 6)
    b = SeasonalNaive(season="1D").fit(df).predict_origins(df, origins, 6)
    pd.testing.assert_frame_equal(got[["origin", "time"]], a[["origin", "time"]])
    np.testing.assert_array_equal(got["load"], 0.75 * a["load"] + 0.25 * b["load"])
    equal = EnsembleForecaster(members()).fit(df).predict(5, history=df.iloc[:-7])
    np.testing.assert_array_equal(
        equal["load"], 0.5 * df["load"].iloc[-8] + 0.5 * df["load"].iloc[-31:-26].to_numpy()
    )


def test_members_see_only_their_covariates_and_share_targets(df):
    data = df.assign(tso=df["load"] + 1.0)
    model = EnsembleForecaster(
        [("tso", ExternalForecast(column="tso")), ("last", Naive())], weights=[0.5, 0.5]
    ).fit(data)
    assert model.columns_ == ["load"] and model.future_covariates_ == ["tso"]
    index = pd.date_range(df.index[-1], periods=4, freq="h")[1:]
    future = pd.DataFrame({"tso": [20.0, 22.0, 24.0]}, index=index)
    fc = model.predict(3, future=future)
    np.testing.assert_array_equal(fc["load"], 0.5 * future["tso"] + 0.5 * df["load"].iloc[-1])
    with pytest.raises(ValueError, match="future covariates"):
        model.predict(3)


@pytest.mark.parametrize(
    "estimators, weights, error, message",
    [
        (members(), [1.0], ValueError, r"weights has 1 value\(s\) for 2 estimators"),
        (members(), [1.0, -0.5], ValueError, r"weights\[1\] = -0.5: weights must be finite"),
        (members(), [0, 0.0], ValueError, r"weights \[0, 0.0\] are all zero"),
        (members(), [1.0, float("nan")], ValueError, r"weights\[1\] = nan"),
        (members(), [1.0, "2"], TypeError, r"weights\[1\] must be a number, got '2'"),
        (members(), 0.5, TypeError, "weights must be a sequence of 2 numbers or None"),
        ([], None, TypeError, "estimators must be a non-empty list of"),
        ([Naive()], None, TypeError, r"estimators\[0\] must be a \(name, estimator\) pair"),
        ([("a", Naive()), ("a", Naive())], None, ValueError, "Names provided are not unique"),
        ([("linear-lag", Naive())], None, ValueError, "'linear-lag' must be a Python identifier"),
        ([("a__b", Naive())], None, ValueError, "'a__b' must be a Python identifier"),
        ([("weights", Naive())], None, ValueError, "conflict with constructor arguments"),
        ([("a", "naive")], None, TypeError, r"estimators\[0\] \('a'\) must be a forecast"),
    ],
)
def test_bad_members_and_weights_say_what_is_wrong(df, estimators, weights, error, message):
    model = EnsembleForecaster(estimators, weights=weights)
    with pytest.raises(error, match=message):
        model.fit(df)
    assert not hasattr(model, "estimators_")


def test_quantiles_are_refused_with_a_pointer_to_conformal(df):
    model = EnsembleForecaster(members()).fit(df)
    with pytest.raises(ValueError, match="point forecasts only.*ConformalForecaster"):
        model.predict(3, quantiles=True)
    with pytest.raises(ValueError, match="point forecasts only"):
        model.predict_origins(df, df.index[[100]], 3, quantiles=(0.1,))


def test_nested_params_clone_and_set_params(df):
    model = EnsembleForecaster(members(), weights=[1, 1])
    params = model.get_params(deep=True)
    assert params["daily__season"] == "1D" and params["last"] is model.estimators[0][1]
    assert {"estimators", "weights", "last", "daily", "last__nan_policy"} <= set(params)
    twin = clone(model)
    assert twin.estimators[1][1] is not model.estimators[1][1]
    twin.set_params(daily__season="2D", weights=[2, 1])
    assert twin.estimators[1][1].season == "2D" and model.estimators[1][1].season == "1D"
    twin.set_params(last=SeasonalNaive(season="7D"))
    assert [n for n, _ in twin.estimators] == ["last", "daily"]
    assert twin.get_params()["last__season"] == "7D"
    fitted = model.fit(df)
    assert fitted.estimators_[1] is not model.estimators[1][1]  # members are cloned
    assert not hasattr(model.estimators[1][1], "columns_")
    assert set(fitted.named_estimators_) == {"last", "daily"}
    assert fitted.named_estimators_["daily"].season == "1D"


def test_callbacks_see_the_ensemble_once(df):
    seen = []

    class Record(Callback):
        def on_fit_start(self, estimator):
            seen.append(("start", type(estimator).__name__))

        def on_fit_end(self, estimator):
            seen.append(("end", type(estimator).__name__))

    EnsembleForecaster(members()).fit(df, callbacks=[Record()])
    assert seen == [("start", "EnsembleForecaster"), ("end", "EnsembleForecaster")]


def test_save_load_round_trip_and_tampered_member(df, tmp_path):
    model = EnsembleForecaster(members(), weights=[0.3, 0.7]).fit(df)
    model.save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "meta.json").read_text())
    assert meta["estimator"] == "ensemble" and meta["estimator_params"] == ["estimators"]
    assert len(meta["nested"]["estimators_"]) == 2
    loaded = load(tmp_path / "m")
    assert type(loaded) is EnsembleForecaster and loaded.names_ == ["last", "daily"]
    assert [type(e) for _, e in loaded.estimators] == [Naive, SeasonalNaive]
    assert loaded.get_params()["daily__season"] == "1D" and loaded.weights == [0.3, 0.7]
    history = make_series(24 * 12, tz="Europe/Berlin", start="2023-04-20", seed=3)
    pd.testing.assert_frame_equal(
        loaded.predict(30, history=history), model.predict(30, history=history)
    )
    inner = tmp_path / "m" / "estimators_" / "1" / "params.json"
    assert '"1D"' in inner.read_text()
    inner.write_text(inner.read_text().replace('"1D"', '"2D"'))
    with pytest.raises(ModelFormatError, match=r"estimators_/1/params.json: SHA-256 differs"):
        load(tmp_path / "m")
    inner.write_text(inner.read_text().replace('"2D"', '"1D"'))
    load(tmp_path / "m")  # restored
    fitted = tmp_path / "m" / "estimators_" / "0" / "fitted.json"
    fitted.write_bytes(fitted.read_bytes() + b" ")
    with pytest.raises(ModelFormatError, match=r"estimators_/0/fitted.json: \d+ bytes"):
        load(tmp_path / "m")


def test_extra_or_missing_member_folder_is_refused(df, tmp_path):
    model = EnsembleForecaster(members()).fit(df)
    model.save(tmp_path / "m")
    (tmp_path / "m" / "estimators_" / "2").mkdir()
    with pytest.raises(ModelFormatError, match=r"estimators_: holds \['0', '1', '2'\]"):
        load(tmp_path / "m")
    (tmp_path / "m" / "estimators_" / "2").rmdir()
    load(tmp_path / "m")
    # a rewritten manifest passes the checksums; the structure is still checked
    params = json.loads((tmp_path / "m" / "params.json").read_text())
    params["estimators"][0] = "naive"
    rewrite(tmp_path / "m", "params.json", json.dumps(params).encode())
    with pytest.raises(
        ModelFormatError, match=r"params.json: parameter 'estimators' is not a list"
    ):
        load(tmp_path / "m")


def rewrite(folder, name, data):
    """Replace a file of a saved folder and update the manifest to match."""
    (folder / name).write_bytes(data)
    meta = json.loads((folder / "meta.json").read_text())
    meta["files"][name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (folder / "meta.json").write_text(json.dumps(meta))


def test_backtest_is_the_weighted_mean_of_the_members_backtests():
    df = make_series(24 * 20, tz="Europe/Berlin", start="2023-03-01", seed=1)
    kwargs = {"protocol": "day-ahead", "start": "2023-03-12", "metrics": ["mae"]}
    weights = [0.7, 0.3]
    result = backtest(EnsembleForecaster(members(), weights=weights), df, **kwargs)
    parts = [backtest(est, df, **kwargs).forecasts for _, est in members()]
    assert len(result.forecasts) == len(parts[0]) > 24 * 5
    keys = ["origin", "time", "step", "target", "y_true"]
    pd.testing.assert_frame_equal(result.forecasts[keys], parts[0][keys])
    expected = 0.7 * parts[0]["y_pred"].to_numpy() + 0.3 * parts[1]["y_pred"].to_numpy()
    np.testing.assert_array_equal(result.forecasts["y_pred"], expected)
    assert result.metrics.loc["overall", "mae"] == pytest.approx(
        np.mean(np.abs(expected - result.forecasts["y_true"].to_numpy()))
    )


ENSEMBLE_SPEC = """
name = "blend"
[data]
path = "{csv}"
timezone = "Europe/Berlin"
[backtest]
protocol = "day-ahead"
start = "2023-01-15"
end = "2023-01-20"
target = "load"
[models.last-value]
model = "naive"
[models.daily]
model = "seasonal-naive"
season = "1D"
[models.blend]
model = "ensemble"
members = ["last-value", "daily"]
weights = [0.7, 0.3]
"""


@pytest.fixture
def spec_csv(tmp_path):
    path = tmp_path / "load.csv"
    make_series(24 * 21, tz="UTC").rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return path


def test_spec_ensemble_refers_to_other_tables_and_runs(tmp_path, spec_csv):
    from forecast.specs.spec import build_models, read_spec, run_spec

    path = tmp_path / "spec.toml"
    path.write_text(ENSEMBLE_SPEC.format(csv=spec_csv))
    models = build_models(read_spec(path)["models"])
    assert list(models) == ["last-value", "daily", "blend"]
    blend = models["blend"]
    assert [n for n, _ in blend.estimators] == ["last_value", "daily"]
    assert blend.estimators[0][1] is not models["last-value"] and blend.weights == [0.7, 0.3]
    table = run_spec(path, tmp_path / "out")
    assert list(table.index) == ["last-value", "daily", "blend"]
    assert table.loc["blend", "n"] == table.loc["daily", "n"] == 6 * 24


@pytest.mark.parametrize(
    "change, message",
    [
        ('members = ["last-value", "nope"]', r"\[models.blend\] unknown member 'nope'"),
        ('members = ["blend"]', "member 'blend' is the ensemble itself"),
        ("members = []", r"an ensemble needs members = \["),
        ('members = ["daily"]\nweights = [1, 2]', r"weights has 2 value\(s\) for 1 estimators"),
        ('members = ["daily"]\nestimators = 1', "not estimators"),
        ('members = ["daily"]\nfoo = 1', "unknown parameter 'foo' for ensemble"),
    ],
)
def test_spec_ensemble_errors_name_the_table(tmp_path, spec_csv, change, message):
    from forecast.specs.spec import build_models, read_spec

    body = ENSEMBLE_SPEC.format(csv=spec_csv).replace(
        'members = ["last-value", "daily"]\nweights = [0.7, 0.3]', change
    )
    path = tmp_path / "spec.toml"
    path.write_text(body)
    with pytest.raises(ValueError, match=message):
        build_models(read_spec(path)["models"])


def test_spec_members_must_not_be_ensembles(tmp_path, spec_csv):
    from forecast.specs.spec import build_models, read_spec

    body = ENSEMBLE_SPEC.format(csv=spec_csv) + '[models.again]\nmodel = "ensemble"\n'
    path = tmp_path / "spec.toml"
    path.write_text(body + 'members = ["blend"]\n')
    with pytest.raises(ValueError, match=r"\[models.again\] member 'blend' is itself an ensemble"):
        build_models(read_spec(path)["models"])


def test_conformal_wraps_an_ensemble_and_both_round_trip(df, tmp_path):
    from forecast import ConformalForecaster

    model = ConformalForecaster(
        EnsembleForecaster(members(), weights=[3, 1]), horizon=6, calibration="3D"
    ).fit(df)
    fc = model.predict(6, quantiles=True)
    assert list(fc.columns) == ["load", "load_q0.1", "load_q0.9"]
    point = EnsembleForecaster(members(), weights=[3, 1]).fit(df).predict(6)
    pd.testing.assert_series_equal(fc["load"], point["load"])
    model.save(tmp_path / "m")
    assert (tmp_path / "m" / "estimator_" / "estimators_" / "1" / "meta.json").is_file()
    pd.testing.assert_frame_equal(load(tmp_path / "m").predict(6, quantiles=True), fc)


def test_bad_data_is_refused_before_the_callbacks_hear_of_the_fit(df):
    seen = []

    class Record(Callback):
        def on_fit_start(self, estimator):
            seen.append("start")

    with pytest.raises(TypeError, match="X must be a pandas DataFrame or a dict"):
        EnsembleForecaster(members()).fit([1.0], callbacks=[Record()])
    daily = df.resample("D").mean()
    with pytest.raises(ValueError, match="weights_by='hour' needs data sampled at least hourly"):
        EnsembleForecaster(members(), weights_by="hour").fit(daily, callbacks=[Record()])
    assert seen == []
    model = EnsembleForecaster(members()).fit(df)
    with pytest.raises(ValueError, match="horizon=20000 exceeds the limit max_horizon=10000"):
        model.predict(20_000)
    assert model.predict(2, max_horizon=None).shape == (2, 1)
