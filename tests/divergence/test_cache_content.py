"""Issue #34, item 5: the caches of Laplace atoms are checked by content, locked, and cleared by rpp.clear_caches.

The reference is mpmath at 50 digits (tests/reference_mpmath.py), never rpp.
"""

import copy
import threading

import mpmath as mp
import numpy as np
from reference_mpmath import renyi

import rpp
from rpp import Empirical
from rpp.divergence.laplace_atoms import atoms_log_integral


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


def test_an_array_changed_in_place_is_not_a_stale_hit():
    P, Q = _writeable(Empirical([0.0, 0.5]).components()), Empirical([1.0]).components()
    first = atoms_log_integral(P, Q, 2.0, 1.0)
    P.means[1] = 3.0  # the same objects, new content
    second = atoms_log_integral(P, Q, 2.0, 1.0)
    for got, means in ((first, [0.0, 0.5]), (second, [0.0, 3.0])):
        ref = _mp_log_integral(means, [0.5, 0.5], [1.0], [1.0], 2.0, 1.0)
        assert abs(mp.mpf(got[0]) - ref) <= got[1] * abs(ref) + 1e-15


def test_clear_caches_empties_them():
    from rpp.divergence import laplace_atoms as la

    atoms_log_integral(Empirical([0.0, 0.5]).components(), Empirical([1.0]).components(), 3.0, 0.5)
    assert la._RESULTS and la._XS
    rpp.clear_caches()
    assert not la._RESULTS and not la._XS and not la._AT_B


def test_threads_share_the_caches_without_wrong_results():
    rng = np.random.default_rng(34)
    pairs = [
        (Empirical(rng.normal(size=8)).components(), Empirical(rng.normal(1, 1, size=6)).components())
        for _ in range(4)
    ]
    alphas, scales = (2.0, 5.0), (0.5, 1.0)
    jobs = [(k, a, b) for k in range(len(pairs)) for a in alphas for b in scales]
    rpp.clear_caches()
    want = {job: atoms_log_integral(*pairs[job[0]], job[1], job[2]) for job in jobs}
    got: dict = {}
    errors: list = []

    def work(seed):
        order = np.random.default_rng(seed).permutation(len(jobs))
        try:
            for i in order:
                job = jobs[i]
                got.setdefault(job, []).append(atoms_log_integral(*pairs[job[0]], job[1], job[2]))
                if i % 5 == 0:
                    rpp.clear_caches()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for job, results in got.items():
        assert all(r == want[job] for r in results)
    # and the sequential values are right (mpmath, one pair)
    P, Q = pairs[0]
    ref = _mp_log_integral(P.means, P.weights, Q.means, Q.weights, 2.0, 1.0)
    assert abs(mp.mpf(want[(0, 2.0, 1.0)][0]) - ref) <= want[(0, 2.0, 1.0)][1] * abs(ref) + 1e-14
