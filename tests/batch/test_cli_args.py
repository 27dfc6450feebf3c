"""The model and MLflow-store options, declared once (``forecast.batch.cli_args``)."""

from __future__ import annotations

import argparse
import inspect

import pytest

import forecast
import forecast.cli
from forecast._compat import DEPRECATED_IN, REMOVED_IN
from forecast.batch import cli
from forecast.batch.cli_args import (
    TRACKING_URI_HELP,
    add_command,
    add_model_argument,
    add_tracking_arguments,
    module_main,
    positive_int,
)
from forecast.cli import build_parser
from forecast.loop import promote_cli, score_cli, update_cli
from forecast.serve import cli as serve_cli

MODULES = (cli, score_cli, update_cli, promote_cli, serve_cli)


def test_no_command_declares_the_shared_options_itself():
    shared = ("--model", "--tracking-uri", "--experiment", "--no-track")
    for module in (*MODULES, forecast.cli):
        source = inspect.getsource(module).replace(" ", "").replace("\n", "")
        options = ("--timezone", "--time-column")
        for option in (*options, *shared) if module is not forecast.cli else options:
            for declared in (f'add_argument("{option}"', f'add("{option}"'):
                assert declared not in source, f"{module.__name__} declares {option}"


@pytest.mark.parametrize(
    ("command", "model", "tracking", "experiment"),
    [
        ("batch", "models:/name@alias, models:/name/version, runs:/id/model or a folder",
         "MLflow store (default: $MLFLOW_TRACKING_URI or sqlite:///mlflow.db)", "forecast-batch"),
        ("score", "models:/name@alias or models:/name/N to log to", TRACKING_URI_HELP, None),
        ("update", "saved model folder or models:/name@alias", TRACKING_URI_HELP,
         "forecast-update"),
        ("promote", None, TRACKING_URI_HELP, None),
        ("serve", "MLflow model URI or model folder",
         "MLflow store resolving models:/ and runs:/ (default: $MLFLOW_TRACKING_URI)", None),
    ],
)  # fmt: skip
def test_each_command_keeps_its_help_and_defaults(command, model, tracking, experiment):
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub._builders.get(command, lambda s: None)(sub)  # a declared command is built on use
    actions = {a.dest: a for a in sub.choices[command]._actions}
    assert actions["tracking_uri"].help == tracking and actions["tracking_uri"].default is None
    if model is None:
        assert "model" not in actions
    else:
        assert actions["model"].help == model
        assert actions["model"].required is (command in ("batch", "update", "serve"))
    if experiment is None:
        assert "experiment" not in actions and "no_track" not in actions
    else:
        assert actions["experiment"].default == experiment
        assert actions["experiment"].help == f"experiment of {command} runs"
        assert actions["no_track"].help == "do not log an MLflow run"


def test_the_helpers_parse_as_the_commands_did():
    parser = argparse.ArgumentParser()
    add_model_argument(parser, "a model", required=False)
    add_tracking_arguments(parser, runs="batch", experiment="runs-here")
    args = parser.parse_args(["--tracking-uri", "sqlite:///x.db", "--no-track"])
    assert (args.model, args.tracking_uri, args.experiment, args.no_track) == (
        None, "sqlite:///x.db", "runs-here", True,
    )  # fmt: skip
    positional = argparse.ArgumentParser()
    add_model_argument(positional, "a model", positional=True)
    assert positional.parse_args(["models:/m@champion"]).model == "models:/m@champion"
    assert "MODEL_URI" in positional.format_usage()
    with pytest.raises(ValueError, match="runs='batch' needs the default experiment"):
        add_tracking_arguments(argparse.ArgumentParser(), runs="batch")


def test_positive_int_names_what_it_expected():
    assert positive_int("3") == 3
    for bad in ("0", "-2", "x", "1.5"):
        with pytest.raises(
            argparse.ArgumentTypeError, match=f"expected a whole number >= 1, got {bad!r}"
        ):
            positive_int(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="^expected N or day-ahead, got '0'$"):
        positive_int("0", "N or day-ahead")


def _hello(parser):
    parser.add_argument("--times", type=int, default=1)


def _say(args):
    print("hello " * args.times)
    return 3


def test_a_command_is_the_same_under_forecast_and_alone(capsys):
    parent = argparse.ArgumentParser(prog="tool")
    subparsers = parent.add_subparsers()
    parser = add_command(subparsers, "hello", "Say hello.", "see {prog} --times 2", _hello, _say)
    assert parser.prog == "tool hello" and parser.epilog == "see tool hello --times 2"
    args = parent.parse_args(["hello", "--times", "2"])
    assert args.func is _say and args.times == 2
    assert "hello" in parent.format_help() and "Say hello." not in parent.format_help()
    assert (
        module_main("demo.hello", "Say hello.", "see {prog}", _hello, _say, ["--times", "2"]) == 3
    )
    assert capsys.readouterr().out == "hello hello \n"
    with pytest.raises(SystemExit) as stop:
        module_main("demo.hello", "Say hello.", "", _hello, _say, ["--times", "x"], prog="hi")
    assert stop.value.code == 2
    assert capsys.readouterr().err.startswith("hi: error: argument --times: invalid int value")
    with pytest.raises(SystemExit):
        module_main("demo.hello", "Say hello.", "see {prog}", _hello, _say, ["--help"])
    assert capsys.readouterr().out.endswith("\nsee python -m demo.hello\n")


def test_add_batch_parser_is_deprecated_and_still_adds_the_command():
    assert not reached_removal(forecast.__version__), "remove add_batch_parser in 0.3.0"
    parent = argparse.ArgumentParser(prog="tool")
    subparsers = parent.add_subparsers()
    with pytest.warns(DeprecationWarning) as caught:
        parser = cli.add_batch_parser(subparsers)
    assert str(caught[0].message).startswith(
        f"forecast.batch.add_batch_parser is deprecated in forecast {DEPRECATED_IN} and will "
        f"be removed in {REMOVED_IN}: "
    )
    assert parser.prog == "tool batch" and parser.description == cli.DESCRIPTION
    assert parser.get_default("func") is cli.run
    assert "scheduled forecast from the latest data with a stored model" in parent.format_help()
    args = parent.parse_args(["batch", "--model", "m", "--input", "i", "--output", "o"])
    assert (args.model, args.horizon, args.no_track) == ("m", None, False)


def reached_removal(version: str) -> bool:
    """Whether ``version`` is :data:`~forecast._compat.REMOVED_IN` or one of its pre-releases."""
    from packaging.version import Version

    return Version(Version(version).base_version) >= Version(REMOVED_IN)
