"""The saved-model format: a folder of JSON, arrays and safetensors with a checked manifest.

:func:`save` and :func:`load` (:mod:`~forecast.persistence.format`) never pickle and never
import a class named in a file: a folder names its estimator by a registered short name
(:mod:`~forecast.persistence.registry`). This package imports no estimator.
"""

from forecast.persistence.format import load, save
from forecast.persistence.manifest import ModelFormatError
from forecast.persistence.registry import register_estimator

__all__ = ["ModelFormatError", "load", "register_estimator", "save"]
