"""Type hints: PEP 561 marker, mypy settings, and what type checkers see of the estimators."""

import ast
import contextlib
import inspect
import io
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_py_typed_marker_is_in_the_package_and_its_package_data():
    assert (ROOT / "forecast" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["forecast"]


def test_mypy_config_checks_the_package_and_names_untyped_modules_one_by_one():
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy["files"] == ["forecast"]
    assert "ignore_missing_imports" not in mypy  # only per module, never for everything
    lenient = [o for o in mypy["overrides"] if o.get("ignore_missing_imports")]
    assert all(not m.startswith("forecast") for o in lenient for m in o["module"])
    strict = [o for o in mypy["overrides"] if o.get("disallow_untyped_defs")]
    assert "forecast.persistence.*" in strict[0]["module"]


def test_typing_page_example_prints_the_mean_absolute_error():
    page = (ROOT / "docs" / "typing.md").read_text()
    code = re.findall(r"^```python\n(.*?)^```", page, flags=re.M | re.S)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    assert out.getvalue() == "0.5\n"  # |1 - 1.5|, |2 - 2|, |3 - 2| -> mean 0.5


def test_every_module_of_the_package_is_in_the_strict_block():
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    strict = next(o for o in mypy["overrides"] if o.get("disallow_untyped_defs"))
    patterns = strict["module"]
    assert strict["disallow_incomplete_defs"] and strict["disallow_any_generics"]
    package = ROOT / "forecast"
    modules = []
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))

    def covered(name: str) -> bool:
        return any(
            name == p or (p.endswith(".*") and (name + ".").startswith(p[:-1])) for p in patterns
        )

    loose = sorted(m for m in modules if not covered(m))
    assert loose == [], f"modules outside the strict block of pyproject.toml: {loose}"


# --------------------------------------------------------------- what type checkers see
# mypy reads forecast from the working tree; third-party modules are skipped (Any), so any
# estimator that derived from an untyped base would take every argument and fail here.
MYPY_CONFIG = """\
[mypy]
python_version = 3.11
follow_imports = skip
ignore_missing_imports = True

[mypy-forecast,forecast.*]
follow_imports = silent
"""

SNIPPET = """\
from forecast import GRUForecaster

GRUForecaster(hiden_size=3)
GRUForecaster(hidden_size="x")
GRUForecaster(hidden_size=3, dropout="auto", windowing="tbptt")
"""


def estimators() -> list[type]:
    """Every public estimator class of ``forecast.__all__``."""
    import forecast
    from forecast.base import BaseForecaster

    values = [getattr(forecast, name) for name in forecast.__all__ if name[0].isupper()]
    return [
        v
        for v in values
        if isinstance(v, type) and issubclass(v, BaseForecaster) and v is not BaseForecaster
    ]


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory) -> str:
    """mypy's report on SNIPPET followed by ``reveal_type`` of every estimator's ``__init__``."""
    pytest.importorskip("mypy")
    folder = tmp_path_factory.mktemp("mypy")
    (folder / "mypy.ini").write_text(MYPY_CONFIG)
    names = [cls.__name__ for cls in estimators()]
    reveals = "".join(f"reveal_type({name}.__init__)\n" for name in names)
    code = SNIPPET + f"from forecast import {', '.join(names)}\n" + reveals
    (folder / "snippet.py").write_text(code)
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", ".cache"]
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run(
        [*command, "snippet.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr  # 1: errors were found, as they must be
    return done.stdout


def test_mypy_reports_a_misspelled_and_a_mistyped_parameter(mypy_output):
    errors = [line for line in mypy_output.splitlines() if ": error:" in line]
    assert errors == [
        'snippet.py:3: error: Unexpected keyword argument "hiden_size" for "GRUForecaster"; '
        'did you mean "hidden_size"?  [call-arg]',
        'snippet.py:4: error: Argument "hidden_size" to "GRUForecaster" has incompatible type '
        '"str"; expected "int"  [arg-type]',
    ]


def split_arguments(text: str) -> list[str]:
    """Split ``a: X[b, c] =, d: Y`` at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += char in "[(" and 1 or char in "])" and -1 or 0
        if char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return [*parts, text[start:].strip()]


def in_call_order(params: list[tuple[str, str, bool]]) -> list[tuple[str, str, bool]]:
    """Positional parameters in order, then the keyword-only ones by name."""
    keywords = sorted(p for p in params if p[1] == "KEYWORD_ONLY")
    return [p for p in params if p[1] != "KEYWORD_ONLY"] + keywords


def seen_by_mypy(revealed: str) -> list[tuple[str, str, bool]]:
    """(name, kind, has default) of each parameter of a revealed ``def (self: ..., ...)``."""
    inner = revealed[revealed.index("def (") + 5 : revealed.rindex(")")]
    seen, kind = [], "POSITIONAL_OR_KEYWORD"
    for part in split_arguments(inner)[1:]:  # after self
        if part == "*":
            kind = "KEYWORD_ONLY"
            continue
        assert not part.startswith("*"), f"mypy sees a catch-all {part!r}"
        seen.append((part.split(":")[0], kind, part.endswith("=")))
    return in_call_order(seen)


def test_type_checkers_see_the_runtime_signature_of_every_estimator(mypy_output):
    revealed = re.findall(r'Revealed type is "(.*)"$', mypy_output, flags=re.M)
    classes = estimators()
    assert len(revealed) == len(classes) >= 16
    for cls, text in zip(classes, revealed, strict=True):
        runtime = in_call_order(
            [
                (p.name, p.kind.name, p.default is not inspect.Parameter.empty)
                for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
            ]
        )
        assert seen_by_mypy(text) == runtime, cls.__name__


def test_the_lazy_names_are_imported_for_type_checkers():
    import forecast

    tree = ast.parse((ROOT / "forecast" / "__init__.py").read_text())
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    typed = {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == forecast._HOMES
    assert set(forecast.__all__) == {*typed, "__version__"}
