"""The package ships its type hints (PEP 561) and docs/typing.md's example runs as written."""

import contextlib
import io
import re
import tomllib
from pathlib import Path

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
