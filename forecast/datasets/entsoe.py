"""Reader for ENTSO-E Transparency Platform "Total Load - Day Ahead / Actual" CSV exports."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from forecast.datasets._localtime import local_to_utc, open_text, parse_wall, to_regular
from forecast.datasets.gaps import gap_summary

__all__ = ["read_entsoe", "MISSING_MARKERS"]

#: Cell values that mean "no value" in ENTSO-E exports (compared case-insensitively).
MISSING_MARKERS = ("", "n/a", "-", "n/e")

_ZONE = re.compile(r"\b([A-Z]{3})\|([^\s|\"]+)\s*$")
_HEADER_TZ = (("UTC", "UTC"), ("CET", "Europe/Berlin"))


def _as_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if re.search(r"\.csv(\.gz)?$", q.name))
            if not found:
                raise FileNotFoundError(f"no .csv or .csv.gz file in folder {p}")
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"ENTSO-E file {p} does not exist")
    if not out:
        raise ValueError("read_entsoe needs at least one path")
    return out


def _to_number(cells: pd.Series, column: str, path: Path) -> np.ndarray:
    if pd.api.types.is_numeric_dtype(cells.dtype):
        return cells.to_numpy(dtype=float)
    text = cells.astype("string").str.strip()
    text = text.mask(text.str.lower().isin(MISSING_MARKERS))
    values = pd.to_numeric(text.str.replace(",", "", regex=False), errors="coerce")
    bad = values.isna() & text.notna()
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        raise ValueError(
            f"{path.name}: column {column!r} row {row + 2} holds {cells.iloc[row]!r}, which is "
            f"neither a number nor a missing marker {MISSING_MARKERS}"
        )
    return values.to_numpy(dtype=float)


def _interval_bounds(cells: pd.Series) -> tuple[pd.DatetimeIndex, pd.DatetimeIndex]:
    """Wall times of ``'dd.mm.yyyy HH:MM - dd.mm.yyyy HH:MM'``: all starts, the first ends."""
    fmt = "%d.%m.%Y %H:%M"
    if cells.str.len().eq(35).all() and cells.str[16:19].eq(" - ").all():  # fast path
        first, second = cells.str[:16], cells.str[19:]
    else:
        parts = cells.str.replace(r"\s*\([A-Z/+0-9]+\)\s*$", "", regex=True).str.split(" - ")
        first, second = parts.str[0].str.strip(), parts.str[1].str.strip()
    # the end only serves to find the resolution: a sample of rows is enough
    return parse_wall(first, fmt), parse_wall(second.iloc[:500], fmt)


def _read_one(path: Path, timezone: str | None) -> tuple[pd.DataFrame, pd.Timedelta, list[str]]:
    with open_text(path) as handle:
        head = pd.read_csv(handle, nrows=0)
        handle.seek(0)
        time_col = head.columns[0]
        markers = [m for base in MISSING_MARKERS for m in {base, base.upper(), base.title()}]
        raw = pd.read_csv(
            handle,
            dtype={c: str for c in head.columns[:1]},
            keep_default_na=False,
            na_values=markers,
        )
    tz = timezone
    if tz is None:
        tz = next((zone for key, zone in _HEADER_TZ if key in time_col), None)
    if tz is None:
        raise ValueError(
            f"{path.name}: cannot tell the time zone from the time column {time_col!r}; "
            "pass timezone= (e.g. 'Europe/Berlin' for CET/CEST)"
        )
    start, end = _interval_bounds(raw[time_col])
    if start.hasnans:
        row = int(np.argmax(start.isna()))
        raise ValueError(
            f"{path.name}: row {row + 2} of column {time_col!r} is {raw[time_col].iloc[row]!r}, "
            "expected an interval 'dd.mm.yyyy HH:MM - dd.mm.yyyy HH:MM'"
        )
    step = pd.Series(end - start[: len(end)]).mode()
    if step.empty or step.iloc[0] <= pd.Timedelta(0):
        step = pd.Series(start[1:] - start[:-1]).mode()
    freq = pd.Timedelta(step.iloc[0])

    columns: dict[str, np.ndarray] = {}
    zones: set[str] = set()
    for column in raw.columns[1:]:
        if column.strip().lower() == "area":
            found = (_ZONE.search(v) for v in raw[column].unique() if isinstance(v, str))
            zones.update(m.group(2) for m in found if m)
            continue
        lower = column.lower()
        name = "forecast" if "forecast" in lower else "actual" if "actual" in lower else None
        if name is None:
            continue
        if name in columns:
            raise ValueError(f"{path.name}: two columns look like {name!r}: {list(raw.columns)}")
        columns[name] = _to_number(raw[column], column, path)
        match = _ZONE.search(column)
        if match:
            zones.add(match.group(2))
    if not columns:
        raise ValueError(
            f"{path.name}: no 'Actual Total Load' or 'Day-ahead Total Load Forecast' column in "
            f"{list(raw.columns)}"
        )
    utc, nonexistent = local_to_utc(start, tz)
    frame = pd.DataFrame(columns, index=utc)
    dropped = frame[nonexistent]
    if dropped.notna().any().any():
        warnings.warn(
            f"{path.name}: {int(dropped.notna().any(axis=1).sum())} row(s) in the skipped DST hour "
            f"carry values; they were dropped (first at local {start[nonexistent][0]})",
            stacklevel=3,
        )
    frame = frame[~nonexistent]
    frame.index.name = "time"
    return frame, freq, sorted(zones)


def _zone_periods(parts: list[tuple[Path, pd.DataFrame, list[str]]]) -> list[dict[str, Any]]:
    periods: list[dict[str, Any]] = []
    for path, frame, zones in parts:
        zone = "+".join(zones) if zones else None
        has_value = frame.notna().any(axis=1).to_numpy()
        idx = frame.index[has_value] if has_value.any() else frame.index
        start, end = idx.min(), idx.max()
        if periods and periods[-1]["zone"] == zone:
            periods[-1]["end"] = max(pd.Timestamp(periods[-1]["end"]), end).isoformat()
            periods[-1]["files"].append(path.name)
        else:
            periods.append(
                {
                    "zone": zone,
                    "start": start.isoformat(),
                    "end": end.isoformat(),
                    "files": [path.name],
                }
            )
    return periods


def read_entsoe(
    paths: str | Path | Iterable[str | Path], timezone: str | None = None
) -> pd.DataFrame:
    """Read ENTSO-E "Total Load - Day Ahead / Actual" exports into one regular UTC frame.

    Parameters
    ----------
    paths : path, folder or list of paths
        One or several yearly CSV exports, gzip-compressed or not (detected by content); a
        folder means every ``*.csv``/``*.csv.gz`` in it. Resolution (15, 30 or 60 minutes)
        is read from the interval strings and must agree across files.
    timezone : str, optional
        Zone of the interval strings. By default taken from the time column header:
        ``Time (CET/CEST)`` means ``Europe/Berlin``, ``Time (UTC)`` means UTC.

    Returns
    -------
    DataFrame
        Indexed by the interval start as a tz-aware UTC ``DatetimeIndex`` named ``time``
        with regular frequency, columns ``actual`` and ``forecast`` in MW (those present).
        Missing values (``N/A``, ``-``, ``n/e``, empty) and steps absent from the files stay
        NaN. The rows of the skipped spring hour are dropped; the repeated autumn hour is
        told apart by row order (first occurrence = summer time). ``df.attrs`` holds
        ``zones`` (one entry per period of constant bidding zone, with the first/last
        timestamp that has a value and the files), ``gaps`` (as :func:`find_gaps`),
        ``files``, ``source`` and ``unit``.

    Raises
    ------
    ValueError
        On unparsable cells (naming file, column and row), duplicated timestamps across
        files, or files of different resolution.

    Examples
    --------
    >>> df = read_entsoe("entsoe_de_load_15min/")  # doctest: +SKIP
    >>> df.attrs["zones"][0]["zone"]  # doctest: +SKIP
    'DE-AT-LU'
    """
    files = _as_paths(paths)
    parts, freqs = [], {}
    for path in files:
        frame, freq, zones = _read_one(path, timezone)
        parts.append((path, frame, zones))
        freqs[path.name] = freq
    if len(set(freqs.values())) > 1:
        raise ValueError(
            f"files have different resolutions: { {k: str(v) for k, v in freqs.items()} }"
        )
    parts.sort(key=lambda p: p[1].index.min())
    frame = pd.concat([p[1] for p in parts])
    columns = [c for c in ("actual", "forecast") if c in frame.columns]
    frame = to_regular(frame[columns], freqs[files[0].name], "read_entsoe")
    frame.attrs = {
        "source": "ENTSO-E Transparency Platform, Total Load - Day Ahead / Actual",
        "unit": "MW",
        "zones": _zone_periods(parts),
        "files": [p[0].name for p in parts],
        "gaps": gap_summary(frame),
    }
    return frame
