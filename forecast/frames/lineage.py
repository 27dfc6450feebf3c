"""What a fitted estimator has seen: lineage records and the continuity of new data.

A fit starts the lineage with one record; every ``update`` appends one. A record is a dict of
JSON values (so saved folders and MLflow runs carry it as it is)::

    {"kind": "fit" | "update", "rule": "fit" | "continue" | "extend" | "refit",
     "start": "2023-01-02 00:00:00+01:00", "end": "...", "rows": 168,
     "fingerprint": "<sha256 of the frame as given>", "at": "<UTC time of the call>"}

plus what the rule adds (``epochs`` run by a neural update, ``dropped`` / ``replaced`` rows,
``restart`` after a gap). :func:`continuity` is the one rule for new data: it must start one
step after the last timestamp seen; rows at or before it are an overlap, a missing step
before its first row is a gap, and both are refused unless ``on_overlap`` / ``on_gap`` say
how to treat them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pandas as pd

from forecast.frames.fingerprint import fingerprint
from forecast.frames.timeindex import _where

ON_OVERLAP = ("raise", "drop", "replace")
"""``raise``: refuse; ``drop``: ignore the rows already seen; ``replace``: learn them again
(revised actuals): the state and context before them are kept, they and the rows after are
the new data."""

ON_GAP = ("raise", "restart")
"""``raise``: refuse; ``restart``: the new rows alone are the model's context and state (the
rows before the gap are no longer read); they must be long enough for the model's history."""


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise a one-line ``ValueError``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def record(
    kind: str, rule: str, data: Any, frames: dict[Any, pd.DataFrame], **extra: Any
) -> dict[str, Any]:
    """Return the lineage record of ``data`` (as given), whose series are ``frames``.

    Parameters
    ----------
    kind : {"fit", "update"}
        The call.
    rule : str
        How the estimator learnt the rows: ``fit``, ``continue``, ``extend`` or ``refit``.
    data : DataFrame or dict of DataFrames
        The frame as the caller passed it (fingerprinted).
    frames : dict of DataFrames
        Its series, in the fitted time zone (their first and last timestamps are recorded).
    **extra
        JSON values the rule adds (``epochs``, ``dropped``, ...).

    Returns
    -------
    dict
    """
    rows = [f for f in frames.values() if len(f)]
    return {
        "kind": kind,
        "rule": rule,
        "start": str(min(f.index[0] for f in rows)) if rows else None,
        "end": str(max(f.index[-1] for f in rows)) if rows else None,
        "rows": int(sum(len(f) for f in frames.values())),
        "fingerprint": fingerprint(data),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        **extra,
    }


def ends(frames: dict[Any, pd.DataFrame], kind: str) -> pd.Timestamp | dict[Any, pd.Timestamp]:
    """``updated_through_`` of ``frames``: the last timestamp (one per series for several)."""
    last = {key: frame.index.max() for key, frame in frames.items()}
    return last[None] if kind == "frame" and list(last) == [None] else last


def through_of(through: pd.Timestamp | dict[Any, pd.Timestamp], key: object) -> pd.Timestamp:
    """Return the last timestamp seen of series ``key`` (``KeyError`` names an unknown series)."""
    if not isinstance(through, dict):
        return through
    if key not in through:
        raise KeyError(f"series {key!r} was not seen in fit (seen: {list(through)})")
    return through[key]


def continuity(
    frame: pd.DataFrame,
    through: pd.Timestamp,
    freq: pd.DateOffset,
    key: object,
    on_overlap: str,
    on_gap: str,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Return the rows of ``frame`` to learn under the rule, and what the rule did.

    Parameters
    ----------
    frame : DataFrame
        New data of one series, sorted, in the fitted time zone.
    through : Timestamp
        Last timestamp the estimator has seen of this series.
    freq : DateOffset
        The fitted step.
    key : object
        The series (None for a single frame), named in messages.
    on_overlap, on_gap : str
        One of ``ON_OVERLAP``, one of ``ON_GAP``.

    Returns
    -------
    frame : DataFrame
        The rows to learn from.
    notes : dict
        ``dropped`` or ``replaced`` (rows at or before ``through``), ``restart`` (True after a
        gap): the record's extras.

    Raises
    ------
    ValueError
        On an overlap or a gap the rule refuses, or when nothing new is left; the message
        names the timestamps.
    """
    where = _where(key)
    if not len(frame):
        raise ValueError(f"{where}update got no rows (updated_through_={through})")
    first, expected = frame.index[0], through + freq
    notes: dict[str, Any] = {}
    seen = frame.index <= through
    if seen.any():
        last_seen = frame.index[seen][-1]
        if on_overlap == "raise":
            raise ValueError(
                f"{where}update data overlaps the data seen: {int(seen.sum())} row(s) from "
                f"{first} to {last_seen} are at or before updated_through_={through}; pass "
                "on_overlap='drop' to ignore them or 'replace' to learn them again"
            )
        if on_overlap == "drop":
            frame = frame.loc[~seen]
            notes["dropped"] = int(seen.sum())
            if not len(frame):
                raise ValueError(
                    f"{where}update data ends at {last_seen}, at or before "
                    f"updated_through_={through}: nothing new to learn"
                )
        else:
            notes["replaced"] = int(seen.sum())
        return frame, notes
    if first > expected:
        if on_gap == "raise":
            raise ValueError(
                f"{where}update data starts at {first}, leaving a gap after "
                f"updated_through_={through} (next step {expected}); pass on_gap='restart' to "
                "continue from the new rows alone"
            )
        notes["restart"] = True
    return frame, notes
