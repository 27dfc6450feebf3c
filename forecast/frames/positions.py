"""Columns of joint positions: ``<joint>_pos_x``, ``<joint>_pos_y``, ``<joint>_pos_z``.

The one rule for frames of 3-D positions (motion capture as positions, read by
:mod:`forecast.datasets.cmu_positions` and trained with ``loss="position"`` by the neural
forecasters): each joint has its three axes in consecutive columns, in the order x, y, z,
named ``<joint>_pos_<axis>``, so no angle column (``j3_x``) can pass for a position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["AXES", "check_position_columns"]

#: The axes of a position triple, in column order.
AXES = ("x", "y", "z")
_POSITION = re.compile(r"^(?P<joint>.+)_pos_(?P<axis>[xyz])$")
_ANGLE = re.compile(r"^(j\d+|root)_[xyz]$")


def check_position_columns(columns: Sequence[object], what: str = "the frame") -> list[str]:
    """Check that ``columns`` are joint positions in (x, y, z) triples; return the joints.

    Every joint must have its three axes in consecutive columns, in the order x, y, z,
    each named ``<joint>_pos_<axis>``.

    Parameters
    ----------
    columns : sequence
        Column names, in order.
    what : str
        How the error messages name the columns' owner.

    Returns
    -------
    list of str
        The joint of each triple (``"j3"`` for ``j3_pos_x``), in order.

    Raises
    ------
    ValueError
        Naming the first column that breaks the rule: exp-map angles where positions are
        expected (``j3_x``), a column that names no joint axis, a joint with an axis
        missing, out of order or given twice.
    """
    names = [str(c) for c in columns]
    if not names:
        raise ValueError(f"{what} has no column: positions come as <joint>_pos_x/y/z triples")
    angles = [n for n in names if _ANGLE.match(n)]
    if angles:
        raise ValueError(
            f"{what} has exp-map angle column {angles[0]!r} where joint positions are expected "
            f"({len(angles)} such column(s)); read the takes with positions=True "
            "(columns j<k>_pos_x/y/z, millimetres)"
        )
    joints: list[str] = []
    for start in range(0, len(names), 3):
        triple = names[start : start + 3]
        parsed = [_POSITION.match(n) for n in triple]
        for name, match in zip(triple, parsed, strict=False):
            if match is None:
                raise ValueError(
                    f"{what}: column {name!r} names no joint position (expected "
                    "'<joint>_pos_<x|y|z>')"
                )
        first = parsed[0]
        assert first is not None
        joint = first["joint"]
        expected = [f"{joint}_pos_{a}" for a in AXES]
        if triple != expected:
            missing = [e for e in expected if e not in names]
            wrong = next(
                (t for t, e in zip(triple, expected, strict=False) if t != e), expected[-1]
            )
            detail = f"axis column(s) {missing} missing" if missing else "axes out of order"
            raise ValueError(
                f"{what}: joint {joint!r} must have its columns {expected} in this order, "
                f"found {triple} ({detail}; column {wrong!r})"
            )
        if joint in joints:
            raise ValueError(f"{what}: joint {joint!r} appears twice (column {triple[0]!r})")
        joints.append(joint)
    return joints
