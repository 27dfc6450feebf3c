r"""A JSON body's shape from its bytes as they arrive: nesting depth, containers, top level.

:class:`StructureScan` is fed the body chunk by chunk, before anything is buffered or parsed,
and raises :class:`~forecast.serve.payload.PayloadError` as soon as the body nests deeper than
its limit, holds more objects and lists than its limit, or is a list at the top (a forecast
request is an object). A body nested 100,000 deep is refused without recursion, and a 60 MB
body of ``[]`` without building 20 million lists. The scan is vectorised (numpy) and keeps no
more than one chunk: strings are told apart from structure by their unescaped quotes; escape
pairs (``\\``, ``\"``) are blanked first, left to right within each run of backslashes as a
JSON reader pairs them, with an odd run's escape carried into the next chunk.

For a valid JSON text the depth and counts are exact; for an invalid one they are exact up to
its first error, where the parser stops anyway (so the parser never nests deeper than the
scan saw).
"""

from __future__ import annotations

import numpy as np

from forecast.serve.payload import PayloadError, request_shape

_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPENS, _CLOSES = (ord("["), ord("{")), (ord("]"), ord("}"))
_WHITESPACE = b" \t\r\n"  # JSON's four whitespace bytes
_BLANK = ord("_")  # stands in for an escaped byte: neither a quote nor a bracket


class StructureScan:
    """Depth, container count and top-level kind of a JSON text, fed in chunks.

    Parameters
    ----------
    max_depth : int
        Most levels of nesting allowed (a forecast request needs 3: the body, ``history``,
        a row).
    max_containers : int
        Most objects and lists allowed in the whole body (a request in rows has one per row).

    Attributes
    ----------
    depth : int
        Nesting depth after the bytes fed so far.
    max_seen : int
        Deepest nesting seen so far.
    containers : int
        Objects and lists opened so far.
    size : int
        Bytes fed so far.
    """

    def __init__(self, max_depth: int, max_containers: int) -> None:
        self.max_depth = max_depth
        self.max_containers = max_containers
        self.depth = 0
        self.max_seen = 0
        self.containers = 0
        self.size = 0
        self._quotes = 0  # unescaped quotes so far: odd inside a string
        self._escaped = False  # the next chunk's first byte is escaped (an odd backslash run)
        self._started = False  # the first byte that is not whitespace has been seen

    def feed(self, chunk: bytes) -> None:
        """Scan the next bytes of the body.

        Parameters
        ----------
        chunk : bytes
            The bytes after those fed so far.

        Raises
        ------
        PayloadError
            The body is a list, nests deeper than ``max_depth`` or holds more than
            ``max_containers`` objects and lists; the message gives the byte offset.
        """
        if not chunk:
            return
        start, self.size = self.size, self.size + len(chunk)
        if not self._started:
            self._check_top_level(chunk, start)
        data = bytearray(chunk)
        if self._escaped:
            data[0] = _BLANK
        run = len(data) - len(data.rstrip(b"\\"))  # trailing backslashes: pairs, maybe one left
        self._escaped = run % 2 == 1
        # blank escape pairs (left to right, as a JSON reader pairs them); unpaired
        # backslashes only stand before the chunk's end or outside strings (invalid JSON)
        data = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
        self._count(np.frombuffer(data, dtype=np.uint8), start)

    def _check_top_level(self, chunk: bytes, start: int) -> None:
        text = chunk.lstrip(_WHITESPACE)
        if not text:
            return
        self._started = True
        if text[0] == _OPENS[0]:  # a list: the one top level that can be huge and is never ours
            raise PayloadError(f"the request body must be {request_shape()}, got a list")

    def _count(self, data: np.ndarray, start: int) -> None:
        quote = data == _QUOTE
        # quotes before each byte (a bracket is not a quote, so its own byte adds nothing)
        inside = (np.cumsum(quote, dtype=np.int64) + self._quotes) % 2 == 1
        self._quotes = (self._quotes + int(np.count_nonzero(quote))) % 2
        opens = ((data == _OPENS[0]) | (data == _OPENS[1])) & ~inside
        closes = ((data == _CLOSES[0]) | (data == _CLOSES[1])) & ~inside
        if not (opens.any() or closes.any()):
            return
        depth = np.cumsum(opens.astype(np.int64) - closes, dtype=np.int64) + self.depth
        deepest = int(depth.max())
        if deepest > self.max_depth:
            at = start + int(np.argmax(depth > self.max_depth))
            raise PayloadError(
                f"the request body nests deeper than {self.max_depth} levels (at byte {at}); "
                "a forecast request needs 3 (the body, 'history', a row)"
            )
        self.containers += int(np.count_nonzero(opens))
        if self.containers > self.max_containers:
            at = start + int(np.flatnonzero(opens)[-(self.containers - self.max_containers)])
            raise PayloadError(
                f"the request body holds more than {self.max_containers:,} objects and lists "
                f"(at byte {at}): send long histories as columns, "
                '{"timestamp": [...], "load": [...]}'
            )
        self.max_seen = max(self.max_seen, deepest)
        self.depth = int(depth[-1])
