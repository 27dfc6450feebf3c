"""Evaluation: backtests and their schedules, metrics, comparisons, plots, the motion benchmark.

:func:`~forecast.evaluation.backtest.backtest` (rolling origins, the day-ahead market
protocol; :mod:`~forecast.evaluation.schedule` says which origins and steps),
:func:`~forecast.evaluation.compare.compare` (several estimators on the same folds),
:mod:`~forecast.evaluation.metrics` (numpy metrics), score tables
(:mod:`~forecast.evaluation.scores`), plots, and the motion benchmark protocol
(:func:`~forecast.evaluation.motion.motion_benchmark`).
"""
