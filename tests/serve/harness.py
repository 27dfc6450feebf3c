"""Start ``python -m forecast.serve`` in a subprocess on 127.0.0.1 and call it over HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")


class Server:
    """A running ``forecast serve``: its base URL and the lines it logged so far."""

    def __init__(self, args, env=None, timeout=120.0):
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "forecast.serve", *map(str, args), "--port", "0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        self.url = self._wait_for_url(timeout)

    def _drain(self):
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def _wait_for_url(self, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                found = LISTENING.search(line)
                if found:
                    return found.group(1)
            if self.process.poll() is not None:
                self._reader.join(5)
                raise RuntimeError("forecast serve exited:\n" + "\n".join(self.lines))
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("forecast serve did not start:\n" + "\n".join(self.lines))

    def call(self, method, path, body=None, raw=None, content_type="application/json"):
        """Return ``(status, parsed JSON)`` of one request (``raw``: bytes sent as they are)."""
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={} if content_type is None else {"Content-Type": content_type},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def peak_rss_mib(self):
        """The server process's peak resident memory so far, in MiB (Linux: VmHWM)."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmHWM line in /proc/PID/status")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(5)


def start_to_exit(args):
    """Start ``python -m forecast.serve ARGS --port 0``, a command expected to stop by itself."""
    return subprocess.Popen(
        [sys.executable, "-m", "forecast.serve", *map(str, args), "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def finish(process, timeout=180.0):
    """Wait for a process from :func:`start_to_exit`; return ``(exit code, stderr)``."""
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return None, err
    return process.returncode, err


def rows(frame, column="load"):
    """History rows of a one-column frame, timestamps ISO 8601 with their offsets."""
    return [
        {"timestamp": t.isoformat(), column: float(v)}
        for t, v in zip(frame.index, frame[column], strict=True)
    ]
