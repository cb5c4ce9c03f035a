"""Packaging: what `pip install rpp-book[...]` promises matches what the code imports.

- ``rpp``'s runtime needs numpy and scipy only: the library (everything but the book
  support) imports nothing else at module level; an optional module (scikit-learn, POT,
  python-flint, pandas) is imported inside the function that needs it, under a ``try`` that
  turns its ImportError into one naming the extra (rpp/_lib/optional.py);
- ``import rpp`` and every library module, in a fresh interpreter, load none of matplotlib,
  sympy, pandas, POT, scikit-learn, python-flint; with those blocked, the library still
  imports and calibrates, and the functions that need one name its extra;
- every third-party module imported by the book support or a chapter notebook is installed
  by ``[chapters]`` (which ``[book]`` includes);
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
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]

#: import name -> distribution name, for every third-party module the code may import.
DISTRIBUTION = {
    "numpy": "numpy",
    "scipy": "scipy",
    "pandas": "pandas",
    "sklearn": "scikit-learn",
    "matplotlib": "matplotlib",
    "sympy": "sympy",
    "tqdm": "tqdm",
    "ot": "POT",
    "mpl_toolkits": "matplotlib",
    "IPython": "ipykernel",
    "joblib": "joblib",
    "mpmath": "mpmath",
    "dp_accounting": "dp-accounting",
    "flint": "python-flint",
}
#: The book support: the distribution rpp-book-support (support/), the module rpp_book, which the
#: library never imports (the chapters' tools, which may need everything [chapters] installs).
SUPPORT = ROOT / "support"
SUPPORT_PROJECT = tomllib.loads((SUPPORT / "pyproject.toml").read_text(encoding="utf-8"))
#: Optional modules of the library: import name -> the extra that installs it.
OPTIONAL = {"sklearn": "fit", "ot": "ot", "pandas": "tables", "dp_accounting": "accounting"}
# Runtime dependencies that the library imports only inside the functions that use them, so that
# `import rpp` stays light: python-flint (rpp.sampling's secure noise, the proved divergences).
LAZY_RUNTIME = {"flint"}
#: What `import rpp` must never load (matplotlib and sympy are the chapters' only).
HEAVY = ("matplotlib", "sympy", "pandas", "ot", "sklearn", "flint")


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
    return {m for m in mods if m not in sys.stdlib_module_names and m not in ("rpp", "rpp_book")}


def _chapter_imports() -> set[str]:
    mods = set()
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            # IPython magics (%pip, !cmd) are not Python: replace them by `pass`
            # (a magic continued with a trailing backslash is one logical line, as IPython reads it)
            joined = re.sub(r"\\\n\s*", " ", "".join(cell["source"]))
            src = "\n".join(
                line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
                for line in joined.splitlines()
            )
            mods |= _third_party(ast.parse(src))
    return mods


def _library_files() -> list[Path]:
    return sorted((ROOT / "rpp").rglob("*.py"))


def _imports_with_context(tree: ast.AST):
    """(top-level module, node, in a function, guarded by ``except ImportError``) of every import."""

    def visit(node, in_function, guarded):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if node.level == 0 and node.module
                else []
            )
            for name in names:
                yield name.split(".")[0], node, in_function, guarded
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            return  # imports for the type checker only: never executed
        for child in ast.iter_child_nodes(node):
            fn = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            g = guarded
            if isinstance(node, ast.Try) and child in node.body:
                g = guarded or any(h.type is not None and "ImportError" in ast.unparse(h.type) for h in node.handlers)
            yield from visit(child, fn, g)

    yield from visit(tree, False, False)


def test_runtime_is_numpy_scipy_and_flint():
    assert RUNTIME == {"numpy", "scipy", "python-flint"}, (
        f"rpp's runtime must be numpy, scipy and python-flint only, not {sorted(RUNTIME)}"
    )
    for module, extra in OPTIONAL.items():
        assert DISTRIBUTION[module].lower() in _extra(extra), (module, extra)


def test_the_library_imports_numpy_and_scipy_at_module_level_and_guards_the_rest():
    problems = []
    for path in _library_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT)
        for module, node, in_function, guarded in _imports_with_context(tree):
            if module in LAZY_RUNTIME:
                if not in_function:
                    problems.append(f"{rel}:{node.lineno}: imports {module} at module level (import it where used)")
                continue
            if module in sys.stdlib_module_names or module == "rpp" or module in RUNTIME:
                continue
            if module not in OPTIONAL:
                problems.append(f"{rel}:{node.lineno}: imports {module}, which is neither runtime nor an extra")
            elif not in_function:
                problems.append(f"{rel}:{node.lineno}: imports {module} at module level (import it where used)")
            elif not guarded:
                problems.append(
                    f"{rel}:{node.lineno}: imports {module} without turning its ImportError into "
                    f"one naming [{OPTIONAL[module]}] (rpp._lib.optional.missing)"
                )
    assert not problems, "\n".join(problems)


def test_the_book_support_imports_what_the_chapters_extra_installs():
    mods = set()
    for path in (SUPPORT / "rpp_book").rglob("*.py"):
        mods |= _third_party(ast.parse(path.read_text(encoding="utf-8")))
    assert mods, "the book support imports pandas at least"
    unknown = mods - set(DISTRIBUTION)
    assert not unknown, f"add these to DISTRIBUTION and to pyproject: {sorted(unknown)}"
    missing = {DISTRIBUTION[m].lower() for m in mods} - RUNTIME - _extra("chapters")
    assert not missing, f"the book support imports {sorted(missing)}, which [chapters] does not install"


def _library_modules() -> list[str]:
    out = []
    for path in _library_files():
        parts = path.relative_to(ROOT).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def test_import_rpp_loads_no_optional_or_chapter_dependency():
    out = _fresh(f"""
        import importlib, sys
        import rpp
        first = [m for m in {HEAVY!r} if m in sys.modules]
        for name in {_library_modules()!r}:
            importlib.import_module(name)
        every = [m for m in {HEAVY!r} if m in sys.modules]
        print(first, every)
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "[]"], f"`import rpp` and the library modules loaded: {out.stdout}"


def test_import_rpp_is_lazy_and_every_curated_name_loads_as_before():
    """`import rpp` loads no submodule, numpy nor scipy (PEP 562, issue #38); each name of __all__
    then resolves to the object its submodule defines, `from rpp import ...` works, dir() lists them."""
    out = _fresh("""
        import importlib, json, sys
        import rpp
        loaded = sorted(m for m in sys.modules if m == "rpp" or m.startswith("rpp."))
        heavy = [m for m in ("numpy", "scipy") if m in sys.modules]
        listed = set(rpp.__all__) <= set(dir(rpp)) and "__version__" in dir(rpp)
        from rpp import calibrate, Gaussian, rules
        same = all(
            getattr(rpp, n) is (importlib.import_module(rpp._LAZY[n], "rpp") if n == rpp._LAZY[n][1:]
                                else getattr(importlib.import_module(rpp._LAZY[n], "rpp"), n))
            for n in rpp.__all__)
        print(json.dumps(dict(loaded=loaded, heavy=heavy, listed=listed, same=same,
                              keys=sorted(rpp._LAZY) == sorted(rpp.__all__),
                              works=float(calibrate(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1),
                                                    alpha=3.0, epsilon=0.5, method="closed-form").scale) ** 2)))
        try:
            rpp.no_such_name
        except AttributeError as exc:
            print(exc)
        # the other submodules are attributes as when `import rpp` loaded them all; rpp_book never was
        print(rpp.sampling.InsecureNoiseWarning.__name__, rpp.certified.__name__, rpp._lib.numerics.__name__,
              hasattr(rpp, "book"))
    """)
    assert out.returncode == 0, out.stderr
    first, error, submodules = out.stdout.strip().splitlines()
    assert submodules == "InsecureNoiseWarning rpp.certified rpp._lib.numerics False"
    got = json.loads(first)
    assert got["loaded"] == ["rpp"] and got["heavy"] == [], got
    assert got["listed"] and got["same"] and got["keys"], got
    assert abs(got["works"] - 11.0) < 1e-9, got
    assert "no_such_name" in error


def test_type_checkers_see_every_curated_name():
    """rpp/__init__.py imports each name of __all__ under `if TYPE_CHECKING:` (mypy, IDEs)."""
    tree = ast.parse((ROOT / "rpp" / "__init__.py").read_text(encoding="utf-8"))
    seen = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in ast.walk(node):
                if isinstance(imp, ast.ImportFrom):
                    seen |= {a.asname or a.name for a in imp.names}
    import rpp

    assert seen == set(rpp.__all__), sorted(seen ^ set(rpp.__all__))


def test_the_library_works_without_its_extras_and_names_them():
    out = _fresh(f"""
        import importlib, sys
        class Block:  # as if none of the extras (nor matplotlib, sympy) were installed
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {HEAVY!r}:
                    raise ModuleNotFoundError(f"No module named {{name!r}}")
        sys.meta_path.insert(0, Block())
        for name in {_library_modules()!r}:
            importlib.import_module(name)
        import numpy as np
        import rpp
        P = rpp.GaussianMixture(weights=[0.2, 0.5, 0.3], means=[-2.0, 0.0, 3.0], vars=[0.5, 1.0, 0.7])
        Q = rpp.GaussianMixture(weights=[0.6, 0.4], means=[-1.0, 2.0], vars=[0.8, 0.4])
        for method in ("exact", "gmm-ot", "gmm-ot-tight"):
            assert rpp.calibrate(P, Q, alpha=3.0, epsilon=0.5, method=method, require="estimate").scale > 0
        # the proved default needs python-flint (a dependency, blocked here): an ImportError that names it
        try:
            rpp.calibrate(P, Q, alpha=3.0, epsilon=0.5)
        except ImportError as exc:
            assert "python-flint" in str(exc), exc
        else:
            raise AssertionError("no ImportError without python-flint")
        for call in (lambda: rpp.fit_gmm(np.linspace(0.0, 1.0, 50)),
                     lambda: rpp.calibrate_all_pairs({{"a": P, "b": Q}}, alpha=3.0, epsilon=0.5,
                                                     require="estimate")):
            try:
                call()
            except ImportError as exc:
                print(exc)
            else:
                raise AssertionError("no ImportError")
        try:
            import rpp_book
        except ImportError as exc:
            print(exc)
    """)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 3 and "rpp_book" in lines[2] and "'rpp-book[chapters]'" in lines[2], lines
    assert "rpp.fit_gmm" in lines[0] and "'rpp-book[fit]'" in lines[0], lines
    assert "calibrate_all_pairs" in lines[1] and "'rpp-book[tables]'" in lines[1], lines


def test_every_module_a_chapter_imports_is_installed_by_the_chapters_extra():
    # the kernel's own modules (Colab, Binder, [book]'s ipykernel, which requires matplotlib-inline)
    mods = _chapter_imports() - {"IPython", "matplotlib_inline"}
    unknown = mods - set(DISTRIBUTION)
    assert not unknown, f"add these to DISTRIBUTION and to pyproject: {sorted(unknown)}"
    missing = {DISTRIBUTION[m].lower() for m in mods} - RUNTIME - _extra("chapters")
    assert not missing, f"the chapters import {sorted(missing)}, which [chapters] does not install"
    assert _extra("chapters") <= _extra("book"), "[book] builds the chapters: it includes [chapters]"


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
    for extra, reqs in [("", PROJECT["dependencies"]), *sorted(extras.items())]:
        # the reader's lock installs the runtime and [book] (with the extras it includes); the
        # developers' the rest
        in_reader = extra == "" or extra == "book" or _extra(extra) <= _extra("book")
        lock = reader if in_reader else {**reader, **dev}
        where = "requirements.txt" if in_reader else "requirements(-dev).txt"
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


@pytest.mark.parametrize(("project", "licence"), [(PROJECT, "LICENSE"), (None, "rpp_book/data/uci/README.md")])
def test_licences_ship(project, licence):
    project, root = (PROJECT, ROOT) if project is not None else (SUPPORT_PROJECT["project"], SUPPORT)
    assert licence in project["license-files"]
    assert (root / licence).is_file()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in readme and "MIT" in readme


def test_the_book_support_is_its_own_distribution_pinned_to_rpp():
    """rpp-book-support requires exactly this version of rpp-book (it uses rpp's private validators)."""
    support = SUPPORT_PROJECT["project"]
    assert support["name"] == "rpp-book-support" and support["version"] == PROJECT["version"]
    assert support["dependencies"] == [f"rpp-book[chapters]=={PROJECT['version']}"]
    assert PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"] == ["rpp", "rpp.*"]
    assert SUPPORT_PROJECT["tool"]["setuptools"]["packages"]["find"]["include"] == ["rpp_book", "rpp_book.*"]
    assert importlib.metadata.version("rpp-book-support") == PROJECT["version"]


def test_the_librarys_wheel_carries_no_book_support(tmp_path):
    """Build rpp-book's wheel (offline: setuptools from this environment) and list it.

    From a copy of the files git tracks: setuptools' build/ folder in a working tree keeps files
    of earlier builds, which would land in the wheel (a fresh clone has none)."""
    import shutil
    import zipfile

    src = tmp_path / "src"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, tracked.decode().split("\0")):
        if (ROOT / rel).is_file():  # a file deleted in the working tree is not copied
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    # the PEP 517 hook pip would call (without build isolation): works in a venv without pip
    # (uv's), with the setuptools of the environment (the lock's; build-system.requires online)
    pytest.importorskip("setuptools", reason="building a wheel offline needs setuptools in the environment")
    out = subprocess.run(
        [sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_wheel({str(tmp_path)!r})"],
        cwd=src, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = tmp_path.glob("rpp_book-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert "rpp" in tops and not any(t.startswith("rpp_book") and not t.endswith(".dist-info") for t in tops), tops
    assert not [n for n in names if "/uci/" in n or n.endswith((".csv.gz", ".data.gz"))], "the UCI data are the book's"
    assert "rpp/py.typed" in names and not [n for n in names if n.endswith(".bif.gz")], "ALARM is the book's"


def test_data_are_package_data():
    patterns = SUPPORT_PROJECT["tool"]["setuptools"]["package-data"]["rpp_book.data"]
    shipped = {
        p.relative_to(SUPPORT / "rpp_book" / "data").as_posix()
        for p in (SUPPORT / "rpp_book" / "data" / "uci").rglob("*")
        if p.is_file()
    }
    from fnmatch import fnmatch

    assert shipped and all(any(fnmatch(f, pat) for pat in patterns) for f in shipped)


def test_make_refuses_pythons_below_the_locks_floor():
    """The Makefile's check-python stops where the locks cannot install (tools/lock.py's floor, 3.11.7):
    Debian 12's python3, 3.11.2, passed a check of 3.11 and then failed in pip on soupsieve's pin."""
    lock_src = (ROOT / "tools" / "lock.py").read_text(encoding="utf-8")
    floor = re.search(r'^PYTHON = "(\d+)\.(\d+)\.(\d+)"', lock_src, re.M)
    assert floor, "tools/lock.py names its floor as PYTHON"
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    check = make[make.index("check-python:") :].split("\n\n")[0]
    assert f"sys.version_info >= ({floor[1]}, {floor[2]}, {floor[3]})" in check
