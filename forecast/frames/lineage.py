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

The lineage keeps the fit record and the ``KEEP_UPDATES`` most recent update records
(:func:`appended`); older update records fold into one ``"earlier"`` record of totals (its
``updates``, ``rows``, first ``start``, last ``end``), so a model updated every hour for
years keeps a lineage (and a ``meta.json``) of bounded size, and ``n_updates_`` still counts
every update. :func:`check_state` is the load's check of the three attributes, and
:func:`summary` the form a saved folder's manifest lists, which must agree with them.
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

KEEP_UPDATES = 500
"""Update records ``lineage_`` keeps (the most recent); older ones fold into one record."""

EARLIER = "earlier"
"""``kind`` (and ``rule``) of the record that totals the update records no longer kept."""

_KINDS = ("fit", "update", EARLIER)
_SUMMARY_KEYS = ("kind", "rule", "start", "end", "rows", "fingerprint")

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


def appended(
    lineage: list[dict[str, Any]], new: dict[str, Any], keep: int | None = None
) -> list[dict[str, Any]]:
    """Return ``lineage`` with ``new`` appended, its oldest update records folded past ``keep``.

    Parameters
    ----------
    lineage : list of dict
        The fit record, then at most one ``"earlier"`` record, then update records.
    new : dict
        The record of the latest update.
    keep : int, optional
        Update records kept besides the fit and ``"earlier"`` records (default
        ``KEEP_UPDATES``).

    Returns
    -------
    list of dict
        A new list (``lineage`` is not changed).
    """
    keep = KEEP_UPDATES if keep is None else keep
    head = [r for r in lineage if r.get("kind") == "fit"][:1]
    earlier = [r for r in lineage if r.get("kind") == EARLIER][:1]
    updates = [*(r for r in lineage if r.get("kind") == "update"), new]
    if len(updates) <= keep:
        return [*head, *earlier, *updates]
    fold, updates = updates[: len(updates) - keep], updates[len(updates) - keep :]
    before = earlier[0] if earlier else None
    starts = [r.get("start") for r in ([before] if before else []) + fold if r.get("start")]
    ends_ = [r.get("end") for r in ([before] if before else []) + fold if r.get("end")]
    total = {
        "kind": EARLIER,
        "rule": EARLIER,
        "start": starts[0] if starts else None,
        "end": ends_[-1] if ends_ else None,
        "rows": int(sum(int(r.get("rows") or 0) for r in ([before] if before else []) + fold)),
        "fingerprint": None,
        "at": fold[-1].get("at"),
        "updates": (int(before["updates"]) if before else 0) + len(fold),
    }
    return [*head, total, *updates]


def summary(lineage: list[dict[str, Any]], n_updates: int, through: Any) -> dict[str, Any]:
    """Return the lineage as a saved folder's manifest lists it (strict JSON values)."""
    records = []
    for r in lineage:
        entry = {k: r.get(k) for k in _SUMMARY_KEYS}
        if r.get("kind") == EARLIER:
            entry["updates"] = r.get("updates")
        records.append(entry)
    return {
        "n_updates": int(n_updates),
        "updated_through": (
            {str(k): str(v) for k, v in through.items()}
            if isinstance(through, dict)
            else str(through)
        ),
        "records": records,
    }


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def check_state(lineage: object, n_updates: object, through: object) -> None:
    """Refuse ``lineage_``, ``n_updates_`` and ``updated_through_`` that do not fit together.

    Run by ``load`` on every folder that has them (all three, or none: a folder saved before
    lineage): the records are dicts of the known kinds (the fit first, then at most one
    ``"earlier"`` record, then updates) with counts of rows, ``n_updates_`` counts the
    updates they record, and ``updated_through_`` (a timestamp, or one per series) is where
    the last record ends.

    Raises
    ------
    ValueError
        One line naming the attribute that is wrong.
    """
    if not isinstance(lineage, list) or not lineage:
        raise ValueError(f"lineage_ must be a non-empty list of records, got {lineage!r:.80}")
    for i, r in enumerate(lineage):
        ok = isinstance(r, dict) and r.get("kind") in _KINDS and isinstance(r.get("rule"), str)
        ok = ok and _count(r.get("rows"))
        ok = ok and all(r.get(k) is None or isinstance(r.get(k), str) for k in ("start", "end"))
        if not ok:
            raise ValueError(f"lineage_[{i}] is not a lineage record: {r!r:.120}")
    kinds = [r["kind"] for r in lineage]
    earlier = kinds.count(EARLIER)
    if (
        kinds[0] != "fit"
        or kinds.count("fit") != 1
        or earlier > 1
        or (earlier and kinds[1] != EARLIER)
    ):
        raise ValueError(
            f"lineage_ must be the fit record, at most one {EARLIER!r} record, then updates; "
            f"got the kinds {kinds[:5]}{'...' if len(kinds) > 5 else ''}"
        )
    folded = lineage[1].get("updates") if earlier else 0
    if not _count(folded) or (earlier and not folded):
        raise ValueError(f"lineage_[1]: 'updates' must be a count > 0, got {folded!r}")
    recorded = kinds.count("update") + int(folded)
    if not _count(n_updates) or n_updates != recorded:
        raise ValueError(
            f"n_updates_={n_updates!r} does not count the {recorded} update(s) lineage_ records"
        )
    stamps = list(through.values()) if isinstance(through, dict) else [through]
    if not stamps or not all(isinstance(t, pd.Timestamp) and not pd.isna(t) for t in stamps):
        raise ValueError(
            f"updated_through_ must be a timestamp (or one per series), got {through!r:.80}"
        )
    end = lineage[-1].get("end")
    if end is not None and end not in {str(t) for t in stamps}:
        raise ValueError(
            f"updated_through_={through!r} does not end where the last lineage record ends ({end})"
        )
