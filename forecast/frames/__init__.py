"""Pandas in and out: validation, time zones, calendar and special days, quantile columns, files.

Everything that knows about frames and their time index lives here, below the estimators:
:mod:`~forecast.frames.validation` (checks whose messages name the column and timestamp),
:mod:`~forecast.frames.timezones`, :mod:`~forecast.frames.calendar` (calendar and holiday
features), :mod:`~forecast.frames.special_days` (the one definition of special days),
:mod:`~forecast.frames.quantiles` (quantile levels and their column names),
:mod:`~forecast.frames.io` (CSV and Parquet files) and the frame plumbing of the base class
and the meta-estimators.
"""
