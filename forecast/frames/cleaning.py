"""One series frame made clean: fitted time zone, known columns, regular grid, NaN policy.

The steps the estimator base runs on every frame it is given (to ``fit``, as ``history`` or
as the data of ``predict_origins``), each returning a new frame and raising with the series,
column and timestamp at fault (the checks are those of :mod:`forecast.frames.validation`).
"""

from __future__ import annotations

from typing import cast

import pandas as pd

from forecast.frames import validation
from forecast.frames.plausibility import check_plausible, check_small
from forecast.frames.timezones import check_wall_clock


def in_zone(frame: pd.DataFrame, zone: str | None, key: object, what: str) -> pd.DataFrame:
    """Return ``frame`` with its index in the fitted time zone ``zone`` (new frame if converted)."""
    index = validation.align_tz(frame.index, zone, key, what)
    return frame if index is frame.index else frame.set_axis(index)


def check_local_clock(index: pd.Index, zone: str | None, key: object, what: str) -> None:
    """Refuse naive ``index`` stamps that are not one instant in the model's local ``zone``.

    A model fitted on naive timestamps with a ``timezone`` reads them as local times there
    (:func:`forecast.frames.timezones.localize_naive`'s rule); this names the first one that
    the zone skips or repeats, in the data and in the steps of a forecast alike. Aware
    indexes and models without a zone pass.
    """
    if zone and isinstance(index, pd.DatetimeIndex) and index.tz is None:
        check_wall_clock(index, str(zone), f"{validation._where(key)}{what}")


def target_columns(frame: pd.DataFrame, covariates: list[str]) -> list[str]:
    """Return the columns of ``frame`` that are not ``covariates``: the targets of a fit.

    Raises
    ------
    ValueError
        If every column is a covariate.
    """
    targets = [c for c in frame.columns if c not in covariates]
    if not targets:
        raise ValueError(
            f"X has no target column: every column of {list(frame.columns)} is declared a covariate"
        )
    return targets


def conform(
    frame: pd.DataFrame,
    key: object,
    targets: list[str],
    covariates: list[str],
    freq: pd.offsets.BaseOffset | None,
    what: str,
    fill_gaps: bool,
) -> tuple[pd.DataFrame, pd.DateOffset]:
    """Check index, columns, dtypes and frequency; put the frame on a regular grid.

    Parameters
    ----------
    frame : DataFrame
        One series.
    key : object
        Its series id (None for a single series), named in messages.
    targets, covariates : list of str
        The columns kept, in this order; any other column raises.
    freq : DateOffset or None
        Frequency the frame must have (that of the other series or of the fitted data).
    what : str
        Name of the argument in messages (``"X"``, ``"history"``, ``"data"``).
    fill_gaps : bool
        Insert missing timestamps as NaN rows instead of raising.

    Returns
    -------
    frame : DataFrame
        ``targets + covariates`` as floats on a regular grid.
    freq : DateOffset
        The frame's frequency.
    """
    index = validation.check_index(frame, key)
    validation.check_columns(frame, targets + covariates, key, what)
    validation.check_no_extra_columns(frame, targets, covariates, key, what)
    frame = frame[targets + covariates]
    validation.check_numeric(frame, targets + covariates, key)
    if freq is not None and len(index) < 3:  # too few stamps to show a frequency: the known
        this_freq = cast(pd.DateOffset, freq)  # is checked; the length check names the rows needed
    else:
        this_freq = validation.infer_freq(index, key)
    if freq is not None and this_freq != freq:
        raise ValueError(
            f"{validation._where(key)}frequency {this_freq.freqstr} differs from "
            f"{freq.freqstr} of the "
            "other series / of the fitted data"
        )
    frame = validation.check_regular(frame, this_freq, fill_gaps, key)
    return frame.astype(float), this_freq


def apply_nan_policy(
    frame: pd.DataFrame, key: object, targets: list[str], covariates: list[str], policy: str
) -> pd.DataFrame:
    """Raise on NaN/inf in targets and covariates, or interpolate them in time (``policy``).

    Values beyond ``MAX_MAGNITUDE`` (1e150) are refused too: scaling them overflows to NaN;
    so are targets of subnormal magnitude, and a target value far outside its column's own
    range warns (:mod:`forecast.frames.plausibility`).
    """
    frame = validation.check_finite(frame, targets, policy, key, "target")
    validation.check_magnitude(frame, targets, key, "target")
    check_small(frame, targets, key, "target")
    check_plausible(frame, targets, key, "target")
    if covariates:
        frame = validation.check_finite(frame, covariates, policy, key, "covariate")
        validation.check_magnitude(frame, covariates, key, "covariate")
    return frame
