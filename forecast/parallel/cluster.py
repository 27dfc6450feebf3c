"""Connecting to a running Ray cluster, with a one-line error when that fails.

``ray.init(address="host:port")`` retries about 20 times (20 s) before it gives up with
"Failed to connect to Ray cluster", and Ray's reason (most often since Ray 2.60:
``InvalidAuthToken``, a cluster with token authentication and a client without the token)
is only in log lines. :func:`connect` first asks the cluster once, so a refused token or
an address where nothing listens fails at once, in one line that carries Ray's own hint
(``RAY_AUTH_MODE=token``, where the token may live, ``ray get-auth-token``); see
``docs/ray.md``.

Ray's token rules (Ray 2.60): ``ray start --head`` turns token authentication on when
``RAY_AUTH_MODE=token`` is set or a token already exists (``RAY_AUTH_TOKEN``,
``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``; a local ``ray.init()`` writes the latter).
A client sends its token only with ``RAY_AUTH_MODE=token``: Ray never turns it on by itself
for an explicit address, and neither does this module (the token would go to whatever
the address names).
"""

from __future__ import annotations

import re
import socket
from typing import Any

__all__ = ["connect"]

# host:port or [ipv6]:port, the form `ray start --head` prints; ray://, "auto" and other
# forms are left to ray.init
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9a-fA-F:.]+\]|[\w.\-]+):(?P<port>\d{1,5})$")
_PROBE_TIMEOUT_S = 5.0


def connect(ray: Any, address: str) -> None:
    """Connect ``ray`` to the cluster at ``address``; raise a one-line ConnectionError if not.

    Parameters
    ----------
    ray : module
        The ``ray`` module, not yet initialised.
    address : str
        ``"host:port"`` of the head (``ray start --head --port PORT``), ``"ray://..."`` or
        ``"auto"``.

    Raises
    ------
    ConnectionError
        Nothing listens at ``address``, the cluster refused this client's token (the
        message ends with Ray's hint on where the token goes), or ``ray.init`` failed; the
        message names the address and Ray's reason.
    """
    where = f"cannot connect to the Ray cluster at {address!r}"
    _probe(ray, address, where)
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    except (ConnectionError, ray.exceptions.AuthenticationError) as err:
        raise ConnectionError(f"{where}: {reason(err)}") from err


def _probe(ray: Any, address: str, where: str) -> None:
    """Fail fast where ``ray.init`` would retry: nothing listening, or a refused token."""
    match = _HOST_PORT.match(address)
    if match is None:
        return
    host, port = match["host"].strip("[]"), int(match["port"])
    try:
        socket.create_connection((host, port), timeout=_PROBE_TIMEOUT_S).close()
    except OSError as err:
        raise ConnectionError(
            f"{where}: nothing answers at {host}:{port} ({err.strerror or err}); is the head "
            f"running (`ray start --head --port {port}`) and the address right?"
        ) from None
    try:
        # Ray's GCS client (a private API): one call answers with the auth error at once
        from ray._raylet import GcsClient  # type: ignore[attr-defined]  # not in Ray's stub
    except ImportError:  # a Ray without it: ray.init reports, after its retries
        return
    try:
        GcsClient(address=f"{match['host']}:{port}")
    except ray.exceptions.AuthenticationError as err:
        raise ConnectionError(f"{where}: {_one_line(str(err))}") from None
    except Exception:  # anything else: ray.init reports it in its own words
        return


def reason(err: BaseException) -> str:
    """Ray's reason behind ``err`` in one line: its innermost cause (a traceback's last line)."""
    inner = err
    while inner.__cause__ is not None and inner.__cause__ is not inner:
        inner = inner.__cause__
    text = _one_line(str(inner)) or type(inner).__name__
    if "InvalidAuthToken" in text and "RAY_AUTH_MODE" not in text:
        text += (
            "; the cluster uses token authentication: set RAY_AUTH_MODE=token and its token "
            "in RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token"
        )
    return text


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if "Traceback (most recent call last)" in text:
        return lines[-1]  # the exception itself
    return " ".join(lines)
