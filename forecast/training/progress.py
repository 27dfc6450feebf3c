"""Progress of long runs: which model is fitting, and its epochs.

Comparisons, backtests and the training loop report through Python :mod:`logging`, at INFO,
on loggers under ``forecast.``:

``forecast.evaluation.compare``
    one line per model when it starts and when it is done
    (``compare: model 3/9 gru: fitting on 35064 rows (fold 1/1)``);
``forecast.evaluation.backtest``
    one line per fold fitted (``backtest: GRUForecaster: fitting on 35064 rows (fold 1/4)``),
    or, inside a comparison, the ``compare:`` line above;
``forecast.training``
    one line per epoch (``gru: epoch 4/30 train_loss=0.0123 val_loss=0.015 (12.3 s)``, the
    time is that epoch's) and one when training ends.

Nothing is printed unless logging is configured (``forecast run`` does it, see
:func:`log_to_stderr`). Epochs are reported when the estimator's ``verbose`` is at least 1,
or when a :func:`progress_context` asks for it (``compare`` does unless ``progress=False``);
``progress_context(report=False)`` silences them even for a verbose estimator. When stderr
is a terminal, epochs show as a tqdm bar instead of log lines.

The context lives in a :class:`contextvars.ContextVar`: it is scoped to a ``with`` block of
one thread, so fits elsewhere (other threads, Ray workers) are unaffected.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from tqdm import tqdm
from tqdm.auto import tqdm as auto_tqdm

__all__ = [
    "EpochProgress",
    "epoch_progress",
    "fold",
    "log_to_stderr",
    "progress_context",
    "quiet_libraries",
]

ROOT_LOGGER = "forecast"
_training_log = logging.getLogger("forecast.training")
_backtest_log = logging.getLogger("forecast.evaluation.backtest")


@dataclass(frozen=True)
class _Context:
    report: bool | None = None  # None: the estimator's `verbose` decides
    who: str = ""  # prefix of fold lines, e.g. "compare: model 3/9 "
    name: str | None = None  # model name, e.g. "gru"
    label: str | None = None  # what epoch lines start with, e.g. "gru fold 2/4"


_TOP = _Context()
_CONTEXT: ContextVar[_Context | None] = ContextVar("forecast_progress", default=None)


def _current() -> _Context:
    return _CONTEXT.get() or _TOP


@contextmanager
def progress_context(
    *, report: bool | None = None, who: str | None = None, name: str | None = None
) -> Iterator[None]:
    """Set how fits inside the block report progress.

    Parameters
    ----------
    report : bool, optional
        True: report epochs whatever the estimator's ``verbose``; False: never; None: keep
        the enclosing setting (at top level: ``verbose >= 1`` decides).
    who : str, optional
        Prefix of the fold lines of backtests inside the block (e.g. ``"compare: model 3/9 "``).
    name : str, optional
        Model name used in fold and epoch lines (default: the estimator's class name).
    """
    current = _current()
    changes: dict[str, Any] = {
        k: v for k, v in (("report", report), ("who", who), ("name", name)) if v is not None
    }
    token = _CONTEXT.set(replace(current, **changes))
    try:
        yield
    finally:
        _CONTEXT.reset(token)


@contextmanager
def fold(default_name: str, k: int, n: int, n_rows: int) -> Iterator[None]:
    """Log that fold ``k`` of ``n`` starts fitting, and label the epochs inside the block.

    Parameters
    ----------
    default_name : str
        Model name when no enclosing context names it.
    k, n : int
        Fold number (from 1) and number of folds.
    n_rows : int
        Rows of the training window.
    """
    current = _current()
    name = current.name or default_name
    _backtest_log.info(
        "%s%s: fitting on %d rows (fold %d/%d)", current.who or "backtest: ", name, n_rows, k, n
    )
    label = name if n == 1 else f"{name} fold {k}/{n}"
    token = _CONTEXT.set(replace(current, label=label))
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def _wanted(verbose: int) -> bool:
    report = _current().report
    return bool(verbose and verbose >= 1) if report is None else report


class EpochProgress:
    """Reports the epochs of one training: a tqdm bar, log lines, or nothing.

    Parameters
    ----------
    total : int
        Maximum number of epochs.
    initial : int
        Epochs already done (a resumed training).
    verbose : int
        The estimator's ``verbose``.
    """

    def __init__(self, total: int, initial: int, verbose: int) -> None:
        context = _current()
        self.total = total
        self.label = context.label or context.name or "training"
        self.n_epochs = 0
        wanted = _wanted(verbose)
        self.bar = None
        self.log = wanted and not sys.stderr.isatty()
        if wanted and not self.log:
            self.bar = auto_tqdm(  # epochs are slow: draw every one (mininterval=0)
                total=total,
                initial=initial,
                desc=self.label,
                unit="epoch",
                leave=False,
                mininterval=0,
            )
        self._start = self._last = time.perf_counter()

    def epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        """Report epoch ``epoch`` (from 0) and its ``logs`` (the losses are shown)."""
        now = time.perf_counter()
        seconds, self._last = now - self._last, now
        self.n_epochs += 1
        losses = {k: v for k, v in logs.items() if k.endswith("loss")}
        if self.bar is not None:
            self.bar.set_postfix({k: f"{v:.4g}" for k, v in losses.items()}, refresh=False)
            self.bar.update(1)
        if self.log:
            text = " ".join(f"{k}={v:.4g}" for k, v in losses.items())
            _training_log.info(
                "%s: epoch %d/%d %s (%.1f s)", self.label, epoch + 1, self.total, text, seconds
            )

    def close(self) -> None:
        """Close the bar, or log how many epochs ran."""
        if self.bar is not None:
            self.bar.close()
        if self.log:
            _training_log.info(
                "%s: trained %d epoch(s) in %.1f s",
                self.label,
                self.n_epochs,
                time.perf_counter() - self._start,
            )


def epoch_progress(total: int, initial: int, verbose: int) -> EpochProgress:
    """Return the :class:`EpochProgress` of a training loop (see the module docstring)."""
    return EpochProgress(total, initial, verbose)


class _TqdmStderr(logging.Handler):
    """Write records to the current ``sys.stderr`` through ``tqdm.write`` (bars stay intact)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # noqa: BLE001 - logging must not break a run
            self.handleError(record)


@contextmanager
def log_to_stderr(level: int = logging.INFO) -> Iterator[logging.Handler]:
    """Print the ``forecast.*`` log records to stderr inside the block.

    The handler and the ``forecast`` logger's level are removed and restored on exit, so
    nothing leaks to later code.

    Parameters
    ----------
    level : int
        Lowest level printed.

    Yields
    ------
    logging.Handler
        The handler added to the ``forecast`` logger.
    """
    logger = logging.getLogger(ROOT_LOGGER)
    handler = _TqdmStderr(level)
    handler.setFormatter(logging.Formatter("%(message)s"))
    saved = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > level:
        logger.setLevel(level)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved)


QUIET_LOGGERS = ("mlflow", "alembic")  # INFO lines that would mix with the progress
QUIET_ENV = {  # MLflow reads these when imported, and when it downloads artifacts
    "MLFLOW_LOGGING_LEVEL": "WARNING",
    "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false",
}


@contextmanager
def quiet_libraries(level: int = logging.WARNING) -> Iterator[None]:
    """Keep other libraries' INFO lines and bars (MLflow's, alembic's) off stderr in the block.

    MLflow sets its loggers' level when it is imported, from ``MLFLOW_LOGGING_LEVEL``: the
    variables of :data:`QUIET_ENV` are set (those the user has not set) for an import inside
    the block, and the loggers of an MLflow imported before are raised to ``level``.
    Everything is restored on exit.

    Parameters
    ----------
    level : int
        Lowest level those loggers still print.
    """
    saved_env = {key: os.environ.get(key) for key in QUIET_ENV}
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    loggers = [logging.getLogger(name) for name in QUIET_LOGGERS]
    saved = [log.level for log in loggers]
    for log in loggers:
        log.setLevel(max(log.level, level))
    try:
        yield
    finally:
        for log, old in zip(loggers, saved, strict=True):
            log.setLevel(old)
        for key, saved_value in saved_env.items():
            if saved_value is None:
                os.environ.pop(key, None)
