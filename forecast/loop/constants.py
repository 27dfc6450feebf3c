"""Names the daily loop's commands share with their parsers; this module imports nothing.

The parsers of ``forecast score`` and ``forecast update`` read these at start-up, so they live
here rather than beside the code that uses them (which imports pandas, torch or MLflow):
``forecast score --help`` answers without loading any of that.
"""

from forecast.batch.constants import DAY_AHEAD

__all__ = ["PROTOCOLS", "UPDATE_EXPERIMENT"]

UPDATE_EXPERIMENT = "forecast-update"  # MLflow experiment of `forecast update` runs
PROTOCOLS = (None, DAY_AHEAD)  # how `forecast score` picks the rows it scores
