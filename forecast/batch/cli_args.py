"""What the commands' parsers share: one way to make them, one-line usage errors, shared options.

A command is its texts (description, epilog), ``arguments(parser)`` adding its options to the
parser it is given, and ``run(args) -> int``, its body. :func:`add_command` makes its parser
under ``forecast`` (whose table, :data:`forecast.cli.COMMANDS`, names each command once) or
any other parser; :func:`module_main` is ``python -m forecast.batch`` and ``python -m
forecast.serve``, the same parser alone. Both parse with :class:`OneLineParser` (a usage
error is one line). The options several commands share are declared once, each command
passing its own help line: the model and the MLflow store (:func:`add_model_argument`,
:func:`add_tracking_arguments`; ``forecast batch``, ``score``, ``update``, ``promote`` and
``serve``), ``--timezone`` and ``--time-column``. This module imports nothing but the
standard library's :mod:`argparse`: ``forecast --help`` and usage errors never wait for
pandas, torch or MLflow.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

__all__ = [
    "TRACKING_URI_HELP",
    "OneLineParser",
    "add_command",
    "add_model_argument",
    "add_time_column_argument",
    "add_timezone_argument",
    "add_tracking_arguments",
    "command_parser",
    "module_main",
    "positive_int",
]

TRACKING_URI_HELP = "MLflow store (default: $MLFLOW_TRACKING_URI)"


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line on stderr, exit code 2.

    ``prog: error: message; run 'prog --help' for usage`` replaces argparse's usage block
    plus error; ``--help`` is unchanged. Sub-commands added with ``add_subparsers`` inherit
    the class, so ``forecast fit`` errors read ``forecast fit: error: ...``.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line on stderr and exit with status 2.

        Parameters
        ----------
        message : str
            argparse's description of the error.
        """
        text = " ".join(str(message).split())  # one line, whatever argparse wrapped
        self.exit(2, f"{self.prog}: error: {text}; run '{self.prog} --help' for usage\n")


def add_command(
    subparsers: argparse._SubParsersAction[Any],
    name: str,
    description: str,
    epilog: str,
    arguments: Callable[[argparse.ArgumentParser], object],
    run: Callable[[argparse.Namespace], int] | None = None,
    *,
    help: str | None = None,
) -> argparse.ArgumentParser:
    """Add the sub-command ``NAME``: its texts, its arguments and the body it runs.

    The one way a command's parser is made, under ``forecast`` (its table,
    :data:`forecast.cli.COMMANDS`, names each command once) or under any other parser.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers()``.
    name : str
        The command's name.
    description : str
        The text under its usage line.
    epilog : str
        The text after its options, shown as written (line breaks kept); ``{prog}`` in it
        reads the command's name on the command line (``forecast NAME``), ``{{`` and ``}}``
        a brace.
    arguments : callable
        ``arguments(parser)`` adds the command's options to the parser it is given.
    run : callable, optional
        ``run(args) -> int``, the command's body: the parsed arguments' ``func`` (none for a
        command whose own sub-commands set it).
    help : str, optional
        Its line in the parent's ``--help`` (none: the parent lists it by name only).

    Returns
    -------
    ArgumentParser
        The command's parser.
    """
    listed: dict[str, Any] = {} if help is None else {"help": help}
    parser = subparsers.add_parser(
        name,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **listed,
    )
    return _fill(parser, epilog.format(prog=parser.prog), arguments, run)


def module_main(
    module: str,
    description: str,
    epilog: str,
    arguments: Callable[[argparse.ArgumentParser], object],
    run: Callable[[argparse.Namespace], int],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
) -> int:
    """Run ``python -m MODULE``: parse ``argv`` as its ``forecast`` command does, run the body.

    Parameters
    ----------
    module : str
        The module run, such as ``"forecast.batch"``.
    description, epilog, arguments, run
        As for :func:`add_command`; ``{prog}`` in ``epilog`` reads ``python -m MODULE``.
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).
    prog : str, optional
        The name in usage and error lines (default: ``python -m MODULE``).

    Returns
    -------
    int
        The exit code ``run`` returned; a usage error exits with 2 (one line on stderr).
    """
    parser = command_parser(prog or f"python -m {module}", description)
    args = _fill(parser, epilog.format(prog=f"python -m {module}"), arguments, run).parse_args(argv)
    return int(args.func(args))


def command_parser(prog: str, description: str, epilog: str | None = None) -> OneLineParser:
    """Return a top-level parser: one-line usage errors, texts shown as written.

    Parameters
    ----------
    prog : str
        The name in usage and error lines (``forecast``, ``python -m forecast.batch``).
    description : str
        The text under the usage line.
    epilog : str, optional
        The text after the options, line breaks kept.

    Returns
    -------
    OneLineParser
    """
    return OneLineParser(
        prog=prog,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _fill(
    parser: argparse.ArgumentParser,
    epilog: str,
    arguments: Callable[[argparse.ArgumentParser], object],
    run: Callable[[argparse.Namespace], int] | None,
) -> argparse.ArgumentParser:
    """Give ``parser`` its epilog, its arguments and (when given) ``run`` as ``func``."""
    parser.epilog = epilog
    arguments(parser)
    if run is not None:
        parser.set_defaults(func=run)
    return parser


def positive_int(text: str, expected: str = "a whole number >= 1") -> int:
    """Return ``text`` as an int >= 1, for an option's ``type=``.

    Parameters
    ----------
    text : str
        The option's value.
    expected : str
        What the error says was expected.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        ``expected <expected>, got '<text>'``: not a whole number, or below 1.
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def add_model_argument(
    parser: argparse.ArgumentParser,
    help: str,
    *,
    positional: bool = False,
    required: bool = True,
) -> None:
    """Add the model option: ``--model URI`` (``args.model``), or a positional ``MODEL_URI``.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    help : str
        The command's help line (what the model may be, what it is used for).
    positional : bool
        A positional argument shown as ``MODEL_URI`` (``forecast serve``) instead of
        ``--model``.
    required : bool
        ``--model`` must be given; when False it defaults to None. Ignored for a positional.
    """
    if positional:
        parser.add_argument("model", metavar="MODEL_URI", help=help)
    elif required:
        parser.add_argument("--model", required=True, help=help)
    else:
        parser.add_argument("--model", default=None, help=help)


def add_tracking_arguments(
    parser: argparse.ArgumentParser,
    help: str = TRACKING_URI_HELP,
    *,
    runs: str | None = None,
    experiment: str | None = None,
) -> None:
    """Add ``--tracking-uri``; for a command that logs runs, ``--experiment`` and ``--no-track``.

    Parameters
    ----------
    parser : ArgumentParser
        The command's parser.
    help : str
        Help line of ``--tracking-uri`` (default :data:`TRACKING_URI_HELP`).
    runs : str, optional
        What the command's runs are (``"batch"``, ``"update"``): with it ``--experiment``
        (help ``experiment of <runs> runs``, default ``experiment``) and ``--no-track`` are
        added too.
    experiment : str, optional
        Default experiment of the runs (with ``runs``).
    """
    parser.add_argument("--tracking-uri", default=None, help=help)
    if runs is None:
        return
    if experiment is None:
        raise ValueError(f"add_tracking_arguments: runs={runs!r} needs the default experiment")
    parser.add_argument("--experiment", default=experiment, help=f"experiment of {runs} runs")
    parser.add_argument("--no-track", action="store_true", help="do not log an MLflow run")


def add_timezone_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """Add ``--timezone ZONE`` (``args.timezone``, default None) with the help line ``help``."""
    parser.add_argument("--timezone", default=None, metavar="ZONE", help=help)


def add_time_column_argument(
    parser: argparse.ArgumentParser, help: str = "time column (default: detected)"
) -> None:
    """Add ``--time-column`` (``args.time_column``; default None: the file's reader detects it)."""
    parser.add_argument("--time-column", default=None, help=help)
