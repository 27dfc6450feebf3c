"""The ``serve`` command: ``forecast serve MODEL_URI`` and ``python -m forecast.serve``.

Its texts (:data:`DESCRIPTION`, :data:`EPILOG`), its options (:func:`arguments`) and its body
(:func:`run`); :mod:`forecast.batch.cli_args` makes the parser. This module is imported by
``forecast serve --help``, so it imports neither Starlette, uvicorn nor MLflow: the body
imports :mod:`forecast.serve.server` when it runs.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from forecast.batch.cli_args import add_model_argument, add_tracking_arguments, module_main

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

DESCRIPTION = (
    "Serve forecasts of one model over HTTP: POST /forecast (history rows in, forecast rows\n"
    "with ISO-8601 timestamps in the model's zone out), GET /health."
)

EPILOG = """\
MODEL_URI is models:/NAME@ALIAS, models:/NAME/VERSION, runs:/RUN_ID/model, an MLflow model
folder (with MLmodel) or a folder written by 'forecast fit'. It is loaded through the checked
loaders (a tampered artifact is refused before anything in it runs). docs/serving.md shows the
request and response.

examples:
  {prog} models:/power-load-de@champion --tracking-uri sqlite:///mlflow.db --port 8080
  {prog} models/snaive --port 0
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``forecast serve`` to the parser it is given."""
    add_model_argument(parser, "MLflow model URI or model folder", positional=True)
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default: {DEFAULT_HOST}, this machine only; 0.0.0.0 "
        "listens on every interface, with no authentication)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port (default: {DEFAULT_PORT}; 0: a free port, printed when listening)",
    )
    add_tracking_arguments(
        parser, "MLflow store resolving models:/ and runs:/ (default: $MLFLOW_TRACKING_URI)"
    )
    parser.add_argument("--device", default=None, help="cpu or cuda (default: as saved)")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="request lines are logged at info (default: info)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``forecast serve``: load the model, then answer requests until stopped.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``serve`` options.

    Returns
    -------
    int
        0 after a clean stop, 1 when the model cannot be loaded or the port not bound
        (one line on stderr).
    """
    logging.basicConfig(level=args.log_level.upper(), format=LOG_FORMAT, stream=sys.stderr)
    # start-up: Starlette, uvicorn and (for a store URI) MLflow take seconds; --help does not
    from forecast.serve.server import ServeError, serve

    try:
        serve(args.model, args.host, args.port, args.tracking_uri, args.device)
    except ServeError as err:
        print(f"forecast serve: error: {err}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m forecast.serve`` (the options of ``forecast serve``).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code.
    """
    return module_main(
        "forecast.serve", DESCRIPTION, EPILOG, arguments, run, argv, prog="forecast serve"
    )
