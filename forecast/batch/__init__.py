r"""Scheduled batch forecasts: ``forecast batch --model URI --input FILE --output PATTERN``.

One call loads a model, reads the latest data, forecasts and writes the forecast file::

    forecast batch --model models:/power-load-de@champion --input latest.csv \
                   --output "forecasts/{date}.parquet" --timezone Europe/Berlin \
                   --horizon day-ahead

* ``--model``: a ``models:/name@alias`` or ``models:/name/version`` URI, a ``runs:/`` URI,
  any other MLflow model URI, or a local folder (an MLflow model with an ``MLmodel`` file,
  or a folder written by :func:`forecast.persistence.save`).
* ``--input``: CSV or Parquet with a time column (``timestamp``, ``time``, ...; see
  :func:`forecast.frames.io.read_frame`) or a Parquet DatetimeIndex, and the model's columns.
* ``--timezone``: the local zone of the run (default: the model's ``timezone`` parameter,
  else the zone it was fitted in). Stamps with UTC offsets are read in it, naive stamps are
  local times there (refused where the zone skips or repeats them), and the forecast is
  written in it. A model fitted on naive stamps without a zone keeps the input's own stamps;
  input in several offsets (local time across a DST change) is then refused, never silently
  read as UTC.
* ``--horizon``: steps, or ``day-ahead`` for every step up to the end of the next whole
  local day (23, 24 or 25 hours; see :func:`~forecast.batch.day_ahead_steps`).
* ``--nan-policy``: ``raise`` or ``interpolate`` missing input values for this run (the
  saved model is not changed).
* ``--output``: ``.csv`` or ``.parquet``; ``{date}`` expands to the *issue date*, the
  local calendar date (``YYYY-MM-DD``) of the last input timestamp.

The file is written atomically (a temporary file in the target folder, then
``os.replace``), so readers never see half a file and a failure leaves nothing behind. Its
bytes depend only on the model and the input: a rerun rewrites an identical file (no
appended duplicates). Each run is logged to MLflow (experiment ``forecast-batch``) with the
input's fingerprint and the output's SHA-256, unless ``--no-track``. On bad input or a
missing model the command logs one ERROR line on stderr (time, level, message), writes
nothing and exits with 1; the exit codes of a scheduled run (locked 75, stale input 65) are in
``forecast batch --help`` and ``docs/scheduling.md``.

Outputs never destroy inputs: an ``--output`` that resolves to the input (the same path, a
symbolic or hard link to it, a ``{date}`` or ``{stem}`` pattern that can expand to an input's
name, a partition folder used as both) is refused before the model loads
(:mod:`forecast.batch.overlap`). A temporary file a killed run left
(``.forecast-tmp-<name>-<pid>-<random>``) is removed by the next write of the same file.

The daily loop around these forecasts (``forecast score``, ``promote``, ``update``) is the
package ``forecast.loop``, a layer above this one.
"""

import importlib as _importlib
from typing import TYPE_CHECKING
from typing import Any as _Any

if TYPE_CHECKING:  # the lazy names, for type checkers (PEP 562 below)
    from forecast.batch.cli import add_batch_parser, main
    from forecast.batch.constants import BATCH_EXPERIMENT, DAY_AHEAD
    from forecast.batch.files import (
        BatchError,
        forecast_table,
        issue_date,
        output_path,
        read_input,
        select_history,
        write_atomic,
    )
    from forecast.batch.localtime import day_ahead_steps, model_timezone
    from forecast.batch.run import BatchResult, load_forecaster, run_batch

# public name -> module that defines it, imported on first use: the command parsers
# (forecast.batch.cli, score_cli, ...) import this package without pandas, torch or MLflow
_HOMES = {
    "BATCH_EXPERIMENT": "forecast.batch.constants",
    "DAY_AHEAD": "forecast.batch.constants",
    "BatchError": "forecast.batch.files",
    "BatchResult": "forecast.batch.run",
    "add_batch_parser": "forecast.batch.cli",
    "day_ahead_steps": "forecast.batch.localtime",
    "forecast_table": "forecast.batch.files",
    "issue_date": "forecast.batch.files",
    "load_forecaster": "forecast.batch.run",
    "main": "forecast.batch.cli",
    "model_timezone": "forecast.batch.localtime",
    "output_path": "forecast.batch.files",
    "read_input": "forecast.batch.files",
    "run_batch": "forecast.batch.run",
    "select_history": "forecast.batch.files",
    "write_atomic": "forecast.batch.files",
}


def __getattr__(name: str) -> _Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'forecast.batch' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "BATCH_EXPERIMENT",
    "DAY_AHEAD",
    "BatchError",
    "BatchResult",
    "add_batch_parser",
    "day_ahead_steps",
    "forecast_table",
    "issue_date",
    "load_forecaster",
    "main",
    "model_timezone",
    "output_path",
    "read_input",
    "run_batch",
    "select_history",
    "write_atomic",
]
