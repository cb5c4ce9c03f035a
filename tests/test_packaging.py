"""Packaging: what `pip install rpp-book[...]` promises matches what the code imports.

- every third-party module imported by ``rpp/`` is a runtime dependency (or, for POT, the
  optional ``[ot]`` extra that ``rpp`` can do without);
- every third-party module imported by a chapter notebook is installed by ``[book]``;
- every dependency has a lower bound, and the pinned locks satisfy it: requirements.txt (the
  reader's environment, [book]) and requirements-dev.txt (the developers', [dev]; it includes
  requirements.txt), both with a SHA-256 for every pin; Binder's runtime.txt is Python 3.11;
- one version string: ``rpp.__version__`` is the installed distribution's, which is
  pyproject's, which is CITATION.cff's;
- the data ship as package data.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]

#: import name -> distribution name, for every third-party module the code may import.
DISTRIBUTION = {
    "numpy": "numpy", "scipy": "scipy", "pandas": "pandas", "sklearn": "scikit-learn",
    "matplotlib": "matplotlib", "sympy": "sympy", "tqdm": "tqdm", "ot": "POT",
    "mpl_toolkits": "matplotlib", "IPython": "ipykernel", "joblib": "joblib",
    "mpmath": "mpmath", "flint": "python-flint",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower()


def _extra(name: str, seen: set[str] | None = None) -> set[str]:
    """Distributions an extra installs, following self-references like rpp-book[ot]."""
    seen = set() if seen is None else seen
    out = set()
    for req in PROJECT["optional-dependencies"][name]:
        if _name(req) == PROJECT["name"]:
            for inner in re.search(r"\[(.*)\]", req).group(1).split(","):
                if inner not in seen:
                    seen.add(inner)
                    out |= _extra(inner.strip(), seen)
        else:
            out.add(_name(req))
    return out


RUNTIME = {_name(r) for r in PROJECT["dependencies"]}


def _third_party(tree: ast.AST) -> set[str]:
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods.add(node.module.split(".")[0])
    return {m for m in mods if m not in sys.stdlib_module_names and m not in ("rpp",)}


def _rpp_imports() -> set[str]:
    mods = set()
    for path in (ROOT / "rpp").rglob("*.py"):
        if path.name == "bench.py" or "bench" in path.parts:
            continue
        mods |= _third_party(ast.parse(path.read_text(encoding="utf-8")))
    return mods


def _chapter_imports() -> set[str]:
    mods = set()
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            # IPython magics (%pip, !cmd) are not Python: replace them by `pass`
            src = "\n".join(
                line[: len(line) - len(line.lstrip())] + "pass"
                if line.lstrip().startswith(("%", "!")) else line
                for line in "".join(cell["source"]).splitlines())
            mods |= _third_party(ast.parse(src))
    return mods


def test_every_module_rpp_imports_is_a_declared_dependency():
    mods = _rpp_imports()
    unknown = mods - set(DISTRIBUTION)
    assert not unknown, f"add these to DISTRIBUTION and to pyproject: {sorted(unknown)}"
    missing = {DISTRIBUTION[m].lower() for m in mods} - RUNTIME - _extra("ot") - _extra("proved")
    assert not missing, f"rpp imports {sorted(missing)}, which pyproject does not declare"
    assert _extra("ot") == {"pot"}, "only POT may be optional: rpp falls back to scipy for it"
    # python-flint only for require="proved" (an ImportError names the extra otherwise)
    assert _extra("proved") == {"python-flint"}


def test_every_module_a_chapter_imports_is_installed_by_the_book_extra():
    mods = _chapter_imports()
    unknown = mods - set(DISTRIBUTION)
    assert not unknown, f"add these to DISTRIBUTION and to pyproject: {sorted(unknown)}"
    missing = {DISTRIBUTION[m].lower() for m in mods} - RUNTIME - _extra("book")
    assert not missing, f"the chapters import {sorted(missing)}, which [book] does not install"
    assert {"matplotlib", "sympy"} <= RUNTIME


PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)(?:\s*;[^\\]*)?\s*\\?$")


def _lock(path: Path) -> tuple[dict[str, str], list[str]]:
    """{name: version} of a hashed lock, and its problems (a pin without a hash, a stray line)."""
    pins, problems, current = {}, [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#") or line.startswith("-r "):
            continue
        if line.startswith(" "):
            if not re.fullmatch(r"\s+--hash=sha256:[0-9a-f]{64}( \\)?", line):
                problems.append(f"{path.name}: not a hash line: {line!r}")
            elif current:
                current[1] = True
            continue
        if current and not current[1]:
            problems.append(f"{path.name}: {current[0]} has no --hash")
        m = PIN_RE.match(line)
        if not m:
            problems.append(f"{path.name}: not a pin: {line!r}")
            current = None
            continue
        name = m.group(1).lower().replace("_", "-")
        if name in pins:
            problems.append(f"{path.name}: {name} pinned twice")
        pins[name] = m.group(2)
        current = [name, False]
    if current and not current[1]:
        problems.append(f"{path.name}: {current[0]} has no --hash")
    return pins, problems


def test_locks_are_hashed_layered_and_for_python_311():
    reader, p1 = _lock(ROOT / "requirements.txt")
    dev, p2 = _lock(ROOT / "requirements-dev.txt")
    assert not p1 + p2, "\n".join(p1 + p2)
    dev_text = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    assert "-r requirements.txt" in dev_text.splitlines(), "requirements-dev.txt must include the reader's lock"
    assert not set(reader) & set(dev), f"pinned in both locks: {sorted(set(reader) & set(dev))}"
    for tool in ("ruff", "mypy", "selenium", "pytest", "nbval", "hypothesis"):
        assert tool in dev and tool not in reader, f"{tool} belongs to the developers' lock only"
    assert "python-3.11" in (ROOT / "runtime.txt").read_text(encoding="utf-8").split(), "Binder's runtime.txt"
    assert PROJECT["requires-python"] == ">=3.11"


def test_dependencies_have_lower_bounds_that_the_lock_satisfies():
    from packaging.requirements import Requirement

    reader, _ = _lock(ROOT / "requirements.txt")
    dev, _ = _lock(ROOT / "requirements-dev.txt")
    extras = PROJECT["optional-dependencies"]
    for extra, reqs in [("", PROJECT["dependencies"])] + sorted(extras.items()):
        # the reader's lock installs the runtime and [book] (with [ot]); the developers' the rest
        lock = reader if extra in ("", "book", "ot") else {**reader, **dev}
        where = "requirements.txt" if extra in ("", "book", "ot") else "requirements(-dev).txt"
        for text in reqs:
            req = Requirement(text)
            if req.name.lower() == PROJECT["name"]:
                continue
            assert any(s.operator in (">=", "~=", "==") for s in req.specifier), f"{text}: give a lower bound"
            name = req.name.lower().replace("_", "-")
            assert name in lock, f"{name} ([{extra or 'runtime'}]) is not pinned in {where}"
            assert req.specifier.contains(lock[name]), f"the lock's {name}=={lock[name]} violates {text}"
    assert "mpmath" not in RUNTIME, "mpmath is a test oracle, not a runtime dependency"


def test_one_version_string():
    import rpp

    assert rpp.__version__ == importlib.metadata.version(PROJECT["name"]) == PROJECT["version"]
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^version: (\S+)$", cff, flags=re.M).group(1) == PROJECT["version"]
    init = (ROOT / "rpp" / "__init__.py").read_text(encoding="utf-8")
    assert PROJECT["version"] not in init, "rpp/__init__.py must read the version, not repeat it"


@pytest.mark.parametrize("licence", ["LICENSE", "rpp/book/data/uci/README.md"])
def test_licences_ship(licence):
    assert licence in PROJECT["license-files"]
    assert (ROOT / licence).is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in readme and "MIT" in readme


def test_data_are_package_data():
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["rpp.book.data"]
    shipped = {p.relative_to(ROOT / "rpp" / "book" / "data").as_posix()
               for p in (ROOT / "rpp" / "book" / "data" / "uci").rglob("*") if p.is_file()}
    from fnmatch import fnmatch

    assert shipped and all(any(fnmatch(f, pat) for pat in patterns) for f in shipped)
