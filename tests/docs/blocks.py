"""The ```python blocks of a Markdown page, run as the page's script: one mechanism for the
README (``test_readme.py``) and the documentation pages (``test_pages.py``).

A page's blocks are one script in the order they come: they run in one namespace and one
working folder, so a block may use the names and files of the blocks above it. A block that
cannot run on every machine says so in its first line, a comment ``# needs: WHAT`` (the German
data of ``../shared/data``, weights from the model hub, a server started by a command above)
or ``# not run: WHY`` (a type checker's input that fails on purpose at run time); it is
skipped with that reason, as is a block that reads data ``pip`` does not bring (any dataset but
the demo's ``elecdemand``), which must then name its data in a comment.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

BLOCK = re.compile(r"^```python\n(.*?)^```", flags=re.M | re.S)
SKIP = re.compile(r"#\s*(needs|not run):\s*(.+?)\s*$")  # in the block's first line
SAYS_ITS_DATA = re.compile(r"#\s*(needs|data):", flags=re.M)
# readers of data that is not installed with the package (the demo's elecdemand is)
SHARED_DATA = re.compile(
    r"(?<![.\w])load(?:_dataset)?\(\s*['\"](?!elecdemand['\"])[\w-]+['\"]|\bgerman_load\("
    r"|\bmotion_benchmark\("
    r"|\bread_expmap\(|\bread_bvh\("
)


def python_blocks(text: str) -> list[str]:
    """The code of each ```python block of ``text``, in order."""
    return BLOCK.findall(text)


def skip_reason(code: str) -> str | None:
    """Why the block cannot run here as written, or None when it runs."""
    first = code.splitlines()[0] if code.strip() else ""
    found = SKIP.search(first)
    if found:
        return f"{found[1]}: {found[2]}"
    if SHARED_DATA.search(code):
        return "needs: data of ../shared/data that pip does not install (named in the block)"
    return None


def unprinted_expressions(code: str) -> list[str]:
    """Top-level expression statements that are not calls (``res.metrics``, ``a / 48``).

    In a notebook their value is shown; in a script it is lost: an example prints what it
    shows.
    """
    tree = ast.parse(code)
    return [
        ast.unparse(node.value)
        for node in tree.body
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Call | ast.Constant)
    ]


def _wrap_expressions(tree: ast.Module) -> ast.Module:
    """Pass the value of each top-level expression statement to ``__shown__(value, line)``."""
    for node in tree.body:
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            node.value = ast.Call(
                func=ast.Name("__shown__", ast.Load()),
                args=[node.value, ast.Constant(node.lineno)],
                keywords=[],
            )
    return ast.fix_missing_locations(tree)


def run_block(code: str, name: str, namespace: dict[str, Any]) -> list[str]:
    """Execute ``code`` in ``namespace``; return the expressions whose value it did not print.

    A top-level call whose value is dropped counts when the value is data a notebook would
    show (a frame, a series, an array, a number): ``model.predict(48)``, not ``model.fit(df)``.
    """
    import numbers

    import numpy as np
    import pandas as pd

    shows = (pd.DataFrame, pd.Series, pd.Index, np.ndarray, numbers.Number)
    dropped: list[str] = []
    lines = code.splitlines()

    def shown(value: Any, line: int) -> None:
        if isinstance(value, shows) and not isinstance(value, bool):
            dropped.append(f"line {line}: {lines[line - 1].strip()}")

    namespace["__shown__"] = shown
    tree = _wrap_expressions(ast.parse(code, filename=name))
    exec(compile(tree, name, "exec"), namespace)
    del namespace["__shown__"]
    return dropped


def quoted_output(text: str, code: str) -> str | None:
    """The output the page quotes for the block ``code``: a ```text block right after it,
    introduced by a line that says what the block prints ("It prints:"), else None."""
    found = re.search(
        re.escape(code) + r"```\n\n[^\n`]*\bprints?\b[^\n`]*:\n\n```text\n(.*?)^```",
        text,
        flags=re.M | re.S,
    )
    return found[1] if found else None


def page_blocks(path: Path, root: Path) -> list[tuple[str, str]]:
    """``(name, code)`` of each block of the page at ``path``; names like ``guide/cli.md[2]``."""
    rel = path.relative_to(root).as_posix()
    return [(f"{rel}[{i + 1}]", code) for i, code in enumerate(python_blocks(path.read_text()))]
