r"""Scheduled batch forecasts: ``forecast batch --model URI --input FILE --output PATTERN``.

One call loads a model, reads the latest data, forecasts and writes the forecast file::

    forecast batch --model models:/power-load-de@champion \
                   --input latest.csv --output "forecasts/{date}.parquet"

* ``--model``: a ``models:/name@alias`` or ``models:/name/version`` URI, a ``runs:/`` URI,
  any other MLflow model URI, or a local folder (an MLflow model with an ``MLmodel`` file,
  or a folder written by :func:`forecast.persistence.save`).
* ``--input``: CSV or Parquet with a time column (``timestamp``, ``time``, ...; see
  :func:`forecast.io.read_frame`) or a Parquet DatetimeIndex, and the model's columns.
* ``--output``: ``.csv`` or ``.parquet``; ``{date}`` expands to the *issue date*, the
  calendar date (``YYYY-MM-DD``) of the last input timestamp, read in the input's own time
  zone (in UTC for ``...Z`` stamps).

The file is written atomically (a temporary file in the target folder, then
``os.replace``), so readers never see half a file and a failure leaves nothing behind. Its
bytes depend only on the model and the input: a rerun rewrites an identical file (no
appended duplicates). Each run is logged to MLflow (experiment ``forecast-batch``) with the
input's fingerprint and the output's SHA-256, unless ``--no-track``. On bad input or a
missing model the command prints one line on stderr, writes nothing and exits with 1.
"""

from forecast.batch.cli import add_batch_parser, main
from forecast.batch.files import (
    BatchError,
    forecast_table,
    issue_date,
    output_path,
    read_input,
    select_history,
    write_atomic,
)
from forecast.batch.run import BATCH_EXPERIMENT, BatchResult, load_forecaster, run_batch

__all__ = [
    "BATCH_EXPERIMENT",
    "BatchError",
    "BatchResult",
    "add_batch_parser",
    "forecast_table",
    "issue_date",
    "load_forecaster",
    "main",
    "output_path",
    "read_input",
    "run_batch",
    "select_history",
    "write_atomic",
]
