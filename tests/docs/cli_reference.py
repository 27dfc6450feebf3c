"""The command reference of docs/guide/cli.md, generated from the ``forecast`` command's parser.

``python -m tests.docs.cli_reference`` rewrites the part of the page between the two marker
lines below from :func:`forecast.cli.build_parser`: every command (those built only when named
included), every option with the default the parser has, the help line and the examples.
``tests/docs/test_cli_page.py`` fails when the page and the parser differ.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "cli.md"
BEGIN = (
    "<!-- generated from the parser by `python -m tests.docs.cli_reference`: edit the parser -->"
)
END = "<!-- end of the generated reference -->"


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def walk(
    parser: argparse.ArgumentParser, prog: str = "forecast"
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """``(command, summary, parser)`` of ``parser`` and every sub-command under it, in order.

    Commands that the ``forecast`` parser only declares (built when named on the command line,
    so that ``--help`` imports nothing heavy) are built here.
    """
    yield prog, parser.description or "", parser
    sub = _subcommands(parser)
    if sub is None:
        return
    for build in list(getattr(sub, "_builders", {}).values()):
        build(sub)
    summaries = {action.dest: action.help or "" for action in sub._choices_actions}
    for name, child in sub.choices.items():
        for command, summary, grandchild in walk(child, f"{prog} {name}"):
            yield command, summary if grandchild is not child else summaries[name], grandchild


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's arguments and options, without ``--help`` and the sub-command choice."""
    return [
        action
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
    ]


def default_text(action: argparse.Action) -> str:
    """The default as the parser has it: ``required``, ``off`` for a flag, ``-`` for none."""
    if action.required:
        return "required"
    if isinstance(action, argparse._StoreTrueAction):
        return "off"
    if action.default is None or action.default is argparse.SUPPRESS:
        return "-"
    return f"`{action.default}`" if isinstance(action.default, str) else f"`{action.default!r}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render(parser: argparse.ArgumentParser) -> str:
    """The generated part of the page, between the markers."""
    commands = list(walk(parser))
    lines = ["| command | does |", "|---|---|"]
    for command, summary, _ in commands[1:]:
        anchor = command.replace(" ", "-")
        lines.append(f"| [`{command}`](#{anchor}) | {_cell(summary)} |")
    for command, _, child in commands:
        formatter = child._get_formatter()
        lines += ["", f"### {command}", ""]
        if child.description:
            lines += [_cell(child.description), ""]
        lines += ["| option | default | help |", "|---|---|---|"]
        for action in options(child):
            invocation = formatter._format_action_invocation(action)
            helped = formatter._expand_help(action) if action.help else ""
            lines.append(f"| `{invocation}` | {default_text(action)} | {_cell(helped)} |")
        if child.epilog:
            lines += ["", "```text", child.epilog.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def generated_part(text: str) -> str:
    """The part of the page text between the markers."""
    start, end = text.index(BEGIN) + len(BEGIN) + 1, text.index(END)
    return text[start:end]


def main() -> int:
    """Rewrite the generated part of the page; print whether it changed."""
    from forecast.cli import build_parser

    text = PAGE.read_text()
    new = render(build_parser())
    if generated_part(text) == new:
        print(f"{PAGE}: up to date")
        return 0
    start, end = text.index(BEGIN) + len(BEGIN) + 1, text.index(END)
    PAGE.write_text(text[:start] + new + text[end:])
    print(f"{PAGE}: rewritten from the parser")
    return 0


if __name__ == "__main__":
    sys.exit(main())
