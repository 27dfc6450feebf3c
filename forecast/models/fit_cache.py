"""Fit once per comparison: an ensemble reuses the fits of models compared beside it.

:func:`forecast.compare` opens a :func:`fit_cache` for its run. While one is open,
:func:`fit` keys every fit by the estimator's class, its parameters and the content of the
training data; a second fit with the same key (an :class:`forecast.EnsembleForecaster`
member that is also a compared model, fitted on the same fold) returns the first fitted
object instead of training again. Only seeded fits are kept: with ``random_state=None`` a
refit is a different model, so it is refitted. Outside a cache, :func:`fit` just fits.

Reused objects are shared, not copied: fitted estimators are not changed by ``predict``.
The seconds a reused fit originally took are credited to whoever reuses it (see
:func:`credited`), so a comparison's fit times stay what a user fitting that model pays.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from forecast.frames.fingerprint import fingerprint

# a fit's key (class, parameters, data fingerprint) -> (the fitted estimator, its seconds)
_Cache = dict[tuple[str, str, str], tuple[Any, float]]
_CACHE: ContextVar[_Cache | None] = ContextVar("forecast_fit_cache", default=None)
_CREDIT: ContextVar[list[float] | None] = ContextVar("forecast_fit_credit", default=None)


@contextmanager
def fit_cache() -> Iterator[_Cache]:
    """Keep the fits made inside the block for reuse by identical fits (nested: one cache)."""
    cache = _CACHE.get()
    if cache is not None:
        yield cache
        return
    cache = {}
    token = _CACHE.set(cache)
    try:
        yield cache
    finally:
        _CACHE.reset(token)


@contextmanager
def credited() -> Iterator[list[float]]:
    """Collect, in a one-item list, the original seconds of the fits reused inside the block."""
    credit = [0.0]
    token = _CREDIT.set(credit)
    try:
        yield credit
    finally:
        _CREDIT.reset(token)


def _key(estimator: Any, data: Any) -> tuple[str, str, str] | None:
    params = estimator.get_params(deep=True)
    if any(name.endswith("random_state") and value is None for name, value in params.items()):
        return None
    try:
        shown = repr(sorted((name, repr(value)) for name, value in params.items()))
        return type(estimator).__qualname__, shown, fingerprint(data)
    except TypeError:  # data the fingerprint cannot read: the estimator's fit reports it
        return None


def fit(estimator: Any, data: Any, callbacks: list[Any] | None = None) -> Any:
    """Fit ``estimator`` on ``data``, or return the same fit made earlier in the open cache.

    Parameters
    ----------
    estimator : BaseForecaster
        An unfitted clone; it is fitted in place unless a cached fit is returned.
    data : DataFrame or dict of DataFrames
        Training data.
    callbacks : list, optional
        Passed to ``fit`` (not called for a reused fit).

    Returns
    -------
    BaseForecaster
        ``estimator`` fitted, or the cached fitted object.
    """
    cache = _CACHE.get()
    key = None if cache is None else _key(estimator, data)
    if cache is not None and key is not None and key in cache:
        fitted, seconds = cache[key]
        credit = _CREDIT.get()
        if credit is not None:
            credit[0] += seconds
        return fitted
    start = time.perf_counter()
    estimator.fit(data, callbacks=list(callbacks or []))
    if cache is not None and key is not None:
        cache[key] = (estimator, time.perf_counter() - start)
    return estimator
