"""``forecast batch --explain``: the attributions as an artifact of the batch run."""

import pandas as pd
import pytest
from mlflow import MlflowClient

from forecast.batch import main, run_batch
from forecast.models.baselines import LinearLagForecaster
from tests.batch.logcheck import errors
from tests.conftest import make_series

pytest.importorskip("captum", reason="install the explain extra (captum)")


@pytest.fixture(scope="module")
def setup(tmp_path_factory, new_store):
    folder = tmp_path_factory.mktemp("explain-files")
    data = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    model = LinearLagForecaster(horizon=6, seasonal_lags=("1D",)).fit(data.iloc[: 24 * 7])
    model.save(folder / "saved")
    latest = data.iloc[-24 * 3 :]
    latest.to_csv(folder / "latest.csv")
    return {"store": new_store("explain"), "dir": folder, "model": model, "latest": latest}


def test_explain_logs_the_attributions_with_the_run(setup, tmp_path):
    result = run_batch(
        setup["dir"] / "saved",
        setup["dir"] / "latest.csv",
        tmp_path / "f.parquet",
        horizon=6,
        tracking_uri=setup["store"],
        explain=True,
    )
    client = MlflowClient(setup["store"])
    path = client.download_artifacts(
        result.run_id, "explanation/explanation.parquet", str(tmp_path)
    )
    table = pd.read_parquet(path)
    written = pd.read_parquet(result.path)
    forecast = table.groupby("lead")["forecast"].first().to_numpy()
    assert forecast == pytest.approx(written["load"].to_numpy(), rel=1e-12)
    total = table.groupby("lead")["contribution"].sum().to_numpy()
    base = table.groupby("lead")["baseline"].first().to_numpy()
    assert total == pytest.approx(forecast - base, abs=1e-9)


def test_explain_without_tracking_or_on_a_folder_is_refused(setup, tmp_path, capsys):
    args = ["--model", str(setup["dir"] / "saved"), "--output", str(tmp_path / "f.csv")]
    code = main([*args, "--input", str(setup["dir"] / "latest.csv"), "--explain", "--no-track"])
    assert code != 0 and "drop --no-track" in errors(capsys.readouterr().err)
    code = main([*args, "--input", str(setup["dir"]), "--explain"])
    assert code != 0 and "--explain" in errors(capsys.readouterr().err)
