"""Reader for Open Power System Data ``time_series_*_singleindex.csv`` files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from forecast.datasets._localtime import open_text, to_regular
from forecast.datasets.gaps import gap_summary

__all__ = ["read_opsd"]

LOAD_VARIABLES = ("load_actual_entsoe_transparency", "load_forecast_entsoe_transparency")


def read_opsd(
    path: str | Path,
    countries: str | Iterable[str] | None = None,
    variables: Iterable[str] = LOAD_VARIABLES,
) -> pd.DataFrame:
    """Read selected countries and variables of an OPSD single-index time-series file.

    Parameters
    ----------
    path : str or Path
        ``time_series_15min_singleindex.csv``, ``..._30min_...`` or ``..._60min_...``
        (gzip or not). Only the requested columns are parsed, so the full 60-minute file
        (about 125 MB, 300 columns) reads in a few seconds.
    countries : str or list of str, optional
        Area prefixes as used by OPSD (``"DE"``, ``"DE_LU"``, ``"GB_GBN"``, ...); matched
        exactly, so ``"DE"`` does not pick ``DE_LU_...``. Default: every area that has one
        of ``variables``.
    variables : list of str
        Column suffixes to keep, by default actual load and the TSO day-ahead forecast from
        the ENTSO-E Transparency Platform (MW).

    Returns
    -------
    DataFrame
        Indexed by ``utc_timestamp`` as a regular tz-aware UTC ``DatetimeIndex`` named
        ``time``; columns keep OPSD's names ``<area>_<variable>`` in file order. Missing
        values stay NaN; ``df.attrs`` holds ``source`` and ``gaps``.

    Raises
    ------
    ValueError
        If a requested country has none of the variables (the message lists those that do).
    """
    path = Path(path)
    wanted = (
        {countries} if isinstance(countries, str) else None if countries is None else set(countries)
    )
    variables = tuple(variables)
    with open_text(path) as handle:
        header = list(pd.read_csv(handle, nrows=0).columns)
    if "utc_timestamp" not in header:
        raise ValueError(f"{path.name}: no 'utc_timestamp' column; found {header[:5]} ...")
    available: dict[str, list[str]] = {}
    for column in header:
        for var in variables:
            if column.endswith("_" + var):
                available.setdefault(column[: -len(var) - 1], []).append(column)
    if wanted is not None:
        unknown = sorted(wanted - set(available))
        if unknown:
            raise ValueError(
                f"{path.name}: no column {variables} for {unknown}; "
                f"areas with them: {sorted(available)}"
            )
    keep = {c for area, cols in available.items() if wanted is None or area in wanted for c in cols}
    if not keep:
        raise ValueError(f"{path.name}: no column ends with any of {variables}")
    columns = [c for c in header if c in keep]
    with open_text(path) as handle:
        raw = pd.read_csv(handle, usecols=["utc_timestamp", *columns])
    index = pd.DatetimeIndex(pd.to_datetime(raw.pop("utc_timestamp"), utc=True), name="time")
    frame = raw[columns].astype(float).set_axis(index)
    step = pd.Series(index[1:] - index[:-1]).mode()
    if step.empty:
        raise ValueError(f"{path.name}: need at least 2 rows to tell the resolution")
    frame = to_regular(frame, pd.Timedelta(step.iloc[0]), f"read_opsd({path.name})")
    frame.attrs = {
        "source": "Open Power System Data, time series",
        "unit": "MW",
        "gaps": gap_summary(frame),
    }
    return frame
