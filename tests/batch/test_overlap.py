"""Outputs never destroy inputs: an output that resolves to an input is refused first.

Every refusal comes before the model loads: the cases name a model that does not exist, so a
refusal that came later would be "model ... not found" instead. Each case checks the inputs
kept their bytes and mtime and nothing was left behind.
"""

import os
from pathlib import Path

import pytest

from forecast.batch import BatchError, main, run_batch
from forecast.batch.partitions import run_partitions
from forecast.batch.run import forecast_file, load_forecaster
from forecast.cli import main as cli_main
from forecast.models.baselines import SeasonalNaive
from tests.batch.logcheck import errors
from tests.conftest import make_series

NO_MODEL = "no-such-model"


def state(folder: Path) -> dict[str, tuple]:
    """Bytes and mtime of every file under ``folder`` (links as their target text)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_file():
            out[rel] = (p.read_bytes(), p.stat().st_mtime_ns)
        else:
            out[rel] = ("dir",)
    return out


@pytest.fixture
def data(tmp_path):
    frame = make_series(n=24 * 10, tz="Europe/Berlin", name="timestamp")
    folder = tmp_path / "in"
    folder.mkdir()
    frame.iloc[-48:].to_csv(folder / "north.csv")
    frame.iloc[-72:].to_parquet(folder / "south.parquet")
    return {"frame": frame, "in": folder, "tmp": tmp_path}


def refused(tmp_path, call, match, error=BatchError):
    before = state(tmp_path)
    with pytest.raises(error, match=match):
        call()
    assert state(tmp_path) == before  # inputs unchanged (bytes, mtime), nothing left behind


# ------------------------------------------------------------------------- one input file
def test_output_equal_to_input_is_refused(data):
    latest = data["in"] / "north.csv"
    refused(
        data["tmp"],
        lambda: run_batch(NO_MODEL, latest, latest, track=False),
        rf"^output {latest} is the input {latest}: write the forecast to another file",
    )


def test_same_file_under_another_spelling_is_refused(data, monkeypatch):
    monkeypatch.chdir(data["tmp"])
    latest = data["in"] / "north.csv"
    for output in ("in/north.csv", "in/../in/./north.csv", str(latest)):
        refused(
            data["tmp"],
            lambda output=output: run_batch(NO_MODEL, "in/north.csv", output, track=False),
            "is the input in/north.csv",
        )


def test_symlink_and_hard_link_to_the_input_are_refused(data):
    latest = data["in"] / "north.csv"
    (data["tmp"] / "link.csv").symlink_to(latest)
    os.link(latest, data["tmp"] / "hard.csv")
    for name in ("link.csv", "hard.csv"):
        out = data["tmp"] / name
        refused(
            data["tmp"],
            lambda out=out: run_batch(NO_MODEL, latest, out, track=False),
            f"output {out} is the input {latest}",
        )
    # and the other way round: the input is the link, the output the file it names
    refused(
        data["tmp"],
        lambda: run_batch(NO_MODEL, data["tmp"] / "hard.csv", latest, track=False),
        f"is the input {data['tmp'] / 'hard.csv'}",
    )


def test_date_pattern_that_can_name_the_input_is_refused(data):
    dated = data["in"] / "2023-01-10.csv"
    (data["in"] / "north.csv").rename(dated)
    pattern = str(data["in"] / "{date}.csv")
    refused(
        data["tmp"],
        lambda: run_batch(NO_MODEL, dated, pattern, track=False),
        rf"output .*\{{date\}}\.csv \({dated}\) can expand to the input {dated}",
    )
    # through a symbolic link to the input's folder
    (data["tmp"] / "alias").symlink_to(data["in"])
    alias = str(data["tmp"] / "alias" / "{date}.csv")
    refused(
        data["tmp"],
        lambda: run_batch(NO_MODEL, dated, alias, track=False),
        f"can expand to the input {dated}",
    )


def test_date_pattern_holding_a_hard_link_to_the_input_is_refused(data):
    latest = data["in"] / "north.csv"
    (data["tmp"] / "out").mkdir()
    os.link(latest, data["tmp"] / "out" / "2023-01-10.csv")
    refused(
        data["tmp"],
        lambda: run_batch(NO_MODEL, latest, str(data["tmp"] / "out" / "{date}.csv"), track=False),
        "can expand to a link to the input",
    )


def test_cli_refusal_is_one_line_and_exit_1(data, capsys):
    latest = str(data["in"] / "north.csv")
    before = state(data["tmp"])
    code = main(["--model", NO_MODEL, "--input", latest, "--output", latest, "--no-track"])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert errors(captured.err) == (
        f"output {latest} is the input {latest}: write the forecast "
        "to another file; nothing was done\n"
    )
    assert state(data["tmp"]) == before


def test_forecast_file_checks_the_expanded_name_too(data):
    """The last guard, for callers of :func:`forecast_file` (after the model loaded)."""
    SeasonalNaive(season="1D").fit(data["frame"].iloc[:168]).save(data["tmp"] / "model")
    estimator, predict = load_forecaster(data["tmp"] / "model")
    latest = data["in"] / "north.csv"
    refused(
        data["tmp"],
        lambda: forecast_file(estimator, predict, "m", latest, lambda date: latest, 24),
        f"is the input {latest}",
    )


def test_output_beside_the_input_still_works(data):
    SeasonalNaive(season="1D").fit(data["frame"].iloc[:168]).save(data["tmp"] / "model")
    latest = data["in"] / "north.csv"
    before = state(data["in"])
    result = run_batch(data["tmp"] / "model", latest, str(data["tmp"] / "{date}.csv"), track=False)
    assert result.path == data["tmp"] / "2023-01-10.csv"
    assert state(data["in"]) == before


# --------------------------------------------------------------------- partitioned inputs
def test_partition_folder_as_input_and_output_is_refused(data):
    folder = data["in"]
    refused(
        data["tmp"],
        lambda: run_partitions(NO_MODEL, folder, folder, track=False),
        rf"^output {folder} \({folder / 'north.csv'}\) for north.csv is the input "
        f"{folder / 'north.csv'}",
    )


def test_glob_input_and_its_folder_as_output_is_refused(data):
    refused(
        data["tmp"],
        lambda: run_partitions(NO_MODEL, str(data["in"] / "*.csv"), data["in"], track=False),
        "for north.csv is the input",
    )


def test_stem_pattern_over_the_inputs_is_refused(data):
    pattern = str(data["in"] / "{stem}.parquet")
    refused(
        data["tmp"],
        lambda: run_partitions(NO_MODEL, data["in"], pattern, track=False),
        f"for south.parquet is the input {data['in'] / 'south.parquet'}",
    )


def test_stem_and_date_pattern_that_can_name_another_input_is_refused(data):
    (data["in"] / "south.parquet").rename(data["in"] / "north-2023-01-10.parquet")
    pattern = str(data["in"] / "{stem}-{date}.parquet")
    refused(
        data["tmp"],
        lambda: run_partitions(NO_MODEL, str(data["in"] / "north*"), pattern, track=False),
        "for north.csv can expand to the input .*north-2023-01-10.parquet",
    )


def test_output_that_the_next_run_would_read_as_input_is_refused(data):
    pattern = str(data["in"] / "{stem}-forecast.csv")
    refused(
        data["tmp"],
        lambda: run_partitions(NO_MODEL, data["in"], pattern, track=False),
        "among the inputs .*: the next run would read the forecast as an input partition",
    )


def test_hard_link_in_the_output_folder_is_refused(data):
    out = data["tmp"] / "out"
    out.mkdir()
    os.link(data["in"] / "north.csv", out / "north.csv")
    refused(
        data["tmp"],
        lambda: run_partitions(NO_MODEL, data["in"], out, track=False),
        f"for north.csv is the input {data['in'] / 'north.csv'}",
    )


def test_output_folder_inside_the_input_folder_is_fine_when_nothing_is_hit(data):
    """Only the input folder's own files are partitions: a subfolder is not read."""
    SeasonalNaive(season="1D").fit(data["frame"].iloc[:168]).save(data["tmp"] / "model")
    before = state(data["in"])
    out = data["in"] / "forecasts"
    result = run_partitions(data["tmp"] / "model", data["in"], out, 24, track=False)
    assert result.failed == [] and sorted(os.listdir(out)) == ["north.csv", "south.parquet"]
    assert {k: v for k, v in state(data["in"]).items() if not k.startswith("forecasts")} == before


# -------------------------------------------------------------------- predict, backtest
def test_predict_data_as_output_is_refused_before_the_model_loads(data, capsys):
    latest = str(data["in"] / "north.csv")
    before = state(data["tmp"])
    argv = ["predict", "--model", NO_MODEL, "--horizon", "2", "--data", latest]
    assert cli_main([*argv, "--output", latest]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"forecast predict: error: --output {latest} is the --data file {latest}: write the "
        "forecast to another file; nothing was done\n"
    )
    assert state(data["tmp"]) == before


def test_backtest_data_as_output_is_refused_before_fitting(data, capsys):
    latest = data["in"] / "north.csv"
    os.link(latest, data["tmp"] / "hard.csv")
    before = state(data["tmp"])
    argv = ["backtest", "--model", "naive", "--data", str(latest)]
    assert cli_main([*argv, "--output", str(data["tmp"] / "hard.csv")]) == 2
    assert "is the --data file" in capsys.readouterr().err
    assert state(data["tmp"]) == before
