import socket
import sys

import pytest

from forecast.parallel.cluster import reason
from forecast.parallel.engine import check_engine, check_ray_installed, ray_session


def test_an_address_where_nothing_listens_fails_at_once_in_one_line():
    pytest.importorskip("ray")
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionError) as info, ray_session(address=f"127.0.0.1:{port}"):
        pass
    message = str(info.value)
    assert message.startswith(
        f"cannot connect to the Ray cluster at '127.0.0.1:{port}': nothing answers at "
        f"127.0.0.1:{port} ("
    )
    assert f"`ray start --head --port {port}`" in message and "\n" not in message


def test_the_reason_is_rays_last_line_with_the_token_hint():
    traceback_text = (
        "Failed to connect to GCS. Last connection error: Traceback (most recent call last):\n"
        '  File "node.py", line 996, in _init_gcs_client\n'
        "    client = GcsClient(\n"
        "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication "
        "token is missing or incorrect"
    )
    try:
        try:
            raise RuntimeError(traceback_text)
        except RuntimeError as inner:
            raise ConnectionError("Failed to connect to Ray cluster at 1.2.3.4:5") from inner
    except ConnectionError as err:
        text = reason(err)
    assert text == (
        "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication token "
        "is missing or incorrect; the cluster uses token authentication: set "
        "RAY_AUTH_MODE=token and its token in RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or "
        "~/.ray/auth_token"
    )
    assert reason(ConnectionError("a\n b")) == "a b"  # a plain message: joined, not cut


def test_the_ray_engine_is_checked_without_importing_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert check_engine("sequential") == "sequential"
    with pytest.raises(ImportError, match=r"^engine='ray' needs Ray, which is not installed"):
        check_engine("ray")
    with pytest.raises(ImportError, match=r'^forecast tune needs Ray.*"forecast-toolkit\[ray\]"$'):
        check_ray_installed("forecast tune")
    with pytest.raises(ValueError, match="engine must be one of"):
        check_engine("spark")
