"""Hyperparameter sweeps on Ray Tune (extra ``forecast-toolkit[ray]``): :func:`forecast.tune`.

:mod:`~forecast.tuning.sweep` runs the trials of a spec's ``[tune]`` table (checked by
:mod:`forecast.specs.tune`) and refits the best; :mod:`~forecast.tuning.trials` holds what
a trial reports, the ASHA scheduler and the table of trials; :mod:`~forecast.tuning.runs` logs
them to MLflow. Importing them imports MLflow (seconds), never Ray: Ray is imported when a sweep
runs, and ``forecast --help`` imports neither.
"""
