"""The saved-model format: a folder of JSON, arrays and safetensors with a checked manifest.

:func:`save` and :func:`load` (:mod:`~forecast.persistence.format`) never pickle and never
import a class named in a file: a folder names its estimator by a registered short name
(:mod:`~forecast.persistence.registry`). This package imports no estimator.

The names below load on first use (PEP 562): a module that needs only
:class:`ModelFormatError` (the ONNX runtime, the ``batch`` command's parser) does not
import torch, which :mod:`~forecast.persistence.format` needs for weights.
"""

import importlib as _importlib
from typing import Any as _Any

_HOMES = {
    "ModelFormatError": "forecast.persistence.errors",
    "load": "forecast.persistence.format",
    "register_estimator": "forecast.persistence.registry",
    "save": "forecast.persistence.format",
}

__all__ = ["ModelFormatError", "load", "register_estimator", "save"]


def __getattr__(name: str) -> _Any:
    if name in _HOMES:
        value = getattr(_importlib.import_module(_HOMES[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'forecast.persistence' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
