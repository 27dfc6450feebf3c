r"""The body of ``POST /forecast``: capped while it streams in, then read as strict JSON.

:func:`read_body` checks, in this order, each refusal one line:

1. ``Content-Type``: absent, ``application/json`` or ``application/<name>+json``, with no
   charset but UTF-8; anything else is HTTP 415.
2. A declared ``Content-Length`` over :attr:`BodyLimits.max_bytes`: HTTP 413 before a byte is
   read.
3. While the body streams in: a running byte count (HTTP 413 past the cap, for a chunked body
   that declares no length) and :class:`~forecast.serve.scan.StructureScan` (HTTP 400 for a
   list at the top, nesting deeper than :attr:`BodyLimits.max_depth`, more objects and lists
   than :attr:`BodyLimits.max_containers`). A body refused here is read to its end (up to the
   cap) and dropped chunk by chunk, so the client gets the answer and the server keeps
   nothing of it.
4. Then the kept bytes: empty, not UTF-8 (the byte), not JSON (line and column), ``NaN`` or
   ``Infinity`` (not JSON), an integer of more than :data:`MAX_DIGITS` digits, a key twice in
   one object, a lone UTF-16 surrogate (``"\ud800"``): HTTP 400
   (:class:`~forecast.serve.payload.PayloadError`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from forecast.serve.payload import PayloadError
from forecast.serve.scan import StructureScan

MAX_DIGITS = 400  # float64 ends at 309 digits; more is never a measurement
_UTF8 = ("utf-8", "utf8")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the only way a surrogate gets in


@dataclass(frozen=True)
class BodyLimits:
    """Caps on a request body, checked before and while it is parsed.

    Attributes
    ----------
    max_bytes : int
        Most bytes in a body (64 MiB: years of hourly history of a few columns).
    max_depth : int
        Most levels of nesting (a request needs 3: the body, ``history``, a row).
    max_containers : int
        Most objects and lists in a body (2**20: a history of a million rows; longer ones
        are sent as columns, which need one list per column).
    """

    max_bytes: int = 64 << 20
    max_depth: int = 8
    max_containers: int = 1 << 20


def check_content_type(value: str | None) -> None:
    """Refuse a ``Content-Type`` that is not JSON in UTF-8 (HTTP 415); absent is JSON.

    Parameters
    ----------
    value : str or None
        The request's ``Content-Type`` header.

    Raises
    ------
    HTTPException
        Status 415, one line naming the type or charset.
    """
    if value is None or not value.strip():
        return
    media, *params = (part.strip() for part in value.split(";"))
    media = media.lower()
    if media != "application/json" and not (
        media.startswith("application/") and media.endswith("+json")
    ):
        raise HTTPException(
            415, f"Content-Type {_cut(value)!r} is not JSON: send the body as application/json"
        )
    for param in params:
        key, _, charset = param.partition("=")
        charset = charset.strip().strip('"').lower()
        if key.strip().lower() == "charset" and charset not in _UTF8:
            raise HTTPException(
                415, f"charset {_cut(charset)!r} is not UTF-8: send the JSON body as UTF-8"
            )


async def read_body(request: Request, limits: BodyLimits) -> Any:
    """Read the request body under ``limits`` and parse it as strict JSON.

    Parameters
    ----------
    request : Request
        The ``POST /forecast`` request.
    limits : BodyLimits
        The caps.

    Returns
    -------
    object
        The parsed JSON (an object, unless a scalar was sent: the payload check names it).

    Raises
    ------
    HTTPException
        413 (too large) or 415 (not JSON by its ``Content-Type``).
    PayloadError
        The body is empty, not UTF-8, not JSON, or breaks a cap on its shape.
    """
    refusal: Exception | None = None
    try:
        check_content_type(request.headers.get("content-type"))
    except HTTPException as err:
        refusal = err  # read the body to its end first, so that the client hears the answer
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_bytes:
        raise HTTPException(413, f"the request body is {declared} bytes, over {limits.max_bytes}")
    scan = StructureScan(limits.max_depth, limits.max_containers)
    buffer, size = bytearray(), 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limits.max_bytes:
            if refusal is not None:
                raise refusal
            raise HTTPException(413, f"the request body is over {limits.max_bytes} bytes")
        if refusal is not None:
            continue  # refused already: read on, keep nothing
        try:
            scan.feed(chunk)
        except PayloadError as err:
            refusal, buffer = err, bytearray()
            continue
        buffer += chunk
    if refusal is not None:
        raise refusal
    text = _decode(buffer)
    del buffer  # the text replaces it
    return parse_json(text)


def _decode(raw: bytearray) -> str:
    if not raw.strip():
        raise PayloadError("the request body is empty: send a JSON object with 'history'")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        byte = bytes(raw[err.start : err.start + 1])
        raise PayloadError(
            f"the request body is not UTF-8 text: byte {err.start} is {byte!r} ({err.reason})"
        ) from None


def parse_json(text: str) -> Any:
    """Parse ``text`` as strict JSON (RFC 8259), refusing what Python's reader lets through.

    Parameters
    ----------
    text : str
        The decoded body.

    Returns
    -------
    object

    Raises
    ------
    PayloadError
        Not JSON (line and column), ``NaN``/``Infinity``, an integer of more than
        :data:`MAX_DIGITS` digits, a key twice in one object, a lone UTF-16 surrogate.
    """
    try:
        value = json.loads(
            text,
            parse_constant=_constant,
            parse_int=_integer,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as err:
        raise PayloadError(
            f"the request body is not JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None
    if _SURROGATE_ESCAPE.search(text):  # rare: walk the parsed value only then
        _check_strings(value)
    return value


def _constant(name: str) -> Any:
    hint = "null for a missing value" if name == "NaN" else "a finite number"
    raise PayloadError(f"the request body holds {name}, which is not JSON: send {hint}")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise PayloadError(
            f"the request body holds an integer of {len(text.lstrip('-')):,} digits; "
            f"numbers have at most {MAX_DIGITS}"
        )
    return int(text)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        counts = Counter(key for key, _ in pairs)
        twice = next(key for key, n in counts.items() if n > 1)
        raise PayloadError(
            f"the request body has the key {_cut(twice)!r} twice in one object: which one holds?"
        )
    return obj


def _check_strings(value: Any) -> None:
    """Refuse a string (key or value) holding a lone surrogate: it is no character."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            shown = _cut(value.encode("utf-8", "backslashreplace").decode("utf-8"))
            raise PayloadError(
                f"the request body's string '{shown}' holds a lone UTF-16 surrogate at "
                f"character {err.start}: not text"
            ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key)
            _check_strings(item)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item)


def _cut(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."
