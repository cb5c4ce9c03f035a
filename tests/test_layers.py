"""The layers of ``rpp``, checked on the source: every way a module can import another.

import-linter (``make lint``: ``lint-imports``, configured in pyproject.toml) checks the
contracts on the import graph that grimp builds from ``import`` statements.  This test reads the
same contracts from pyproject.toml and checks them on the source with ``ast``, including what a
static graph does not see:

* imports inside functions (``def f(): from rpp_book import tables``);
* dynamic imports by string: ``importlib.import_module("rpp_book.tables")``,
  ``import_module(".noise", __package__)``, ``__import__("rpp.calibration")``; a dynamic import whose
  target is not a string literal is itself a violation in the library (nothing could check it);
* importing the root ``rpp`` (the curated namespace, which imports every package) from inside
  the library.

It also checks that no module imports a private name (``_x``) from another package, and that no
public function or method of ``rpp`` is annotated ``-> Any``.  The checker is tested on planted
violations in a temporary copy of the package (one of them is the issue's
``import_module("rpp_book.tables")`` in the divergence package, which an earlier layer test,
reading only ``from`` imports, passed).  The book support (``rpp_book``, its own distribution)
is outside the package: any import of it from the library is a violation.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rpp"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
CONTRACTS = CONFIG["contracts"]


# ---------------------------------------------------------------------------------------------
# The contracts of pyproject.toml
# ---------------------------------------------------------------------------------------------


def _layers():
    """{top-level package: (row, row is independent)} from the layers contract (row 0 is the top)."""
    (contract,) = [c for c in CONTRACTS if c["type"] == "layers"]
    assert contract["containers"] == ["rpp"]
    rows = {}
    for k, layer in enumerate(contract["layers"]):
        independent = ":" not in layer
        for name in layer.replace(":", "|").split("|"):
            rows[name.strip().strip("()")] = (k, independent)
    return rows


ROWS = _layers()


def _forbidden_pairs():
    """(importer package, imported package) pairs that the independence and forbidden contracts forbid."""
    pairs = set()
    for c in CONTRACTS:
        if c["type"] == "independence":
            mods = [m.removeprefix("rpp.") for m in c["modules"]]
            pairs |= {(a, b) for a in mods for b in mods if a != b}
        elif c["type"] == "forbidden":
            pairs |= {
                (a.removeprefix("rpp."), b.removeprefix("rpp."))
                for a in c["source_modules"]
                for b in c["forbidden_modules"]
            }
    return pairs


FORBIDDEN = _forbidden_pairs()


def allowed(importer: str, imported: str) -> bool:
    """Whether top-level package ``importer`` may import top-level package ``imported``."""
    if importer == imported:
        return True
    if (importer, imported) in FORBIDDEN:
        return False
    (ri, ind_i), (rj, _) = ROWS[importer], ROWS[imported]
    return ri < rj or (ri == rj and not ind_i)


def test_the_contracts_cover_every_package_and_forbid_the_book():
    tops = {
        p.stem if p.is_file() else p.name
        for p in PKG.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
    }
    assert tops <= set(ROWS), f"packages in no layer: {sorted(tops - set(ROWS))}"
    assert "book" not in tops, "the book support is rpp_book (support/), not a package of rpp"
    assert ROWS["_lib"][0] == max(r for r, _ in ROWS.values())
    # every package of the library is a source of the contract that forbids the book support
    library = {t for t in tops if not t.startswith("_")} | {"_lib"}
    (book,) = [c for c in CONTRACTS if c["type"] == "forbidden" and c["forbidden_modules"] == ["rpp_book"]]
    assert {m.removeprefix("rpp.") for m in book["source_modules"]} >= library
    assert CONFIG.get("include_external_packages") is True
    assert any(c["type"] == "acyclic_siblings" and c["ancestors"] == ["rpp"] for c in CONTRACTS)


# ---------------------------------------------------------------------------------------------
# The checker: every import of a module, static or by string, at any depth
# ---------------------------------------------------------------------------------------------


def _absolute(module: str, level: int, path: Path, pkg: Path) -> str:
    """The absolute module name of ``from <level dots><module> import ...`` inside ``path``."""
    rel = path.relative_to(pkg.parent).with_suffix("").parts
    package = list(rel if path.name == "__init__.py" else rel[:-1])
    if path.name == "__init__.py":
        package = package[:-1]
    if level:
        package = package[: len(package) - (level - 1)]
        return ".".join(package + ([module] if module else []))
    return module


def _string_import(node: ast.Call):
    """(target or None, package argument) of importlib.import_module(...) / __import__(...) calls."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in ("import_module", "__import__"):
        return None
    if not node.args:
        return (None, None)
    arg = node.args[0]
    target = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
    package = node.args[1] if name == "import_module" and len(node.args) > 1 else None
    for kw in node.keywords:
        if kw.arg == "package":
            package = kw.value
    return (target, package)


def imports(path: Path, pkg: Path = PKG):
    """(line, absolute module imported, names, how) of every import of ``rpp`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = ".".join(_absolute("", 1, path, pkg).split("."))  # the module's package
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, [], "import"
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, path, pkg)
            names = [a.name for a in node.names]
            yield node.lineno, base, names, "from"
            for alias in node.names:  # "from . import x": x may be a module
                yield node.lineno, f"{base}.{alias.name}", [], "from-module"
        elif isinstance(node, ast.Call):
            found = _string_import(node)
            if found is None:
                continue
            target, package = found
            if target is None:
                yield node.lineno, None, [], "dynamic"
            elif target.startswith("."):
                level = len(target) - len(target.lstrip("."))
                known = isinstance(package, ast.Name) and package.id in ("__name__", "__package__")
                # the package: __package__, or the __name__ of a package's __init__ (relative to a plain
                # module's __name__ the import fails at run time: a module is no package)
                base = here
                if not known:
                    yield node.lineno, None, [], "dynamic"
                    continue
                parts = base.split(".")
                parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
                yield node.lineno, ".".join([*parts, target.lstrip(".")]), [], "string"
            else:
                yield node.lineno, target, [], "string"


def _top(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "rpp":
        return None
    return parts[1] if len(parts) > 1 else ""


def violations(pkg: Path = PKG) -> list[str]:  # noqa: C901  one contract of the layers after another
    """Every import of the package at ``pkg`` that breaks a contract, as readable lines."""
    out = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent)
        own = _top(".".join(rel.with_suffix("").parts))
        if own == "__init__":  # rpp/__init__.py: the curated namespace, above every layer
            continue
        for line, module, names, how in imports(path, pkg):
            where = f"{rel}:{line}"
            if module is None:
                out.append(f"{where}: a dynamic import whose target is not a literal ({how})")
                continue
            if module == "rpp_book" or module.startswith("rpp_book."):
                out.append(f"{where}: imports the book support {module} (the library never does)")
                continue
            target = _top(module)
            if target is None or (how == "from-module" and target == ""):
                continue
            if target == "":
                out.append(f"{where}: imports the root `rpp` (the namespace imports every package)")
                continue
            if target not in ROWS:
                if how != "from-module":
                    out.append(f"{where}: imports {module}, in no layer of pyproject's contract")
                continue
            if not allowed(own, target):
                out.append(f"{where}: {own} imports {module} ({how} import), against the layers")
            elif target != own and not target.startswith("_") and how == "from":
                private = [n for n in names if n.startswith("_")]
                if private:
                    out.append(f"{where}: imports private names {private} from {module}")
    return out


def test_every_import_respects_the_layers():
    found = violations()
    assert not found, "\n".join(found)


# ---------------------------------------------------------------------------------------------
# The checker catches planted violations (in a temporary copy of the package)
# ---------------------------------------------------------------------------------------------

PLANTS = [
    # the case: a string import of the book support from the divergence package
    (
        "divergence/_renyi.py",
        "def _planted():\n    import importlib\n    return importlib.import_module('rpp_book.tables')\n",
        "imports the book support rpp_book.tables",
    ),
    (
        "priors.py",
        "def _planted():\n    return __import__('rpp.calibration')\n",
        "priors imports rpp.calibration (string import)",
    ),
    (
        "transport.py",
        "def _planted():\n    from rpp_book import tables\n    return tables\n",
        "imports the book support rpp_book",
    ),
    (
        "divergence/_closed_forms.py",
        "def _planted():\n    from importlib import import_module\n    return import_module('..noise', __package__)\n",
        "divergence imports rpp.noise (string import)",
    ),
    (
        "gmm.py",
        "def _planted(name):\n    import importlib\n    return importlib.import_module(name)\n",
        "a dynamic import whose target is not a literal",
    ),
    ("rules/_gaussian.py", "def _planted():\n    import rpp\n    return rpp\n", "imports the root `rpp`"),
    (
        "divergence/_renyi.py",
        "from ..transport import w_infinity as _planted  # noqa\n",
        "divergence imports rpp.transport (from import)",
    ),
    ("pufferfish/_finite.py", "from ..divergence import renyi_divergence as _allowed  # noqa\n", None),
]


@pytest.fixture(scope="module")
def copy_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(PKG, root / "rpp", ignore=shutil.ignore_patterns("__pycache__", "*.gz", "uci"))
    return root


def check_plant(copy_root: Path, plant: tuple[str, str, str | None], check) -> None:
    """Append ``code`` to ``rpp/<rel>`` of the copy: ``check`` finds ``expected`` there (nothing if ``None``)."""
    rel, code, expected = plant
    path = copy_root / "rpp" / rel
    original = path.read_text(encoding="utf-8")
    before = set(check(copy_root / "rpp"))
    try:
        path.write_text(original + "\n\n" + code, encoding="utf-8")
        found = [v for v in set(check(copy_root / "rpp")) - before if v.startswith(f"rpp/{rel}:")]
    finally:
        path.write_text(original, encoding="utf-8")
    if expected is None:
        assert not found, found
    else:
        assert any(expected in v for v in found), (expected, found)


@pytest.mark.parametrize("plant", PLANTS, ids=[f"{p[0]}:{p[2] or 'allowed'}" for p in PLANTS])
def test_the_checker_catches_a_planted_violation(copy_root, plant):
    check_plant(copy_root, plant, violations)


def test_import_linter_catches_a_planted_function_level_import(copy_root):
    """lint-imports with pyproject's contracts: kept on the copy, broken by one planted import."""
    lint = Path(sys.executable).parent / "lint-imports"
    assert lint.exists(), "import-linter is a developer dependency ([dev])"
    shutil.copy(ROOT / "pyproject.toml", copy_root / "pyproject.toml")

    def run():
        return subprocess.run(
            [str(lint), "--no-cache"],
            cwd=copy_root,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(copy_root), "PATH": "/usr/bin:/bin"},
            timeout=300,
        )

    out = run()
    assert out.returncode == 0, out.stdout + out.stderr
    path = copy_root / "rpp" / "divergence" / "_renyi.py"
    original = path.read_text(encoding="utf-8")
    try:
        path.write_text(
            original + "\n\ndef _planted():\n    from rpp_book import tables\n    return tables\n", encoding="utf-8"
        )
        out = run()
    finally:
        path.write_text(original, encoding="utf-8")
    assert out.returncode != 0 and "BROKEN" in out.stdout.upper(), out.stdout


# ---------------------------------------------------------------------------------------------
# No public function annotated -> Any
# ---------------------------------------------------------------------------------------------


def _public_functions(pkg: Path = PKG):
    """(file:line, qualified name, return annotation) of every public function and method of rpp."""
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent)
        if any(part.startswith("_") and part != "__init__.py" for part in rel.parts):
            continue  # a private module or package (rpp._lib)

        def visit(node, prefix, rel=rel):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and not child.name.startswith("_"):
                    ret = ast.unparse(child.returns) if child.returns is not None else None
                    yield f"{rel}:{child.lineno}", prefix + child.name, ret
                elif isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                    yield from visit(child, prefix + child.name + ".", rel)

        yield from visit(ast.parse(path.read_text(encoding="utf-8")), "")


def _any_returns(pkg: Path = PKG) -> list[str]:
    return [
        f"{where}: {name} -> {ret}"
        for where, name, ret in _public_functions(pkg)
        if ret is not None and ret.replace("typing.", "").strip("'\"") == "Any"
    ]


def test_no_public_function_returns_any():
    found = _any_returns()
    assert not found, f"{len(found)} public functions annotated -> Any:\n" + "\n".join(found)


def test_the_any_check_catches_a_planted_one(copy_root):
    path = copy_root / "rpp" / "transport.py"
    original = path.read_text(encoding="utf-8")
    try:
        path.write_text(original + "\n\ndef planted() -> typing.Any:\n    return 1\n", encoding="utf-8")
        found = _any_returns(copy_root / "rpp")
    finally:
        path.write_text(original, encoding="utf-8")
    assert any("planted -> typing.Any" in f for f in found), found


# ---------------------------------------------------------------------------------------------
# No module imports another module's private names (issue #37: one owner per formula)
# ---------------------------------------------------------------------------------------------


def _is_private(name: str) -> bool:
    """``_x`` (one leading underscore), not a dunder such as ``__version__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path, pkg: Path) -> str:
    """The dotted name of the module at ``path`` (``rpp.rules`` for rpp/rules/__init__.py)."""
    parts = path.relative_to(pkg.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, pkg: Path) -> bool:
    """Whether ``name`` (``rpp.x.y``) is a module or package of the package at ``pkg``."""
    parts = name.split(".")
    if parts[0] != pkg.name:
        return False
    base = pkg.parent.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def private_imports(pkg: Path = PKG) -> list[str]:  # noqa: C901  one kind of access after another
    """Every use, in a module of ``pkg``, of a private name (``_x``) of another module of ``pkg``.

    A shared helper has one owner; a module that needs another's helper imports it under a name
    without a leading underscore, from its owner or from a private module (``_grid.py``,
    ``rpp._lib``) that owns it (the pattern of scipy).  Importing a private module itself
    (``from . import _sources``) is fine; what is flagged is

    * ``from X import _name`` (at any depth, in ``TYPE_CHECKING`` blocks too) where ``X`` is
      another module of the package and ``X._name`` is no module;
    * ``module._name`` where ``module`` is bound by an import to another module of the package
      (``from . import _w_alpha`` ... ``_w_alpha._cost``; ``import rpp.rules._w_alpha as w`` ...
      ``w._cost``; ``import rpp.rules._w_alpha`` ... ``rpp.rules._w_alpha._cost``).
    """
    root = pkg.name
    out = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent)
        here = _module_name(path, pkg)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name -> module of the package it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != root:
                        continue
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[root] = root
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node.module or "", node.level, path, pkg)
                if base.split(".")[0] != root:
                    continue
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    if _is_module(full, pkg):
                        bound[alias.asname or alias.name] = full
                    elif _is_private(alias.name) and base != here:
                        out.append(f"{rel}:{node.lineno}: imports private name {alias.name} from {base}")
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not _is_private(node.attr):
                continue
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if not isinstance(value, ast.Name) or value.id not in bound:
                continue
            module = ".".join([bound[value.id], *reversed(chain)])
            if _is_module(module, pkg) and module != here:
                out.append(f"{rel}:{node.lineno}: uses private name {node.attr} of {module}")
    return sorted(set(out))


def test_no_module_imports_another_modules_private_names():
    found = private_imports()
    assert not found, f"{len(found)} uses of another module's private names:\n" + "\n".join(found)


PRIVATE_PLANTS = [
    (
        "rules/_gaussian.py",
        "from ._w_alpha import _planted  # noqa\n",
        "imports private name _planted from rpp.rules._w_alpha",
    ),
    (
        "rules/_gaussian.py",
        "from ..divergence._renyi import (\n    renyi_divergence,\n    _planted,\n)  # noqa\n",
        "imports private name _planted from rpp.divergence._renyi",
    ),
    (
        "rules/_gaussian.py",
        "def _f():\n    from .._lib.numerics import _planted  # noqa\n",
        "imports private name _planted from rpp._lib.numerics",
    ),
    (
        "rules/_gaussian.py",
        "from . import _w_alpha as _w  # noqa\n_x = _w._planted\n",
        "uses private name _planted of rpp.rules._w_alpha",
    ),
    (
        "rules/_gaussian.py",
        "import rpp.rules._w_alpha  # noqa\n_x = rpp.rules._w_alpha._planted\n",
        "uses private name _planted of rpp.rules._w_alpha",
    ),
    (
        "rules/_gaussian.py",
        "from .. import rules  # noqa\n_x = rules._w_alpha._planted\n",
        "uses private name _planted of rpp.rules._w_alpha",
    ),
    # allowed: a private module itself, a public name of a private module, a dunder, one's own names
    ("rules/_mixture.py", "from . import _costs as _c  # noqa\n_x = _c.__name__\n", None),
    ("rules/_gaussian.py", "from .._lib import cache as _cache  # noqa\n", None),
    ("rules/_gaussian.py", "from ._gaussian import _planted  # noqa\n", None),
]


@pytest.mark.parametrize("plant", PRIVATE_PLANTS, ids=[f"{p[0]}:{p[2] or 'allowed'}" for p in PRIVATE_PLANTS])
def test_the_private_name_check_catches_a_planted_one(copy_root, plant):
    check_plant(copy_root, plant, private_imports)


# ---------------------------------------------------------------------------------------------
# The path of a divergence call (traced): through the dispatcher, never back up a layer
# ---------------------------------------------------------------------------------------------


def test_a_divergence_call_goes_through_the_dispatcher_and_never_climbs_a_layer():
    """The calls the API appendix draws (tools/call_path.py): no call from a file of rpp into a
    file of a higher layer, except a callback (a function the caller was handed as an argument)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import call_path

    for name, steps in call_path.run_examples().items():
        assert steps, name
        assert "divergence/_renyi.py" in call_path.files(steps), (name, "not through renyi_divergence")
        assert not call_path.climbs(steps), (name, call_path.climbs(steps))
        assert len(call_path.files(steps)) <= 10, (name, call_path.files(steps))


def test_the_call_path_tracer_sees_a_climb():
    """The tracer's own check: a lower layer calling a higher one (planted) is a climb, a callback is not."""
    sys.path.insert(0, str(ROOT / "tools"))
    import call_path

    rows = call_path.layer_rows()
    up = call_path.Step("_lib/numerics.py", "divergence/_renyi.py", "renyi_divergence", callback=False)
    back = call_path.Step("_lib/numerics.py", "divergence/_gaussian_noise.py", "log_f_mag", callback=True)
    down = call_path.Step("calibration/_search.py", "divergence/_renyi.py", "renyi_divergence", callback=False)
    assert call_path.climbs([up, back, down], rows) == [up]

    # the traced estimate has one: _lib.numerics evaluates the integrand divergence handed it
    (estimate, _) = call_path.run_examples().values()
    callbacks = [s for s in estimate if s.callback]
    assert callbacks and all(s.caller.startswith("_lib/") for s in callbacks), callbacks
    unflagged = [call_path.Step(s.caller, s.callee, s.function, callback=False) for s in callbacks]
    assert call_path.climbs(unflagged, rows) == unflagged, "without the flag a callback is a climb"


# ---------------------------------------------------------------------------------------------
# One path per name (issue #37): private modules under the subpackages, one home per name
# ---------------------------------------------------------------------------------------------

#: the public homes of names: the subpackages (curated namespaces over private modules) and the
#: top-level modules; ``rpp`` itself is the home only of what it takes from ``rpp._lib``
HOMES = (
    "rpp.priors",
    "rpp.certified",
    "rpp.sampling",
    "rpp.noise",
    "rpp.transport",
    "rpp.gmm",
    "rpp.divergence",
    "rpp.pufferfish",
    "rpp.rules",
    "rpp.calibration",
    "rpp.accounting",
)


def public_modules_in_subpackages(pkg: Path = PKG) -> list[str]:
    """Every module under a subpackage of ``pkg`` whose name has no leading underscore."""
    out = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent)
        parts = rel.with_suffix("").parts
        if len(parts) < 3 or parts[-1] == "__init__" or any(p.startswith("_") for p in parts[1:]):
            continue
        out.append(f"{rel}:1: a public module under a subpackage (its names belong in the package's __init__)")
    return out


def _owner(module: str) -> str | None:
    """The package a private module belongs to (``rpp.divergence._renyi`` -> ``rpp.divergence``)."""
    parts = module.split(".")
    for k, part in enumerate(parts):
        if _is_private(part):
            return ".".join(parts[:k])
    return None


def foreign_private_imports(pkg: Path = PKG) -> list[str]:
    """Every import, in a module of ``pkg``, of a private module of another package.

    A private module (``rpp.divergence._renyi``) may be imported only from inside its package
    (``rpp.divergence``); other packages import its names from the package's namespace
    (``from ..divergence import renyi_divergence``). ``rpp._lib`` belongs to ``rpp``: every module
    may import it. Imports inside functions and string imports are included.
    """
    out = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent)
        here = _module_name(path, pkg)
        for line, module, _names, how in imports(path, pkg):
            if module is None or module.split(".")[0] != pkg.name:
                continue
            owner = _owner(module)
            if owner is None or here == owner or here.startswith(owner + "."):
                continue
            if how == "from-module" and not _is_module(module, pkg):
                continue  # ``from rpp.x import _name``: a name, not a module (the check above)
            out.append(f"{rel}:{line}: imports {module}, a private module of {owner} ({how} import)")
    return sorted(set(out))


def test_no_public_module_under_a_subpackage():
    found = public_modules_in_subpackages()
    assert not found, "\n".join(found)


def test_no_module_imports_a_private_module_of_another_package():
    found = foreign_private_imports()
    assert not found, "\n".join(found)


FOREIGN_PLANTS = [
    (
        "rules/_gaussian.py",
        "from ..divergence._renyi import renyi_divergence as _p  # noqa\n",
        "imports rpp.divergence._renyi, a private module of rpp.divergence (from import)",
    ),
    (
        "calibration/_search.py",
        "def _p():\n    from ..rules import _exact  # noqa\n    return _exact\n",
        "imports rpp.rules._exact, a private module of rpp.rules (from-module import)",
    ),
    (
        "noise.py",
        "def _p():\n    import rpp.divergence._proved  # noqa\n",
        "imports rpp.divergence._proved, a private module of rpp.divergence (import import)",
    ),
    (
        "accounting/_releases.py",
        "def _p():\n    import importlib\n    return importlib.import_module('rpp.calibration._search')\n",
        "imports rpp.calibration._search, a private module of rpp.calibration (string import)",
    ),
    # allowed: a sibling's private module, the namespace, rpp._lib
    ("rules/_gaussian.py", "from ._w_alpha import w_alpha as _p  # noqa\n", None),
    ("rules/_gaussian.py", "from ..divergence import renyi_divergence as _p  # noqa\n", None),
    ("pufferfish/_finite.py", "from .._lib.numerics import lse as _p  # noqa\n", None),
]


@pytest.mark.parametrize("plant", FOREIGN_PLANTS, ids=[f"{p[0]}:{p[2] or 'allowed'}" for p in FOREIGN_PLANTS])
def test_the_foreign_private_import_check_catches_a_planted_one(copy_root, plant):
    check_plant(copy_root, plant, foreign_private_imports)


def test_the_public_module_check_catches_a_planted_one(copy_root):
    planted = copy_root / "rpp" / "divergence" / "planted.py"
    planted.write_text('"""A public module under a subpackage."""\n', encoding="utf-8")
    try:
        found = public_modules_in_subpackages(copy_root / "rpp")
    finally:
        planted.unlink()
    assert found == [
        "rpp/divergence/planted.py:1: a public module under a subpackage (its names belong in the package's __init__)"
    ]
    assert not public_modules_in_subpackages(copy_root / "rpp")


def homes_of_names(homes: tuple[str, ...] = HOMES) -> list[str]:
    """Every name of a public namespace not listed in exactly one home, or not that home's object.

    Each name of a home's ``__all__`` must be listed by no other home; each of ``rpp.__all__``
    must be a public module of ``rpp`` or the very object of a home's name (``rpp.calibrate`` is
    ``rpp.calibration.calibrate``), except the names ``rpp`` takes from ``rpp._lib`` (their home
    is ``rpp``).
    """
    import importlib

    import rpp

    out = []
    listed: dict[str, list[str]] = {}
    for home in homes:
        module = importlib.import_module(home)
        for name in module.__all__:
            listed.setdefault(name, []).append(home)
            if not hasattr(module, name):
                out.append(f"{home}.{name}: listed in __all__ but missing")
    for name, where in sorted(listed.items()):
        if len(where) > 1:
            out.append(f"{name}: listed in {len(where)} homes, {', '.join(where)}")
    for name in rpp.__all__:
        obj = getattr(rpp, name)
        if isinstance(obj, type(rpp)):
            if not (obj.__name__ in homes or obj.__name__ == f"rpp.{name}") or _is_private(name):
                out.append(f"rpp.{name}: a module that is no public home")
            continue
        where = listed.get(name, [])
        if not where:
            if not getattr(obj, "__module__", "").startswith("rpp._lib."):
                out.append(f"rpp.{name}: in no home's __all__")
        elif getattr(importlib.import_module(where[0]), name) is not obj:
            out.append(f"rpp.{name}: not the object {where[0]}.{name}")
    return out


def test_every_public_name_has_one_home():
    found = homes_of_names()
    assert not found, "\n".join(found)


def test_the_home_check_catches_a_second_home_and_a_stray_alias(monkeypatch):
    import rpp
    import rpp.divergence
    import rpp.pufferfish

    monkeypatch.setattr(rpp.pufferfish, "__all__", [*rpp.pufferfish.__all__, "discrete_renyi_divergence"])
    monkeypatch.setattr(
        rpp.pufferfish, "discrete_renyi_divergence", rpp.divergence.discrete_renyi_divergence, raising=False
    )
    assert homes_of_names() == ["discrete_renyi_divergence: listed in 2 homes, rpp.divergence, rpp.pufferfish"]
    monkeypatch.undo()
    monkeypatch.setattr(rpp, "gaussian_renyi", lambda *a: None)
    assert homes_of_names() == ["rpp.gaussian_renyi: not the object rpp.divergence.gaussian_renyi"]
    monkeypatch.undo()
    monkeypatch.setattr(rpp, "__all__", [*rpp.__all__, "planted"])
    monkeypatch.setattr(rpp, "planted", lambda: None, raising=False)
    assert homes_of_names() == ["rpp.planted: in no home's __all__"]
