"""The benchmark suite of issue #38: the paths users run, timed by ``tools/bench_gate.py``.

Not a test module (pytest collects ``test_*.py`` only): ``make bench`` prints every case,
``make bench-check`` (CI) runs the cases marked ``gated`` and compares them with
``baseline.json``, ``make bench-baseline`` rewrites that file.

Each case is a function that *prepares* its inputs (priors, grids; untimed) and returns the
call to time (a function of no argument).  The harness prepares afresh and times the call
``repeat`` times (the caches emptied before each: rpp's caches are keyed by the content of the
priors' arrays, so a second call on equal priors would time a cache), keeps the best and divides it by the
reference kernel of the same run.  A case that returns ``None`` reports seconds it
measured itself in another way: see :data:`SELF_TIMED`.

The pairs and grids are those of ``rpp_book.bench`` (``python -m rpp_book.bench``): the
Gaussian grid of :func:`rpp_book.bench.gaussian_grid_case`, the empirical pairs of
:func:`rpp_book.bench.atoms_pair`, the mixture pairs of :func:`rpp_book.bench.scaling_pair`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Case:
    """One benchmark: ``prepare()`` returns the call to time; ``gated``: run by the CI gate."""

    name: str
    prepare: Callable[[], Callable[[], object]]
    gated: bool = True
    repeat: int = 3
    what: str = ""


CASES: list[Case] = []


def case(name: str, *, gated: bool = True, repeat: int = 3, what: str = ""):
    """Register ``prepare`` as the benchmark ``name``."""

    def register(prepare):
        CASES.append(Case(name, prepare, gated, repeat, what or (prepare.__doc__ or "").strip().splitlines()[0]))
        return prepare

    return register


# ------------------------------------------------------------------ import


def _import_seconds(statement: str) -> float:
    """Seconds of ``statement`` in a fresh interpreter (measured inside it: no interpreter start)."""
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.split()[-1])


#: Cases whose call returns its own seconds (a float) instead of being timed by the harness.
SELF_TIMED = {"import_rpp", "import_rpp_calibrate", "import_numpy"}


@case("import_rpp", repeat=7)
def _import_rpp():
    """`import rpp` in a fresh interpreter (lazy: no submodule)."""
    return lambda: _import_seconds("import rpp")


@case("import_rpp_calibrate", repeat=5)
def _import_rpp_calibrate():
    """`import rpp; rpp.calibrate` in a fresh interpreter (the calibration stack, numpy, scipy)."""
    return lambda: _import_seconds("import rpp; rpp.calibrate")


@case("import_numpy", gated=False, repeat=7)
def _import_numpy():
    """`import numpy` in a fresh interpreter (for comparison with `import rpp`)."""
    return lambda: _import_seconds("import numpy")


# ------------------------------------------------------------------ Gaussian grid


def _grid(method: str):
    import rpp
    from rpp_book.bench import gaussian_grid_case

    p, q, alpha, eps = gaussian_grid_case()
    return lambda: rpp.calibrate(p, q, alpha=alpha, epsilon=eps, method=method)  # two Gaussians: proved either way


@case("closed_form_grid_1e5", repeat=5)
def _closed_form_grid():
    """calibrate(method="closed-form") on 1e5 (alpha, epsilon) points, two Gaussian priors."""
    return _grid("closed-form")


@case("exact_grid_1e5")
def _exact_grid():
    """calibrate(method="exact") on 1e5 (alpha, epsilon) points, two Gaussian priors."""
    return _grid("exact")


# ------------------------------------------------------------------ exact on many atoms


def _atoms(n: int, noise: str, require: str = "estimate"):
    import rpp
    from rpp_book.bench import atoms_pair

    p, q = atoms_pair(n)
    return lambda: rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="exact", noise=noise, require=require)


# the estimate path (require="estimate", the opt-in for speed): the scale work of issue #38
for _n, _label, _gated, _repeat in ((10_000, "1e4", True, 3), (100_000, "1e5", True, 3), (1_000_000, "1e6", False, 1)):
    for _noise in ("gaussian", "laplace"):
        case(
            f"exact_{_noise}_atoms_{_label}",
            gated=_gated,
            repeat=_repeat,
            what=f"calibrate(exact, {_noise} noise, require='estimate') on two empirical priors of {_label} atoms",
        )(lambda n=_n, noise=_noise: _atoms(n, noise))

# the proved default (issue #34): Laplace noise on data is proved by its fast path; Gaussian noise by
# the convexity bounds of rpp.divergence._proved on the fast Gauss transform's float bounds, whose cost
# per point does not grow with the atoms (1e5 and 1e6 not gated: one run each, beside the estimate's)
for _n, _label, _gated in (
    (1_000, "1e3", True),
    (10_000, "1e4", True),
    (100_000, "1e5", False),
    (1_000_000, "1e6", False),
):
    case(
        f"proved_gaussian_atoms_{_label}",
        gated=_gated,
        repeat=1 if _n > 1_000 else 3,
        what=f"calibrate(exact, gaussian noise), the proved default, on two empirical priors of {_label} atoms",
    )(lambda n=_n: _atoms(n, "gaussian", "proved"))


# ------------------------------------------------------------------ mixtures


def _mixture(k: int, **kwargs):
    import rpp
    from rpp_book.bench import scaling_pair

    p, q = scaling_pair("mixture", k)
    return lambda: rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="exact", **kwargs)


for _k, _gated, _repeat in ((5, True, 7), (50, True, 5), (200, False, 1)):
    case(
        f"exact_mixture_{_k}",
        gated=_gated,
        repeat=_repeat,
        what=f"calibrate(exact, require='estimate') on two Gaussian mixtures of {_k} components",
    )(lambda k=_k: _mixture(k, require="estimate"))
    case(
        f"proved_mixture_{_k}",
        gated=_gated,
        repeat=max(1, _repeat // 2),
        what=f"calibrate(exact), the proved default, on two Gaussian mixtures of {_k} components",
    )(lambda k=_k: _mixture(k))


@case("proved_check_mixture_3v2")
def _proved():
    """calibrate(require="proved") on 3 against 2 Gaussian components (the proved final check)."""
    import rpp

    p = rpp.GaussianMixture(weights=[0.25, 0.5, 0.25], means=[-1.0, 0.0, 2.0], vars=[0.5, 1.0, 0.25])
    q = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 1.5], vars=[1.0, 2.0])
    return lambda: rpp.calibrate(p, q, alpha=2.0, epsilon=0.5, require="proved")


# ------------------------------------------------------------------ accounting


def prior_class(members: int, secrets: int):
    """The class of :func:`rpp_book.bench.class_priors` (seed 0)."""
    from rpp_book.bench import class_priors

    return class_priors(members, secrets)


@case("calibrate_all_pairs_class", repeat=3)
def _all_pairs():
    """calibrate_all_pairs(require="estimate") on a class of 3 models x 3 secrets (9 pairs of 3-component mixtures)."""
    import rpp

    cls = prior_class(3, 3)
    return lambda: rpp.calibrate_all_pairs(cls, alpha=2.0, epsilon=1.0, require="estimate")


@case("calibrate_all_pairs_class_proved", repeat=1)
def _all_pairs_proved():
    """calibrate_all_pairs, the proved default, on the class of 3 models x 3 secrets (9 pairs)."""
    import rpp

    cls = prior_class(3, 3)
    return lambda: rpp.calibrate_all_pairs(cls, alpha=2.0, epsilon=1.0)


_POOL: list[ProcessPoolExecutor] = []


def _pool() -> ProcessPoolExecutor:
    """One pool of 2 worker processes for the whole run, started (untimed) on first use."""
    if not _POOL:
        _POOL.append(ProcessPoolExecutor(2))
        list(_POOL[0].map(abs, range(4)))
    return _POOL[0]


@case("calibrate_all_pairs_class_2_processes", gated=False, repeat=2)
def _all_pairs_pool():
    """The same with executor=ProcessPoolExecutor(2) (the pool started outside the timing)."""
    import rpp

    cls = prior_class(3, 3)
    pool = _pool()

    def run():
        return rpp.calibrate_all_pairs(cls, alpha=2.0, epsilon=1.0, executor=pool, require="estimate")

    return run


@case("release_report_x20", repeat=7)
def _report():
    """release_report of one Gaussian release (conversions, odds, trade-off) with its text and JSON, 20 times."""
    from rpp.accounting import release_report
    from rpp.sampling import Release

    # a record built by hand (the release itself is not what is timed)
    rec = Release(value=1.0, family="gaussian", scale=2.0, grid=2.0**-9, source="os", reproducible=False)

    def run():
        for _ in range(19):
            one()
        return one()

    def one():
        r = release_report(
            releases=[rec], alpha=3.0, epsilon=1.0, rigorous=True, secret="s1 vs s2", query="a mean",
            prior_class="N(m, v)", data_unchanged=True, coverage=0.95,
        )  # fmt: skip
        return r.to_text(), r.to_json()

    return run


# ------------------------------------------------------------------ chapters


def chapter_seconds(path: Path, timeout: int = 900) -> float:
    """Seconds to execute one chapter notebook in a fresh kernel of this environment (nothing written)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "book")}}
    )
    t0 = time.perf_counter()
    client.execute()
    return time.perf_counter() - t0


CHAPTERS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
for _path in CHAPTERS:
    SELF_TIMED.add(f"chapter_{_path.stem}")
    case(f"chapter_{_path.stem}", gated=False, repeat=1, what=f"execute {_path.name} (nbclient, fresh kernel)")(
        lambda path=_path: lambda: chapter_seconds(path)
    )
