"""The ``promote`` command: ``forecast promote NAME --champion-scores F --challenger-scores F``."""

from __future__ import annotations

import argparse
import logging

from forecast.batch.cli_args import add_tracking_arguments
from forecast.batch.logs import batch_logging, logger_name
from forecast.frames.messages import first_line

__all__ = ["DESCRIPTION", "EPILOG", "arguments", "run"]

_log = logging.getLogger(logger_name("promote"))

DESCRIPTION = "Apply the promotion rule to the live scores of champion and challenger."

EPILOG = """\
The rule asks "would serving the challenger have beaten what we served?". Over the issue
dates both records have scored (status 'scored' in both), at least --min-days of them, the
challenger's mean MAPE must be below the champion's by more than --margin, a fraction of the
champion's (default 0.0: any less error; 0.02 asks for 2 % less). The
challenger's record is its exact version's (the version its alias points at now): days of an
earlier challenger, or of the same one before an update, never count. The champion's record is
the served one: every forecast run under the champion alias, by whichever version was
champion that day (weekly updates make a new version every week), and those of a version
named by number. Which version and alias made a forecast is what its batch run recorded for
its file. A challenger version that is or was champion is not promoted again. Then the
champion alias moves to the challenger's version. Either way one INFO line says why, with the
versions involved, and the registered model's tag promotion_decision keeps it.

exit codes:
  0   decided (promoted or not: the log line says which)
  1   failed (unknown model or alias, unreadable scores), or refused: a scored forecast's
      error is negative or not finite (the reason is kept in the tag promotion_reason);
      the alias did not move
  2   usage error

example:
  {prog} power-load-de --champion-scores scores.csv --challenger-scores shadow-scores.csv \\
      --min-days 28 --margin 0.02
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``forecast promote`` to the parser it is given."""
    add = parser.add_argument
    add("name", help="registered model name")
    add("--champion-scores", required=True, help="forecast score --output of the champion")
    add("--challenger-scores", required=True, help="forecast score --output of the challenger")
    add("--champion", default="champion", help="alias served (default: champion)")
    add("--challenger", default="challenger", help="alias in shadow (default: challenger)")
    add("--min-days", type=int, default=28, help="scored days in common at least (default: 28)")
    add(
        "--margin",
        type=float,
        default=0.0,
        help="fraction of less error asked of the challenger, e.g. 0.02 for 2 %% (default: 0.0)",
    )
    add_tracking_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``forecast promote``: apply the rule, move the alias or not; return the exit code."""
    from forecast.batch.files import BatchError  # start-up: after parsing
    from forecast.loop.promote import promote  # start-up: pandas, MLflow; after parsing

    with batch_logging("promote"):
        try:
            promote(
                args.name,
                args.champion_scores,
                args.challenger_scores,
                champion=args.champion,
                challenger=args.challenger,
                min_days=args.min_days,
                margin=args.margin,
                tracking_uri=args.tracking_uri,
            )
        except (BatchError, ValueError) as err:
            _log.error("%s", first_line(err))
            return 1
    return 0
