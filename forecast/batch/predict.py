"""The ``forecast predict`` command's body: one forecast from a saved model folder.

The model is a folder written by ``forecast fit`` (:func:`forecast.persistence.format.save`)
or an ONNX export (``to_onnx``, which keeps no data: ``--data`` is then required); the
forecast starts after the training data, or after ``--data`` when given, and goes to a
CSV/Parquet file or, as CSV, to stdout. Scheduled forecasts with MLflow models and atomic
output files are ``forecast batch`` (:mod:`forecast.batch`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import pandas as pd

from forecast.base import BaseForecaster
from forecast.batch.localtime import to_zone
from forecast.batch.overlap import refuse_same_file
from forecast.frames import validation
from forecast.frames.io import csv_text, read_frame, write_frame
from forecast.onnx.metadata import is_export_folder

__all__ = ["predict_command"]


def predict_command(args: argparse.Namespace) -> int:
    """Run ``forecast predict``: forecast ``--horizon`` steps with the model ``--model``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``predict`` arguments.

    Returns
    -------
    int
        The exit code.
    """
    if args.data and args.output:  # before the model loads: outputs never destroy inputs
        refuse_same_file(args.output, args.data, "--output", "--data")
    if is_export_folder(args.model):  # an ONNX export forecasts without torch (--data needed)
        # the runtime needs the extra forecast-toolkit[onnx]; a saved torch model never imports it
        from forecast.onnx.runtime import OnnxForecaster

        estimator: Any = OnnxForecaster.load(args.model)
    else:
        estimator = BaseForecaster.load(args.model, device=args.device)
    history = None
    if args.data:
        history = read_frame(args.data, args.time_column, timezone=args.timezone)
        needed = (
            list(estimator.columns_) + estimator.past_covariates_ + estimator.future_covariates_
        )
        missing = [c for c in needed if c not in history.columns]
        if missing:
            raise ValueError(
                f"{args.data} lacks column(s) {missing} that the model {args.model} needs; "
                f"found {list(history.columns)}"
            )
        history = history[needed]
    predicted = estimator.predict(horizon=args.horizon, history=history)
    if isinstance(predicted, dict):  # a model fitted on a dict of series: one long table
        predicted = validation.join_series(predicted, "long")
    assert isinstance(predicted, pd.DataFrame)  # "long" joins the series into one frame
    if validation.ID_COLUMN in predicted.columns:  # several series: rows by time, an id column
        predicted = predicted.set_index(validation.TIME_COLUMN)
    forecast = to_zone(predicted, args.timezone)
    if args.output:
        write_frame(forecast, args.output)
    else:
        sys.stdout.write(csv_text(forecast.rename_axis("timestamp").reset_index()))
    return 0
