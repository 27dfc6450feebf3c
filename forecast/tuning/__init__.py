"""Hyperparameter sweeps on Ray Tune (extra ``forecast[ray]``): :func:`forecast.tune`.

:mod:`~forecast.tuning.sweep` runs the trials of a spec's ``[tune]`` table (checked by
:mod:`forecast.specs.tune`) and refits the best; :mod:`~forecast.tuning.runs` logs them to
MLflow. Importing this package never imports Ray.
"""
