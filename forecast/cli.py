"""The ``forecast`` command: demo, fit, predict, backtest, run, data and batch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence


def _parse_params(pairs: Sequence[str]) -> dict:
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


def _cmd_demo(args: argparse.Namespace) -> int:
    from forecast.demo import run_demo

    run_demo(quick=args.quick, seed=args.seed)
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from forecast.io import read_frame
    from forecast.models import get_estimator

    if not args.overwrite and os.path.lexists(args.out):  # before a long fit, not after
        raise FileExistsError(f"{args.out} exists: pass --overwrite to replace a saved model")
    frame = read_frame(args.data, args.time_column)
    if args.columns:
        frame = frame[args.columns]
    estimator = get_estimator(args.model)(**_parse_params(args.param))
    estimator.fit(frame)
    estimator.save(args.out, overwrite=args.overwrite)
    print(f"fitted {type(estimator).__name__} on {len(frame)} rows; saved to {args.out}")
    return 0


def _cmd_predict(args: argparse.Namespace) -> int:
    from forecast.base import BaseForecaster
    from forecast.io import read_frame, write_frame

    estimator = BaseForecaster.load(args.model, device=args.device)
    history = read_frame(args.data, args.time_column) if args.data else None
    if history is not None:
        history = history[
            list(estimator.columns_) + estimator.past_covariates_ + estimator.future_covariates_
        ]
    forecast = estimator.predict(horizon=args.horizon, history=history)
    if args.output:
        write_frame(forecast, args.output)
    else:
        forecast.to_csv(sys.stdout)
    return 0


def _cmd_backtest(args: argparse.Namespace) -> int:
    from forecast.backtest import backtest
    from forecast.io import read_frame, write_frame
    from forecast.models import get_estimator

    frame = read_frame(args.data, args.time_column)
    if args.columns:
        frame = frame[args.columns]
    estimator = get_estimator(args.model)(**_parse_params(args.param))
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
    result = backtest(estimator, frame, refit_every=args.refit_every, **kwargs)
    print(result.metrics.to_markdown(floatfmt=".3f"))
    if args.output:
        write_frame(result.forecasts, args.output)
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    import contextlib

    from forecast.progress import log_to_stderr
    from forecast.spec import run_spec

    with contextlib.nullcontext() if args.quiet else log_to_stderr():
        table = run_spec(args.spec, args.output, progress=not args.quiet)
    print(table.to_markdown(floatfmt=".3f"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``forecast`` command."""
    parser = argparse.ArgumentParser(prog="forecast", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="fit Elman, LSTM and GRU on Victoria's electricity demand")
    demo.add_argument("--quick", action="store_true", help="fewer epochs and origins (a smoke run)")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_cmd_demo)

    fit = sub.add_parser("fit", help="fit a model on a CSV/Parquet file and save it to a folder")
    fit.add_argument("--model", required=True, help="model name, e.g. lstm, gru, seasonal-naive")
    fit.add_argument("--data", required=True, help="CSV or Parquet file with a time column")
    fit.add_argument("--time-column", default=None)
    fit.add_argument("--columns", nargs="+", default=None, help="columns to use (default: all)")
    fit.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="estimator parameter (JSON value), repeatable",
    )
    fit.add_argument("--out", required=True, help="folder to save the fitted model to")
    fit.add_argument(
        "--overwrite", action="store_true", help="replace the saved model folder --out if it exists"
    )
    fit.set_defaults(func=_cmd_fit)

    predict = sub.add_parser("predict", help="forecast with a saved model")
    predict.add_argument("--model", required=True, help="folder written by `forecast fit`")
    predict.add_argument(
        "--data", default=None, help="new history (default: the training data's end)"
    )
    predict.add_argument("--time-column", default=None)
    predict.add_argument("--horizon", type=int, required=True)
    predict.add_argument("--device", default=None)
    predict.add_argument("--output", default=None, help="CSV/Parquet file (default: stdout)")
    predict.set_defaults(func=_cmd_predict)

    bt = sub.add_parser("backtest", help="rolling-origin backtest of one model on a file")
    bt.add_argument("--model", required=True)
    bt.add_argument("--data", required=True, help="CSV or Parquet file with a time column")
    bt.add_argument("--time-column", default=None)
    bt.add_argument("--columns", nargs="+", default=None)
    bt.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    bt.add_argument("--protocol", default=None, help="e.g. day-ahead")
    bt.add_argument("--start", default=None, help="first day of the test period")
    bt.add_argument("--end", default=None, help="last day of the test period")
    bt.add_argument("--horizon", type=int, default=None)
    bt.add_argument("--origins", default=None, help="e.g. 12:00 (daily) or 7D")
    bt.add_argument("--target", default=None, help="target column (others are covariates)")
    bt.add_argument("--refit-every", type=int, default=None, help="refit every k origins")
    bt.add_argument("--output", default=None, help="forecasts as CSV/Parquet")
    bt.set_defaults(func=_cmd_backtest)

    run = sub.add_parser("run", help="run an experiment spec (TOML): data, backtest, models")
    run.add_argument("spec", help="TOML file, e.g. experiments/entsoe_de_day_ahead.toml")
    run.add_argument("--output", default=None, help="results folder")
    run.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (models, folds, epochs)"
    )
    run.set_defaults(func=_cmd_run)

    _optional_commands(sub)
    return parser


def _optional_commands(sub) -> None:
    from forecast.batch import add_batch_parser
    from forecast.datasets.commands import add_data_parser

    add_data_parser(sub)
    add_batch_parser(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``forecast`` command and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, FileExistsError, KeyError) as err:
        print(f"forecast {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
