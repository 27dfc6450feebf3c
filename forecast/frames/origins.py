"""Forecast origins: the ``origins`` argument of ``predict_origins`` and each origin's view.

:func:`origins_per_series` reads the argument (a list of timestamps for every series, or one
list per series); :func:`origin_position` finds an origin in a series; :func:`origin_arrays`
cuts the arrays of a whole series down to what the forecast issued at an origin may see:
the history up to it (with a gap still open there filled from the past only) and the
future-known inputs of its horizon.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from forecast.frames import validation
from forecast.frames.causal_fill import CausalFill
from forecast.frames.series import SeriesArrays, SeriesEncoder


def origin_index(origins: object, zone: str | None) -> pd.DatetimeIndex:
    """Return ``origins`` (a list or DatetimeIndex of timestamps) in the fitted zone ``zone``."""
    if isinstance(origins, str | pd.Timestamp) or not hasattr(origins, "__len__"):
        raise TypeError(f"origins must be a list or DatetimeIndex of timestamps, got {origins!r}")
    if len(origins) == 0:
        raise ValueError("origins is empty: give at least one timestamp")
    try:
        index = pd.DatetimeIndex(origins)  # type: ignore[arg-type]  # unsized kinds raise, caught
    except (ValueError, TypeError) as err:
        raise ValueError(f"origins must be timestamps of the data: {err}") from err
    return validation.align_tz(index, zone, None, "origins")


def origins_per_series(
    origins: object, keys: list[Any], zone: str | None
) -> dict[object, pd.DatetimeIndex]:
    """Map each series key of ``keys`` to its origins (a list applies to every series).

    A dict gives each series its own origins; series it leaves out are not forecast, and a
    key that is not a series raises.
    """
    if not isinstance(origins, dict):
        index = origin_index(origins, zone)
        return {key: index for key in keys}
    unknown = [key for key in origins if key not in keys]
    if unknown:
        raise ValueError(
            f"origins names series {unknown} that are not in data (series: {list(keys)[:10]})"
        )
    if not origins:
        raise ValueError("origins is empty: give at least one series and timestamp")
    out: dict[object, pd.DatetimeIndex] = {}
    for key, times in origins.items():
        try:
            out[key] = origin_index(times, zone)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{validation._where(key)}{err}") from err
    return out


def origin_position(index: pd.Index, origin: pd.Timestamp, key: object) -> int:
    """Rows of ``index`` up to and including ``origin``, which must be one of its timestamps."""
    pos = int(index.searchsorted(origin, side="right"))
    if pos == 0 or index[pos - 1] != origin:
        raise ValueError(f"{validation._where(key)}origin {origin} is not a timestamp of the data")
    return pos


def origin_arrays(
    whole: SeriesArrays,
    pos: int,
    horizon: int,
    encoder: SeriesEncoder,
    causal: CausalFill | None = None,
) -> SeriesArrays:
    """Return what the forecast issued after the first ``pos`` rows may read (``horizon`` steps).

    Parameters
    ----------
    whole : SeriesArrays
        The whole series (history and actuals after the origin).
    pos : int
        Rows up to the origin.
    horizon : int
        Steps forecast.
    encoder : SeriesEncoder
        The estimator's conversion (frequency, future covariates, calendar).
    causal : CausalFill, optional
        Set when the series was interpolated: a gap still open at the origin is then
        forward-filled instead.

    Raises
    ------
    ValueError
        If declared future covariates end before the horizon of the origin.
    """
    y, past = whole.y[:pos], None if whole.past is None else whole.past[:pos]
    if causal is not None:
        y, past = causal.history(whole, pos, whole.index[pos - 1])
    fut = whole.future
    if fut is not None:
        if pos + horizon > len(fut):
            if encoder.future:
                raise ValueError(
                    f"{validation._where(whole.key)}future covariates end at "
                    f"{whole.index[-1]}, before "
                    f"the horizon of origin {whole.index[pos - 1]}"
                )
            index = pd.DatetimeIndex(  # stubs: DatetimeIndex.append gives an Index
                whole.index[:pos].append(
                    validation.future_index(whole.index[pos - 1], encoder.freq, horizon)
                )
            )
            fut = encoder.calendar(index)
        else:
            fut = fut[: pos + horizon]
    return SeriesArrays(key=whole.key, y=y, index=whole.index[:pos], past=past, future=fut)
