"""The ``batch`` command: ``forecast batch ...`` and ``python -m forecast.batch ...``.

Its texts (:data:`DESCRIPTION`, :data:`EPILOG`), its options (:func:`arguments`) and its body
(:func:`run`); :mod:`forecast.batch.cli_args` makes the parser. Parsing imports nothing
heavy; the body imports pandas, torch and MLflow when it runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from forecast.batch.cli_args import (
    add_command,
    add_model_argument,
    add_time_column_argument,
    add_timezone_argument,
    add_tracking_arguments,
    module_main,
    positive_int,
)
from forecast.batch.constants import BATCH_EXPERIMENT, DAY_AHEAD, EXIT_LOCKED
from forecast.batch.logs import LOGGER, batch_logging
from forecast.frames.messages import first_line
from forecast.frames.options import NAN_POLICIES

if TYPE_CHECKING:
    import pandas as pd

_API_HINT = "pass nan_policy='interpolate'"  # the estimators' advice, in Python terms

EXIT_OK = 0
EXIT_FAILED = 1  # bad input, missing model, failed forecast: nothing written
EXIT_USAGE = 2  # bad options (argparse)
EXIT_STALE = 65  # EX_DATAERR: the input ends more than --max-staleness before the issue time
EXIT_CODES = {
    EXIT_OK: "forecast written (and logged)",
    EXIT_FAILED: "failed: bad input, missing model or failed forecast; nothing written",
    EXIT_USAGE: "usage error: bad or missing options",
    EXIT_STALE: "stale input: older than --max-staleness; nothing written",
    EXIT_LOCKED: "another run of the same job holds the lock; this run did nothing",
}

_log = logging.getLogger(LOGGER)
_Result = TypeVar("_Result")


DESCRIPTION = "Load a model, forecast from the latest data, write the forecast atomically."

EPILOG = """\
{{date}} in --output is the issue date: the local date (YYYY-MM-DD) of the last input
timestamp. Local means --timezone, else the model's timezone parameter, else the zone the
model was fitted in; naive input stamps are local times there. A model fitted on naive
stamps keeps the input's own offset, and input in several offsets then needs --timezone.

Log lines on stderr: 2026-11-25T12:05:01+0100 INFO forecast.batch: ...; stdout: one line
per forecast written (path, rows, sha256).

exit codes:
  0   forecast written          1   failed, nothing written     2   usage error
  65  input older than --max-staleness (nothing written)
  75  another run of the same job holds the lock (this run did nothing)

examples:
  {prog} --model models:/power-load-de@champion --input latest.csv \\
      --output 'forecasts/{{date}}.parquet' --timezone Europe/Berlin --horizon day-ahead \\
      --max-staleness 2D
  {prog} --model models/snaive --input latest.parquet --output forecast.csv \\
      --horizon 24 --nan-policy interpolate --no-track
"""


def _horizon(text: str) -> int | str:
    return text if text == DAY_AHEAD else positive_int(text, f"a positive int or {DAY_AHEAD}")


def _duration(text: str) -> pd.Timedelta:
    from forecast.batch.files import parse_duration  # start-up: pandas; only when given

    try:
        return parse_duration(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _timestamp(text: str) -> pd.Timestamp:
    import pandas as pd  # start-up: only when given

    try:
        return pd.Timestamp(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(
            f"expected an ISO timestamp such as 2026-11-25T12:00+01:00, got {text!r}"
        ) from None


def arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``forecast batch`` to the parser it is given."""
    add_model_argument(
        parser, "models:/name@alias, models:/name/version, runs:/id/model or a folder"
    )
    parser.add_argument(
        "--input",
        required=True,
        help="latest data, CSV or Parquet; or a folder or glob of them (one forecast each)",
    )
    parser.add_argument(
        "--output",
        required=True,
        help="forecast file (.csv or .parquet); {date} = local issue date YYYY-MM-DD; for "
        "a folder/glob --input: a folder, or a pattern with {stem} (input name)",
    )
    parser.add_argument(
        "--horizon",
        type=_horizon,
        default=None,
        metavar="{N,day-ahead}",
        help="steps to forecast (default: the model's horizon, else 24); day-ahead: up to "
        "the end of the next whole local day (23/24/25 hours)",
    )
    add_timezone_argument(
        parser,
        "read the input and write the forecast in this zone, e.g. Europe/Berlin "
        "(default: the model's timezone parameter, else the zone it was fitted in)",
    )
    parser.add_argument(
        "--nan-policy",
        choices=NAN_POLICIES,
        default=None,
        help="missing input values: raise, or interpolate them (default: the model's own "
        "nan_policy; the saved model is not changed)",
    )
    parser.add_argument(
        "--quantiles",
        default=None,
        metavar="LEVELS",
        help="also write quantile columns <column>_q<level>: 'all' or levels such as "
        "0.1,0.5,0.9 (models with quantile heads or conformal intervals)",
    )
    add_time_column_argument(parser, "time column of the input")
    add_tracking_arguments(
        parser,
        "MLflow store (default: $MLFLOW_TRACKING_URI or sqlite:///mlflow.db)",
        runs="batch",
        experiment=BATCH_EXPERIMENT,
    )
    parser.add_argument("--explain", action="store_true", help="log its attributions with the run")
    parser.add_argument("--device", default=None, help="device for a local torch model")
    parser.add_argument(
        "--engine",
        choices=("sequential", "ray"),
        default="sequential",
        help="for a folder/glob --input: this process, or one Ray worker per CPU "
        "(needs forecast-toolkit[ray])",
    )
    parser.add_argument(
        "--address", default=None, help="Ray cluster address (default: $RAY_ADDRESS, else local)"
    )
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray")
    parser.add_argument(
        "--lock",
        default=None,
        metavar="FILE",
        help="lock file of this job: a second run while one holds it exits with 75 (default: "
        "forecast-batch-<uid>-<hash of --output>.lock in the temporary folder)",
    )
    parser.add_argument(
        "--max-staleness",
        type=_duration,
        default=None,
        metavar="AGE",
        help="refuse input whose last observed row is more than AGE (2D, 36h, 90min) before "
        "the issue time, exit 65 (default: forecast, with a warning past 7 days)",
    )
    parser.add_argument(
        "--future",
        default=None,
        metavar="FILE",
        help="vintages of the future covariates (CSV/Parquet: issue_time, valid_time, the "
        "covariates); each step reads the latest issued by the last observed row",
    )
    parser.add_argument(
        "--issue-time",
        type=_timestamp,
        default=None,
        metavar="TIME",
        help="the issue time the staleness is measured at (default: now; naive means UTC)",
    )


@contextmanager
def _quiet(args: argparse.Namespace | None = None) -> Iterator[None]:
    """Keep stderr to our own lines: MLflow's logs and download bars, warnings (restored after).

    An untracked run (``args.no_track``) of a local folder imports no MLflow.
    """
    from forecast.training.progress import quiet_libraries  # start-up: after parsing

    local = args is not None and args.no_track and os.path.isdir(args.model)
    if not local:  # MLflow sets its loggers when imported: imported first, quietened after
        import mlflow as _mlflow  # noqa: F401  # optional: seconds to import
    with quiet_libraries(logging.ERROR), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def run(args: argparse.Namespace) -> int:
    """Run ``forecast batch`` under the job lock, with timestamped log lines.

    Parameters
    ----------
    args : argparse.Namespace
        The options :func:`arguments` added, parsed.

    Returns
    -------
    int
        The exit code (:data:`EXIT_CODES`).
    """
    from forecast.batch.files import BatchError  # start-up: the body, after parsing
    from forecast.batch.joblock import JobLocked, default_lock_path, job_lock  # as above
    from forecast.batch.partitions import is_partitioned  # as above
    from forecast.frames.writes import WriteRefused, refuse_inputs  # as above

    with batch_logging("batch"):
        partitioned = is_partitioned(args.input)
        one_file = (args.max_staleness, args.issue_time, args.future, args.explain or None)
        if partitioned and any(option is not None for option in one_file):
            _log.error(
                "--explain, --max-staleness, --issue-time and --future apply to one --input file, "
                "not a folder"
            )
            return EXIT_USAGE
        if not partitioned and (args.engine != "sequential" or args.address or args.num_cpus):
            _log.error(
                "--engine, --address and --num-cpus need a folder or glob --input (many "
                "partitions), got the file %s",
                args.input,
            )
            return EXIT_FAILED
        try:
            if args.lock:  # the lock is never one of the job's files
                inputs = {"--input": args.input, "--future": args.future, "--output": args.output}
                refuse_inputs(args.lock, {**inputs, "--model": args.model}, "--lock")
            with job_lock(args.lock or default_lock_path(args.output)):
                return _cmd_partitions(args) if partitioned else _cmd_one(args)
        except JobLocked as err:
            _log.error("%s", err)
            return EXIT_LOCKED
        except (BatchError, WriteRefused) as err:  # a lock not ours, or its folder not made
            _log.error("%s", err)
            return EXIT_FAILED


def _cmd_one(args: argparse.Namespace) -> int:
    from forecast.batch.files import BatchError, StaleInputError  # as run
    from forecast.batch.run import run_batch  # as run
    from forecast.persistence.manifest import ModelFormatError  # as run

    try:
        result = _call(
            run_batch,
            args,
            quantiles=args.quantiles,
            max_staleness=args.max_staleness,
            issue_time=args.issue_time,
            future=args.future,
            explain=args.explain,
        )
    except (BatchError, ModelFormatError) as err:  # their messages name the file at fault
        message = str(err).replace(_API_HINT, "pass --nan-policy interpolate")
        return _failed(args, message, EXIT_STALE if isinstance(err, StaleInputError) else 1)
    except Exception as err:  # unexpected: still one line, never a traceback in cron mail
        return _failed(args, f"{type(err).__name__}: {first_line(err)}", EXIT_FAILED)
    version = f", model version {result.model_version}" if result.model_version else ""
    logged = f", MLflow run {result.run_id}" if result.run_id else ""
    _log.info("wrote %s (%d rows%s%s)", result.path, result.rows, version, logged)
    print(f"{result.path}\t{result.rows} rows\tsha256 {result.sha256}")
    return EXIT_OK


def _failed(args: argparse.Namespace, message: str, code: int) -> int:
    """Log the error line, record the failure as a FAILED MLflow run, return ``code``."""
    _log.error("%s", message)
    if not args.no_track:
        # optional: recording needs mlflow, seconds to import (only on this failure path)
        from forecast.batch.tracking import log_failed_run

        with _quiet():
            log_failed_run(
                os.fspath(args.model),
                os.fspath(args.input),
                os.fspath(args.output),
                message,
                args.tracking_uri,
                args.experiment,
            )
    return code


def _call(function: Callable[..., _Result], args: argparse.Namespace, **options: Any) -> _Result:
    """Call ``run_batch`` or ``run_partitions`` with the options both take, libraries quiet."""
    shared = dict(
        time_column=args.time_column,
        timezone=args.timezone,
        nan_policy=args.nan_policy,
        tracking_uri=args.tracking_uri,
        track=not args.no_track,
        experiment=args.experiment,
        device=args.device,
    )
    with _quiet(args):
        return function(args.model, args.input, args.output, args.horizon, **shared, **options)


def _cmd_partitions(args: argparse.Namespace) -> int:
    from forecast.batch.files import BatchError  # as run
    from forecast.batch.partitions import run_partitions  # as run
    from forecast.persistence.manifest import ModelFormatError  # as run

    try:
        result = _call(
            run_partitions, args, engine=args.engine, address=args.address, num_cpus=args.num_cpus
        )
    except (BatchError, ModelFormatError, ValueError, ImportError) as err:
        _log.error("%s", first_line(err))
        return EXIT_FAILED
    for written in result.written:
        print(f"{written.path}\t{written.rows} rows\tsha256 {written.sha256}")
    for _, reason in result.failed:
        _log.error("%s", reason.replace(_API_HINT, "pass --nan-policy interpolate"))
    if result.failed:
        names = ", ".join(path for path, _ in result.failed)
        total = len(result.failed) + len(result.written)
        _log.error("%d of %d partitions failed: %s", len(result.failed), total, names)
        return EXIT_FAILED
    _log.info("wrote %d forecasts", len(result.written))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m forecast.batch`` (the same options as ``forecast batch``)."""
    return module_main("forecast.batch", DESCRIPTION, EPILOG, arguments, run, argv)


def add_batch_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Add the ``batch`` command to the subparsers of a parser.

    .. deprecated:: 0.2.0
       Removed in 0.3.0. ``forecast`` adds its commands from one table
       (:data:`forecast.cli.COMMANDS`); under a parser of your own, call
       ``add_command(subparsers, "batch", DESCRIPTION, EPILOG, arguments, run, help=...)``
       (:func:`~forecast.batch.cli_args.add_command`) with this module's names.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers()``.

    Returns
    -------
    ArgumentParser
        The ``batch`` parser (its ``func`` default runs the command and returns the exit code).
    """
    warnings.warn(  # the versions of forecast._compat (a layer above: its test checks them)
        "forecast.batch.add_batch_parser is deprecated in forecast 0.2.0 and will be removed in "
        "0.3.0: call forecast.batch.cli_args.add_command(subparsers, 'batch', DESCRIPTION, "
        "EPILOG, arguments, run, help=...) with the names of forecast.batch.cli",
        DeprecationWarning,
        stacklevel=2,
    )
    help_of_0_1 = "scheduled forecast from the latest data with a stored model"  # goes in 0.3.0
    return add_command(subparsers, "batch", DESCRIPTION, EPILOG, arguments, run, help=help_of_0_1)
