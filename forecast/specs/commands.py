"""Bodies of the commands that build estimators by name or from a spec: fit, backtest, run.

``forecast fit`` and ``forecast backtest`` build one estimator from ``--model`` and
``--param KEY=VALUE`` (:func:`forecast.specs.spec.build_estimator`); ``forecast run``
runs an experiment spec (:func:`forecast.specs.spec.run_spec`). The parsers are in
:mod:`forecast.cli`; each body takes the parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd

from forecast.batch.overlap import refuse_same_file
from forecast.evaluation.backtest import backtest
from forecast.evaluation.schedule import BeyondDataWarning
from forecast.frames.io import read_frame, write_frame
from forecast.persistence.format import _replaceable
from forecast.specs.spec import build_estimator, run_spec
from forecast.training.progress import log_to_stderr

__all__ = ["backtest_command", "fit_command", "parse_params", "progress", "run_command"]


def parse_params(pairs: Sequence[str]) -> dict[str, Any]:
    """Parse ``--param KEY=VALUE`` pairs; a value is JSON when it parses, else a string.

    Parameters
    ----------
    pairs : sequence of str
        The ``KEY=VALUE`` texts.

    Returns
    -------
    dict
        Parameter name to value.
    """
    params = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--param takes KEY=VALUE, got {pair!r}")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def progress(quiet: bool) -> AbstractContextManager[object]:
    """Return the context a command runs in: progress lines on stderr unless ``quiet``."""
    return contextlib.nullcontext() if quiet else log_to_stderr()


def _select(frame: pd.DataFrame, args: argparse.Namespace) -> pd.DataFrame:
    """Keep the ``--columns`` of ``frame`` (all when not given); name any missing one."""
    if not args.columns:
        return frame
    missing = [c for c in args.columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{args.data} lacks column(s) {missing}; found {list(frame.columns)}")
    return frame[args.columns]


def _check_out(out: str, overwrite: bool) -> None:
    """Refuse ``--out`` as :func:`forecast.persistence.format.save` would, but before fitting."""
    if not os.path.lexists(out):
        return
    if not overwrite:
        raise FileExistsError(f"{out} exists: pass --overwrite to replace a saved model")
    _replaceable(Path(out))


def fit_command(args: argparse.Namespace) -> int:
    """Run ``forecast fit``: fit ``--model`` on ``--data`` and save it to ``--out``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fit`` arguments.

    Returns
    -------
    int
        The exit code.
    """
    _check_out(args.out, args.overwrite)  # before a long fit, not after
    estimator = build_estimator(args.model, parse_params(args.param))
    frame = _select(read_frame(args.data, args.time_column, timezone=args.timezone), args)
    estimator.fit(frame)
    estimator.save(args.out, overwrite=args.overwrite)
    print(f"fitted {type(estimator).__name__} on {len(frame)} rows; saved to {args.out}")
    return 0


def backtest_command(args: argparse.Namespace) -> int:
    """Run ``forecast backtest``: a rolling-origin backtest of ``--model`` on ``--data``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``backtest`` arguments.

    Returns
    -------
    int
        The exit code.
    """
    if args.output:  # before the backtest: outputs never destroy inputs
        refuse_same_file(args.output, args.data, "--output", "--data")
    estimator = build_estimator(args.model, parse_params(args.param))
    frame = _select(read_frame(args.data, args.time_column), args)
    kwargs = {
        k: v
        for k, v in (
            ("protocol", args.protocol),
            ("start", args.start),
            ("end", args.end),
            ("horizon", args.horizon),
            ("origins", args.origins),
            ("target", args.target),
        )
        if v
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BeyondDataWarning)
        result = backtest(estimator, frame, refit_every=args.refit_every, **kwargs)
    for warning in caught:  # the test period's warnings as one line each; others as usual
        if issubclass(warning.category, BeyondDataWarning):
            print(f"forecast backtest: warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    print(result.metrics.astype(object).to_markdown(floatfmt=".3f"))  # object: counts stay int
    if args.output:
        write_frame(result.forecasts, args.output)
    return 0


def run_command(args: argparse.Namespace) -> int:
    """Run ``forecast run``: the comparison an experiment spec describes.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``run`` arguments.

    Returns
    -------
    int
        The exit code.
    """
    with progress(args.quiet):
        table = run_spec(args.spec, args.output, progress=not args.quiet)
    print(table.astype(object).to_markdown(floatfmt=".3f"))  # object: counts stay int
    return 0
