"""Parameters declared once: :class:`Param` records and the decorator that applies them.

:func:`declare_params` turns a table of records into an estimator's ``__init__`` and docs.

Each record holds a parameter's name, default, numpydoc type, description and check. The
decorator gives the class

- an ``__init__`` that takes exactly these keyword arguments and stores them verbatim
  (nothing else, as scikit-learn asks), with a generated ``__signature__`` so that
  ``inspect.signature`` and ``BaseEstimator._get_param_names`` list every parameter and its
  default (``get_params``, ``set_params``, ``clone`` and ``repr`` follow);
- a ``Parameters`` section in its docstring, rendered from the records, so ``help()`` shows
  every parameter with its default;
- ``_param_table``: the records, in order, which :func:`forecast.models._params.check_params`
  runs the checks of.

A subclass decorated again adds its own records in front of the inherited ones; one that is
not decorated inherits the ``__init__`` (and the table) unchanged.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Check = Callable[[str, Any], None]
"""A parameter check: ``check(name, value)`` raises ``ValueError`` naming what is wrong."""

_SECTION = re.compile(r"^[A-Z][A-Za-z ]*\n-{3,}[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Param:
    """One constructor parameter: name, default, numpydoc type, description and check.

    Parameters
    ----------
    name : str
        Keyword of ``__init__`` and attribute the value is stored under.
    default : object
        Default value (immutable: shared by every instance).
    type : str
        The numpydoc type, such as ``"int"`` or ``'{"auto", True, False}'``.
    doc : str
        The description (numpydoc text, dedented when rendered).
    check : callable, optional
        ``check(name, value)`` raising ``ValueError`` for a value out of range, run at the
        start of ``fit`` (and when a saved folder is loaded), never in ``__init__``. None:
        checked where the value is used.
    """

    name: str
    default: Any
    type: str
    doc: str
    check: Check | None = None

    def render(self) -> str:
        """Return the numpydoc entry: ``name : type, default=...`` and the description."""
        body = textwrap.indent(inspect.cleandoc(self.doc), "    ")
        return f"{self.name} : {self.type}, default={self.default!r}\n{body}"


def _make_init(table: tuple[Param, ...], owner: str) -> Callable[..., None]:
    defaults = {p.name: p.default for p in table}

    def __init__(self: Any, **params: Any) -> None:
        unknown = [name for name in params if name not in defaults]
        if unknown:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"{unknown[0]!r}"
            )
        for name, default in defaults.items():
            setattr(self, name, params.get(name, default))

    self_ = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    keywords = [
        inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default) for p in table
    ]
    __init__.__signature__ = inspect.Signature([self_, *keywords])  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{owner}.__init__"
    __init__.__doc__ = "Store the keyword arguments verbatim (see the class docstring)."
    return __init__


def parameters_section(table: tuple[Param, ...]) -> str:
    """Return the numpydoc ``Parameters`` section of ``table``."""
    return "Parameters\n----------\n" + "\n".join(p.render() for p in table)


def _with_parameters(doc: str | None, table: tuple[Param, ...]) -> str:
    """Insert the Parameters section before the first section of ``doc`` (else at its end)."""
    text = inspect.cleandoc(doc or "")
    section = parameters_section(table)
    found = _SECTION.search(text)
    if found is None:
        return f"{text}\n\n{section}\n"
    return f"{text[: found.start()]}{section}\n\n{text[found.start() :]}\n"


def declare_params(*own: Param) -> Callable[[type], type]:
    """Class decorator: the class takes ``own`` followed by the parameters it inherits.

    Parameters
    ----------
    *own : Param
        The parameters this class adds (none: the inherited ones only, re-documented).

    Returns
    -------
    callable
        The decorator; it sets ``__init__`` (with its ``__signature__``), ``_param_table``
        and the Parameters section of ``__doc__``, and returns the class.

    Raises
    ------
    ValueError
        If a name is declared twice.
    """

    def decorate(cls: type) -> type:
        table = (*own, *getattr(cls, "_param_table", ()))
        names = [p.name for p in table]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"{cls.__name__}: parameters {twice} are declared twice")
        cls._param_table = table  # type: ignore[attr-defined]  # the decorator adds it
        init = _make_init(table, cls.__qualname__)
        init.__module__ = cls.__module__
        cls.__init__ = init  # type: ignore[misc]  # replacing __init__ is the decorator's job
        cls.__doc__ = _with_parameters(cls.__doc__, table)
        return cls

    return decorate
