"""Call the service's ASGI app in this process, the body sent in chunks as a server would."""

from __future__ import annotations

import asyncio
import json

from forecast.serve.app import build_app
from forecast.serve.model import ServedModel


class Answer:
    """One answer: status, parsed JSON body, and how many body chunks the app read."""

    def __init__(self, status, body, chunks_read):
        self.status = status
        self.body = body
        self.chunks_read = chunks_read

    @property
    def error(self):
        return self.body["error"]


def app_for(estimator, limits=None):
    """The service's app around a fitted estimator, as ``forecast serve`` builds it."""
    return build_app(ServedModel(estimator, "test-model"), limits)


def post(app, chunks, content_type="application/json", headers=None):
    """``POST /forecast`` with the body in ``chunks`` (bytes, or a list of bytes)."""
    chunks = [chunks] if isinstance(chunks, bytes) else list(chunks)
    sent = {} if content_type is None else {"content-type": content_type}
    return asyncio.run(_call(app, "POST", "/forecast", chunks, {**sent, **(headers or {})}))


async def _call(app, method, path, chunks, headers):
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), str(v).encode("latin-1")) for k, v in headers.items()],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }
    pending = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks or [b""])
    ]
    read = 0
    sent = []

    async def receive():
        nonlocal read
        if pending:
            read += 1
            return pending.pop(0)
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return Answer(sent[0]["status"], json.loads(body), read)
