"""Parameters declared once: :func:`param` fields and the decorator that applies them.

A forecaster declares each constructor parameter once, as an annotated class attribute::

    @declare_params()
    class GRUForecaster(NeuralForecaster):
        hidden_size: int = param(default=64, type="int", doc="Width of the encoder.")

The annotation is the parameter's static type, ``param`` holds its default, numpydoc type,
description and check. :func:`declare_params` turns these fields into

- an ``__init__`` that takes exactly these arguments and stores them verbatim (nothing else,
  as scikit-learn asks), with a generated ``__signature__`` so that ``inspect.signature``
  and ``BaseEstimator._get_param_names`` list every parameter and its default
  (``get_params``, ``set_params``, ``clone`` and ``repr`` follow);
- a ``Parameters`` section in the class docstring, rendered from the records, so ``help()``
  shows every parameter with its default;
- ``_param_table``: the :class:`Param` records in call order, which
  :func:`forecast.models._params.check_params` runs the checks of.

Type checkers read the same fields: :func:`declare_params` is a PEP 681
``dataclass_transform``, so mypy and pyright synthesise the constructor from the annotations
and defaults (keyword-only unless a field says ``kw_only=False``) and report a misspelled or
mistyped argument; the fields are typed attributes of the instances.

A subclass decorated again adds its fields in front of the inherited ones; one that is not
decorated inherits the ``__init__`` (and the table) unchanged. Fields with ``kw_only=False``
may also be passed by position, inherited ones first (the order type checkers use).
"""

from __future__ import annotations

import abc
import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast, dataclass_transform

Check = Callable[[str, Any], None]
"""A parameter check: ``check(name, value)`` raises ``ValueError`` naming what is wrong."""

T = TypeVar("T")
C = TypeVar("C", bound=type)

_SECTION = re.compile(r"^[A-Z][A-Za-z ]*\n-{3,}[ \t]*$", re.MULTILINE)
_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
_KEYWORD = inspect.Parameter.KEYWORD_ONLY


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
    kw_only : bool, default=True
        Whether the parameter is keyword-only; False: it may also be passed by position.
    """

    name: str
    default: Any
    type: str
    doc: str
    check: Check | None = None
    kw_only: bool = True

    def render(self) -> str:
        """Return the numpydoc entry: ``name : type, default=...`` and the description."""
        body = textwrap.indent(inspect.cleandoc(self.doc), "    ")
        return f"{self.name} : {self.type}, default={self.default!r}\n{body}"


def param(
    *, default: T, type: str, doc: str, check: Check | None = None, kw_only: bool = True
) -> T:
    """Declare a constructor parameter: the value of an annotated field of the class body.

    Parameters
    ----------
    default : object
        Default value (immutable: shared by every instance).
    type : str
        The numpydoc type shown in the docs, such as ``'{"sliding", "tbptt"}'``.
    doc : str
        The description (numpydoc text).
    check : callable, optional
        ``check(name, value)`` raising ``ValueError``, run at the start of ``fit``.
    kw_only : bool, default=True
        False: the parameter may also be passed by position.

    Returns
    -------
    Param
        The record without its name, which :func:`declare_params` takes from the field
        (typed as the field's value, so that type checkers see the default).
    """
    return cast(T, Param("", default, type, doc, check, kw_only))


def _fields(cls: type) -> list[Param]:
    """Return the :func:`param` fields of ``cls``'s own body, named, and remove them."""
    found = []
    for name in cls.__dict__.get("__annotations__", {}):
        value = cls.__dict__.get(name)
        if not isinstance(value, Param):
            raise TypeError(
                f"{cls.__name__}.{name} is annotated in a class with declared parameters: "
                "declare it with param(...), or move it out of the class body"
            )
        found.append(replace(value, name=name))
        delattr(cls, name)  # instances hold the value; the class keeps no default
    return found


def _call_order(table: tuple[Param, ...], inherited: int) -> tuple[Param, ...]:
    """Return ``table`` in call order: positional fields (inherited first), then keywords.

    This is the order type checkers give the synthesised ``__init__``; with keyword-only
    fields alone, it is ``table`` (the class's own fields first).
    """
    own = table[: len(table) - inherited]
    above = table[len(table) - inherited :]
    positional = [p for p in (*above, *own) if not p.kw_only]
    return (*positional, *(p for p in table if p.kw_only))


def _signature(table: tuple[Param, ...]) -> inspect.Signature:
    """Return the ``__init__`` signature of ``table`` (in call order)."""
    return inspect.Signature(
        [
            inspect.Parameter("self", _POSITIONAL),
            *(
                inspect.Parameter(p.name, _KEYWORD if p.kw_only else _POSITIONAL, default=p.default)
                for p in table
            ),
        ]
    )


def _make_init(signature: inspect.Signature, owner: str) -> Callable[..., None]:
    def __init__(self: Any, *args: Any, **params: Any) -> None:
        try:
            bound = signature.bind(self, *args, **params)
        except TypeError as error:
            raise TypeError(f"{type(self).__name__}.__init__(): {error}") from None
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{owner}.__init__"
    __init__.__doc__ = "Store the arguments verbatim (see the class docstring)."
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


@dataclass_transform(kw_only_default=True, field_specifiers=(param,))
def declare_params(*own: Param, defaults: Mapping[str, Any] | None = None) -> Callable[[C], C]:
    """Class decorator: the class takes its :func:`param` fields, then the inherited ones.

    Parameters
    ----------
    *own : Param
        Records to add in front of the class's fields (named; not seen by type checkers:
        prefer fields).
    defaults : mapping of str to object, optional
        New defaults of inherited parameters for this class and its subclasses (the
        parameter keeps its type, description and check), e.g. ``{"hidden_size": 128}``.

    Returns
    -------
    callable
        The decorator; it sets ``__init__`` (with its ``__signature__``), ``_param_table``
        and the Parameters section of ``__doc__``, and returns the class.

    Raises
    ------
    ValueError
        If a name is declared twice, or ``defaults`` names a parameter the class does not
        inherit.
    TypeError
        If the class body annotates an attribute that is not a :func:`param` field.
    """

    def decorate(cls: C) -> C:
        inherited: tuple[Param, ...] = getattr(cls, "_param_table", ())
        changed = dict(defaults or {})
        unknown = sorted(set(changed) - {p.name for p in inherited})
        if unknown:
            raise ValueError(f"{cls.__name__}: defaults for {unknown}, which it does not inherit")
        inherited = tuple(
            replace(p, default=changed[p.name]) if p.name in changed else p for p in inherited
        )
        table = _call_order((*own, *_fields(cls), *inherited), len(inherited))
        names = [p.name for p in table]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"{cls.__name__}: parameters {twice} are declared twice")
        cls._param_table = table  # type: ignore[attr-defined]  # the decorator adds it
        init = _make_init(_signature(table), cls.__qualname__)
        init.__module__ = cls.__module__
        cls.__init__ = init  # type: ignore[misc]  # replacing __init__ is the decorator's job
        cls.__doc__ = _with_parameters(cls.__doc__, table)
        abc.update_abstractmethods(cls)  # an abstract __init__ of a base is now implemented
        return cls

    return decorate


def declared(cls: type) -> tuple[Param, ...]:
    """Return the parameter records of a class made by :func:`declare_params`, in order."""
    table: tuple[Param, ...] = getattr(cls, "_param_table", ())
    return table
