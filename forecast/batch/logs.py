"""Log lines of the batch command: a timestamp with its UTC offset, the level, the logger.

::

    2026-11-25T12:05:01+0100 INFO forecast.batch: wrote forecasts/2026-11-25.parquet ...
    2026-11-25T12:05:01+0100 ERROR forecast.batch: input latest.csv: column 'load' ...

The handler is attached for one command and removed after it, so calling the command
in-process (tests, notebooks) leaves the logging configuration as it was.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DATE_FORMAT", "LOG_FORMAT", "LOGGER", "batch_logging"]

LOGGER = "forecast.batch"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"  # ISO 8601 with the offset: the journal and cron mail agree


@contextmanager
def batch_logging(level: int = logging.INFO) -> Iterator[logging.Logger]:
    """Send the ``forecast.batch`` logger's records to stderr as timestamped lines.

    Parameters
    ----------
    level : int
        Lowest level written.

    Yields
    ------
    logging.Logger
        The ``forecast.batch`` logger.
    """
    logger = logging.getLogger(LOGGER)
    handler = logging.StreamHandler(sys.stderr)  # the stderr of now (pytest swaps it)
    handler.setFormatter(logging.Formatter(LOG_FORMAT, DATE_FORMAT))
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False  # one line per record, whatever the root logger does
    try:
        yield logger
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
