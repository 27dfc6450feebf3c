"""The ``score`` command: ``forecast score --forecasts PATTERN --actuals FILE ...``.

The parser imports nothing heavy; the command imports pandas and the scoring when it runs.
"""

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
from forecast.loop.constants import PROTOCOLS

__all__ = ["DESCRIPTION", "EPILOG", "EXIT_ALERT", "arguments", "run"]

EXIT_OK, EXIT_FAILED = 0, 1
EXIT_ALERT = 3  # scores written, and the rolling live error left the backtest's range
_log = logging.getLogger(logger_name("score"))

DESCRIPTION = (
    "Join the stored forecasts of 'forecast batch' with the actuals known so far and score "
    "each forecast (MAPE, MAE, RMSE, bias, interval coverage where quantiles exist, special "
    "days marked); values without an actual yet are pending, not zero."
)

EPILOG = """\
The scores of a forecast are those 'backtest' gives the same forecast: one scoring code.
With --model models:/name@alias each forecast's scores are logged to the MLflow run of the
version that made it (as its 'forecast batch' run recorded; not the version the alias points
at now) as live_mape, live_mae, ... (step: the issue date), once per issue date, and a link
to the runs sorted by live MAPE is printed. With --backtest (the backtest's
scores per forecast) the alert rule applies: the mean MAPE of the last --window scored
forecasts above every rolling mean of --window forecasts of the backtest logs an ALERT line
and exits with 3.

exit codes:
  0   scores written          1   failed, nothing written     2   usage error
  3   scores written; ALERT: the rolling live error left the backtest's range

examples:
  {prog} --forecasts 'forecasts/{{date}}.csv' --actuals latest.csv --timezone Europe/Berlin \\
      --protocol day-ahead --special-days holidays-DE --output scores.csv \\
      --backtest backtest-scores.csv --model models:/power-load-de@champion
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``forecast score`` to the parser it is given."""
    add = parser.add_argument
    add("--forecasts", required=True, help="the --output pattern of forecast batch ({date})")
    add("--actuals", required=True, help="observed values, CSV or Parquet (no gaps)")
    add("--output", default=None, help="scores per forecast, .csv or .parquet")
    add_timezone_argument(parser, "local zone, e.g. Europe/Berlin")
    add_time_column_argument(parser, "time column of --actuals (default: detected)")
    add(
        "--protocol",
        choices=[p for p in PROTOCOLS if p],
        default=None,
        help="day-ahead: score the local day after each issue date only (default: every row)",
    )
    add(
        "--special-days",
        default=None,
        metavar="SPEC",
        help="mark special days: holidays-<CC>, CC a country code of the holidays package "
        "(holidays-DE, holidays-FR, holidays-AU, ...): its public holidays, bridge days and "
        "Christmas week (default: none marked)",
    )
    add("--backtest", default=None, metavar="FILE", help="backtest scores per forecast")
    add("--window", type=int, default=7, help="forecasts in the alert's rolling mean (7)")
    add_model_argument(parser, "models:/name@alias or models:/name/N to log to", required=False)
    add_tracking_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``forecast score`` with timestamped log lines; return the exit code."""
    import pandas as pd  # start-up: the command's body, imported once parsing is done

    from forecast.batch.files import BatchError  # as above
    from forecast.frames.writes import WriteRefused  # as above
    from forecast.loop.score import score_forecasts  # as above
    from forecast.persistence.manifest import ModelFormatError  # as above

    with batch_logging("score"):
        if args.window < 1:
            _log.error("--window must be at least 1, got %d", args.window)
            return 2
        try:
            result = score_forecasts(
                args.forecasts,
                args.actuals,
                output=args.output,
                time_column=args.time_column,
                timezone=args.timezone,
                protocol=args.protocol,
                special_days=args.special_days,
                backtest=args.backtest,
                window=args.window,
                model=args.model,
                tracking_uri=args.tracking_uri,
            )
        except (BatchError, WriteRefused, ModelFormatError, ValueError) as err:
            _log.error("%s", first_line(err))
            return EXIT_FAILED
        table = result.table
        counts = table["status"].value_counts()
        summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("scored", "partial", "pending"))
        where = f"; wrote {result.path}" if result.path else ""
        logged = ""
        if result.live is not None:
            per = ", ".join(f"{n} to version {v}" for v, n in result.live.logged.items())
            logged = f"; logged {per or 'nothing'} of {args.model}"
        _log.info("%d forecast(s): %s%s%s", len(table), summary, where, logged)
        columns = ("issue_date", "id", "model_version", "status", "n", "mape", "mae", "bias")
        shown = [c for c in columns if c in table]
        with pd.option_context("display.width", 120, "display.max_rows", 60):
            print(table[shown].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        if result.live is not None and result.live.runs_url:
            # optional: a link only where scores were logged (mlflow is imported by then)
            from forecast.tracking._store import resolve_tracking_uri  # optional: as above
            from forecast.tracking.views import runs_link_line  # optional: as above

            uri = resolve_tracking_uri(args.tracking_uri)
            print(runs_link_line("live MAPE", result.live.runs_url, uri))
        alert = result.alert
        if alert is not None:
            if alert.alert:
                _log.warning("ALERT %s", alert.message)
                return EXIT_ALERT
            _log.info("%s", alert.message)
    return EXIT_OK
