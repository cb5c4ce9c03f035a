"""Worst case over random prior pairs (issue #21, item 8 and Deliver 5).

Reproducible random calibration problems (:func:`random_case`), the named outliers
(:func:`named_cases`), one calibration per forked child under a CPU-time limit
(:func:`run_cpu_limited`) and the worst CPU time per family and method
(:func:`worst_case_table`).  ``python -m rpp_book.bench --worst-case FILE`` runs the sweep
(:mod:`rpp_book.bench`); the Status appendix reads its committed output.
"""

from __future__ import annotations

import multiprocessing
import time
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from rpp.calibration import calibrate, methods
from rpp.priors import Empirical, Gaussian, GaussianMixture

#: Families of :func:`random_case`.
FAMILIES = ("gaussian", "mixture", "empirical")
_FAMILY_CODE = {name: k for k, name in enumerate(FAMILIES)}


def _log_uniform(rng, lo, hi):
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def _random_mixture(rng, k, centre, spread):
    """``k`` components: Dirichlet(1/2) weights, means N(centre, spread^2), s.d. log-uniform in [0.05, 3]."""
    w = rng.dirichlet(np.full(k, 0.5))
    w = np.maximum(w, 1e-12)
    w = w / w.sum()
    sd = np.exp(rng.uniform(np.log(0.05), np.log(3.0), k))
    return GaussianMixture(weights=w, means=rng.normal(centre, spread, k), vars=sd**2)


def random_case(family: str, index: int, seed: int = 21) -> dict[str, Any]:
    r"""One reproducible random calibration problem: a prior pair with an order and a budget.

    Case ``(family, index, seed)`` is drawn from ``numpy.random.default_rng([seed, f, index])``
    (``f`` the family's position in :data:`FAMILIES`), so every case can be rebuilt alone.
    In every family :math:`\alpha` is log-uniform in ``[1.01, 100]`` and :math:`\varepsilon`
    log-uniform in ``[0.01, 10]``; both priors share an offset, 0 with probability 1/2, else
    log-uniform in ``[1, 10^3]`` with a random sign (D is translation invariant, the code
    need not be).

    * ``"gaussian"``: two Gaussians, means N(0, 3^2), s.d. log-uniform in ``[0.01, 10]``.
    * ``"mixture"``: two Gaussian mixtures of 2--50 components each (uniform), Dirichlet(1/2)
      weights, s.d. log-uniform in ``[0.05, 3]``; with probability 1/3 the second is the first
      shifted by a distance log-uniform in ``[0.01, 10]`` (the "shifted mixture" of issue #21),
      else independent with means N(0, 3^2) and N(delta, 3^2), delta uniform in ``[0, 3]``.
    * ``"empirical"``: two samples of 10--10^4 atoms (log-uniform), drawn from random mixtures
      of 1--3 components; with probability 1/4 rounded to integers (ties).

    Parameters
    ----------
    family : {"gaussian", "mixture", "empirical"}
    index : int
        Index of the case, ``>= 0``.
    seed : int
        Seed of the whole sample.

    Returns
    -------
    dict
        ``family``, ``index``, ``p``, ``q``, ``alpha``, ``epsilon`` and ``label`` (a short
        description of the pair).

    Examples
    --------
    >>> c = random_case("mixture", 0)
    >>> sorted(c)
    ['alpha', 'epsilon', 'family', 'index', 'label', 'p', 'q']
    >>> bool(1.01 <= c["alpha"] <= 100 and 0.01 <= c["epsilon"] <= 10)
    True
    """
    if family not in _FAMILY_CODE:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if not (isinstance(index, (int, np.integer)) and index >= 0):
        raise ValueError(f"index must be an integer >= 0, got {index!r}")
    rng = np.random.default_rng([seed, _FAMILY_CODE[family], int(index)])
    alpha = _log_uniform(rng, 1.01, 100.0)
    epsilon = _log_uniform(rng, 0.01, 10.0)
    offset = 0.0 if rng.uniform() < 0.5 else float(rng.choice([-1, 1]) * _log_uniform(rng, 1.0, 1e3))
    p: Any
    q: Any
    if family == "gaussian":
        sd = np.exp(rng.uniform(np.log(0.01), np.log(10.0), 2))
        m = rng.normal(0.0, 3.0, 2) + offset
        p, q = Gaussian(mean=m[0], var=sd[0] ** 2), Gaussian(mean=m[1], var=sd[1] ** 2)
        label = f"N({m[0]:.3g},{sd[0]:.2g}^2) vs N({m[1]:.3g},{sd[1]:.2g}^2)"
    elif family == "mixture":
        ki, kj = (int(k) for k in rng.integers(2, 51, 2))
        p = _random_mixture(rng, ki, offset, 3.0)
        if rng.uniform() < 1 / 3:
            shift = _log_uniform(rng, 0.01, 10.0)
            q = GaussianMixture(weights=p.weights, means=p.means + shift, vars=p.vars)
            label = f"K={ki} vs itself shifted by {shift:.3g}"
        else:
            delta = float(rng.uniform(0.0, 3.0))
            q = _random_mixture(rng, kj, offset + delta, 3.0)
            label = f"K={ki} vs K={kj}"
    else:
        sizes = [round(_log_uniform(rng, 10, 10_000)) for _ in range(2)]
        ties = rng.uniform() < 0.25
        samples = []
        for n in sizes:
            src = _random_mixture(rng, int(rng.integers(1, 4)), 0.0, 2.0)
            k = rng.choice(src.weights.size, size=n, p=src.weights)
            x = rng.normal(src.means[k], np.sqrt(src.vars[k])) + offset
            samples.append(np.round(x) if ties else x)
        p, q = Empirical(samples[0]), Empirical(samples[1])
        label = f"n={sizes[0]} vs n={sizes[1]}" + (" (rounded)" if ties else "")
    if offset:
        label += f", offset {offset:.3g}"
    return dict(family=family, index=int(index), p=p, q=q, alpha=alpha, epsilon=epsilon, label=label)


#: The final check this sweep times: the estimate path (``require="estimate"``), whose worst cases
#: the stored table of the Status appendix records; the proved default's cost is in the benchmark
#: suite (``tests/benchmarks/cases.py``).
REQUIRE = "estimate"


def warm_up(noises: tuple[str, ...] = ("gaussian", "laplace")) -> None:
    """One call of every method on small pairs of every family, so that forked children pay no lazy import."""
    import warnings

    small = [
        (Gaussian(mean=0.0, var=1.0), Gaussian(mean=1.0, var=2.0)),
        (
            GaussianMixture(weights=[0.5, 0.5], means=[0.0, 1.0], vars=[1.0, 0.5]),
            GaussianMixture(weights=[1.0], means=[0.5], vars=[1.0]),
        ),
        (Empirical([0.0, 1.0, 2.0]), Empirical([0.5, 1.0])),
    ]
    for noise in noises:
        for method in methods(noise):
            for p, q in small:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        calibrate(p, q, alpha=2.0, epsilon=1.0, method=method, noise=noise, require=REQUIRE)
                except ValueError:  # the method does not apply to these priors
                    pass


def _cpu_call(conn, p, q, alpha, epsilon, method, noise, cpu_limit):
    """Child process: one calibration under an RLIMIT_CPU of ``cpu_limit`` s; sends its CPU seconds."""
    import resource
    import warnings

    if cpu_limit is not None:
        soft = int(np.ceil(time.process_time() + cpu_limit))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    try:
        t0, w0 = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal = calibrate(p, q, alpha=alpha, epsilon=epsilon, method=method, noise=noise, require=REQUIRE)
        conn.send(("ok", float(cal.scale), time.process_time() - t0, time.perf_counter() - w0, bool(cal.within_budget)))
    except ValueError as exc:  # the method does not apply to these priors
        conn.send(("n/a", np.nan, np.nan, np.nan, str(exc)[:80]))
    except Exception as exc:  # reported, never hidden
        conn.send(("error", np.nan, np.nan, np.nan, f"{type(exc).__name__}: {str(exc)[:80]}"))


def run_cpu_limited(p, q, alpha, epsilon, method, noise, cpu_limit=None, wall_limit=600.0):
    """One calibration in a forked child: ``(status, scale, cpu_s, wall_s, guaranteed_or_message)``.

    ``cpu_limit`` (seconds, rounded up to whole seconds by the kernel's RLIMIT_CPU) stops the
    child when its CPU time exceeds it: status ``"> budget"`` with ``cpu_s = cpu_limit``.  CPU
    time (``time.process_time`` in the child) is what is measured: the build machine is shared,
    and wall time there says more about the load than about the code.
    """
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_cpu_call, args=(child, p, q, alpha, epsilon, method, noise, cpu_limit))
    t0 = time.perf_counter()
    proc.start()
    child.close()
    out: tuple
    try:
        if parent.poll(wall_limit):
            out = parent.recv()
        else:
            proc.terminate()
            out = ("> wall", np.nan, np.nan, time.perf_counter() - t0, "")
    except EOFError:  # the child died: RLIMIT_CPU
        out = ("> budget", np.nan, float(cpu_limit or np.nan), time.perf_counter() - t0, "")
    proc.join()
    parent.close()
    return out


#: Named cases of the worst-case table: the two run-time outliers of issue #21 (item 8) as
#: the report describes them (its exact priors were not published), and the first outlier
#: the random sample found (41 s CPU per call before the fix of
#: :func:`rpp.transport.mixture_quantile_at_score`, over 60 s for every w-alpha method).
def named_cases() -> list[dict[str, Any]]:
    """Return the named rows of the worst-case table (each a dict like :func:`random_case`'s, family ``"named"``).

    Examples
    --------
    >>> [c["label"][:9] for c in named_cases()]
    ['issue #21', 'issue #21', 'mixture #']
    """
    p5 = GaussianMixture(
        weights=[0.1, 0.2, 0.3, 0.25, 0.15], means=[-4.0, -1.5, 0.0, 2.0, 5.0], vars=[0.05, 0.3, 0.01, 0.2, 0.1]
    )
    q3 = GaussianMixture(weights=[0.5, 0.3, 0.2], means=[-2.0, 1.0, 3.5], vars=[0.5, 0.02, 0.15])
    p6 = GaussianMixture(
        weights=[0.3, 0.2, 0.15, 0.15, 0.1, 0.1],
        means=[-3.0, -1.0, 0.5, 2.0, 3.0, 6.0],
        vars=[0.2, 0.05, 0.5, 0.01, 0.3, 0.1],
    )
    q6 = GaussianMixture(weights=p6.weights, means=p6.means + 0.5, vars=p6.vars)
    found = random_case("mixture", 1)
    return [
        dict(
            family="named",
            index=0,
            p=p5,
            q=q3,
            alpha=2.0,
            epsilon=0.1,
            noises=("laplace",),
            label="issue #21: Laplace noise, 5 against 3 components",
        ),
        dict(
            family="named",
            index=1,
            p=p6,
            q=q6,
            alpha=1.05,
            epsilon=0.1,
            noises=("gaussian",),
            label="issue #21: shifted 6-component mixture, alpha = 1.05",
        ),
        dict(found, family="named", index=2, label=f"mixture #1 of the sample: {found['label']}"),
    ]


_ROW_KEYS = (
    "family",
    "index",
    "noise",
    "method",
    "status",
    "cpu_s",
    "wall_s",
    "within_budget",
    "scale",
    "alpha",
    "epsilon",
    "label",
)


def worst_case_rows(cases, noises=("gaussian", "laplace"), cpu_limit=10.0, only=None):
    """Yield one row per (case, noise, method of :func:`rpp.methods`): :func:`run_cpu_limited` in a forked child.

    Rows are dicts with the keys ``_ROW_KEYS``: ``status`` is ``"ok"``, ``"n/a"`` (the method does
    not apply), ``"> budget"`` (stopped at ``cpu_limit`` CPU seconds) or ``"error"``; ``cpu_s``
    the child's CPU seconds (``time.process_time``), ``wall_s`` its wall time.  ``only``: a set
    of ``(noise, method)`` to run (default all).
    """
    for case in cases:
        for noise in case.get("noises", noises):
            for method in methods(noise):
                if only is not None and (noise, method) not in only:
                    continue
                status, scale, cpu, wall, extra = run_cpu_limited(
                    case["p"], case["q"], case["alpha"], case["epsilon"], method, noise, cpu_limit=cpu_limit
                )
                yield dict(
                    family=case["family"],
                    index=case["index"],
                    noise=noise,
                    method=method,
                    status=status,
                    cpu_s=float(cpu),
                    wall_s=float(wall),
                    within_budget=extra if status == "ok" else None,
                    scale=float(scale),
                    alpha=case["alpha"],
                    epsilon=case["epsilon"],
                    label=case["label"] if status in ("ok", "n/a", "> budget") else f"{case['label']}; {extra}",
                )


def machine_state() -> dict[str, Any]:
    """Date (UTC), git commit of the code, CPU count and model, load averages: recorded with every timing run."""
    import datetime
    import os
    import platform

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), model)
    except OSError:  # pragma: no cover - not Linux
        pass
    import subprocess

    try:
        here = os.path.dirname(os.path.abspath(__file__))
        commit = subprocess.run(
            ["git", "-C", here, "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):  # pragma: no cover - no git
        commit = ""
    return dict(
        date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        commit=commit,
        cpus=os.cpu_count(),
        cpu_model=model,
        python=platform.python_version(),
        load_average=[round(x, 2) for x in os.getloadavg()],
    )


def worst_case_table(rows) -> pd.DataFrame:
    """Return the worst CPU time per (family, noise, method) over the rows of :func:`worst_case_rows`.

    Returns a ``pandas.DataFrame`` with ``family, noise, method, pairs`` (rows with status ``ok``
    or ``> budget``), ``worst_cpu_s`` (a ``> budget`` row counts as its limit), ``worst_case``
    (the label, alpha and epsilon of the worst pair), ``median_cpu_s``, ``over_5s`` (how many
    pairs took more than 5 CPU seconds) and ``over_budget`` (finished calls with
    ``within_budget=False``; the published ``"bisection"`` may).
    """
    import pandas as pd

    df = pd.DataFrame(list(rows))
    ran = df[df.status.isin(["ok", "> budget"])].copy()
    out = []
    for (family, noise, method), g in ran.groupby(["family", "noise", "method"], sort=True):
        k = g.cpu_s.idxmax()
        w = g.loc[k]
        out.append(
            dict(
                family=family,
                noise=noise,
                method=method,
                pairs=len(g),
                worst_cpu_s=float(w.cpu_s),
                worst_status=w.status,
                worst_case=f"#{w['index']} {w.label}, alpha={w.alpha:.4g}, eps={w.epsilon:.3g}",
                median_cpu_s=float(g.cpu_s.median()),
                over_5s=int((g.cpu_s > 5).sum()),
                over_budget=int(g.within_budget.eq(False).sum()),  # None for calls that did not finish
            )
        )
    return pd.DataFrame(out)


def load_worst_case(path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(rows, runs)`` of a file written by ``python -m rpp_book.bench --worst-case FILE``.

    ``rows``: one dict per calibration (:func:`worst_case_rows`), the last one written for each
    (family, index, noise, method); ``runs``: the records of the runs that wrote them (command-line arguments, machine and load at the start, and at the end).
    """
    import json

    rows: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    with open(path) as fh:
        for line in fh:
            d = json.loads(line)
            (rows if "family" in d else runs).append(d)
    # a later run (e.g. ``--only`` after a fix) replaces the rows of the same call
    latest = {(r["family"], r["index"], r["noise"], r["method"]): r for r in rows}
    return list(latest.values()), runs
