"""A small BVH (Biovision Hierarchy) reader: skeleton, frame time and motion channels.

BVH libraries on PyPI were considered: ``bvhio`` pins exact versions of ``pyglm`` and
``spatial-transform``, reads only uncompressed paths and turns every keyframe into
quaternion transforms in Python loops, losing the raw channel values; ``bvh`` has not
been released since 2017. Reading the format itself is short, exact and vectorised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from forecast.datasets._localtime import open_text

__all__ = ["BvhData", "BvhJoint", "read_bvh"]

_VALID_CHANNELS = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"}


@dataclass
class BvhJoint:
    """One joint of a BVH skeleton.

    Attributes
    ----------
    name : str
        Joint name (``ROOT``/``JOINT`` label).
    parent : str or None
        Name of the parent joint (None for the root).
    offset : tuple of float
        Position relative to the parent in the rest pose (file units).
    channels : list of str
        Channel names in file order, e.g. ``["Zrotation", "Yrotation", "Xrotation"]``.
    end_site : tuple of float or None
        Offset of the ``End Site`` below this joint, if any.
    """

    name: str
    parent: str | None
    offset: tuple[float, float, float]
    channels: list[str] = field(default_factory=list)
    end_site: tuple[float, float, float] | None = None


@dataclass
class BvhData:
    """Contents of a BVH file.

    Attributes
    ----------
    joints : list of BvhJoint
        The skeleton in file (depth-first) order.
    frame_time : float
        Seconds per frame, as written in the header.
    motion : DataFrame
        One row per frame, one column ``<joint>_<channel>`` per channel (degrees for
        rotations, file units for positions), indexed by a regular ``DatetimeIndex``
        named ``time`` with step ``frame_time`` starting at the Unix epoch.
    """

    joints: list[BvhJoint]
    frame_time: float
    motion: pd.DataFrame

    @property
    def frame_rate(self) -> float:
        """Frames per second, ``1 / frame_time``."""
        return 1.0 / self.frame_time

    @property
    def channels(self) -> list[str]:
        """Column names ``<joint>_<channel>`` in file order."""
        return [f"{j.name}_{c}" for j in self.joints for c in j.channels]


class _Tokens:
    def __init__(self, tokens: list[str], name: str):
        self.tokens, self.pos, self.name = tokens, 0, name

    def next(self, expected: str | None = None) -> str:
        if self.pos >= len(self.tokens):
            raise ValueError(
                f"{self.name}: unexpected end of HIERARCHY (expected {expected or 'more'})"
            )
        token = self.tokens[self.pos]
        self.pos += 1
        if expected is not None and token != expected:
            raise ValueError(f"{self.name}: expected {expected!r} in HIERARCHY, found {token!r}")
        return token

    def floats(self, n: int) -> tuple[float, ...]:
        words = [self.next() for _ in range(n)]
        try:
            return tuple(float(w) for w in words)
        except ValueError as err:
            raise ValueError(f"{self.name}: expected {n} numbers, found {words}") from err


def _parse_joint(tok: _Tokens, name: str, parent: str | None, out: list[BvhJoint]) -> None:
    tok.next("{")
    tok.next("OFFSET")
    joint = BvhJoint(name=name, parent=parent, offset=tok.floats(3))  # type: ignore[arg-type]
    out.append(joint)
    while True:
        word = tok.next()
        if word == "CHANNELS":
            count = int(tok.next())
            joint.channels = [tok.next() for _ in range(count)]
            bad = [c for c in joint.channels if c not in _VALID_CHANNELS]
            if bad:
                raise ValueError(f"{tok.name}: joint {name!r} has unknown channel(s) {bad}")
        elif word == "JOINT":
            _parse_joint(tok, tok.next(), name, out)
        elif word == "End":
            tok.next("Site")
            tok.next("{")
            tok.next("OFFSET")
            joint.end_site = tok.floats(3)  # type: ignore[assignment]
            tok.next("}")
        elif word == "}":
            return
        else:
            raise ValueError(f"{tok.name}: unexpected {word!r} inside joint {name!r}")


def read_bvh(path: str | Path) -> BvhData:
    """Read a BVH file (gzip or not): hierarchy, frame time and motion channels.

    Parameters
    ----------
    path : str or Path
        The ``.bvh`` or ``.bvh.gz`` file.

    Returns
    -------
    BvhData
        ``joints`` (names, parents, offsets, channels, end sites), ``frame_time`` and
        ``motion``, a DataFrame with columns ``<joint>_<channel>``, e.g.
        ``Hips_Xposition`` or ``LeftKnee_Zrotation``, indexed by time at the file's rate.

    Raises
    ------
    ValueError
        On a malformed hierarchy, or when the number of motion values differs from
        ``Frames x channels`` in the header.

    Examples
    --------
    >>> bvh = read_bvh("131_01.bvh.gz")  # doctest: +SKIP
    >>> bvh.motion.shape, round(bvh.frame_rate)  # doctest: +SKIP
    ((994, 96), 120)
    """
    path = Path(path)
    with open_text(path) as handle:
        text = handle.read()
    head, sep, motion_text = text.partition("MOTION")
    if not sep:
        raise ValueError(f"{path.name}: no MOTION section")
    tok = _Tokens(head.split(), path.name)
    tok.next("HIERARCHY")
    tok.next("ROOT")
    joints: list[BvhJoint] = []
    _parse_joint(tok, tok.next(), None, joints)

    lines = motion_text.lstrip().split("\n", 2)
    if (
        len(lines) < 2
        or not lines[0].startswith("Frames:")
        or not lines[1].startswith("Frame Time:")
    ):
        raise ValueError(f"{path.name}: MOTION must start with 'Frames: N' and 'Frame Time: T'")
    n_frames = int(lines[0].split(":", 1)[1])
    frame_time = float(lines[1].split(":", 1)[1])
    if frame_time <= 0:
        raise ValueError(f"{path.name}: Frame Time must be positive, got {frame_time}")
    names = [f"{j.name}_{c}" for j in joints for c in j.channels]
    values = np.array(lines[2].split() if len(lines) > 2 else [], dtype=float)
    if values.size != n_frames * len(names):
        raise ValueError(
            f"{path.name}: header says {n_frames} frames x {len(names)} channels = "
            f"{n_frames * len(names)} values, found {values.size}"
        )
    index = pd.date_range(
        "1970-01-01", periods=n_frames, freq=pd.Timedelta(seconds=frame_time), name="time"
    )
    motion = pd.DataFrame(values.reshape(n_frames, len(names)), index=index, columns=names)
    motion.attrs = {"frame_time": frame_time, "file": path.name}
    return BvhData(joints=joints, frame_time=frame_time, motion=motion)
