"""``forecast batch --future FILE``: covariate vintages read as known at the last observed row."""

import numpy as np
import pandas as pd
import pytest

from forecast.batch import main
from forecast.frames.vintage_sources import simulate_vintages
from forecast.models.baselines import LinearLagForecaster, SeasonalNaive

ZONE = "Europe/Berlin"


@pytest.fixture
def setup(tmp_path):
    rng = np.random.default_rng(0)
    index = pd.date_range("2023-03-01", periods=24 * 20, freq="h", tz=ZONE, name="time")
    temp = pd.Series(8 + 4 * np.sin(np.arange(len(index)) * 2 * np.pi / 24), index, name="temp")
    df = pd.DataFrame({"load": 40 - temp + rng.standard_normal(len(index)), "temp": temp})
    model = LinearLagForecaster(lags=24, seasonal_lags=["1D"], future_covariates=["temp"])
    model.fit(df.iloc[: 24 * 15]).save(tmp_path / "model")
    latest = df.iloc[: 24 * 18 + 12]  # up to 11:00 on the 19th
    latest.to_csv(tmp_path / "latest.csv")
    issues = pd.date_range("2023-03-15 06:00", periods=6, freq="D", tz=ZONE)
    vintages = simulate_vintages(temp, issues, "48h", random_state=2)
    vintages.to_csv(tmp_path / "vintages.csv", index=False)
    return tmp_path, model, latest, vintages


def test_batch_reads_the_vintages_known_at_the_last_row(setup):
    path, model, latest, vintages = setup
    before = (path / "vintages.csv").read_bytes()
    code = main(["--model", str(path / "model"), "--input", str(path / "latest.csv"),
                 "--future", str(path / "vintages.csv"), "--output", str(path / "fc.csv"),
                 "--horizon", "24", "--no-track"])  # fmt: skip
    assert code == 0
    got = pd.read_csv(path / "fc.csv")
    expected = model.predict(horizon=24, history=latest, future=vintages)
    assert len(got) == 24
    np.testing.assert_allclose(got["load"], expected["load"], rtol=1e-9)
    assert pd.Timestamp(got["timestamp"].iloc[0]) == pd.Timestamp("2023-03-19 12:00", tz=ZONE)
    assert (path / "vintages.csv").read_bytes() == before


def test_batch_names_a_step_without_a_vintage_and_writes_nothing(setup, capsys):
    path, _, _, vintages = setup
    early = vintages[vintages["issue_time"] < pd.Timestamp("2023-03-18", tz=ZONE)]
    early.to_csv(path / "early.csv", index=False)
    code = main(["--model", str(path / "model"), "--input", str(path / "latest.csv"),
                 "--future", str(path / "early.csv"), "--output", str(path / "fc.csv"),
                 "--horizon", "24", "--no-track"])  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert "no vintage of the future covariates issued at or before the origin" in err
    assert "2023-03-19 11:00:00+01:00" in err
    assert not (path / "fc.csv").exists()


def test_future_for_a_model_without_future_covariates_is_refused(setup, capsys):
    path, _, latest, _ = setup
    SeasonalNaive("1D").fit(latest[["load"]]).save(path / "naive")
    latest[["load"]].to_csv(path / "load.csv")
    code = main(["--model", str(path / "naive"), "--input", str(path / "load.csv"),
                 "--future", str(path / "vintages.csv"), "--output", str(path / "fc.csv"),
                 "--no-track"])  # fmt: skip
    assert code == 1
    assert "the model declares no future covariates" in capsys.readouterr().err
    assert not (path / "fc.csv").exists()


def test_future_with_a_folder_of_partitions_is_a_usage_error(setup, capsys):
    path, _, latest, _ = setup
    (path / "parts").mkdir()
    latest.to_csv(path / "parts" / "a.csv")
    code = main(["--model", str(path / "model"), "--input", str(path / "parts"),
                 "--future", str(path / "vintages.csv"), "--output", str(path / "out"),
                 "--no-track"])  # fmt: skip
    assert code == 2
    assert "--future apply to one --input file, not a folder" in capsys.readouterr().err
    assert not (path / "out").exists()


def test_output_on_the_vintages_file_is_refused_and_keeps_it(setup, capsys):
    path, _, _, _ = setup
    before = (path / "vintages.csv").read_bytes()
    code = main(["--model", str(path / "model"), "--input", str(path / "latest.csv"),
                 "--future", str(path / "vintages.csv"), "--output", str(path / "vintages.csv"),
                 "--horizon", "24", "--no-track"])  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert "is the --future file" in err and "nothing was done" in err
    assert (path / "vintages.csv").read_bytes() == before
