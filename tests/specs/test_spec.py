import numpy as np
import pandas as pd
import pytest

from forecast.cli import main
from forecast.specs.spec import read_spec, run_spec
from tests.conftest import make_series


@pytest.fixture
def load_csv(tmp_path):
    df = make_series(24 * 21, tz="UTC")
    df["tso"] = df["load"] + 0.5
    path = tmp_path / "load.csv"
    df.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return path


def write_spec(tmp_path, body):
    path = tmp_path / "spec.toml"
    path.write_text(body)
    return path


SPEC = """
name = "tiny"
[data]
path = "{csv}"
timezone = "Europe/Berlin"
[backtest]
protocol = "day-ahead"
start = "2023-01-15"
end = "2023-01-20"
target = "load"
[models.tso]
model = "external"
column = "tso"
[models.weekly]
model = "seasonal-naive"
season = "7D"
"""


def test_run_spec_scores_models_on_the_same_days(tmp_path, load_csv):
    spec = write_spec(tmp_path, SPEC.format(csv=load_csv))
    table = run_spec(spec, tmp_path / "out")
    assert list(table.index) == ["tso", "weekly"]
    # the external forecast is the actual plus 0.5 everywhere: MAE 0.5, bias 0.5
    assert table.loc["tso", "mae"] == pytest.approx(0.5)
    assert table.loc["tso", "bias"] == pytest.approx(0.5)
    assert table.loc["tso", "n"] == table.loc["weekly", "n"] == 6 * 24
    saved = pd.read_csv(tmp_path / "out" / "comparison.csv", index_col=0)
    np.testing.assert_allclose(saved["mae"], table["mae"])


def test_cli_run_prints_table(tmp_path, load_csv, capsys):
    spec = write_spec(tmp_path, SPEC.format(csv=load_csv))
    assert main(["run", str(spec), "--output", str(tmp_path / "o")]) == 0
    assert "| tso" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("name = 'x'\n[models.a]\nmodel = 'naive'\n", r"\[data\] table is missing"),
        ("[data]\npath = 'a.csv'\n[models.a]\nseason = '7D'\n", "needs a `model` key"),
        ("colour = 1\n[data]\npath='a'\n[models.a]\nmodel='naive'\n", "unknown top-level key"),
        ("[data\n", "not valid TOML"),
    ],
)
def test_bad_specs_name_the_problem(tmp_path, body, message):
    with pytest.raises(ValueError, match=message):
        read_spec(write_spec(tmp_path, body))


def test_cli_reports_unknown_model_in_one_line(tmp_path, load_csv, capsys):
    spec = write_spec(tmp_path, SPEC.format(csv=load_csv).replace('"external"', '"prophet"'))
    assert main(["run", str(spec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown model 'prophet'" in err[0]


def test_cli_reports_unknown_parameter_with_the_valid_ones(tmp_path, load_csv, capsys):
    body = SPEC.format(csv=load_csv).replace('column = "tso"', 'column = "tso"\nseason = "1D"')
    spec = write_spec(tmp_path, body)
    assert main(["run", str(spec), "--output", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (
        "forecast run: error: [models.tso] unknown parameter 'season' for external "
        "(ExternalForecast); valid: column, debias, fill_gaps, nan_policy, published\n"
    )
    assert not (tmp_path / "o").exists()  # refused before the data is read or a folder made


# ------------------------------------------------------------------ champion registration
CHAMPION_SPEC = """
name = "tiny-champion"
[data]
path = "{csv}"
timezone = "Europe/Berlin"
[backtest]
protocol = "day-ahead"
start = "2023-01-15"
end = "2023-01-20"
target = "load"
[models.tso]
model = "external"
column = "tso"
[models.last]
model = "naive"
[models.weekly]
model = "seasonal-naive"
season = "7D"
[tracking]
enabled = true
tracking_uri = "{uri}"
experiment = "champion"
register = "tiny-load"
"""


def test_run_registers_the_best_model_with_its_covariate(tmp_path, new_store):
    import mlflow
    from mlflow import MlflowClient

    from forecast.tracking import use_store

    uri = new_store("champion")
    df = make_series(24 * 21, tz="UTC")
    df["tso"] = df["load"] + 0.05  # far better than any model; served with its column
    csv = tmp_path / "load.csv"
    df.rename_axis("timestamp").reset_index().to_csv(csv, index=False)
    table = run_spec(write_spec(tmp_path, CHAMPION_SPEC.format(csv=csv, uri=uri)), tmp_path / "o")
    assert table["mape"].idxmin() == "tso"

    client = MlflowClient(uri)
    version = client.get_model_version_by_alias("tiny-load", "champion")
    run = client.get_run(version.run_id)
    assert run.info.run_name == "tso"
    parent = client.get_run(run.data.tags["mlflow.parentRunId"])
    assert parent.info.run_name == "tiny-champion"
    assert parent.data.tags["run_kind"] == "comparison"
    assert parent.data.tags["champion"] == "tso"
    assert parent.data.tags["best_model"] == "tso" and parent.data.tags["best_by"] == "mape"
    assert [d.dataset.name for d in parent.inputs.dataset_inputs] == ["load.csv"]
    assert [d.dataset.name for d in run.inputs.dataset_inputs] == ["load.csv"]
    assert parent.data.tags["champion_version"] == f"tiny-load/{version.version}"
    assert version.tags["comparison_run_id"] == parent.info.run_id
    assert version.tags["selected_by"] == f"mape={table.loc['tso', 'mape']:.6g}"

    # the history, then 24 rows of the forecast steps: load empty, the tso column given
    frame = df.tz_convert("Europe/Berlin")
    frame.iloc[-24:, frame.columns.get_loc("load")] = np.nan
    with use_store(uri):
        model = mlflow.pyfunc.load_model("models:/tiny-load@champion")
        forecast = model.predict(frame, params={"horizon": 24})
    np.testing.assert_allclose(forecast["load"], frame["tso"].iloc[-24:])
    assert forecast.index[0] == frame.index[-24]

    again = run_spec(write_spec(tmp_path, CHAMPION_SPEC.format(csv=csv, uri=uri)), tmp_path / "o")
    pd.testing.assert_series_equal(again["mape"], table["mape"])
    latest = client.get_model_version_by_alias("tiny-load", "champion")
    assert int(latest.version) == int(version.version) + 1  # the alias moved on


@pytest.mark.parametrize(
    ("tracking", "message"),
    [
        ('register = "m"', "register needs enabled = true"),
        ('enabled = true\nalias = "best"', r"\['alias'\] only apply with `register"),
        ('enabled = true\nregister = "m"\nselect = "bias"', "signed: lower is not better"),
        ('enabled = true\nregister = "m"\nselect = "mape_special"', "choose one of"),
        ('enabled = true\nregister = "m"\nselect = "fit_seconds"', "choose one of"),
        ("enabled = true\nregister = 3", "register must be a non-empty string"),
        ("enabled = true\nuri = 'x'", r"unknown \[tracking\] key\(s\) \['uri'\]"),
    ],
)
def test_bad_tracking_tables_fail_before_running(tmp_path, tracking, message):
    body = f"[data]\npath = 'a.csv'\n[models.a]\nmodel = 'naive'\n[tracking]\n{tracking}\n"
    with pytest.raises(ValueError, match=message):
        read_spec(write_spec(tmp_path, body))


def test_select_may_be_a_special_day_metric_and_special_days_are_checked(tmp_path):
    body = (
        "[data]\npath = 'a.csv'\n[backtest]\nspecial_days = 'holidays-DE'\n"
        "[models.a]\nmodel = 'naive'\n"
        "[tracking]\nenabled = true\nregister = 'm'\nselect = 'mape_special'\n"
    )
    assert read_spec(write_spec(tmp_path, body))["tracking"]["select"] == "mape_special"
    bad = body.replace("holidays-DE", "holidays-Germany")
    with pytest.raises(ValueError, match=r"\[backtest\] special_days='holidays-Germany'"):
        read_spec(write_spec(tmp_path, bad))


def test_run_spec_takes_the_tables_as_a_dict(tmp_path, load_csv):
    import tomllib

    tables = tomllib.loads(SPEC.format(csv=load_csv))
    from_dict = run_spec(tables, tmp_path / "d")
    from_file = run_spec(write_spec(tmp_path, SPEC.format(csv=load_csv)), tmp_path / "f")
    pd.testing.assert_frame_equal(
        from_dict.drop(columns=from_dict.filter(regex="seconds|rss").columns),
        from_file.drop(columns=from_file.filter(regex="seconds|rss").columns),
    )
    assert (tmp_path / "d" / "comparison.csv").is_file()
    assert tables["models"]["weekly"] == {"model": "seasonal-naive", "season": "7D"}  # unchanged


def test_check_spec_names_its_source_and_needs_a_name():
    from forecast.specs.spec import check_spec

    tables = {"data": {"path": "a.csv"}, "models": {"a": {"model": "naive"}}}
    with pytest.raises(ValueError, match=r"^packaged demo: the spec needs a non-empty string"):
        check_spec(tables, "packaged demo")
    assert check_spec(tables, name="x")["name"] == "x"
    assert "name" not in tables  # a copy is returned
    with pytest.raises(ValueError, match=r"^spec: \[tracking\] register needs enabled = true"):
        check_spec({**tables, "name": "x", "tracking": {"register": "m"}})


def test_spec_functions_keep_their_public_path():
    from forecast.specs import build, check, spec

    assert spec.read_spec is check.read_spec and spec.check_spec is check.check_spec
    assert spec.load_data is build.load_data and spec.build_models is build.build_models
    assert spec.build_estimator is build.build_estimator
