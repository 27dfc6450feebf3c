"""The ``forecast`` command reads one table of sub-commands (``forecast.cli.COMMANDS``)."""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import inspect
import io
from pathlib import Path

import pytest

from forecast import cli
from forecast.batch.cli_args import OneLineParser

PACKAGE = Path(cli.__file__).parent


def _sub(parser: argparse.ArgumentParser) -> cli._Commands:
    return next(a for a in parser._actions if isinstance(a, cli._Commands))


def test_help_lists_every_row_with_its_line_in_the_tables_order():
    listed = [(a.dest, a.help) for a in _sub(cli.build_parser())._choices_actions]
    assert listed == [(name, command.summary) for name, command in cli.COMMANDS.items()]


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_each_row_builds_the_parser_of_its_command_with_a_body(name):
    parser = cli.build_parser()
    sub = _sub(parser)
    assert sub.choices[name] is None  # listed, not built: --help imports no command module
    sub._builders[name](sub)
    built = sub.choices[name]
    assert isinstance(built, OneLineParser) and built.prog == f"forecast {name}"
    if name != "data":  # data's body is chosen by its own sub-command
        assert callable(built.get_default("func"))


def test_a_command_is_added_by_one_row(monkeypatch, capsys):
    def hello_arguments(parser):
        parser.add_argument("--times", type=int, default=1)

    def hello(args):
        return print("hello " * args.times) or 7

    row = cli.Command("say hello", hello_arguments, hello, "examples:\n  forecast hello")
    monkeypatch.setattr(cli, "COMMANDS", {**cli.COMMANDS, "hello": row})
    with contextlib.redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit):
        cli.main(["--help"])
    assert ["hello", "say", "hello"] in [line.split() for line in out.getvalue().splitlines()]
    with contextlib.redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit):
        cli.main(["hello", "--help"])
    text = out.getvalue()
    assert "\nSay hello.\n" in text and text.endswith("examples:\n  forecast hello\n")
    assert cli.main(["hello", "--times", "2"]) == 7
    assert capsys.readouterr().out == "hello hello \n"
    with pytest.raises(SystemExit) as stop:
        cli.main(["hello", "--times", "x"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.startswith("forecast hello: error: argument --times:")


def test_long_commands_are_those_that_run_torch_or_mlflow_runs():
    long = [name for name, command in cli.COMMANDS.items() if command.long]
    assert long == ["demo", "fit", "predict", "backtest", "run", "tune", "batch"]


def test_a_row_naming_a_module_imports_it_only_when_named(monkeypatch):
    imported = []
    monkeypatch.setattr(cli.importlib, "import_module", lambda name: imported.append(name))
    cli.build_parser()
    assert imported == []


@pytest.mark.parametrize(
    "name", [name for name, command in cli.COMMANDS.items() if isinstance(command.arguments, str)]
)
def test_a_command_module_gives_its_texts_options_and_body_and_no_parser(name):
    module = importlib.import_module(cli.COMMANDS[name].arguments)
    parser = cli.build_parser()
    sub = _sub(parser)
    sub._builders[name](sub)
    built = sub.choices[name]
    assert built.description == module.DESCRIPTION
    assert built.epilog == module.EPILOG.format(prog=f"forecast {name}")
    assert built.get_default("func") is module.run
    source = inspect.getsource(module)
    assert "add_parser(" not in source and "set_defaults(" not in source
    assert "formatter_class" not in source


def test_only_the_command_maker_sets_the_formatter():
    found = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "formatter_class=" in path.read_text()
    )
    assert found == ["batch/cli_args.py"]


def test_the_one_line_parser_is_defined_once():
    defined = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).endswith("ArgumentParser") for base in node.bases
            ):
                defined.append(f"{path.relative_to(PACKAGE)}:{node.name}")
    assert defined == ["batch/cli_args.py:OneLineParser"]
