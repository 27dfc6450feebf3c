"""The model and MLflow-store options, declared once (``forecast.batch.cli_args``)."""

from __future__ import annotations

import argparse
import inspect

import pytest

from forecast.batch import cli
from forecast.batch.cli_args import TRACKING_URI_HELP, add_model_argument, add_tracking_arguments
from forecast.cli import build_parser
from forecast.loop import promote_cli, score_cli, update_cli
from forecast.serve import cli as serve_cli

MODULES = (cli, score_cli, update_cli, promote_cli, serve_cli)


def test_no_command_declares_the_shared_options_itself():
    for module in MODULES:
        source = inspect.getsource(module).replace(" ", "").replace("\n", "")
        for option in ("--model", "--tracking-uri", "--experiment", "--no-track"):
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
