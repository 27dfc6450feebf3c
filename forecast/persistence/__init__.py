"""The saved-model format: a folder of JSON, arrays and safetensors with a checked manifest.

:func:`save` and :func:`load` (:mod:`~forecast.persistence.format`) never pickle and never
import a class named in a file: a folder names its estimator by a registered short name
(:mod:`~forecast.persistence.registry`). This package imports no estimator.

The names below load on first use (PEP 562): a module that needs only
:class:`ModelFormatError` (the ONNX runtime, the ``batch`` command's parser) does not
import torch, which :mod:`~forecast.persistence.format` needs for weights.
"""

import importlib as _importlib
from typing import TYPE_CHECKING
from typing import Any as _Any

if TYPE_CHECKING:  # the lazy names, for type checkers (a test keeps them equal to _HOMES)
    from forecast.persistence.errors import ModelFormatError
    from forecast.persistence.format import load, save
    from forecast.persistence.registry import register_estimator

_HOMES = {
    "ModelFormatError": "forecast.persistence.errors",
    "load": "forecast.persistence.format",
    "register_estimator": "forecast.persistence.registry",
    "save": "forecast.persistence.format",
}

__all__ = ["ModelFormatError", "load", "register_estimator", "save"]


def _lazy(name: str) -> _Any:
    """Return ``name``, imported from its home on first use (PEP 562)."""
    if name in _HOMES:
        value = getattr(_importlib.import_module(_HOMES[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'forecast.persistence' has no attribute {name!r}")


if not TYPE_CHECKING:  # type checkers read the imports above: a catch-all would type typos Any
    __getattr__ = _lazy


def __dir__() -> list[str]:
    return sorted(__all__)
