"""docs/guide/cli.md ("every command") against the ``forecast`` command's parser.

The reference part of the page is generated from the parser (``tests/docs/cli_reference.py``);
these tests walk the parser and check that the page has every command, every option and the
default the parser has for it, then that the page is exactly what the generator writes now.
"""

from __future__ import annotations

import argparse
import re

import pytest

from forecast.cli import build_parser
from tests.docs.cli_reference import PAGE, default_text, generated_part, options, render, walk


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return build_parser()


@pytest.fixture(scope="module")
def sections() -> dict[str, str]:
    """The page's text under each ``### forecast ...`` heading, by command."""
    text = generated_part(PAGE.read_text())
    parts = re.split(r"^### (forecast[\w -]*)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_page_has_every_command_of_the_parser(parser, sections):
    top = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    names = {*top.choices, *getattr(top, "_builders", {})}  # declared ones are built on use
    assert len(names) == 12, sorted(names)
    commands = [command for command, _, _ in walk(build_parser())]
    assert {f"forecast {name}" for name in names} <= set(commands)
    assert {"forecast data list", "forecast data fetch"} <= set(commands)
    assert list(sections) == commands
    overview = generated_part(PAGE.read_text()).split("\n### ")[0]
    for command in commands[1:]:
        assert f"[`{command}`](#{command.replace(' ', '-')})" in overview


def test_every_option_is_on_the_page_with_the_parsers_default(sections):
    for command, _, child in walk(build_parser()):
        rows = {
            row.split(" | ")[0].strip("| `"): row
            for row in sections[command].splitlines()
            if row.startswith("| `")
        }
        for action in options(child):
            name = (action.option_strings or [action.metavar or action.dest])[-1]
            row = next((r for k, r in rows.items() if k.split(", ")[-1].split()[0] == name), None)
            assert row is not None, f"{command}: {name} is not on the page"
            assert f" | {default_text(action)} | " in row, (command, name, action.default, row)
            if action.default not in (None, False, argparse.SUPPRESS) and not action.required:
                assert str(action.default) in row, (command, name, row)


def test_the_page_is_what_the_parser_generates(parser):
    assert generated_part(PAGE.read_text()) == render(parser), (
        "docs/guide/cli.md differs from the parser: run `python -m tests.docs.cli_reference`"
    )


def test_a_help_line_that_states_a_default_states_the_parsers():
    stated = 0
    for command, _, child in walk(build_parser()):
        for action in options(child):
            said = re.search(r"\(default: ([^),;]*)", action.help or "")
            if said is None or action.default is None or action.default is False:
                continue
            stated += 1
            assert said[1].strip() == str(action.default), (command, action.option_strings)
    assert stated >= 8
