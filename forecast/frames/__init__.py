"""Pandas in and out: everything that knows about frames and their time index.

Checks whose messages name the column and timestamp (:mod:`~forecast.frames.validation`), the
options a model declares for its input (:mod:`~forecast.frames.options`), cleaning a series
(:mod:`~forecast.frames.cleaning`), scaling (:mod:`~forecast.frames.scaling`), covariates and
calendar features (:mod:`~forecast.frames.covariates`, :mod:`~forecast.frames.calendar`), the
one definition of special days (:mod:`~forecast.frames.special_days`) and of time zones
(:mod:`~forecast.frames.timezones`), frames to arrays and back
(:mod:`~forecast.frames.series`, :mod:`~forecast.frames.output`), forecast origins
(:mod:`~forecast.frames.origins`), quantile columns (:mod:`~forecast.frames.quantiles`), files
(:mod:`~forecast.frames.io`) and content hashes (:mod:`~forecast.frames.fingerprint`).
"""
