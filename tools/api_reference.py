"""Write the API appendix, ``book/api.md``, from the package itself.

``python tools/api_reference.py`` rewrites the file; ``--check`` exits 1 when the file on disk
differs from what it would write (``tests/book/test_api_reference.py`` runs the check, so the
appendix cannot fall behind the package).

What is generated and from where:

- the layer drawing of the Design section, from the ``layers`` contract of import-linter in
  ``pyproject.toml`` (the same contract ``make lint`` enforces, so the picture is the rule);
- each layer's one-line description, from the first line of its module docstring;
- the top-level list of aliases, from ``rpp.__all__`` and ``rpp._LAZY`` (each alias is documented
  once, under its home); each section's members, from the ``__all__`` of its home (Sphinx
  autodoc documents exactly those).

The prose of the Design section is written here, next to the code that draws the layers.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))  # call_path, beside this file
TARGET = ROOT / "book" / "api.md"

# Each section documents one home of names (issue #37, one path per name): a top-level module, or
# a subpackage's namespace (its __init__; the modules under it are private). Every public name is
# documented once, in its home's section; the top level's curated names are listed as aliases.
# (module, anchor, title, where the book uses it); the order of the reference sections.
SECTIONS = [
    ("rpp.priors", "api-priors", "Priors", "every chapter"),
    ("rpp.certified", "api-certified", "Certified results", "chapters 3-6, 9"),
    ("rpp.divergence", "api-divergence", "Divergences", "chapters 1-6"),
    ("rpp.noise", "api-noise", "Noise", "chapters 3, 5, 6, 9"),
    ("rpp.transport", "api-transport", "Optimal transport", "chapters 4, 5"),
    ("rpp.gmm", "api-gmm", "Mixture fitting", "chapters 4, 6"),
    ("rpp.rules", "api-rules", "Calibration rules", "chapters 3-6"),
    ("rpp.calibration", "api-calibration", "Calibration", "chapters 2-6, 9"),
    ("rpp.accounting", "api-accounting", "Accounting", "chapters 1-5, 9"),
    ("rpp.sampling", "api-sampling", "Secure sampling", "chapter 9"),
    ("rpp.pufferfish", "api-pufferfish", "Finite spaces and Pufferfish composition", "chapters 1, 2, 7, 8"),
]
# Book support: documented module by module (its package namespace is deliberately small).
BOOK_MODULES = [
    "rpp_book.queries",
    "rpp_book.experiments",
    "rpp_book.tables",
    "rpp_book.composition_examples",
    "rpp_book.data",
]

DESIGN = """\
(api-design)=
## Design

`rpp` answers one question: how much noise must a release carry so that an adversary who knows
a prior over the data learns at most $\\varepsilon$ about a secret, measured by the Rényi
divergence of order $\\alpha$ between the output laws under two secrets. Its packages follow
the steps of that answer, and each imports only from the rows below it:

```text
{layers}
```

(In a row, `|` separates packages that must not import each other and `:` packages that may;
a name in parentheses is optional.) `make lint` enforces the
picture with [import-linter](https://import-linter.readthedocs.io) (the contracts are in
`pyproject.toml`, and this drawing is generated from them), and `tests/test_layers.py` reads
the imports a linter does not see (`importlib.import_module`, `__import__`, imports inside
functions).

Why these layers:

- **Priors are values.** `Gaussian(mean=0, var=4)`, `GaussianMixture(weights=..., means=..., vars=...)` and `Empirical(atoms, weights=...)`
  are frozen, compared by value and constructed by keyword only, so no reader has to remember
  whether a positional second argument is a variance or a standard deviation.
- **A divergence is a `Certified` number.** Every divergence returns
  `Certified(value, error, rigorous)`: the computed value, a bound on its error, and whether
  that bound is *proved* (a closed form with its rounding analysis, interval arithmetic, proved
  quadrature and truncation bounds) or an *estimate*. The words of the API follow the flag:
  `Calibration.guaranteed` is true only when the budget is met with `rigorous=True`, and
  `calibrate` proves its final check by default and refuses where no proved path exists
  (`require="estimate"` is the explicit opt-in for speed, and `rigorous` then says which).
- **Noise is a scale.** `GaussianNoise(scale=θ)` and `LaplaceNoise(scale=b)` are the one
  parametrisation of the mechanism; every rule returns a scale, so rules are comparable and
  the calibration's method table can take the smallest scale among those that apply.
- **A release is a record.** Every release path returns a frozen `Release`: the noisy value
  (`.value`) with its provenance (noise family, scale, grid, the source of its random bits,
  whether it is reproducible, optionally the `Calibration` it used). `release_report` reads the
  records instead of taking the publisher's word for the noise, and lists what it cannot check
  as declared by the publisher. A record is not a number: callers use `.value`.
- **Rules are pure; calibration owns the search.** A rule maps a pair of priors and
  $(\\alpha, \\varepsilon)$ to a sufficient scale. `calibrate` runs one search over them and ends,
  like the calibration of Google's dp-accounting (`mechanism_calibration.py`), with a step that
  checks the divergence at the returned scale, error included, against the budget: the result
  never carries less noise than requested.
- **Accounting is above calibration.** Repeated releases, every secret pair of a prior class
  and the release budget combine calibrations; they never reach into the rules.
- **One path per name.** The modules inside a subpackage are private (`rpp/divergence/_renyi.py`);
  the package's namespace is the one home of their names (`rpp.divergence.renyi_divergence`,
  the model of `scipy.stats`), and a package that needs another's name imports it from that
  namespace, never from its private modules. The top-level modules (`rpp.priors`, `rpp.noise`,
  ...) are homes too, and `rpp` adds short aliases of the names most used (`rpp.calibrate` is
  `rpp.calibration.calibrate`). `tests/test_layers.py` checks the rule.
- **The book's support is not the library.** `rpp_book` holds what the chapters need to
  reproduce the papers (queries, experiment sweeps, tables, the UCI data, the composition
  examples, the benchmark). It is a distribution of its own (`rpp-book-support`, the folder
  `support/` of the repository, pinned to the same version of `rpp-book`), so the library's
  wheel does not carry it; the library never imports it (an import-linter contract), so the
  library's behaviour cannot depend on the book's experiments. The test of what belongs where:
  would a practitioner calibrating their own release import it?
- **Dependencies follow the layers.** The library needs numpy and scipy; scikit-learn (`fit_gmm`),
  POT (large transport plans) and python-flint (proved divergences) are imported only by the
  functions that use them, and matplotlib, sympy and pandas belong to the book.
"""


PAPERS = """\
(api-papers)=
### Where each paper's result lives

- **Yang et al. (2026), Sec. III**
  - Def. III.1, the Rényi divergence of two Gaussians: {func}`rpp.divergence.gaussian_renyi`
  - Thm III.5, eq. (6): the closed-form noise; Algorithm 1 as published: {func}`rpp.rules.closed_form`, {func}`rpp.rules.published_bisection`
  - the smallest noise (the book's, for any prior): {func}`rpp.rules.exact`, {func}`rpp.calibrate`
- **Yang et al. (2026), Sec. IV**
  - Thm IV.1: mixtures by optimal transport of components: {func}`rpp.rules.gmm_ot`, {func}`rpp.transport.component_coupling`
  - the tight variant (joint convexity, exact component divergences): {func}`rpp.rules.gmm_ot_tight`
- **α-Wasserstein paper (2026)**
  - the α-Wasserstein conditions and mechanism: {func}`rpp.rules.w_alpha`, {func}`rpp.rules.alpha_wasserstein`
  - exponential-family noise, eq. (13); α < 1: {func}`rpp.rules.exponential_family`, {func}`rpp.rules.alpha_below_one`
- **Pierquin et al. (2024)**
  - the $W_\\infty$ baseline: {func}`rpp.rules.pierquin`, {func}`rpp.transport.w_infinity`
- **Bai et al. (2026), Sec. 4**
  - posteriors and repeated runs (privacy collapse): {func}`rpp.pufferfish.posterior_of_secret`, {func}`rpp.pufferfish.composed_output_distribution`
- **Bai et al. (2026), Sec. 5**
  - necessary conditions for linear composition (LPs): {func}`rpp.pufferfish.nfc_min_epsilon`, {func}`rpp.pufferfish.nfc_violation`
- **Bai et al. (2026), Sec. 6**
  - the $a(b)$-influence curve; Theorems 3–4: {func}`rpp.pufferfish.a_dagger`, {func}`rpp.pufferfish.epsilon_puffer_from_curve`, {func}`rpp.pufferfish.theorem4_epsilon`
  - Markov chains, Gaussian fields, Bayesian networks: {func}`rpp.pufferfish.chain_ab_curve`, {func}`rpp.pufferfish.gaussian_region_ab_curve`, {func}`rpp.pufferfish.bn_ab_estimate`
- **Bai et al. (2026), Examples 1, 3, 5; ALARM**
  - the paper's examples (book support): {mod}`rpp_book.composition_examples`
- **Yang et al. (2026), Sec. V**
  - the experiments on UCI data (book support): {mod}`rpp_book.queries`, {mod}`rpp_book.experiments`

The functions a practitioner calls are in `rpp`; what only reproduces a paper's experiment or
example is in `rpp_book`.
"""


def _call_paths() -> str:
    """The Design section's traced paths of two divergence calls (tools/call_path.py)."""
    import call_path

    lines = [
        "(api-call-path)=",
        "### The path of a divergence call",
        "",
        "Every divergence goes through one dispatcher, {func}`rpp.renyi_divergence`",
        "(`rpp/divergence/_renyi.py`), the only place that picks a path and sets `rigorous`. The two",
        "calls below are traced by `tools/call_path.py` when this page is generated (one line per",
        "call from one file of `rpp` into another, indented by depth; a file called again in a row is",
        "drawn once). No call climbs back up a layer, except a *callback*: a function handed down",
        "as an argument (the integrand that `_lib.numerics` evaluates); `tests/test_layers.py`",
        "checks it on the same calls.",
        "",
    ]
    for name, steps in call_path.run_examples().items():
        visited = call_path.files(steps)
        lines += [
            "```text",
            f">>> {name}",
            *call_path.path_lines(steps),
            "```",
            "",
            f"{len(visited)} files: " + ", ".join(f"`{f}`" for f in visited) + ".",
            "",
        ]
    return "\n".join(lines)


def _layers() -> list[str]:
    """The rows of import-linter's layers contract in pyproject.toml, top row first, as written."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config.get("tool", {}).get("importlinter", {}).get("contracts", [])
    layered = [c for c in contracts if c.get("type") == "layers"]
    if len(layered) != 1:
        raise SystemExit(f"expected one import-linter 'layers' contract in pyproject.toml, found {len(layered)}")
    return list(layered[0]["layers"])


def _row_modules(row: str) -> list[str]:
    return ["rpp." + n.strip().strip("()") for part in row.split("|") for n in part.split(":") if n.strip()]


def _summary(module: str) -> str:
    """The first line of the module's docstring, its reST markup removed (it is drawn as text)."""
    doc = importlib.import_module(module).__doc__ or ""
    line = doc.strip().splitlines()[0].rstrip(".") if doc.strip() else ""
    line = re.sub(r":[a-z]+:`~?([^`]*)`", r"\1", line)  # :math:`x`, :func:`~rpp.f` -> x, rpp.f
    return line.replace("``", "").replace("\\|", "|").replace("\\", "")


def _drawing() -> str:
    """One line a row: the row as the contract writes it, with each package's one-line summary."""
    out = []
    for row in _layers():
        names = _row_modules(row)
        label = " ".join(
            tok if tok in ("|", ":") else tok.replace("(", "(rpp.") if tok.startswith("(") else "rpp." + tok
            for tok in row.split()
        )
        out.append(label)
        for name in names:
            out += textwrap.wrap(
                f"{name}: {_summary(name)}", width=80, initial_indent="    ", subsequent_indent="        "
            )
    return "\n".join(out)


def _members(module: str) -> list[str]:
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None)
    if names is None:
        raise SystemExit(f"{module} has no __all__: the API appendix documents a module's __all__")
    return list(names)


def _public_submodules(package: str) -> list[str]:
    """The public submodules of a package: none (issue #37, one path per name: a subpackage's
    modules are private and its ``__init__`` is the one home of its names)."""
    pkg = importlib.import_module(package)
    if not hasattr(pkg, "__path__"):
        return []
    return [f"{package}.{i.name}" for i in pkgutil.iter_modules(pkg.__path__) if not i.name.startswith("_")]


def _home(name: str) -> str:
    """The home of a curated top-level name: the module ``rpp._LAZY`` maps it to."""
    import rpp

    return "rpp" + rpp._LAZY[name]


def _role(obj: object) -> str:
    return "class" if isinstance(obj, type) else "func" if callable(obj) else "data"


def render() -> str:
    """The text of book/api.md."""
    import rpp

    top = [n for n in rpp.__all__ if not isinstance(getattr(rpp, n), type(rpp))]
    own = sorted(n for n in top if _home(n).startswith("rpp._lib"))
    aliased = sorted((n for n in top if n not in own), key=lambda n: (_home(n), n))
    aliases = [f"- `rpp.{n}`: {{{_role(getattr(rpp, n))}}}`{_home(n)}.{n}`" for n in aliased]
    by_home: dict[str, list[str]] = {}
    for n in aliased:
        by_home.setdefault(_home(n), []).append(n)
    lines = [
        "(api-reference)=",
        "# API reference",
        "",
        "The `rpp` package, generated from its docstrings by `tools/api_reference.py` (do not edit",
        "this page by hand: `make api` rewrites it, and `make test` fails when it is out of date).",
        "The examples in the docstrings run as doctests in `make test`.",
        "",
        DESIGN.format(layers=_drawing()),
        _call_paths(),
        PAPERS,
        "(api-top)=",
        "## The top level",
        "",
        "`import rpp` loads nothing until a name is first used (PEP 562). Each public name has one",
        "home, where it is documented: a section below. The top level adds short aliases of the",
        "names most used (the same objects), and the subpackages "
        + ", ".join(f"`rpp.{n}`" for n in rpp.__all__ if isinstance(getattr(rpp, n), type(rpp)))
        + ":",
        "",
        *aliases,
        "",
        "and the cache controls, whose home is `rpp` itself:",
        "",
        "```{eval-rst}",
        ".. automodule:: rpp",
        "   :no-members:",
        "",
    ]
    for name in own:
        lines += [f".. autofunction:: rpp.{name}", ""]
    lines[-1:] = ["```", ""]
    for module, anchor, title, used in SECTIONS:
        _members(module)  # every documented module declares its public names
        public = _public_submodules(module)
        if public:
            raise SystemExit(f"public submodules {public}: a subpackage's modules are private (issue #37)")
        short = by_home.get(module, [])
        also = " At the top level: " + ", ".join(f"`rpp.{n}`" for n in short) + "." if short else ""
        lines += [
            f"({anchor})=",
            f"## {title}",
            "",
            f"`{module}`, used in {used}.{also}",
            "",
            "```{eval-rst}",
            f".. automodule:: {module}",
            "   :members:",
            "```",
            "",
        ]
    lines += [
        "(api-book)=",
        "## Book support",
        "",
        "`rpp_book` (the distribution `rpp-book-support`, `support/` of the repository): what the chapters use to"
        " reproduce the papers. It is not in the library's wheel, and the library never imports it.",
        "",
        "```{eval-rst}",
        ".. automodule:: rpp_book",
        "",
    ]
    for module in BOOK_MODULES:
        _members(module)
        lines += [f".. automodule:: {module}", "   :members:", ""]
    lines[-1:] = ["```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if book/api.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.name} is out of date: run `make api`", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
