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
model = GRUForecaster()
print(model.hiden_size)
print(model.hidden_size + model.n_updates_ + len(model.columns_))
"""
SNIPPET_ERRORS = [
    'snippet.py:3: error: Unexpected keyword argument "hiden_size" for "GRUForecaster"; '
    'did you mean "hidden_size"?  [call-arg]',
    'snippet.py:4: error: Argument "hidden_size" to "GRUForecaster" has incompatible type '
    '"str"; expected "int"  [arg-type]',
    'snippet.py:7: error: "GRUForecaster" has no attribute "hiden_size"  [attr-defined]',
]

LAZY_PACKAGES = ("forecast", "forecast.training", "forecast.parallel", "forecast.persistence")


def estimators() -> list[type]:
    """Every public estimator class: those of ``forecast.__all__`` and the pretrained ones."""
    import forecast
    from forecast.base import BaseForecaster
    from forecast.models.foundation import Chronos2Forecaster, TiRexForecaster

    values = [getattr(forecast, name) for name in forecast.__all__ if name[0].isupper()]
    top = [
        v
        for v in values
        if isinstance(v, type) and issubclass(v, BaseForecaster) and v is not BaseForecaster
    ]
    return [*top, Chronos2Forecaster, TiRexForecaster]


def lazy_names() -> list[tuple[str, str]]:
    """``(package.name, home.name)`` of every name a package loads on first use."""
    import importlib

    return [
        (f"{package}.{name}", f"{home}.{name}")
        for package in LAZY_PACKAGES
        for name, home in importlib.import_module(package)._HOMES.items()
    ]


def checked(lines: list[str], folder: Path) -> dict[int, list[str]]:
    """mypy's messages on ``lines`` after ``SNIPPET`` (run in ``folder``), by line index.

    Index 0 is the first of ``lines``; the messages on ``SNIPPET`` have negative indices.
    """
    pytest.importorskip("mypy")
    (folder / "mypy.ini").write_text(MYPY_CONFIG)
    (folder / "snippet.py").write_text(SNIPPET + "".join(f"{line}\n" for line in lines))
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", ".cache"]
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run(
        [*command, "snippet.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode in (0, 1), done.stderr  # 1: errors were found, as they must be
    first = SNIPPET.count("\n") + 1
    found: dict[int, list[str]] = {}
    for line in done.stdout.splitlines():
        where = re.match(r"snippet\.py:(\d+): ", line)
        if where:
            found.setdefault(int(where[1]) - first, []).append(line)
    return found


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[str]]:
    """mypy on SNIPPET, then ``reveal_type`` of every estimator's ``__init__``, then the
    misspelled attribute of every estimator, then ``reveal_type`` of every lazy name."""
    names = [cls.__name__ for cls in estimators()]
    lines = [
        "import forecast, forecast.training, forecast.parallel, forecast.persistence",
        "; ".join(f"from {cls.__module__} import {cls.__name__}" for cls in estimators()),
        *(f"reveal_type({name}.__init__)" for name in names),
        *(f"{name}().hiden_size" for name in names),
        f"import {', '.join(sorted({home.rsplit('.', 1)[0] for _, home in lazy_names()}))}",
        *(f"reveal_type({path})" for pair in lazy_names() for path in pair),
        "forecast.laod",
    ]
    return checked(lines, tmp_path_factory.mktemp("mypy"))


def test_mypy_reports_a_misspelled_and_a_mistyped_parameter_and_attribute(mypy_output):
    errors = [line for n, found in mypy_output.items() if n < 0 for line in found]
    assert errors == SNIPPET_ERRORS


def test_typing_page_shows_the_snippet_and_what_mypy_reports():
    page = (ROOT / "docs" / "typing.md").read_text()
    code = re.findall(r"^```python\n(.*?)^```", page, flags=re.M | re.S)[1]
    assert [line.split("  #")[0] for line in code.splitlines()] == SNIPPET.splitlines()
    report = re.findall(r"^```text\n(.*?)^```", page, flags=re.M | re.S)[0]
    assert report.splitlines() == SNIPPET_ERRORS


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


def revealed(found: list[str]) -> str:
    """The type of one ``reveal_type`` note."""
    (line,) = found
    return re.findall(r'Revealed type is "(.*)"$', line)[0]


def test_type_checkers_see_the_runtime_signature_of_every_estimator(mypy_output):
    classes = estimators()
    assert len(classes) >= 18
    for i, cls in enumerate(classes):
        text = revealed(mypy_output[2 + i])
        runtime = in_call_order(
            [
                (p.name, p.kind.name, p.default is not inspect.Parameter.empty)
                for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
            ]
        )
        assert seen_by_mypy(text) == runtime, cls.__name__


def test_a_misspelled_attribute_is_an_error_on_every_estimator(mypy_output):
    classes = estimators()
    for i, cls in enumerate(classes):
        (error,) = mypy_output[2 + len(classes) + i]
        assert f'error: "{cls.__name__}" has no attribute "hiden_size"' in error, error


def test_type_checkers_see_every_lazy_name_and_no_catch_all(mypy_output):
    names = lazy_names()
    start = 3 + 2 * len(estimators())
    pairs = {
        name: (revealed(mypy_output[start + 2 * i]), revealed(mypy_output[start + 2 * i + 1]))
        for i, (name, _) in enumerate(names)
    }
    assert [name for name, (lazy, home) in pairs.items() if lazy != home] == []
    seen = {name: lazy for name, (lazy, _) in pairs.items()}
    # Any only where the definition itself is: a function under torch's decorator, which
    # this mypy does not read (follow_imports = skip)
    assert [name for name, text in seen.items() if text == "Any"] == ["forecast.training.evaluate"]
    assert seen["forecast.load"].startswith("def (path: str | os.PathLike[str], ")
    assert seen["forecast.register_estimator"] == "def (cls: type, name: str | None =) -> str"
    assert "ModelFormatError" in seen["forecast.ModelFormatError"]
    assert seen["forecast.training.train"].endswith("-> forecast.training.loop.TrainResult")
    assert seen["forecast.parallel.fit_many"].startswith("def (estimator: ")
    (typo,) = mypy_output[start + 2 * len(names)]
    assert 'Module has no attribute "laod"' in typo


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_the_lazy_names_are_imported_for_type_checkers(package):
    import importlib

    module = importlib.import_module(package)
    path = ROOT / Path(*package.split(".")) / "__init__.py"
    tree = ast.parse(path.read_text())
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
    assert typed == module._HOMES
    assert set(module.__all__) == set(typed) | ({"__version__"} if package == "forecast" else set())
    hook = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "not TYPE_CHECKING"
    )  # the PEP 562 hook exists at run time only: to a type checker a typo is an error
    assert ast.unparse(hook.body[0]) == "__getattr__ = _lazy"
    assert not any(
        isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body
    )
