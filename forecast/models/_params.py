"""Parameter checks of the neural forecasters, run at the start of ``fit`` (not in ``__init__``).

The checks of single values are small functions named in the parameter table
(:mod:`forecast.models.neural_params`, family tables); :func:`check_params` runs them in
table order, then the rules that tie several parameters together.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from forecast.frames.quantiles import check_levels
from forecast.models.declare import Check

CLOCK = re.compile(r"([01]?\d|2[0-3]):[0-5]\d")
"""A local clock time ``"HH:MM"`` (a ``train_origins`` entry)."""


def _is_int(value: Any, low: int) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= low


def integer(low: int = 1, *, optional: bool = False) -> Check:
    """Check an int ``>= low`` (or None when ``optional``)."""

    def check(name: str, value: Any) -> None:
        if optional and value is None:
            return
        if not _is_int(value, low):
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")

    return check


def none_or_integer(name: str, value: Any) -> None:
    """Check None or an int ``>= 1``."""
    if value is not None and not _is_int(value, 1):
        raise ValueError(f"{name} must be None or an int >= 1, got {value!r}")


def one_of(*allowed: Any, says: str | None = None) -> Check:
    """Check a value equal to one of ``allowed`` (``says``: how the message lists them)."""

    def check(name: str, value: Any) -> None:
        if value not in allowed:
            listed = says if says is not None else f"one of {allowed}"
            raise ValueError(f"{name} must be {listed}, got {value!r}")

    return check


def dropout(name: str, value: Any) -> None:
    """Check a dropout in [0, 1) or ``"auto"``."""
    auto = isinstance(value, str) and value == "auto"
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not auto and not (real and 0 <= value < 1):
        raise ValueError(f"{name} must be in [0, 1) or 'auto', got {value!r}")


def fraction(name: str, value: Any) -> None:
    """Check a number in [0, 1)."""
    if not 0 <= value < 1:
        raise ValueError(f"{name} must be in [0, 1), got {value!r}")


def positive(name: str, value: Any) -> None:
    """Check a finite real number > 0 (a rate of ``inf`` or ``nan`` is refused)."""
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not (real and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be > 0, got {value!r} (a finite number)")


def none_or_positive(name: str, value: Any) -> None:
    """Check None or a number > 0."""
    if value is not None and not value > 0:
        raise ValueError(f"{name} must be None or > 0, got {value!r}")


def non_negative(name: str, value: Any) -> None:
    """Check a finite real number ``>= 0``."""
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not (real and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a number >= 0, got {value!r}")


def none_or_non_negative(name: str, value: Any) -> None:
    """Check None or a number >= 0."""
    if value is not None and not value >= 0:
        raise ValueError(f"{name} must be None or >= 0, got {value!r}")


def quantile_levels(name: str, value: Any) -> None:
    """Check None or quantile levels (:func:`forecast.frames.quantiles.check_levels`)."""
    if value is not None:
        check_levels(value)


def train_origins(name: str, value: Any) -> None:
    """Check ``"auto"``, None, an int >= 1, ``"HH:MM"`` or a list of ``"HH:MM"``."""
    if value is None or (isinstance(value, str) and value == "auto") or _is_int(value, 1):
        return
    times = [value] if isinstance(value, str) else value
    if isinstance(times, list | tuple) and times:
        if all(isinstance(t, str) and CLOCK.fullmatch(t) for t in times):
            return
    raise ValueError(
        f"{name} must be 'auto', None, an int >= 1, 'HH:MM' or a list of 'HH:MM', got {value!r}"
    )


def channel_weight(name: str, value: Any) -> None:
    """Check None, ``"scale"`` or a sequence of non-negative numbers, not all zero."""
    if value is None or (isinstance(value, str) and value == "scale"):
        return
    try:
        weights = [float(v) for v in value] if not isinstance(value, str) else None
    except (TypeError, ValueError):
        weights = None
    if not weights or not all(math.isfinite(w) and w >= 0 for w in weights) or not any(weights):
        raise ValueError(
            f"{name} must be None, 'scale' or one weight >= 0 per target column (not all "
            f"zero), got {value!r}"
        )


def seed_of(random_state: Any) -> int:
    """Return the int seed of a ``random_state`` (drawn when None, or from a generator)."""
    if random_state is None:
        return int(np.random.default_rng().integers(2**31))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31))
    return int(random_state)


def floats(values: Any) -> tuple[float, ...] | None:
    """Return ``values`` as a tuple of floats (None stays None)."""
    return None if values is None else tuple(map(float, values))


def check_option(est: Any, param: str, value: Any, name: str | None = None) -> None:
    """Check ``value`` by the check of parameter ``param`` (an option given to a method).

    ``update(learning_rate=..., early_stopping_patience=..., epochs=...)`` take the values of
    parameters for one call; they are checked here by the parameter's own check, so a value
    ``fit`` refuses (a negative patience, an infinite rate) is refused by the update too.
    ``name`` is how the message names the option (default ``param``).
    """
    check = next(p.check for p in type(est)._param_table if p.name == param)
    if check is not None:
        check(name or param, value)


@contextmanager
def builtin_ints(est: Any) -> Iterator[None]:
    """Read numpy integer parameters as Python ints within the block (torch takes only int).

    The parameter checks take numpy integers as integers (``hidden_size=np.int64(64)``, as a
    grid search passes them); the constructor stores them verbatim (``clone`` compares by
    identity), so the network is built with their int values here and the parameters are
    restored after, whether the block succeeds or not.
    """
    numpy_ints = {
        p.name: getattr(est, p.name)
        for p in type(est)._param_table
        if isinstance(getattr(est, p.name, None), np.integer)
    }
    for name, value in numpy_ints.items():
        setattr(est, name, int(value))
    try:
        yield
    finally:
        for name, value in numpy_ints.items():
            setattr(est, name, value)


def check_params(est: Any) -> None:
    """Raise ValueError naming the first parameter of ``est`` that is out of range.

    Runs the check of every parameter of ``type(est)._param_table`` in order, then the
    rules between parameters.
    """
    for param in type(est)._param_table:
        if param.check is not None:
            param.check(param.name, getattr(est, param.name))
    _check_combinations(est)


def _check_combinations(est: Any) -> None:
    """Check the rules that tie several parameters together."""
    if est.input_differences is True and est.windowing != "sliding":
        raise ValueError(
            "input_differences=True reads each step's change within a context window; with "
            "windowing='tbptt' use input_differences=False (or 'auto')"
        )
    if est.residual and est.reference is not None:
        raise ValueError(
            f"residual=True forecasts changes from the last observed value and "
            f"reference={est.reference!r} from a seasonal value: give only one of them"
        )
    if est.validation_series is not None and est.validation_size is not None:
        raise ValueError(
            "validation_series holds whole series out and validation_size a tail of each: "
            "give only one of them"
        )
    if est.windowing == "tbptt" and (
        est.normalization == "window" or est.reference is not None or est.linear_skip is True
    ):
        raise ValueError(
            "normalization='window', reference and linear_skip need context windows; with "
            "windowing='tbptt' use normalization=None (or 'auto'), reference=None and "
            "linear_skip=False"
        )
    transform = est.target_transform
    if transform is not None:
        clash = {
            "residual=True": est.residual,
            f"reference={est.reference!r}": est.reference is not None,
            "quantiles": est.quantiles is not None,
            "strategy='seq2seq'": est.strategy == "seq2seq",
        }
        for name, present in clash.items():
            if present:
                raise ValueError(
                    f"target_transform={transform!r} forecasts summed step changes from the last "
                    f"observed value; it does not combine with {name}"
                )
    if est.loss != "mse" and est.quantiles is not None:
        raise ValueError(
            f"quantiles={est.quantiles!r} trains the pinball loss; loss={est.loss!r} is for point "
            "forecasts: leave loss='mse' with quantiles"
        )
    if est.strategy == "seq2seq" and est.windowing != "sliding":
        raise ValueError("strategy='seq2seq' needs windowing='sliding' (a decoder per window)")
    if est.strategy == "seq2seq" and est.quantiles is not None:
        raise ValueError("strategy='seq2seq' has a point decoder: quantiles must be None")
    if est.context_length % est.patch_length:
        raise ValueError(
            f"context_length={est.context_length} must be a multiple of "
            f"patch_length={est.patch_length} (the encoder reads whole patches)"
        )
    _check_dct(est)
    if est.patch_length > 1 and est.windowing != "sliding":
        raise ValueError(
            f"patch_length={est.patch_length} needs context windows: use windowing='sliding'"
        )


def _check_dct(est: Any) -> None:
    """Check the temporal DCT options, channel mixing and the velocity term."""
    if est.dct_input is not None:
        if est.windowing != "sliding" or est.patch_length > 1:
            raise ValueError(
                f"dct_input={est.dct_input} reads context windows as coefficients: it needs "
                "windowing='sliding' and patch_length=1"
            )
        if est.dct_input > est.context_length + est.horizon:
            raise ValueError(
                f"dct_input={est.dct_input} exceeds the {est.context_length + est.horizon} "
                "steps of a window padded over the horizon (context_length + horizon)"
            )
    if est.dct_output is not None:
        if est.strategy != "direct":
            raise ValueError(f"dct_output needs strategy='direct', got {est.strategy!r}")
        if est.dct_output > est.horizon:
            raise ValueError(
                f"dct_output={est.dct_output} exceeds horizon={est.horizon}: a DCT of "
                f"{est.horizon} steps has at most {est.horizon} coefficients"
            )
    skipless = est.linear_skip is False or est.target_transform is not None
    if est.channel_mixing and (skipless or est.windowing != "sliding"):
        raise ValueError(
            "channel_mixing mixes the linear skip path: it needs linear_skip (True or 'auto'), "
            "windowing='sliding' and no target_transform"
        )
    if est.velocity_weight > 0 and (est.quantiles is not None or est.target_transform):
        raise ValueError(
            f"velocity_weight={est.velocity_weight} adds a loss of step changes to a point "
            "loss of values: not with quantiles or target_transform='difference'"
        )
