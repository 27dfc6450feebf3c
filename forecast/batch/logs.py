"""Log lines of the daily-loop commands: a timestamp with its UTC offset, the level, the logger.

::

    2026-11-25T12:05:01+0100 INFO forecast.batch: wrote forecasts/2026-11-25.parquet ...
    2026-11-25T12:05:01+0100 ERROR forecast.batch: input latest.csv: column 'load' ...
    2026-12-02T09:00:03+0100 INFO forecast.score: 7 forecast(s): 6 scored, 1 partial, ...

Each command logs under its own name, ``forecast.<command>`` (:func:`logger_name`): ``batch``,
``score``, ``update``, ``promote``.

The handler is attached for one command and removed after it, so calling the command
in-process (tests, notebooks) leaves the logging configuration as it was.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DATE_FORMAT", "LOG_FORMAT", "LOGGER", "batch_logging", "logger_name"]

LOGGER = "forecast.batch"  # logger_name("batch")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"  # ISO 8601 with the offset: the journal and cron mail agree


def logger_name(command: str) -> str:
    """Return the logger of command ``command``: ``forecast.<command>``.

    Parameters
    ----------
    command : str
        ``"batch"``, ``"score"``, ``"update"`` or ``"promote"``.

    Returns
    -------
    str
        The logger's name, the prefix of the command's log lines.
    """
    return f"forecast.{command}"


@contextmanager
def batch_logging(command: str = "batch", level: int = logging.INFO) -> Iterator[logging.Logger]:
    """Send the logger of ``command`` (``forecast.<command>``) to stderr as timestamped lines.

    Parameters
    ----------
    command : str
        The command whose logger is written (:func:`logger_name`).
    level : int
        Lowest level written.

    Yields
    ------
    logging.Logger
        The command's logger.
    """
    logger = logging.getLogger(logger_name(command))
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
