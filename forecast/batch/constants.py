"""Names the batch commands share with their parsers; this module imports nothing.

The parsers of ``forecast batch``, ``score`` and ``update`` read these at start-up, so they
live here rather than beside the code that uses them (which imports pandas, torch or MLflow):
``forecast batch --help`` answers without loading any of that.
"""

__all__ = ["BATCH_EXPERIMENT", "DAY_AHEAD", "EXIT_LOCKED", "PROTOCOLS", "UPDATE_EXPERIMENT"]

DAY_AHEAD = "day-ahead"  # the horizon keyword: up to the end of the next whole local day
BATCH_EXPERIMENT = "forecast-batch"  # MLflow experiment of `forecast batch` runs
UPDATE_EXPERIMENT = "forecast-update"  # MLflow experiment of `forecast update` runs
EXIT_LOCKED = 75  # EX_TEMPFAIL of sysexits.h: another run holds the job's lock; try again later
PROTOCOLS = (None, "day-ahead")  # how `forecast score` picks the rows it scores
