"""What the commands' parsers share: one-line usage errors, the model and MLflow-store options.

Every ``forecast`` command, and ``python -m forecast.batch`` and ``python -m forecast.serve``,
parses with :class:`OneLineParser` (a usage error is one line). ``forecast batch``, ``score``,
``update``, ``promote`` and ``serve`` name a model (a folder or an MLflow URI) and the MLflow
store; :func:`add_model_argument` and :func:`add_tracking_arguments` declare those options
once, each command passing its own help line. :func:`add_command` adds a sub-command with
its help line, description and hand-wrapped epilog, and :func:`module_parser` makes the parser
of ``python -m <module>`` with the same texts. This module imports nothing but
:mod:`argparse`: ``forecast --help`` and usage errors never wait for pandas, torch or MLflow.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = [
    "TRACKING_URI_HELP",
    "OneLineParser",
    "add_command",
    "add_model_argument",
    "add_tracking_arguments",
    "module_parser",
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
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help: str,
    description: str,
    epilog: str,
) -> argparse.ArgumentParser:
    """Add the sub-command ``forecast NAME``: its help line, description and epilog.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers()``.
    name : str
        The command's name.
    help : str
        Its line in ``forecast --help``.
    description : str
        The text under its usage line.
    epilog : str
        The text after its options, shown as written (line breaks kept); ``{prog}`` in it
        reads ``forecast NAME``.

    Returns
    -------
    ArgumentParser
        The command's parser.
    """
    return subparsers.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog.format(prog=f"forecast {name}"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def module_parser(
    module: str, description: str, epilog: str, prog: str | None = None
) -> OneLineParser:
    """Return the parser of ``python -m MODULE``, with the texts of its ``forecast`` command.

    Parameters
    ----------
    module : str
        The module run, such as ``"forecast.batch"``.
    description : str
        The text under the usage line.
    epilog : str
        The text after the options, shown as written; ``{prog}`` in it reads
        ``python -m MODULE``.
    prog : str, optional
        The name in usage and error lines (default: ``python -m MODULE``).

    Returns
    -------
    OneLineParser
    """
    return OneLineParser(
        prog=prog or f"python -m {module}",
        description=description,
        epilog=epilog.format(prog=f"python -m {module}"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


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
