import io
import os

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
    n = [line.split("|")[-2].strip() for line in printed.splitlines() if "| overall" in line]
    assert n == ["96"]  # a count, printed as an integer (not 96.000)
    assert len(pd.read_csv(out)) == 4 * 24


def test_missing_file_is_one_clear_line(tmp_path, capsys):
    code = main(["fit", "--model", "naive", "--data", str(tmp_path / "nope.csv"), "--out", "x"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "does not exist" in err


def test_predict_with_wrong_columns_names_them_without_a_traceback(tmp_path, csv, capsys):
    # main() in this process: what `python -m forecast.cli` runs, without a second start-up
    path, df = csv
    model_dir = tmp_path / "model"
    assert main(["fit", "--model", "naive", "--data", str(path), "--out", str(model_dir)]) == 0
    wrong = tmp_path / "wrong.csv"
    df.rename(columns={"load": "demand"}).rename_axis("timestamp").to_csv(wrong)
    capsys.readouterr()
    args = ["predict", "--model", str(model_dir), "--data", str(wrong), "--horizon", "2"]
    code = main([*args, "--output", str(tmp_path / "fc.csv")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (
        f"forecast predict: error: {wrong} lacks column(s) ['load'] that the model {model_dir} "
        "needs; found ['demand']\n"
    )
    assert not (tmp_path / "fc.csv").exists()


def test_fit_with_a_missing_column_names_it(tmp_path, csv, capsys):
    path, _ = csv
    args = ["fit", "--model", "naive", "--data", str(path), "--columns", "load", "price"]
    assert main([*args, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err == f"forecast fit: error: {path} lacks column(s) ['price']; found ['load']\n"


def test_predict_reads_and_writes_in_the_given_zone(tmp_path, capsys):
    data = make_series(24 * 4, tz="Europe/Berlin", start="2023-10-26")
    path = tmp_path / "local.csv"
    data.rename_axis("timestamp").to_csv(path)  # +02:00, then +01:00 from 29 October
    model_dir = tmp_path / "model"
    assert main(["fit", "--model", "naive", "--data", str(path), "--out", str(model_dir)]) == 0
    capsys.readouterr()
    args = ["predict", "--model", str(model_dir), "--data", str(path), "--horizon", "2"]
    assert main(args) == 0  # several offsets and no zone: read in UTC, as before
    assert capsys.readouterr().out.splitlines()[1:] == [
        f"2023-10-29T22:00:00+00:00,{float(data['load'].iloc[-1])!r}",
        f"2023-10-29T23:00:00+00:00,{float(data['load'].iloc[-1])!r}",
    ]
    assert main([*args, "--timezone", "Europe/Berlin"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "timestamp,load",
        f"2023-10-29T23:00:00+01:00,{float(data['load'].iloc[-1])!r}",
        f"2023-10-30T00:00:00+01:00,{float(data['load'].iloc[-1])!r}",
    ]


@pytest.fixture
def width80(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps to the terminal width


def help_text(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


COMMANDS = [
    [],
    ["demo"],
    ["fit"],
    ["predict"],
    ["backtest"],
    ["run"],
    ["data"],
    ["data", "list"],
    ["data", "fetch"],
    ["batch"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a) or "forecast")
def test_help_is_plain_text_with_a_summary_and_examples(argv, capsys, width80):
    text = help_text(argv, capsys)
    prog = " ".join(["forecast", *argv])
    assert text.startswith(f"usage: {prog} ")
    for markup in ("``", ":func:", ":class:", "\x1b", "Parameters\n", "----"):
        assert markup not in text, markup
    description = text.split("\n\n")[1]
    assert "\n" not in description and description.endswith(".")  # one line
    examples = text.split("examples:\n")[1].split("\n\n")[0].splitlines()
    assert examples and all(
        line.startswith("  forecast ") for line in examples if line[:3] != "   "
    )
    assert max(len(line) for line in text.splitlines()) <= 100  # raw epilogs are not wrapped


def test_top_level_help_lists_every_command_with_one_line(capsys, width80):
    text = help_text([], capsys)
    listed = text.split("  COMMAND\n")[1].split("\n\noptions:")[0]
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("    ")]
    assert names == [
        "demo",
        "fit",
        "predict",
        "backtest",
        "run",
        "tune",
        "data",
        "batch",
        "score",
        "update",
        "promote",
        "serve",
    ]


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("ett-h1", "or download it with `forecast data fetch ett-h1`"),
        ("smard-de", "or get it as data/README.md describes ('smard-de' has no public download)"),
        ("opsd-60min", "`forecast data fetch opsd-60min --sha256 <digest>` (no checksum is"),
    ],
)
def test_missing_dataset_message_says_how_to_get_it(tmp_path, name, hint):
    from forecast.datasets import load

    with pytest.raises(FileNotFoundError) as err:
        load(name, data_dir=tmp_path)
    assert str(err.value).endswith(hint) or hint in str(err.value)
    assert "with see" not in str(err.value)


def test_threads_option_sets_torch_threads_in_the_command_and_restores_them(
    tmp_path, capsys, monkeypatch
):
    import torch

    import forecast.specs.commands
    from forecast.training.threads import torch_threads

    seen = []

    def fake_fit(args):  # what the training loop and predictions see, under their policy
        with torch_threads():
            seen.append(torch.get_num_threads())
        return 0

    monkeypatch.setattr(forecast.specs.commands, "fit_command", fake_fit)
    before = torch.get_num_threads()
    argv = ["fit", "--data", "x.csv", "--model", "gru", "--out", str(tmp_path / "m")]
    try:
        torch.set_num_threads(1)
        assert main(["--threads", "3", *argv]) == 0
        assert torch.get_num_threads() == 1  # restored after the command
        assert main(argv) == 0  # auto: never more than torch's own setting
    finally:
        torch.set_num_threads(before)
    assert seen == [3, 1]
    with pytest.raises(SystemExit):
        main(["--threads", "0", "fit", "--data", str(tmp_path)])
    assert "expected a whole number >= 1, got '0'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "prog", "message"),
    [
        (["fit", "--model", "naive"], "forecast fit", "required: --data, --out"),
        (["backtest", "--model", "x", "--data", "y", "--horizon", "abc"], "forecast backtest",
         "argument --horizon: invalid int value: 'abc'"),
        (["nosuch"], "forecast", "invalid choice: 'nosuch'"),
        ([], "forecast", "required: COMMAND"),
        (["data", "fetch"], "forecast data fetch", "required: NAME"),
        (["batch", "--model", "m", "--input", "i", "--output", "o", "--horizon", "0"],
         "forecast batch", "expected a positive int or day-ahead, got '0'"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line_with_exit_code_2(argv, prog, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and captured.out == ""
    assert lines[0].startswith(f"{prog}: error: ") and message in lines[0]
    assert "usage:" not in lines[0]


def test_batch_module_usage_error_is_one_line(capsys):
    from forecast.batch.cli import main as batch_main

    with pytest.raises(SystemExit) as exit_info:
        batch_main(["--model", "m"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("python -m forecast.batch: error: the following")


def test_help_still_prints_the_usage_block(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: forecast fit [-h] --model MODEL")


def test_backtest_end_beyond_the_data_warns_on_stderr(tmp_path, capsys):
    index = pd.date_range("2023-01-01", "2023-03-25", freq="h", tz="UTC", inclusive="left")
    path = tmp_path / "load.csv"
    pd.DataFrame({"load": range(len(index))}, index=index).to_csv(path, index_label="time")
    argv = ["backtest", "--model", "naive", "--data", str(path), "--protocol", "day-ahead"]
    assert main([*argv, "--start", "2023-01-02", "--end", "2023-12-31"]) == 0
    captured = capsys.readouterr()
    assert "| load" in captured.out
    assert captured.err.splitlines() == [
        "forecast backtest: warning: test period end='2023-12-31' lies beyond the data's last "
        "timestamp 2023-03-24 23:00:00+00:00: only the period up to 2023-03-24 23:00:00+00:00 "
        "is scored"
    ]
    assert main([*argv, "--start", "2023-06-01"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("forecast backtest: error: test period start=")
    assert "2023-03-24 23:00:00+00:00" in err[0]


def test_fit_reports_epochs_on_stderr_unless_quiet(tmp_path, csv, capsys):
    path, _ = csv
    argv = ["fit", "--model", "gru", "--data", str(path), "--param", "max_epochs=2"]
    argv += ["--param", "hidden_size=4", "--param", "context_length=24", "--param", "horizon=6"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3, err
    assert err[0].startswith("gru: epoch 1/2 train_loss=") and err[0].endswith(" s)")
    assert err[1].startswith("gru: epoch 2/2 train_loss=")
    assert err[2].startswith("gru: trained 2 epoch(s) in ")
    assert main([*argv, "--out", str(tmp_path / "b"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_version_prints_the_package_version(capsys):
    from forecast import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"forecast {__version__}\n"


def test_predict_writes_one_table_for_a_model_of_several_series(tmp_path, capsys):
    from forecast.models.baselines import SeasonalNaive

    frames = {"north": make_series(48, seed=1), "south": make_series(48, seed=2)}
    model = SeasonalNaive(season=24).fit(frames)
    model.save(tmp_path / "m")
    assert main(["predict", "--model", str(tmp_path / "m"), "--horizon", "3"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(table.columns) == ["timestamp", "id", "load"]
    expected = model.predict(horizon=3)
    for key in frames:
        got = table[table["id"] == key]
        assert list(got["load"]) == list(expected[key]["load"])
        assert list(got["timestamp"]) == [t.isoformat() for t in expected[key].index]


def test_every_command_runs_with_mlflow_download_bars_off(monkeypatch):
    from forecast import cli

    key = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"
    monkeypatch.delenv(key, raising=False)
    seen = []
    parser = cli.build_parser()
    for argv in (
        ["score", "--forecasts", "f/{date}.csv", "--actuals", "a.csv"],
        ["update", "--model", "m", "--input", "i.csv", "--output", "o"],
        ["promote", "m", "--champion-scores", "a.csv", "--challenger-scores", "b.csv"],
        ["batch", "--model", "m", "--input", "i.csv", "--output", "o.csv"],
    ):
        args = parser.parse_args(argv)
        args.func = lambda _: seen.append(os.environ.get(key)) or 0  # the command's body
        assert cli._run(args) == 0
    assert seen == ["false"] * 4 and key not in os.environ  # set for the command, then restored
