"""Issue #34, item 4: one cache, keyed by content, locked, within a memory budget, cleared by rpp.clear_caches.

The judges are mpmath at 50 digits (tests/reference_mpmath.py) and scipy's logsumexp over all
atoms, never rpp; memory is measured by tracemalloc (numpy reports its buffers to it).
"""

import copy
import gc
import threading
import tracemalloc

import mpmath as mp
import numpy as np
import pytest
from scipy.special import logsumexp

import rpp
from reference_mpmath import renyi
from rpp import Empirical, GaussianNoise
from rpp._lib import cache
from rpp.divergence._gaussian_noise import gauss_atoms_logpdf
from rpp.divergence._laplace_atoms import atoms_log_integral


def _writeable(comp):
    """A copy of a Components whose arrays are writeable (as a caller's own arrays may be)."""
    out = copy.copy(comp)
    object.__setattr__(out, "means", np.array(comp.means))
    object.__setattr__(out, "weights", np.array(comp.weights))
    return out


def _mp_log_integral(means_p, w_p, means_q, w_q, alpha, b):
    d = renyi((list(w_p), list(means_p), [0.0] * len(means_p)), (list(w_q), list(means_q), [0.0] * len(means_q)),
              alpha, noise="laplace", scale=b)  # fmt: skip
    return d * (alpha - 1)  # log I


@pytest.mark.parametrize("order", ["changed-first", "changed-second"])
def test_an_array_changed_in_place_is_not_a_stale_hit(order):
    P, Q = _writeable(Empirical([0.0, 0.5]).components()), Empirical([1.0]).components()
    pair = (lambda: (P, Q)) if order == "changed-first" else (lambda: (Q, P))
    first = atoms_log_integral(*pair(), 2.0, 1.0)
    P.means[1] = 3.0  # the same objects, new content
    second = atoms_log_integral(*pair(), 2.0, 1.0)
    for got, means in ((first, [0.0, 0.5]), (second, [0.0, 3.0])):
        args = (means, [0.5, 0.5], [1.0], [1.0]) if order == "changed-first" else ([1.0], [1.0], means, [0.5, 0.5])
        ref = _mp_log_integral(*args, 2.0, 1.0)
        assert abs(mp.mpf(got[0]) - ref) <= got[1] * abs(ref) + 1e-15


def test_gauss_atoms_logpdf_cache_follows_the_content():
    rng = np.random.default_rng(341)
    atoms = np.sort(rng.normal(size=5000))
    logw = np.log(np.full(atoms.size, 1 / atoms.size))
    x = np.array([-1.0, 0.0, 0.7, 2.5])
    t = 0.04
    for step in range(3):
        lp, rel = gauss_atoms_logpdf(x, atoms, logw, t, True)
        d = -((x[:, None] - atoms) ** 2) / (2 * t) + logw - 0.5 * np.log(2 * np.pi * t)
        ref = logsumexp(d, axis=1)
        assert np.all(np.abs(lp - ref) <= 8 * rel + 1e-12 * np.abs(ref)), step
        atoms += 0.25  # in place: the cached bins of the old content must not be used
        logw[: atoms.size // 2] -= 0.1  # and the weights change too
        logw -= logsumexp(logw)


def test_clear_caches_empties_them():
    from rpp.divergence import _laplace_atoms as la

    atoms_log_integral(Empirical([0.0, 0.5]).components(), Empirical([1.0]).components(), 3.0, 0.5)
    assert len(la._RESULTS) and len(la._XS) and rpp.cache_info().entries > 0
    rpp.clear_caches()
    assert not len(la._RESULTS) and not len(la._XS) and not len(la._AT_B)
    assert rpp.cache_info().entries == 0 and rpp.cache_info().nbytes == 0


def test_equal_content_is_one_key_and_changed_content_another():
    a = np.array([0.0, 1.0, 2.0])
    k = cache.key(a, 1.5)
    assert cache.key(a.copy(), 1.5) == k  # another array, same content: the same key
    assert cache.key(a, -1.5) != k and cache.key(a[:2], 1.5) != k and cache.key(a.astype(np.float32), 1.5) != k
    frozen = np.array(a)
    frozen.flags.writeable = False
    assert cache.key(frozen, 1.5) == k  # a read-only array's digest is remembered, and is the same
    view = a[:]
    view.flags.writeable = False  # a read-only view of writeable memory is not immutable
    assert not cache.immutable(view)
    a[0] = 5.0
    assert cache.key(view, 1.5) != k  # digested afresh: it sees the change
    with pytest.raises(TypeError, match="cannot key"):
        cache.key(object())


def test_priors_compare_and_hash_by_content_fast():
    assert Empirical([-0.0, 1.0]) == Empirical([0.0, 1.0])
    assert hash(Empirical([-0.0, 1.0])) == hash(Empirical([0.0, 1.0]))
    assert Empirical([0.0, 1.0]) != Empirical([0.0, 1.0 + 2**-52])
    big = Empirical(np.random.default_rng(342).normal(size=10**6))
    import time

    t = time.perf_counter()
    for _ in range(50):
        hash(big)
    assert time.perf_counter() - t < 0.5  # remembered: 50 hashes cost about one pass over the atoms


def test_the_budget_bounds_the_memory_held():
    """8 pairs of 200,000-atom priors through the cached paths: what stays is at most the budget."""
    rng = np.random.default_rng(343)
    rpp.clear_caches()
    rpp.set_cache_budget(megabytes=16)
    try:
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(8):
            p = Empirical(rng.normal(size=200_000))
            q = Empirical(rng.normal(0.1, 1.0, size=200_000))
            d = GaussianNoise(scale=1.0).divergence(p, q, alpha=2.0)
            assert np.isfinite(d.value)
            del p, q, d
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        info = rpp.cache_info()
        assert info.nbytes <= info.budget == 16 << 20
        assert held <= (16 << 20) * 1.5 + (4 << 20), held  # the counted bytes are the real ones, roughly
        rpp.clear_caches()
        assert rpp.cache_info().nbytes == 0
    finally:
        rpp.set_cache_budget(megabytes=256)
        rpp.clear_caches()


def test_budget_zero_turns_caching_off_and_bad_budgets_are_refused():
    try:
        rpp.set_cache_budget(megabytes=0)
        atoms_log_integral(Empirical([0.0, 0.5]).components(), Empirical([1.0]).components(), 3.0, 0.5)
        assert rpp.cache_info().entries == 0
    finally:
        rpp.set_cache_budget(megabytes=256)
    for bad in (-1.0, float("nan"), float("inf"), 1e9):
        with pytest.raises(ValueError, match="megabytes"):
            rpp.set_cache_budget(megabytes=bad)


def _run_threads(work, n=6):
    errors: list = []

    def guarded(seed):
        try:
            work(seed)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(s,)) for s in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_threads_share_the_laplace_caches_without_wrong_results():
    rng = np.random.default_rng(34)
    pairs = [
        (Empirical(rng.normal(size=8)).components(), Empirical(rng.normal(1, 1, size=6)).components()) for _ in range(4)
    ]
    alphas, scales = (2.0, 5.0), (0.5, 1.0)
    jobs = [(k, a, b) for k in range(len(pairs)) for a in alphas for b in scales]
    rpp.clear_caches()
    want = {job: atoms_log_integral(*pairs[job[0]], job[1], job[2]) for job in jobs}
    got: dict = {}

    def work(seed):
        order = np.random.default_rng(seed).permutation(len(jobs))
        for i in order:
            job = jobs[i]
            got.setdefault(job, []).append(atoms_log_integral(*pairs[job[0]], job[1], job[2]))
            if i % 5 == 0:
                rpp.clear_caches()

    _run_threads(work)
    for job, results in got.items():
        assert all(r == want[job] for r in results)
    # and the sequential values are right (mpmath, one pair)
    P, Q = pairs[0]
    ref = _mp_log_integral(P.means, P.weights, Q.means, Q.weights, 2.0, 1.0)
    assert abs(mp.mpf(want[(0, 2.0, 1.0)][0]) - ref) <= want[(0, 2.0, 1.0)][1] * abs(ref) + 1e-14


def test_threads_share_the_gaussian_caches_without_wrong_results():
    """The binned Gaussian path (more than 2,000 atoms) from six threads, caches cleared and squeezed meanwhile."""
    rng = np.random.default_rng(344)
    priors = [Empirical(rng.normal(m, 1.0, size=3000)) for m in (0.0, 0.2, 0.5)]
    jobs = [(i, j, s) for i in range(3) for j in range(3) if i != j for s in (0.5, 1.0)]
    rpp.clear_caches()
    want = {job: GaussianNoise(scale=job[2]).divergence(priors[job[0]], priors[job[1]], alpha=3.0) for job in jobs}
    rpp.clear_caches()
    got: dict = {}

    def work(seed):
        r = np.random.default_rng(seed)
        for i in r.permutation(len(jobs)):
            job = jobs[i]
            d = GaussianNoise(scale=job[2]).divergence(priors[job[0]], priors[job[1]], alpha=3.0)
            got.setdefault(job, []).append(d)
            if r.random() < 0.2:
                rpp.clear_caches()

    _run_threads(work, n=4)
    for job, results in got.items():
        for d in results:  # a cached path may take other bins: the enclosures must overlap
            w = want[job]
            assert abs(d.value - w.value) <= d.error + w.error, job


@pytest.mark.parametrize(
    ("raw", "budget", "warns"), [("64", 64 << 20, False), ("lots", 256 << 20, True), ("-1", 256 << 20, True)]
)
def test_the_environment_budget_is_read_or_refused_aloud(raw, budget, warns):
    import subprocess
    import sys

    code = "import warnings, rpp; warnings.simplefilter('error'); print(rpp.cache_info().budget)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "RPP_CACHE_MB": raw},
    )
    if warns:
        assert out.returncode != 0 and "RPP_CACHE_MB must be" in out.stderr
    else:
        assert out.returncode == 0 and int(out.stdout) == budget
