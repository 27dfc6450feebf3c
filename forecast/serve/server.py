"""Start the service: load the model, bind the socket, run uvicorn until stopped.

The model is loaded before the port is opened, so a model that cannot be loaded (missing,
tampered, not our format) ends the command with one line and no server. One forecast from the
model's kept training tail warms it up (the first ``predict`` of a process loads the calendar
and holiday tables, about half a second). The socket is bound
here rather than by uvicorn so that ``--port 0`` gets a free port whose number is logged
(``listening on http://127.0.0.1:PORT``), which is how the tests find the server.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any

import uvicorn

from forecast.batch.files import BatchError
from forecast.frames.messages import first_line
from forecast.persistence.errors import ModelFormatError
from forecast.serve.app import build_app
from forecast.serve.model import load_served

LOGGER = logging.getLogger("forecast.serve")


class ServeError(Exception):
    """The service could not start; the message is the one line shown to the user."""


def bind(host: str, port: int) -> socket.socket:
    """Return a listening TCP socket on ``host:port`` (port 0: a free one).

    Parameters
    ----------
    host : str
        Address, e.g. ``127.0.0.1`` or ``::1``.
    port : int
        Port, 0 for a free one.

    Returns
    -------
    socket.socket
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as err:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {err.strerror or err}") from err
    sock.set_inheritable(True)
    return sock


def _warm_up(served: Any) -> None:
    """Forecast once from the kept training tail, so the first request skips lazy imports."""
    start = time.perf_counter()
    try:
        served.estimator.predict(horizon=1)
    except Exception as err:  # a model that keeps too little history: the first request pays
        LOGGER.debug("warm-up forecast skipped: %s", first_line(err))
        return
    LOGGER.debug("warm-up forecast in %.0f ms", (time.perf_counter() - start) * 1000.0)


def serve(
    model: str | os.PathLike[str],
    host: str = "127.0.0.1",
    port: int = 8000,
    tracking_uri: str | None = None,
    device: str | None = None,
) -> None:
    """Serve forecasts of ``model`` on ``host:port`` until interrupted.

    Parameters
    ----------
    model : str or path-like
        MLflow model URI, MLflow model folder or saved model folder
        (see :func:`forecast.serve.model.load_served`).
    host : str
        Address to listen on.
    port : int
        Port (0: a free one, logged).
    tracking_uri : str, optional
        Store resolving ``models:/`` and ``runs:/`` URIs.
    device : str, optional
        Device for torch modules.

    Raises
    ------
    ServeError
        The model cannot be loaded (not found, refused by the checked loader) or the port
        cannot be bound; one line.
    """
    try:
        served = load_served(model, tracking_uri=tracking_uri, device=device)
    except (BatchError, ModelFormatError, ValueError, TypeError, OSError) as err:
        raise ServeError(first_line(err)) from err
    _warm_up(served)
    sock = bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    LOGGER.info(
        "%s (%s, zone %s) listening on http://%s:%d",
        served.uri,
        type(served.estimator).__name__,
        getattr(served.estimator, "tz_", None),
        shown,
        bound_port,
    )
    config = uvicorn.Config(
        build_app(served), log_config=None, access_log=False, lifespan="off", workers=1
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
