"""The package's structure: layers, no import cycles, few top-level modules, small files.

The layer contract lives in pyproject.toml (``[tool.importlinter]``) and is checked with
import-linter; the cycle check reads every import statement of the package, function-local
ones included, with grimp (import-linter's graph builder).
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "forecast"
TOP_LEVEL = {"__init__.py", "_compat.py", "_version.py", "base.py", "cli.py"}
MAX_CODE_LINES = 400
#: Files past the limit and why (limits are guides); an entry back under it fails, so the
#: list stays true.
LONGER = {
    "forecast/models/neural_params.py": (
        "one declaration of the 49 shared network parameters, most of it the numpydoc text "
        "of each field (``doc=`` strings are code)"
    ),
}

grimp = pytest.importorskip("grimp", reason="install the dev extra (import-linter)")


def _graph():
    return grimp.build_graph("forecast", include_external_packages=False, cache_dir=None)


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(edges) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules():
    graph = _graph()
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert strongly_connected(edges) == []


def test_no_module_imports_the_root_package():
    graph = _graph()
    importers = graph.find_modules_that_directly_import("forecast")
    assert importers == set()


def test_layer_contract_holds():
    lint = Path(sys.executable).parent / "lint-imports"
    if not lint.exists():
        pytest.skip("lint-imports not installed (dev extra)")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


def test_few_modules_at_the_top_of_the_package():
    top = {p.name for p in PACKAGE.glob("*.py")}
    assert top == TOP_LEVEL


def _python_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def code_lines(source: str) -> int:
    """Lines of ``source`` holding code: not blank, not only a comment, not in a docstring."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    lines -= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return len(lines)


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    source = (
        '"""Module docstring.\n\nMore of it.\n"""\n\n'
        "# a comment\n"
        "x = 1  # code and a comment\n\n\n"
        "def f(a):\n"
        '    """Function docstring."""\n'
        '    s = """a string\n    over two lines"""\n'
        "    return a\n\n\n"
        "class C:\n"
        '    """Class docstring,\n\n    on three lines."""\n'
    )
    assert code_lines(source) == 6  # x, def, the two lines of s, return, class


def test_files_are_small_or_listed_with_a_reason():
    counts = {str(p.relative_to(ROOT)): code_lines(p.read_text()) for p in _python_files()}
    long = {path: n for path, n in counts.items() if n > MAX_CODE_LINES}
    assert {path: n for path, n in long.items() if path not in LONGER} == {}
    assert {path: counts.get(path, 0) for path in LONGER if path not in long} == {}


def test_function_local_imports_say_why():
    """An import inside a function is for an optional extra or start-up time, said on its line."""
    silent = []
    for path in _python_files():
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    text = " ".join(lines[inner.lineno - 1 : inner.end_lineno])
                    above = lines[inner.lineno - 2].strip()
                    if "#" not in text and not above.startswith("#"):
                        silent.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert sorted(set(silent)) == []
