"""The service's routes (Starlette): ``POST /forecast``, ``GET /health``, ``GET /``.

Every answer is JSON. The body is read under caps (:mod:`~forecast.serve.body`): one that
is not JSON, breaks a cap on its shape or is not a forecast request gets HTTP 400, one over
the byte cap 413, one sent as another content type 415; a well-formed request the model
refuses (too little history, a column it lacks or does not know, a timestamp off the model's
grid) gets 422; each as ``{"error": "<one line>"}``, at most :data:`MAX_MESSAGE` characters
(a longer toolkit message keeps its head and tail). An unknown path gets 404, another method
405. Anything else is a 500 with one line, and its stack trace goes to the log. Each request
is logged as one line: method, path, status and milliseconds (logger ``forecast.serve``).
"""

from __future__ import annotations

import asyncio
import logging
import time

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from forecast.frames.messages import first_line
from forecast.serve.body import BodyLimits, read_body
from forecast.serve.model import ServedModel
from forecast.serve.payload import PayloadError

MAX_MESSAGE = 400  # characters of an error line: a message quotes the input, never echoes it
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
    return JSONResponse({"error": _cut(message)}, status_code=status)


def _cut(message: str) -> str:
    """``message``, at most :data:`MAX_MESSAGE` characters: its head and tail around ``...``."""
    if len(message) <= MAX_MESSAGE:
        return message
    tail = MAX_MESSAGE // 4
    return f"{message[: MAX_MESSAGE - tail - 5]} ... {message[-tail:]}"


def build_app(served: ServedModel, limits: BodyLimits | None = None) -> RequestLog:
    """Build the ASGI app serving one loaded model.

    Parameters
    ----------
    served : ServedModel
        The loaded model (see :func:`forecast.serve.model.load_served`).
    limits : BodyLimits, optional
        Caps on request bodies (default: :class:`~forecast.serve.body.BodyLimits`).

    Returns
    -------
    RequestLog
        The Starlette app, wrapped in the request log.
    """
    limits = BodyLimits() if limits is None else limits

    async def forecast(request: Request) -> JSONResponse:
        try:
            body = await read_body(request, limits)
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
        return JSONResponse(
            {"error": _cut(message)}, status_code=err.status_code, headers=err.headers
        )

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
