import hashlib
import http.server
import threading

import pytest

from forecast.datasets import DATASETS, download, fetch, load
from forecast.datasets.catalogue import DatasetInfo

PAYLOAD = b"date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT\n" + b"".join(
    f"2016-07-01 {h:02d}:00:00,1,2,3,4,5,6,{h}\n".encode() for h in range(24)
)
SHA = hashlib.sha256(PAYLOAD).hexdigest()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        if self.path == "/ETTh1.csv":
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD)
        elif self.path == "/truncated.csv":  # announces more bytes than it sends
            self.send_response(200)
            self.send_header("Content-Length", str(10 * len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD)
        else:
            self.send_error(500, "boom")

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


@pytest.fixture
def toy(monkeypatch, server):
    def register(path="/ETTh1.csv", sha=SHA):
        info = DatasetInfo(
            "ett-h1",
            "ett_small",
            "toy",
            "local",
            "none",
            DATASETS["ett-h1"].loader,
            lambda: [(server + path, "ETTh1.csv", sha)],
        )
        monkeypatch.setitem(DATASETS, "ett-h1", info)

    return register


def leftovers(folder):
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_fetch_success_then_load(tmp_path, toy):
    toy()
    folder = fetch("ett-h1", tmp_path)
    assert folder == tmp_path / "ett_small"
    assert (folder / "ETTh1.csv").read_bytes() == PAYLOAD
    assert leftovers(folder) == ["ETTh1.csv"]  # no temporary file left
    df = load("ett-h1", data_dir=tmp_path)
    assert df.shape == (24, 7) and df["OT"].iloc[-1] == 23
    mtime = (folder / "ETTh1.csv").stat().st_mtime_ns
    fetch("ett-h1", tmp_path)  # verified file present: not downloaded again
    assert (folder / "ETTh1.csv").stat().st_mtime_ns == mtime


def test_checksum_mismatch_leaves_nothing(tmp_path, toy):
    toy(sha="0" * 64)
    with pytest.raises(ValueError, match="checksum mismatch.*nothing was written"):
        fetch("ett-h1", tmp_path)
    assert leftovers(tmp_path / "ett_small") == []


def test_server_error_leaves_nothing(tmp_path, toy):
    toy(path="/missing.csv")
    with pytest.raises(OSError, match="500"):
        fetch("ett-h1", tmp_path)
    assert leftovers(tmp_path / "ett_small") == []


def test_truncated_transfer_keeps_old_file(tmp_path, server):
    target = tmp_path / "keep.csv"
    target.write_bytes(b"old")
    # the bytes received match the checksum: only the length check can catch this
    with pytest.raises(OSError, match="incomplete"):
        download(server + "/truncated.csv", target, SHA, timeout=5)
    assert target.read_bytes() == b"old" and leftovers(tmp_path) == ["keep.csv"]


def test_keyboard_interrupt_leaves_nothing(tmp_path, server, monkeypatch):
    import hashlib as h

    class Interrupting:  # Ctrl-C during the transfer
        def update(self, chunk):
            raise KeyboardInterrupt

        def hexdigest(self):
            return ""

    monkeypatch.setattr(h, "sha256", lambda: Interrupting())
    with pytest.raises(KeyboardInterrupt):
        download(server + "/ETTh1.csv", tmp_path / "x.csv", SHA, timeout=5)
    assert leftovers(tmp_path) == []


def test_unpinned_checksum_needs_opt_in(tmp_path):
    with pytest.raises(ValueError, match="sha256="):
        fetch("opsd-60min", tmp_path)
    with pytest.raises(ValueError, match="no public download"):
        fetch("smard-de", tmp_path)
    with pytest.raises(KeyError):
        fetch("nope", tmp_path)
