"""The ``update`` command: ``forecast update --model FOLDER --input FILE --output FOLDER``."""

from __future__ import annotations

import argparse
import logging

from forecast.batch.cli_args import (
    add_model_argument,
    add_time_column_argument,
    add_timezone_argument,
    add_tracking_arguments,
)
from forecast.batch.logs import batch_logging, logger_name
from forecast.frames.messages import first_line
from forecast.loop.constants import UPDATE_EXPERIMENT

__all__ = ["DESCRIPTION", "EPILOG", "arguments", "run"]

_log = logging.getLogger(logger_name("update"))

DESCRIPTION = "Update a saved model with the latest data's new rows and save it."

EPILOG = """\
The model learns the input's rows after its updated_through_ (neural: more epochs from its
weights; naive, seasonal naive and the statsmodels baselines: their state extends; the
others: a refit on all the input's rows). The folder written keeps the lineage (meta.json).

exit codes:
  0   model updated and saved      2   usage error
  1   failed (no new rows, overlap or gap, bad input); nothing written

examples:
  {prog} --model models/week-1 --input data/latest.csv --output models/week-2 \\
      --timezone Europe/Berlin --epochs 1 --learning-rate 2e-5 --no-track
  {prog} --model models:/power-load-de@champion --input data/latest.parquet \\
      --output models/updated --register power-load-de --alias challenger
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``forecast update`` to the parser it is given."""
    add = parser.add_argument
    add_model_argument(parser, "saved model folder or models:/name@alias")
    add("--input", required=True, help="latest data, CSV or Parquet (one series)")
    add("--output", required=True, help="folder of the updated model (may be --model)")
    add_timezone_argument(parser, "read the input in this zone")
    add_time_column_argument(parser, "time column of the input (default: detected)")
    add("--epochs", type=int, default=None, help="neural: epochs of further training")
    add("--learning-rate", type=float, default=None, help="neural: rate of the update")
    add("--patience", type=int, default=None, help="neural: early-stopping patience")
    add("--on-gap", choices=("raise", "restart"), default="raise", help="rows after a gap")
    add_tracking_arguments(parser, runs="update", experiment=UPDATE_EXPERIMENT)
    add("--register", default=None, metavar="NAME", help="register the update as a version")
    add("--alias", default=None, help="alias pointed at the new version (with --register)")


def run(args: argparse.Namespace) -> int:
    """Run ``forecast update``: update the saved model and save it; return the exit code."""
    from forecast.batch.files import BatchError  # start-up: after parsing
    from forecast.loop.update import update_folder  # start-up: pandas, torch; after parsing

    with batch_logging("update"):
        try:
            model = update_folder(
                args.model,
                args.input,
                args.output,
                time_column=args.time_column,
                timezone=args.timezone,
                epochs=args.epochs,
                learning_rate=args.learning_rate,
                early_stopping_patience=args.patience,
                on_gap=args.on_gap,
                track=not args.no_track,
                tracking_uri=args.tracking_uri,
                experiment=args.experiment,
                register=args.register,
                alias=args.alias,
            )
        except (BatchError, ValueError) as err:
            _log.error("%s", first_line(err))
            return 1
        record = model.lineage_[-1]
        _log.info(
            "updated %s through %s (%d rows, rule %s, update %d); saved to %s",
            args.model, model.updated_through_, record["rows"], record["rule"],
            model.n_updates_, args.output,
        )  # fmt: skip
    return 0
