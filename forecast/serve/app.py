"""The service's routes (Starlette): ``POST /forecast``, ``GET /health``, ``GET /``.

Every answer is JSON. A body that is not JSON or not a forecast request gets HTTP 400, a
well-formed request the model refuses (too little history, an unknown column, a timestamp off
the model's grid) HTTP 422, each as ``{"error": "<the toolkit's one-line message>"}``; a body
over :data:`MAX_BODY_BYTES` gets 413, an unknown path 404, another method 405. Anything else
is a 500 with one line, and its stack trace goes to the log. Each request is logged as one
line: method, path, status and milliseconds (logger ``forecast.serve``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from forecast.serve.model import ServedModel
from forecast.serve.payload import PayloadError
from forecast.serve.responses import first_line

MAX_BODY_BYTES = 64 << 20  # 64 MiB: years of hourly history of a few columns
LOGGER = logging.getLogger("forecast.serve")
_TOOLKIT_ERRORS = (ValueError, TypeError, KeyError)


class RequestLog:
    """ASGI middleware logging one line per HTTP request: method, path, status, ms.

    Parameters
    ----------
    app : ASGI app
        The app to wrap.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on and log it when the response has been sent."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = {"code": 500}

        async def send_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            ms = (time.perf_counter() - start) * 1000.0
            LOGGER.info("%s %s %d %.1f ms", scope["method"], scope["path"], status["code"], ms)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _read_json(request: Request) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise HTTPException(413, f"the request body is {declared} bytes, over {MAX_BODY_BYTES}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise HTTPException(413, f"the request body is over {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise PayloadError("the request body is empty: send a JSON object with 'history'")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise PayloadError(f"the request body is not UTF-8 text (byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise PayloadError(
            f"the request body is not JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None


def build_app(served: ServedModel) -> RequestLog:
    """Build the ASGI app serving one loaded model.

    Parameters
    ----------
    served : ServedModel
        The loaded model (see :func:`forecast.serve.model.load_served`).

    Returns
    -------
    RequestLog
        The Starlette app, wrapped in the request log.
    """

    async def forecast(request: Request) -> JSONResponse:
        try:
            body = await _read_json(request)
            # a worker thread keeps /health answering during a forecast (asyncio's own pool:
            # Starlette's run_in_threadpool imports anyio's backend on first use, ~0.5 s)
            answer = await asyncio.get_running_loop().run_in_executor(None, served.forecast, body)
        except PayloadError as err:
            return _error(400, first_line(err))
        except _TOOLKIT_ERRORS as err:  # the toolkit's own checks: one line, what and where
            return _error(422, first_line(err))
        except HTTPException:
            raise
        except Exception as err:  # a bug, not bad input: one line out, the trace in the log
            LOGGER.exception("%s %s failed", request.method, request.url.path)
            return _error(500, f"internal error: {type(err).__name__}: {first_line(err)}")
        return JSONResponse(answer)

    async def health(request: Request) -> JSONResponse:
        return JSONResponse(served.health())

    async def index(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "service": "forecast serve",
                "model": served.uri,
                "endpoints": {
                    "POST /forecast": "history rows in, forecast rows with timestamps out",
                    "GET /health": "the model, its time zone, columns and version",
                },
            }
        )

    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        message = str(err.detail)
        if err.status_code == 404:
            message = f"no such path {request.url.path!r}; try POST /forecast or GET /health"
        elif err.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return JSONResponse({"error": message}, status_code=err.status_code, headers=err.headers)

    app = Starlette(
        routes=[
            Route("/forecast", forecast, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
            Route("/", index, methods=["GET"]),
        ],
        # Starlette types every handler as taking Exception; this one gets HTTPException only
        exception_handlers={HTTPException: http_error},  # type: ignore[dict-item]
    )
    app.state.served = served
    return RequestLog(app)
