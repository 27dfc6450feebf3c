"""Commands in docs, experiments and results name data by option or relative path.

A command that reads ``--data-dir /some/machine/folder`` runs on one machine only: every
tracked text file is searched for the home and work folders of the machines the project
grew on.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# absolute folders of one machine: /work/<x>, /root/<x>, /home/<user>/<x>, /Users/<user>/<x>
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:work|root|home/\w+|Users/\w+)/[\w.-]+")
SUFFIXES = {".md", ".py", ".toml", ".rst", ".txt", ".cfg", ".yaml", ".yml", ".sh", ".ini"}


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.splitlines() if Path(p).suffix in SUFFIXES]


def test_no_tracked_file_names_one_machines_folders():
    found = []
    for path in tracked_text_files():
        if path == Path(__file__).resolve() or not path.exists():
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = MACHINE_PATH.search(line)
            if match:
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert not found, "absolute folders of one machine (use an option or a relative path):\n" + (
        "\n".join(found[:20])
    )
