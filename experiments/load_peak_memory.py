"""Peak memory of loading malformed model folders next to loading a good one.

Each case saves a small fitted LSTM, damages the folder as an attacker or a broken disk
would (rewriting the manifest to match, as anyone who can write the folder can), and loads
it in a fresh process (``forecast.load``); the table gives the outcome and the process's
peak resident memory (``/usr/bin/time -f %M``, the maximum resident set size),
median of ``--repeats`` runs, and the difference to loading the good folder.

Run: ``python experiments/load_peak_memory.py`` (about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from forecast import LSTMForecaster

LOAD = """
import sys, forecast
try:
    forecast.load(sys.argv[1], device="cpu")
    print("loaded")
except forecast.ModelFormatError as err:
    print("ModelFormatError: " + str(err).split(": ", 1)[-1][:70])
"""


def rehash(path: Path) -> None:
    """Rewrite the manifest of ``path`` to list its files as they are now."""
    meta = json.loads((path / "meta.json").read_text())
    meta["files"] = {
        p.name: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for p in sorted(path.iterdir())
        if p.is_file() and p.name != "meta.json"
    }
    (path / "meta.json").write_text(json.dumps(meta))


def npz_bomb(path: Path) -> None:
    """A member declaring 1 GiB of bytes, deflated to about a megabyte."""
    with zipfile.ZipFile(path / "fitted.npz") as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "|u1", "fortran_order": False, "shape": (1 << 30,)}
    )
    members[sorted(members)[0]] = header.getvalue() + bytes(1 << 30)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    (path / "fitted.npz").write_bytes(buffer.getvalue())
    rehash(path)


def big_params(path: Path) -> None:
    """``hidden_size`` 8000 in params.json: about 1 GB of LSTM weights if allocated."""
    params = json.loads((path / "params.json").read_text())
    params["hidden_size"] = 8000
    (path / "params.json").write_text(json.dumps(params))
    rehash(path)


def sparse_manifest(path: Path) -> None:
    """meta.json made a sparse 1 GiB file."""
    os.truncate(path / "meta.json", 1 << 30)


def sparse_npz(path: Path) -> None:
    """fitted.npz made a sparse 1 GiB file (the manifest keeps the old size)."""
    os.truncate(path / "fitted.npz", 1 << 30)


def deep_json(path: Path) -> None:
    """fitted.json of a million values."""
    (path / "fitted.json").write_text("[" + "0," * 1_100_000 + "0]")
    rehash(path)


def huge_header(path: Path) -> None:
    """A safetensors header claiming 2**40 bytes."""
    data = (path / "weights.safetensors").read_bytes()
    (path / "weights.safetensors").write_bytes((1 << 40).to_bytes(8, "little") + data[8:])
    rehash(path)


CASES = {
    "good folder": None,
    "sparse 1 GiB meta.json": sparse_manifest,
    "sparse 1 GiB fitted.npz": sparse_npz,
    "npz member inflating to 1 GiB": npz_bomb,
    "hidden_size 8000 in params.json": big_params,
    "JSON of 1.1 million values": deep_json,
    "safetensors header of 2**40 bytes": huge_header,
}


def peak_mb(folder: Path) -> tuple[str, float]:
    """Load ``folder`` in a fresh process; return its one-line outcome and peak RSS in MB.

    The process is started by ``/usr/bin/time`` rather than by this one: a child forked
    from a large parent reports the parent's peak as its own (Linux keeps the high-water
    mark across fork and exec).
    """
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", sys.executable, "-c", LOAD, str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip(), int(done.stderr.strip().splitlines()[-1]) / 1024


def main() -> None:
    """Build the folders, load each ``--repeats`` times and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    index = pd.date_range("2023-01-01", periods=24 * 14, freq="h", tz="Europe/Berlin")
    values = 100 + 10 * np.sin(np.arange(len(index)) * 2 * np.pi / 24)
    data = pd.DataFrame({"load": values}, index=index)
    model = LSTMForecaster(context_length=24, horizon=24, hidden_size=16, max_epochs=1)
    model.set_params(random_state=0, device="cpu").fit(data)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        good = Path(tmp) / "good"
        model.save(good)
        base = None
        for name, damage in CASES.items():
            folder = Path(tmp) / name.replace(" ", "_")
            shutil.copytree(good, folder)
            if damage is not None:
                damage(folder)
            runs = [peak_mb(folder) for _ in range(args.repeats)]
            peak = statistics.median(mb for _, mb in runs)
            base = peak if base is None else base
            rows.append((name, runs[0][0], round(peak), round(peak - base)))
    table = pd.DataFrame(rows, columns=["folder", "outcome", "peak MB", "vs good (MB)"])
    print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
