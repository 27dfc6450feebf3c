"""Captum, the attribution library of the neural explanations, imported only when used."""

from __future__ import annotations

from types import ModuleType

MISSING = (
    "explaining needs Captum, which is not installed: pip install 'forecast-toolkit[explain]' "
    "(or pip install captum)"
)


def captum_attr() -> ModuleType:
    """Return :mod:`captum.attr`, or raise an ImportError naming the extra."""
    try:
        # the optional extra forecast-toolkit[explain]; importing forecast never imports it
        import captum.attr as attr
    except ImportError as error:
        raise ImportError(MISSING) from error
    return attr
