"""Reading the batch command's stderr: every line a timestamped log line."""

import re

LOG_LINE = re.compile(
    r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}) (INFO|WARNING|ERROR) forecast\.batch: (.*)$"
)


def log_lines(stderr):
    """``(timestamp, level, message)`` of every stderr line; fails on a line of another form."""
    matches = [LOG_LINE.match(line) for line in stderr.splitlines()]
    assert all(matches), stderr  # timestamp, level, logger on every line
    return [m.groups() for m in matches]


def errors(stderr):
    """The ERROR messages of the batch's stderr, one per line."""
    return "".join(f"{message}\n" for _, level, message in log_lines(stderr) if level == "ERROR")
