import numpy as np
import pandas as pd
import pytest

from forecast.cli import main
from forecast.spec import read_spec, run_spec
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
