"""Timing and tightness benchmark of the calibration rules: ``python -m rpp.paper.bench``.

Prints, measured in one run on the current machine:

* the time of ``"closed-form"`` and ``"exact"`` over a 10^5-point (epsilon, alpha)
  grid for one Gaussian pair (one vectorised call each) and their ratio;
* the time per (epsilon, alpha) point of ``"exact"``, ``"gmm-ot"`` and
  ``"gmm-ot-tight"`` for pairs of 3-component mixtures;
* theta ratios (method / exact) on a few fixed cases;
* with ``--scaling``: the scaling table of :func:`scaling_table` (issue #13) -- empirical
  pairs of n = 10^2, 10^3, 10^4 atoms and Gaussian-mixture pairs of K = 5, 20, 50
  components, every method of :func:`rpp.methods` for Gaussian and Laplace noise.

Every timed result is also checked: all returned scales must be guaranteed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from functools import partial
from typing import Any

import numpy as np

from ..calibration import calibrate, methods
from ..distributions import Empirical, Gaussian, GaussianMixture


def _timed(fn, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def gaussian_grid(n_eps: int = 1000, n_alpha: int = 100) -> dict[str, float]:
    P, Q = Gaussian(0.0, 0.25), Gaussian(1.0, 16.0)
    eps = np.geomspace(1e-3, 10, n_eps)
    alpha = np.geomspace(1.01, 100, n_alpha)[:, None]
    t_cf, cf = _timed(lambda: calibrate(P, Q, alpha=alpha, epsilon=eps, method="closed-form"))
    t_ex, ex = _timed(lambda: calibrate(P, Q, alpha=alpha, epsilon=eps, method="exact"))
    assert np.all(cf.guaranteed) and np.all(ex.guaranteed)
    assert np.all(ex.scale <= cf.scale * (1 + 1e-9))
    return dict(points=eps.size * alpha.size, closed_form_s=t_cf, exact_s=t_ex, ratio=t_ex / t_cf)


def mixture_pairs(n_pairs: int = 5, seed: int = 0) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    rows: dict[str, list[float]] = {m: [] for m in ("exact", "gmm-ot", "gmm-ot-tight")}
    for _ in range(n_pairs):
        P = GaussianMixture(rng.dirichlet(np.ones(3)), rng.normal(0, 3, 3), np.exp(rng.uniform(-1.5, 1, 3)))
        Q = GaussianMixture(rng.dirichlet(np.ones(3)), rng.normal(0, 3, 3), np.exp(rng.uniform(-1.5, 1, 3)))
        a, e = float(rng.uniform(1.5, 10)), float(rng.uniform(0.1, 3))
        for m in rows:
            t, cal = _timed(partial(calibrate, P, Q, alpha=a, epsilon=e, method=m), repeat=1)
            assert cal.guaranteed
            rows[m].append(t)
    return {m: (float(np.mean(ts)), float(np.max(ts))) for m, ts in rows.items()}


FIXED_CASES = [
    ("N(0,.5^2) vs N(1,4^2), a=5, e=1", Gaussian(0, 0.25), Gaussian(1, 16), 5.0, 1.0),
    ("N(0,1) vs N(3.5,1.1^2), a=3, e=0.5", Gaussian(0, 1), Gaussian(3.5, 1.21), 3.0, 0.5),
    ("N(0,1) vs N(2,1), a=2, e=0.2", Gaussian(0, 1), Gaussian(2, 1), 2.0, 0.2),
    (
        "mixtures .5/.5 vs .3/.7 at +-3, a=3, e=0.05",
        GaussianMixture([0.5, 0.5], [-3, 3], [0.5, 0.5]),
        GaussianMixture([0.3, 0.7], [-3, 3], [0.5, 0.5]),
        3.0,
        0.05,
    ),
]


def theta_ratios() -> list[tuple[str, float, dict[str, float]]]:
    out = []
    for name, P, Q, a, e in FIXED_CASES:
        exact = calibrate(P, Q, alpha=a, epsilon=e).scale
        ratios = {}
        methods = (["closed-form", "pierquin"] if isinstance(P, Gaussian) else []) + ["gmm-ot", "gmm-ot-tight"]
        for m in methods:
            s = calibrate(P, Q, alpha=a, epsilon=e, method=m).scale
            ratios[m] = s / exact if exact > 0 else np.nan
        out.append((name, exact, ratios))
    return out


# ----------------------------------------------------------------------------------------
# Scaling table (issue #13)
# ----------------------------------------------------------------------------------------

#: The W-infinity baseline of Pierquin et al. (2024), theta^2 = alpha W_inf^2 / (2 epsilon).
BASELINE = "pierquin"


def scaling_pair(family: str, size: int, seed: int = 0) -> tuple[Any, Any]:
    """A seeded pair of priors of the scaling table.

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
            GaussianMixture(rng.dirichlet(np.ones(size)), rng.normal(shift, 3, size), np.exp(rng.uniform(-3, -1, size)))
            for shift in (0.0, 2.0)
        )
    raise ValueError(f"family must be 'empirical' or 'mixture', got {family!r}")


def _timed_call(conn, p, q, alpha, epsilon, method, noise):
    """Child process: one calibration, sends (status, scale, seconds, rule_s, check_s)."""
    try:
        t0 = time.perf_counter()
        cal = calibrate(p, q, alpha=alpha, epsilon=epsilon, method=method, noise=noise)
        wall = time.perf_counter() - t0
        sec = cal.details.get("seconds", {})
        conn.send(("ok", float(cal.scale), wall, sec.get("rule", np.nan), sec.get("check", np.nan)))
    except ValueError:  # the method does not apply to these priors
        conn.send(("n/a", np.nan, np.nan, np.nan, np.nan))


def _run_with_budget(p, q, alpha, epsilon, method, noise, max_seconds):
    """One calibration in a child process; ``("> budget", nan, s, nan, nan)`` when it takes longer
    than ``max_seconds``, with ``s >= max_seconds`` the time after which it was stopped."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_timed_call, args=(child, p, q, alpha, epsilon, method, noise))
    t0 = time.perf_counter()
    proc.start()
    if parent.poll(max_seconds):
        out = parent.recv()
    else:
        proc.terminate()
        out = ("> budget", np.nan, time.perf_counter() - t0, np.nan, np.nan)
    proc.join()
    return out


def scaling_table(
    empirical_sizes: tuple[int, ...] = (100, 1000, 10_000),
    mixture_sizes: tuple[int, ...] = (5, 20, 50),
    noises: tuple[str, ...] = ("gaussian", "laplace"),
    alpha: float = 2.0,
    epsilon: float = 1.0,
    max_seconds: float = 20.0,
    seed: int = 0,
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
        at least 1 for a guaranteed method; ``inf`` or NaN when the exact scale is 0, i.e.
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
                    calibrate(*scaling_pair(family, 4, seed), alpha=alpha, epsilon=epsilon, method=method, noise=noise)
                except ValueError:  # the method does not apply to these priors
                    pass
    rows = []
    for family, sizes in (("empirical", empirical_sizes), ("mixture", mixture_sizes)):
        for noise in noises:
            for size in sizes:
                p, q = scaling_pair(family, size, seed)
                for method in methods(noise):
                    res = _run_with_budget(p, q, alpha, epsilon, method, noise, max_seconds)
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
# Worst case over random prior pairs (issue #21, item 8 and Deliver 5)
# ----------------------------------------------------------------------------------------

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
    return GaussianMixture(w, rng.normal(centre, spread, k), sd**2)


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
        p, q = Gaussian(m[0], sd[0] ** 2), Gaussian(m[1], sd[1] ** 2)
        label = f"N({m[0]:.3g},{sd[0]:.2g}^2) vs N({m[1]:.3g},{sd[1]:.2g}^2)"
    elif family == "mixture":
        ki, kj = (int(k) for k in rng.integers(2, 51, 2))
        p = _random_mixture(rng, ki, offset, 3.0)
        if rng.uniform() < 1 / 3:
            shift = _log_uniform(rng, 0.01, 10.0)
            q = GaussianMixture(p.weights, p.means + shift, p.variances)
            label = f"K={ki} vs itself shifted by {shift:.3g}"
        else:
            delta = float(rng.uniform(0.0, 3.0))
            q = _random_mixture(rng, kj, offset + delta, 3.0)
            label = f"K={ki} vs K={kj}"
    else:
        sizes = [int(round(_log_uniform(rng, 10, 10_000))) for _ in range(2)]
        ties = rng.uniform() < 0.25
        samples = []
        for n in sizes:
            src = _random_mixture(rng, int(rng.integers(1, 4)), 0.0, 2.0)
            k = rng.choice(src.weights.size, size=n, p=src.weights)
            x = rng.normal(src.means[k], np.sqrt(src.variances[k])) + offset
            samples.append(np.round(x) if ties else x)
        p, q = Empirical(samples[0]), Empirical(samples[1])
        label = f"n={sizes[0]} vs n={sizes[1]}" + (" (rounded)" if ties else "")
    if offset:
        label += f", offset {offset:.3g}"
    return dict(family=family, index=int(index), p=p, q=q, alpha=alpha, epsilon=epsilon, label=label)


def warm_up(noises: tuple[str, ...] = ("gaussian", "laplace")) -> None:
    """One call of every method on small pairs of every family, so that forked children pay no lazy import."""
    import warnings

    small = [
        (Gaussian(0.0, 1.0), Gaussian(1.0, 2.0)),
        (GaussianMixture([0.5, 0.5], [0.0, 1.0], [1.0, 0.5]), GaussianMixture([1.0], [0.5], [1.0])),
        (Empirical([0.0, 1.0, 2.0]), Empirical([0.5, 1.0])),
    ]
    for noise in noises:
        for method in methods(noise):
            for p, q in small:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        calibrate(p, q, alpha=2.0, epsilon=1.0, method=method, noise=noise)
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
            cal = calibrate(p, q, alpha=alpha, epsilon=epsilon, method=method, noise=noise)
        conn.send(("ok", float(cal.scale), time.process_time() - t0, time.perf_counter() - w0, bool(cal.guaranteed)))
    except ValueError as exc:  # the method does not apply to these priors
        conn.send(("n/a", np.nan, np.nan, np.nan, str(exc)[:80]))
    except Exception as exc:  # noqa: BLE001 - reported, never hidden
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
    """The named rows of the worst-case table (each a dict like :func:`random_case`'s, family ``"named"``).

    Examples
    --------
    >>> [c["label"][:9] for c in named_cases()]
    ['issue #21', 'issue #21', 'mixture #']
    """
    p5 = GaussianMixture([0.1, 0.2, 0.3, 0.25, 0.15], [-4.0, -1.5, 0.0, 2.0, 5.0], [0.05, 0.3, 0.01, 0.2, 0.1])
    q3 = GaussianMixture([0.5, 0.3, 0.2], [-2.0, 1.0, 3.5], [0.5, 0.02, 0.15])
    p6 = GaussianMixture(
        [0.3, 0.2, 0.15, 0.15, 0.1, 0.1], [-3.0, -1.0, 0.5, 2.0, 3.0, 6.0], [0.2, 0.05, 0.5, 0.01, 0.3, 0.1]
    )
    q6 = GaussianMixture(p6.weights, p6.means + 0.5, p6.variances)
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
    "guaranteed",
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
                    guaranteed=extra if status == "ok" else None,
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


def worst_case_table(rows) -> Any:
    """The worst CPU time per (family, noise, method) over the rows of :func:`worst_case_rows`.

    Returns a ``pandas.DataFrame`` with ``family, noise, method, pairs`` (rows with status ``ok``
    or ``> budget``), ``worst_cpu_s`` (a ``> budget`` row counts as its limit), ``worst_case``
    (the label, alpha and epsilon of the worst pair), ``median_cpu_s``, ``over_5s`` (how many
    pairs took more than 5 CPU seconds) and ``not_guaranteed`` (finished calls with
    ``guaranteed=False``; the published ``"bisection"`` may).
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
                not_guaranteed=int(g.guaranteed.eq(False).sum()),  # None for calls that did not finish
            )
        )
    return pd.DataFrame(out)


def load_worst_case(path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(rows, runs)`` of a file written by ``python -m rpp.paper.bench --worst-case FILE``.

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="mixture pairs to time (default 5)")
    parser.add_argument("--scaling", action="store_true", help="print the scaling table instead (issue #13)")
    parser.add_argument("--max-seconds", type=float, default=20.0, help="per-call budget of --scaling (default 20)")
    parser.add_argument(
        "--worst-case", metavar="JSONL", help="append the rows of the worst-case sweep (issue #21) to JSONL"
    )
    parser.add_argument("--family", action="append", choices=FAMILIES + ("named",), help="families of --worst-case")
    parser.add_argument(
        "--only", action="append", metavar="NOISE:METHOD", help="run only these (noise, method) in --worst-case"
    )
    parser.add_argument("--first", type=int, default=0, help="first case index of --worst-case (default 0)")
    parser.add_argument(
        "--cpu-limit", type=float, default=10.0, help="CPU seconds per call of --worst-case (default 10)"
    )
    args = parser.parse_args(argv)
    if args.worst_case:
        _worst_case_main(args)
        return
    if args.scaling:
        table = scaling_table(max_seconds=args.max_seconds)
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
        for family in args.family or FAMILIES + ("named",):
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
