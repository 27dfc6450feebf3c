"""An exception in one line, as logs, replies and refusals show it."""

import pytest

from forecast.frames.messages import first_line


@pytest.mark.parametrize(
    ("err", "expected"),
    [
        (ValueError("bad value\n  details follow"), "bad value"),
        (ValueError("  \n padded\n"), "padded"),
        (KeyError("load"), "load"),  # str() would quote it: 'load'
        (KeyError(), "KeyError"),
        (RuntimeError(), "RuntimeError"),
        (OSError(2, "No such file or directory"), "[Errno 2] No such file or directory"),
    ],
)
def test_first_line(err, expected):
    assert first_line(err) == expected
