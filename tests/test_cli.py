import pandas as pd
import pytest

from forecast.cli import main
from tests.conftest import make_series


@pytest.fixture
def csv(tmp_path):
    df = make_series(24 * 10, tz="UTC")
    path = tmp_path / "load.csv"
    df.rename_axis("timestamp").reset_index().to_csv(path, index=False)
    return path, df


def test_fit_then_predict_round_trip(tmp_path, csv):
    path, df = csv
    model_dir = tmp_path / "model"
    assert (
        main(
            [
                "fit",
                "--model",
                "seasonal-naive",
                "--data",
                str(path),
                "--param",
                'season="1D"',
                "--out",
                str(model_dir),
            ]
        )
        == 0
    )
    out = tmp_path / "fc.csv"
    assert main(["predict", "--model", str(model_dir), "--horizon", "5", "--output", str(out)]) == 0
    fc = pd.read_csv(out, parse_dates=["timestamp"])
    assert len(fc) == 5
    assert fc["timestamp"].iloc[0] == df.index[-1] + pd.Timedelta("1h")
    # seasonal naive with a one-day season repeats the value 24 hours earlier
    assert fc["load"].iloc[0] == pytest.approx(df["load"].iloc[-24])


def test_predict_from_new_history(tmp_path, csv):
    path, df = csv
    model_dir = tmp_path / "model"
    main(["fit", "--model", "naive", "--data", str(path), "--out", str(model_dir)])
    newer = make_series(48, tz="UTC", start="2024-05-01", seed=4)
    new_path = tmp_path / "new.csv"
    newer.rename_axis("timestamp").reset_index().to_csv(new_path, index=False)
    out = tmp_path / "fc.parquet"
    assert (
        main(
            [
                "predict",
                "--model",
                str(model_dir),
                "--data",
                str(new_path),
                "--horizon",
                "2",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    fc = pd.read_parquet(out)
    assert fc["load"].iloc[0] == pytest.approx(newer["load"].iloc[-1])


def test_backtest_command_prints_metrics(tmp_path, csv, capsys):
    path, _ = csv
    out = tmp_path / "bt.csv"
    assert (
        main(
            [
                "backtest",
                "--model",
                "seasonal-naive",
                "--param",
                'season="1D"',
                "--data",
                str(path),
                "--protocol",
                "day-ahead",
                "--start",
                "2023-01-05",
                "--end",
                "2023-01-08",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "mape" in printed and "overall" in printed
    assert len(pd.read_csv(out)) == 4 * 24


def test_missing_file_is_one_clear_line(tmp_path, capsys):
    code = main(["fit", "--model", "naive", "--data", str(tmp_path / "nope.csv"), "--out", "x"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "does not exist" in err
