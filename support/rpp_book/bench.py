"""Timing and tightness benchmark of the calibration rules: ``python -m rpp_book.bench``.

Prints, measured in one run on the current machine:

* the time of ``"closed-form"`` and ``"exact"`` over a 10^5-point (epsilon, alpha)
  grid for one Gaussian pair (one vectorised call each) and their ratio;
* the time per (epsilon, alpha) point of ``"exact"``, ``"gmm-ot"`` and
  ``"gmm-ot-tight"`` for pairs of 3-component mixtures;
* theta ratios (method / exact) on a few fixed cases;
* with ``--scaling``: the scaling table of :func:`scaling_table` (issue #13) -- empirical
  pairs of n = 10^2, 10^3, 10^4 atoms and Gaussian-mixture pairs of K = 5, 20, 50
  components, every method of :func:`rpp.methods` for Gaussian and Laplace noise.

Every timed result is also checked: all returned scales must be within budget (``within_budget``).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import time
from functools import partial
from typing import Any

import numpy as np

from rpp.calibration import calibrate, methods
from rpp.priors import Empirical, Gaussian, GaussianMixture


def _timed(fn, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def gaussian_grid_case(n_eps: int = 1000, n_alpha: int = 100) -> tuple[Gaussian, Gaussian, np.ndarray, np.ndarray]:
    """Return the Gaussian pair and the grid of :func:`gaussian_grid` (also timed by ``make bench``).

    Parameters
    ----------
    n_eps : int
        Number of budgets (geometric in [1e-3, 10]).
    n_alpha : int
        Number of orders (geometric in [1.01, 100]).

    Returns
    -------
    tuple
        ``(prior_i, prior_j, alpha, epsilon)``: N(0, 0.5^2) and N(1, 4^2), ``alpha`` a column
        of ``n_alpha`` orders and ``epsilon`` a row of ``n_eps`` budgets (they broadcast).
    """
    eps = np.geomspace(1e-3, 10, n_eps)
    alpha = np.geomspace(1.01, 100, n_alpha)[:, None]
    return Gaussian(mean=0.0, var=0.25), Gaussian(mean=1.0, var=16.0), alpha, eps


def gaussian_grid(n_eps: int = 1000, n_alpha: int = 100) -> dict[str, float]:
    """Time the closed form and the exact rule on the grid of :func:`gaussian_grid_case`.

    Parameters
    ----------
    n_eps, n_alpha : int
        Numbers of budgets and orders, as in :func:`gaussian_grid_case`.

    Returns
    -------
    dict
        ``points``, ``closed_form_s``, ``exact_s`` (seconds) and their ``ratio``.
    """
    P, Q, alpha, eps = gaussian_grid_case(n_eps, n_alpha)
    t_cf, cf = _timed(lambda: calibrate(P, Q, alpha=alpha, epsilon=eps, method="closed-form"))
    t_ex, ex = _timed(lambda: calibrate(P, Q, alpha=alpha, epsilon=eps, method="exact"))
    assert np.all(cf.within_budget) and np.all(ex.within_budget)
    assert np.all(ex.scale <= cf.scale * (1 + 1e-9))
    return dict(points=eps.size * alpha.size, closed_form_s=t_cf, exact_s=t_ex, ratio=t_ex / t_cf)


def mixture_pairs(n_pairs: int = 5, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Time the mixture methods on random pairs of three-component mixtures.

    Parameters
    ----------
    n_pairs : int
        Number of random pairs.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict
        ``method -> (mean seconds, max seconds)``.
    """
    rng = np.random.default_rng(seed)
    rows: dict[str, list[float]] = {m: [] for m in ("exact", "gmm-ot", "gmm-ot-tight")}
    for _ in range(n_pairs):
        P = GaussianMixture(
            weights=rng.dirichlet(np.ones(3)), means=rng.normal(0, 3, 3), vars=np.exp(rng.uniform(-1.5, 1, 3))
        )
        Q = GaussianMixture(
            weights=rng.dirichlet(np.ones(3)), means=rng.normal(0, 3, 3), vars=np.exp(rng.uniform(-1.5, 1, 3))
        )
        a, e = float(rng.uniform(1.5, 10)), float(rng.uniform(0.1, 3))
        for m in rows:
            t, cal = _timed(partial(calibrate, P, Q, alpha=a, epsilon=e, method=m), repeat=1)
            assert cal.within_budget
            rows[m].append(t)
    return {m: (float(np.mean(ts)), float(np.max(ts))) for m, ts in rows.items()}


FIXED_CASES = [
    ("N(0,.5^2) vs N(1,4^2), a=5, e=1", Gaussian(mean=0, var=0.25), Gaussian(mean=1, var=16), 5.0, 1.0),
    ("N(0,1) vs N(3.5,1.1^2), a=3, e=0.5", Gaussian(mean=0, var=1), Gaussian(mean=3.5, var=1.21), 3.0, 0.5),
    ("N(0,1) vs N(2,1), a=2, e=0.2", Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), 2.0, 0.2),
    (
        "mixtures .5/.5 vs .3/.7 at +-3, a=3, e=0.05",
        GaussianMixture(weights=[0.5, 0.5], means=[-3, 3], vars=[0.5, 0.5]),
        GaussianMixture(weights=[0.3, 0.7], means=[-3, 3], vars=[0.5, 0.5]),
        3.0,
        0.05,
    ),
]


def theta_ratios() -> list[tuple[str, float, dict[str, float]]]:
    """Return the scale of each method relative to the exact one on the fixed cases.

    Returns
    -------
    list of tuple
        ``(case, exact scale, {method: scale / exact scale})`` for each of ``FIXED_CASES``.
    """
    out = []
    for name, P, Q, a, e in FIXED_CASES:
        exact = float(calibrate(P, Q, alpha=a, epsilon=e).scale)
        ratios = {}
        methods = (["closed-form", "pierquin"] if isinstance(P, Gaussian) else []) + ["gmm-ot", "gmm-ot-tight"]
        for m in methods:
            s = float(calibrate(P, Q, alpha=a, epsilon=e, method=m).scale)
            ratios[m] = s / exact if exact > 0 else np.nan
        out.append((name, exact, ratios))
    return out


# ----------------------------------------------------------------------------------------
# Scaling table (issue #13)
# ----------------------------------------------------------------------------------------

#: The W-infinity baseline of Pierquin et al. (2024), theta^2 = alpha W_inf^2 / (2 epsilon).
BASELINE = "pierquin"


def scaling_pair(family: str, size: int, seed: int = 0) -> tuple[Any, Any]:
    """Return a seeded pair of priors of the scaling table.

    Parameters
    ----------
    family : {"empirical", "mixture"}
        ``"empirical"``: two samples of ``size`` draws, N(0, 1) against a 90/10 mixture of
        N(0, 1) and N(2.5, 0.3^2); ``"mixture"``: two Gaussian mixtures of ``size`` components
        (Dirichlet(1) weights, means drawn from N(0, 3^2) and from N(2, 3^2), log-uniform
        variances in [e^-3, e^-1]: narrow components, so that every pair needs noise at
        alpha = 2, epsilon = 1 -- a pair that needs none makes theta/theta_exact meaningless).
    size : int
        Atoms per sample or components per mixture, ``>= 1``.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    tuple
        ``(prior_i, prior_j)``.

    Examples
    --------
    >>> p, q = scaling_pair("empirical", 100)
    >>> p.n, q.n
    (100, 100)
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    rng = np.random.default_rng(seed)
    if family == "empirical":
        tail = size // 10
        x = rng.normal(0.0, 1.0, size)
        y = np.concatenate([rng.normal(0.0, 1.0, size - tail), rng.normal(2.5, 0.3, tail)])
        return Empirical(x), Empirical(y)
    if family == "mixture":
        return tuple(  # type: ignore[return-value]
            GaussianMixture(
                weights=rng.dirichlet(np.ones(size)),
                means=rng.normal(shift, 3, size),
                vars=np.exp(rng.uniform(-3, -1, size)),
            )
            for shift in (0.0, 2.0)
        )
    raise ValueError(f"family must be 'empirical' or 'mixture', got {family!r}")


def _timed_call(conn, p, q, alpha, epsilon, method, noise, require):
    """Child process: one calibration, sends (status, scale, seconds, rule_s, check_s)."""
    try:
        t0 = time.perf_counter()
        cal = calibrate(p, q, alpha=alpha, epsilon=epsilon, method=method, noise=noise, require=require)
        wall = time.perf_counter() - t0
        sec = cal.details.get("seconds", {})
        conn.send(("ok", float(cal.scale), wall, sec.get("rule", np.nan), sec.get("check", np.nan)))
    except ValueError:  # the method does not apply to these priors
        conn.send(("n/a", np.nan, np.nan, np.nan, np.nan))


def _in_child(target, args, max_seconds, over):
    """Run ``target(conn, *args)`` in a forked child; what it sends, or ``over(seconds)`` after ``max_seconds``.

    The one budgeted runner of :func:`scaling_table` and :func:`atoms_benchmark`: the child is
    stopped when it has sent nothing after ``max_seconds``; ``over`` receives the time after
    which it was stopped (``>= max_seconds``).
    """
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(child, *args))
    t0 = time.perf_counter()
    proc.start()
    if parent.poll(max_seconds):
        out = parent.recv()
    else:
        proc.terminate()
        out = over(time.perf_counter() - t0)
    proc.join()
    return out


def _run_with_budget(p, q, alpha, epsilon, method, noise, max_seconds, require="estimate"):
    """Run one calibration in a child process.

    Returns ``("> budget", nan, s, nan, nan)`` when it takes longer than ``max_seconds``, with ``s >= max_seconds`` the time after which it was stopped.
    """
    args = (p, q, alpha, epsilon, method, noise, require)
    return _in_child(_timed_call, args, max_seconds, lambda s: ("> budget", np.nan, s, np.nan, np.nan))


def scaling_table(
    empirical_sizes: tuple[int, ...] = (100, 1000, 10_000),
    mixture_sizes: tuple[int, ...] = (5, 20, 50),
    noises: tuple[str, ...] = ("gaussian", "laplace"),
    alpha: float = 2.0,
    epsilon: float = 1.0,
    max_seconds: float = 20.0,
    seed: int = 0,
    require: str = "estimate",
):
    r"""Time and tightness of every calibration method as the priors grow (issue #13, item 3).

    For each family (empirical pairs of ``empirical_sizes`` atoms, Gaussian-mixture pairs of
    ``mixture_sizes`` components, :func:`scaling_pair`), noise and method of
    :func:`rpp.methods`, one call of :func:`rpp.calibrate` (both orders) runs in a child
    process, forked after one call of every method on small pairs (so that no call pays for
    lazy imports).  A call longer than ``max_seconds`` is stopped and reported as ``"> budget"``.
    Every method is run at every size, also after it went over budget at a smaller one:
    the cost of a method is not monotone in the size of the priors (Gaussian-noise
    ``"exact"`` evaluates few atoms densely and many atoms by binned sums, so it can be
    slower at n = 100 than at 10^3), so one call over budget says nothing about the next.
    The total time is therefore at most the sum over the calls of ``max_seconds`` (plus the
    start of each child process).

    Parameters
    ----------
    empirical_sizes, mixture_sizes : tuple of int
        Atoms per sample, components per mixture (either may be empty).
    noises : tuple of str
        Noise families.
    alpha, epsilon : float
        Order (> 1) and budget (> 0).
    max_seconds : float
        Per-call budget in seconds (> 0).
    seed : int
        Seed of the pairs.
    require : {"estimate", "proved"}
        Passed to :func:`rpp.calibrate`; ``"estimate"`` (default here): the fast final check whose
        growth this table has tracked since issue #13 (the proved default's cost is in the
        benchmark suite, ``tests/benchmarks/cases.py``).

    Returns
    -------
    pandas.DataFrame
        One row per (family, size, noise, method): ``status`` (``"ok"``, ``"n/a"`` -- the
        method does not apply, ``"> budget"``), ``seconds`` (wall time of the call; for
        ``"> budget"`` the time after which it was stopped, ``>= max_seconds``; NaN for
        ``"n/a"``), ``rule_s`` and ``check_s`` (``Calibration.details["seconds"]`` when rpp
        records it, else NaN), ``vs_baseline`` (seconds / seconds of the W-infinity baseline
        ``"pierquin"``, NaN unless both calls finished), ``scale`` and ``theta_ratio``
        (scale / scale of ``"exact"``;
        at least 1 for a method within budget; ``inf`` or NaN when the exact scale is 0, i.e.
        the priors need no noise, and NaN when either call did not finish).

    Raises
    ------
    ValueError
        If ``max_seconds`` is not positive.

    Examples
    --------
    >>> t = scaling_table((30,), (), noises=("laplace",), max_seconds=60)
    >>> sorted(t.method) == methods("laplace"), bool((t.theta_ratio >= 1 - 1e-9).all())
    (True, True)
    """
    import pandas as pd

    if not max_seconds > 0:
        raise ValueError(f"max_seconds must be > 0, got {max_seconds}")
    for family in ("empirical", "mixture"):  # warm up: the children are forked after the lazy imports
        for noise in noises:
            for method in methods(noise):
                try:
                    calibrate(
                        *scaling_pair(family, 4, seed),
                        alpha=alpha,
                        epsilon=epsilon,
                        method=method,
                        noise=noise,
                        require=require,
                    )
                except ValueError:  # the method does not apply to these priors
                    pass
    rows = []
    for family, sizes in (("empirical", empirical_sizes), ("mixture", mixture_sizes)):
        for noise in noises:
            for size in sizes:
                p, q = scaling_pair(family, size, seed)
                for method in methods(noise):
                    res = _run_with_budget(p, q, alpha, epsilon, method, noise, max_seconds, require)
                    rows.append(dict(zip(("status", "scale", "seconds", "rule_s", "check_s"), res, strict=True)))
                    rows[-1].update(family=family, size=size, noise=noise, method=method)
    df = pd.DataFrame(
        rows, columns=["family", "size", "noise", "method", "status", "seconds", "rule_s", "check_s", "scale"]
    )
    key = ["family", "size", "noise"]
    base = df[(df.method == BASELINE) & (df.status == "ok")].set_index(key).seconds
    exact = df[df.method == "exact"].set_index(key).scale
    idx = pd.MultiIndex.from_frame(df[key])
    with np.errstate(divide="ignore", invalid="ignore"):  # exact scale 0: no noise needed
        df["vs_baseline"] = df.seconds.where(df.status == "ok").to_numpy() / base.reindex(idx).to_numpy()
        df["theta_ratio"] = df.scale.to_numpy() / exact.reindex(idx).to_numpy()
    return df


# ----------------------------------------------------------------------------------------
# Exact calibration at a million atoms (issue #26)
# ----------------------------------------------------------------------------------------

#: The methods timed by :func:`atoms_benchmark`, ``(noise, method)``: the exact rule, the W-infinity
#: baseline and every sufficient rule of each noise family.
ATOMS_METHODS = (
    ("gaussian", "exact"),
    ("laplace", "exact"),
    ("gaussian", "pierquin"),
    ("laplace", "pierquin"),
    ("gaussian", "w-alpha"),
    ("gaussian", "w-alpha-tight"),
    ("gaussian", "gmm-ot"),
    ("gaussian", "gmm-ot-tight"),
    ("laplace", "w-alpha"),
    ("laplace", "w-alpha-tight"),
)


def atoms_pair(n: int, seed: int = 0) -> tuple[Empirical, Empirical]:
    """Return the seeded pair of issue #26: ``n`` draws of N(0, 1) against ``n`` draws of N(0.5, 1.2^2).

    Parameters
    ----------
    n : int
        Atoms per sample, ``>= 1``.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    tuple of Empirical
        ``(prior_i, prior_j)``.

    Examples
    --------
    >>> p, q = atoms_pair(10)
    >>> p.n, q.n
    (10, 10)
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    rng = np.random.default_rng(seed)
    return Empirical(rng.normal(0.0, 1.0, n)), Empirical(rng.normal(0.5, 1.2, n))


def _atoms_call(conn, p, q, alpha, epsilon, method, noise, require):
    """Child process: one calibration, sends a dict of its time, scale, error and flags."""
    t0, c0 = time.perf_counter(), time.process_time()
    cal = calibrate(p, q, alpha=alpha, epsilon=epsilon, method=method, noise=noise, require=require)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sec = cal.details.get("seconds", {})
    conn.send(
        dict(
            status="ok",
            seconds=wall,
            cpu_s=cpu,
            rule_s=sec.get("rule", np.nan),
            check_s=sec.get("check", np.nan),
            scale=float(cal.scale),
            divergence=float(cal.divergence),
            error=float(cal.divergence_error),
            rigorous=bool(cal.rigorous),
            within_budget=bool(cal.within_budget),
        )
    )


def _sort_seconds(p, q, repeat=3):
    """Best of ``repeat`` wall times of one ``np.sort`` of each prior's atoms."""
    x, y = np.asarray(p.support), np.asarray(q.support)
    return _timed(lambda: (np.sort(x), np.sort(y)), repeat=repeat)[0]


def atoms_benchmark(
    sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000),
    methods_: tuple[tuple[str, str], ...] = ATOMS_METHODS,
    alpha: float = 2.0,
    epsilon: float = 1.0,
    max_seconds: float = 120.0,
    seed: int = 0,
    require: str = "estimate",
):
    r"""Time ``exact``, the W-infinity baseline and the sufficient rules on large empirical pairs (issue #26).

    For each size ``n`` of :func:`atoms_pair`, one call of :func:`rpp.calibrate` (both orders)
    per ``(noise, method)`` runs in a child process forked after a warm-up call of every method
    on a small pair; a call longer than ``max_seconds`` is stopped (``"> budget"``).  The
    reference is one ``np.sort`` of both samples (best of 3, in this process).

    Parameters
    ----------
    sizes : tuple of int
        Atoms per sample.
    methods_ : tuple of (str, str)
        ``(noise, method)`` pairs.
    alpha, epsilon : float
        Order (> 1) and budget (> 0).
    max_seconds : float
        Per-call budget in seconds (> 0).
    seed : int
        Seed of the pairs.
    require : {"estimate", "proved"}
        Passed to :func:`rpp.calibrate`; ``"estimate"`` (default here): the fast final check whose
        cost this table has tracked since issue #26 (the proved default's cost is in the benchmark
        suite, ``tests/benchmarks/cases.py``).

    Returns
    -------
    pandas.DataFrame
        One row per (size, noise, method): ``status``, ``seconds`` (wall time of the call),
        ``cpu_s`` (CPU time of the calling process: less sensitive to a loaded machine),
        ``rule_s``, ``check_s``, ``us_per_atom`` (microseconds per atom of the two samples,
        ``seconds / (2 n)``), ``vs_sort`` (seconds / sort seconds), ``sort_s``, ``scale``,
        ``divergence``, ``error``, ``rigorous``, ``within_budget``.

    Raises
    ------
    ValueError
        If ``max_seconds`` is not positive.

    Examples
    --------
    >>> t = atoms_benchmark((50,), (("laplace", "exact"),), max_seconds=60)
    >>> bool(t.within_budget.all()), bool(t.rigorous.all())
    (True, True)
    """
    import pandas as pd

    if not max_seconds > 0:
        raise ValueError(f"max_seconds must be > 0, got {max_seconds}")
    for noise, method in methods_:  # warm up: the children are forked after the lazy imports
        calibrate(*atoms_pair(40, seed), alpha=alpha, epsilon=epsilon, method=method, noise=noise, require=require)
    rows = []
    for n in sizes:
        p, q = atoms_pair(int(n), seed)
        sort_s = _sort_seconds(p, q)
        for noise, method in methods_:
            args = (p, q, alpha, epsilon, method, noise, require)
            row = _in_child(_atoms_call, args, max_seconds, lambda s: dict(status="> budget", seconds=s))
            row.update(size=int(n), noise=noise, method=method, sort_s=sort_s)
            rows.append(row)
    df = pd.DataFrame(rows)
    df["us_per_atom"] = df.seconds.where(df.status == "ok") / (2 * df["size"]) * 1e6
    df["vs_sort"] = df.seconds.where(df.status == "ok") / df.sort_s
    cols = ["size", "noise", "method", "status", "seconds", "cpu_s", "rule_s", "check_s", "us_per_atom", "vs_sort"]
    cols += ["sort_s"]
    cols += ["scale", "divergence", "error", "rigorous", "within_budget"]
    return df.reindex(columns=cols)


# ----------------------------------------------------------------------------------------
# Prior classes on several workers (issue #38)
# ----------------------------------------------------------------------------------------


def class_priors(members: int = 4, secrets: int = 4, components: int = 3, seed: int = 0) -> list[dict]:
    """Return a seeded finite prior class: ``members`` models of ``secrets`` Gaussian mixtures each.

    Parameters
    ----------
    members, secrets, components : int
        Models in the class, secrets per model (``>= 2``), components per mixture.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    list of dict
        ``[{"s0": mixture, "s1": mixture, ...}, ...]``: the secret ``s`` has its component means
        drawn from N(s, 1) and log-uniform variances in [e^-1, e^0.5]; every pair is distinct.

    Examples
    --------
    >>> cls = class_priors(2, 3)
    >>> len(cls), sorted(cls[0])
    (2, ['s0', 's1', 's2'])
    """
    rng = np.random.default_rng(seed)
    return [
        {
            f"s{s}": GaussianMixture(
                weights=rng.dirichlet(np.ones(components)),
                means=rng.normal(s, 1.0, components),
                vars=np.exp(rng.uniform(-1, 0.5, components)),
            )
            for s in range(secrets)
        }
        for _ in range(members)
    ]


def class_scaling(
    shapes: tuple[tuple[int, int], ...] = ((2, 3), (4, 4), (6, 5)),
    workers: tuple[int, ...] = (1, 2),
    alpha: float = 2.0,
    epsilon: float = 1.0,
    repeat: int = 2,
):
    r"""Time :func:`rpp.calibrate_all_pairs` on prior classes in this process and on process pools.

    For each ``(members, secrets)`` of ``shapes`` (:func:`class_priors`, :math:`m\binom{s}{2}`
    distinct pairs), the serial call and the call with ``executor=ProcessPoolExecutor(w)`` for
    each ``w`` of ``workers`` (the pool started, and warmed by one call, outside the timing);
    best of ``repeat``.  Every pooled result is checked equal to the serial one.

    Parameters
    ----------
    shapes : tuple of (int, int)
        ``(members, secrets)`` of each class.
    workers : tuple of int
        Pool sizes.
    alpha, epsilon : float
        Order (> 1) and budget (> 0).
    repeat : int
        Timings per cell (the best is kept).

    Returns
    -------
    pandas.DataFrame
        One row per (class, run): ``pairs``, ``workers`` (0: serial, in this process),
        ``seconds``, ``cpu_s`` (CPU seconds of the serial run, mean of the runs: the cost a
        loaded machine does not inflate), ``s_per_pair``, ``cpu_per_pair`` and ``speedup`` (serial seconds /
        seconds).
    """
    from concurrent.futures import ProcessPoolExecutor

    import pandas as pd

    from rpp import clear_caches
    from rpp.accounting import calibrate_all_pairs

    def strip(cal):  # details["seconds"] are wall times: every other field must be identical
        return dataclasses.replace(cal, details={k: v for k, v in cal.details.items() if k != "seconds"})

    rows = []
    calibrate_all_pairs(class_priors(1, 2, seed=99), alpha=alpha, epsilon=epsilon)  # warm up
    at: dict[str, Any] = dict(alpha=alpha, epsilon=epsilon)
    for members, secrets in shapes:
        c0 = time.process_time()

        # rpp remembers recent work by the content of the priors: the caches are emptied before each
        # run (the workers' too would matter for priors with atoms; mixtures of 3 components use none)
        def one_run(m=members, s=secrets):
            clear_caches()
            return calibrate_all_pairs(class_priors(m, s), **at)

        t, (ref, table) = _timed(one_run, repeat)
        cpu = (time.process_time() - c0) / repeat
        pairs = int(ref.details["distinct_pairs"])
        rows.append(dict(members=members, secrets=secrets, pairs=pairs, workers=0, seconds=t, cpu_s=cpu))
        for w in workers:
            with ProcessPoolExecutor(w) as pool:
                calibrate_all_pairs(class_priors(1, 2, seed=99), alpha=alpha, epsilon=epsilon, executor=pool)
                t, (got, got_table) = _timed(
                    lambda m=members, s=secrets, ex=pool: calibrate_all_pairs(class_priors(m, s), **at, executor=ex),
                    repeat,
                )
            if strip(got) != strip(ref) or not got_table.equals(table):
                raise AssertionError(f"the pool of {w} gave another result than the serial run")
            rows.append(dict(members=members, secrets=secrets, pairs=pairs, workers=w, seconds=t))
    df = pd.DataFrame(rows)
    df["s_per_pair"] = df.seconds / df.pairs
    df["cpu_per_pair"] = df.cpu_s / df.pairs
    serial = df[df.workers == 0].set_index("pairs").seconds
    df["speedup"] = serial.reindex(df.pairs).to_numpy() / df.seconds.to_numpy()
    return df


from .worst_case import (  # noqa: F401 - the sweep of --worst-case, re-exported here
    FAMILIES,
    load_worst_case,
    machine_state,
    named_cases,
    random_case,
    run_cpu_limited,
    warm_up,
    worst_case_rows,
    worst_case_table,
)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark from the command line (``python -m rpp_book.bench --help``).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="mixture pairs to time (default 5)")
    parser.add_argument("--scaling", action="store_true", help="print the scaling table instead (issue #13)")
    parser.add_argument("--max-seconds", type=float, default=20.0, help="per-call budget of --scaling (default 20)")
    parser.add_argument(
        "--atoms",
        metavar="N",
        type=float,
        nargs="+",
        help="time exact, the W-infinity baseline and the sufficient rules on pairs of N atoms each (issue #26)",
    )
    parser.add_argument(
        "--components",
        metavar="K",
        type=int,
        nargs="+",
        help="with --scaling: time every method on mixture pairs of K components only (issue #26: to 200)",
    )
    parser.add_argument(
        "--worst-case", metavar="JSONL", help="append the rows of the worst-case sweep (issue #21) to JSONL"
    )
    parser.add_argument("--family", action="append", choices=(*FAMILIES, "named"), help="families of --worst-case")
    parser.add_argument(
        "--only", action="append", metavar="NOISE:METHOD", help="run only these (noise, method) in --worst-case"
    )
    parser.add_argument("--first", type=int, default=0, help="first case index of --worst-case (default 0)")
    parser.add_argument(
        "--cpu-limit", type=float, default=10.0, help="CPU seconds per call of --worst-case (default 10)"
    )
    parser.add_argument(
        "--class-scaling",
        action="store_true",
        help="time calibrate_all_pairs on prior classes serially and on 1 and 2 worker processes (issue #38)",
    )
    args = parser.parse_args(argv)
    if args.class_scaling:
        table = class_scaling()
        print("calibrate_all_pairs on classes of 3-component mixtures, alpha = 2, epsilon = 1 (best of 2):")
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
        return
    if args.worst_case:
        _worst_case_main(args)
        return
    if args.atoms:
        table = atoms_benchmark(tuple(int(n) for n in args.atoms), max_seconds=args.max_seconds)
        print(
            f"Empirical pairs N(0,1) vs N(0.5,1.2^2), alpha = 2, epsilon = 1 (per-call budget {args.max_seconds:g} s):"
        )
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
        return
    if args.scaling:
        if args.components is None:
            table = scaling_table(max_seconds=args.max_seconds)
        else:  # mixtures of these sizes only
            table = scaling_table((), tuple(args.components), max_seconds=args.max_seconds)
        print(f"Scaling table (alpha = 2, epsilon = 1; per-call budget {args.max_seconds:g} s):")
        print(table.drop(columns="scale").to_string(index=False, float_format=lambda x: f"{x:.3g}"))
        return
    g = gaussian_grid()
    print(f"Gaussian pair, {g['points']:,} (epsilon, alpha) points, one vectorised call each (best of 3):")
    print(
        f"  closed-form {g['closed_form_s']:.3f} s   exact {g['exact_s']:.3f} s   "
        f"ratio exact/closed-form {g['ratio']:.1f}x"
    )
    mix = mixture_pairs(args.pairs)
    print(f"3-component mixture pairs ({args.pairs} random pairs, both orders), seconds per (epsilon, alpha) point:")
    for m, (mean, worst) in mix.items():
        print(f"  {m:<13} mean {mean:.3f} s   max {worst:.3f} s")
    print("theta / theta_exact on fixed cases:")
    for name, exact, ratios in theta_ratios():
        rs = "  ".join(f"{m} {r:.3f}" for m, r in ratios.items())
        print(f"  {name}: theta_exact = {exact:.4f};  {rs}")


def _worst_case_main(args) -> None:
    import json

    warm_up()
    with open(args.worst_case, "a") as fh:
        fh.write(json.dumps(dict(machine=machine_state(), argv=vars(args))) + "\n")
        for family in args.family or (*FAMILIES, "named"):
            cases = (
                named_cases()
                if family == "named"
                else (random_case(family, k) for k in range(args.first, args.first + args.pairs))
            )
            only = {tuple(x.split(":", 1)) for x in args.only} if args.only else None
            for row in worst_case_rows(cases, cpu_limit=args.cpu_limit, only=only):
                fh.write(json.dumps(row) + "\n")
                fh.flush()
        fh.write(json.dumps(dict(machine_end=machine_state())) + "\n")


if __name__ == "__main__":
    main()
