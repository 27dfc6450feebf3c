"""Names the batch command shares with its parser; this module imports nothing.

The parser of ``forecast batch`` reads these at start-up, so they live here rather than
beside the code that uses them (which imports pandas, torch or MLflow): ``forecast batch
--help`` answers without loading any of that. The daily loop's are in
``forecast.loop.constants``.
"""

__all__ = ["BATCH_EXPERIMENT", "DAY_AHEAD", "EXIT_LOCKED"]

DAY_AHEAD = "day-ahead"  # the horizon keyword: up to the end of the next whole local day
BATCH_EXPERIMENT = "forecast-batch"  # MLflow experiment of `forecast batch` runs
EXIT_LOCKED = 75  # EX_TEMPFAIL of sysexits.h: another run holds the job's lock; try again later
