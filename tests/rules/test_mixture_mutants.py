"""Theorem IV.1's ψ and the "gmm-ot" rule on mixtures with unequal variances, judged by mpmath.

The mutation run of issue #35 (rpp/rules/_mixture.py, first 54 of 212 mutants, fast subset of the
doctests, tests/test_parametrisation.py and tests/divergence/test_fast_empirical.py) left alive
sign and formula changes of ψ (``s = x - alpha d``; ``alpha (alpha - 1)`` or ``alpha / (alpha + 1)``
for ``alpha / (alpha - 1)``: the second makes ψ smaller, so the rule would add too little noise),
the domain checks ``s > 0``, ``x > 0`` and the 0 * inf guard: no test compared ψ itself on
components of different variances.  Here, independently of rpp:

* ψ as printed in the theorem (Yang et al. 2026, eq. (8)), written in mpmath at 50 digits, +inf
  outside the pair's domain, against ``_log_psi_terms`` elementwise on random components;
* the bound property the rule rests on, ψ_kl >= (α - 1) D_α(N(μ_k, v_k + θ²) || N(μ_l, v_l + θ²))
  (the Gaussian closed form in mpmath), on the same components;
* ``gmm_ot`` on one Gaussian against a two-component mixture (the coupling is forced: π = w_j): the
  condition Σ_l w_l e^{ψ_l(θ²)} <= e^{(α - 1)ε} holds in mpmath at the returned θ and fails 1e-7
  (relative) below it.

Not a full mutation score for mixture.py: that run was cut at 54 of 212 mutants (see the #35 note).

Second run (issue #35 item 4, in scope: the 74 of 228 mutants that flip a comparison, a sign, a
boolean or a branch; filter and runner in the #35 report): the old tests (doctests,
tests/test_parametrisation.py, tests/divergence/test_fast_empirical.py and this file, -m "not
slow") killed 42 (56.8 %); with the tests below (a sample against a Gaussian, a coupling with
zeros, a root below the variance scale, "gmm-ot-tight" between a sample and a Gaussian and with
+inf costs off the coupling, equal samples, the sort path's margin with a tiny weight) 57 (77.0 %).
The 17 left, and why each is equivalent or cannot be judged:

* ``s >= 0``, ``x >= 0`` in ψ's domain (ids 39, 42): at s = 0 (inner > 0) ψ is (α-1)/0 = +inf
  anyway; x = 0 with d > 0 gives inner = +inf, ψ = +inf, and with d <= 0 s <= 0 excludes it.
* the zero-variance branch of ``_pair_log_costs`` (159, 161, 163, 170, 172, 173: ``<`` for
  ``<=``, ``and`` for ``or``, ``>=`` or ``|`` in ``ok``): reached only at z = 0 with one empirical
  prior (a GaussianMixture has positive variances, two samples take the sort path), where every
  pair has a zero variance on one side; sent to ``gaussian_divergence_upper`` instead, such a pair
  is +inf there too (var_i = 0: B = -log(0)/2 = +inf; var_j = 0: 1 + x = -inf, so upper = +inf).
  For the same reason ``same``'s ``!=`` (164) never meets two zero variances, and
  ``(alpha + 1)`` on ``ok`` pairs (178) is never applied (``ok`` is empty).
* a margin made smaller but kept >= 0 (77: ``- abs(target)`` in gmm_ot's; 130, likewise on the
  sort path): at the root ψ_max >= log Σ π e^ψ = target, so the margin stays >= 0 and the
  condition is never weaker than the printed one; the scale moves by a few ulps of the terms,
  below what an independent judge can attribute (the margins of the wrong sign, 81, 129, 134,
  are killed: the last two by the tiny-weight test).
* only the search's start moves (89: ``(μ_i + μ_j)²`` in ``spread``; 140: ``normalised(x + y)``
  in the grid bracket): ``min_feasible`` checks the bracket's ends and extends it, so the scale is
  the same root to the search's tolerance (1e-11).
* candidates of ``_tight_value`` (199, 202, 203: the linearised cost ``L`` shifted or its +inf
  entries' stand-in moved): each candidate is an exact coupling evaluated exactly and the minimum
  is taken, so a spoilt candidate can only raise the value (more noise, never less); with the
  exponential-cost optimum and the W2 coupling still among the candidates no case here separates
  them (not proved equivalent: left as survivors).
"""

import mpmath as mp
import numpy as np
import pytest

from rpp import Empirical, Gaussian, GaussianMixture
from rpp.priors import Components
from rpp.rules._mixture import _log_psi_terms, gmm_ot, gmm_ot_tight


def _psi_mp(mk, vk, ml, vl, alpha, z):
    """ψ of eq. (8), printed form: (a-1) / (2 s) (a dm^2 + a^2 d^2 / ((a-1) x)), x = v_k + z,
    d = v_l - v_k, s = x + a d; +inf unless s > 0 and x > 0."""
    a, x = mp.mpf(alpha), mp.mpf(vk) + mp.mpf(z)
    d = mp.mpf(vl) - mp.mpf(vk)
    s = x + a * d
    if not (s > 0 and x > 0):
        return mp.inf
    dm2 = (mp.mpf(mk) - mp.mpf(ml)) ** 2
    return (a - 1) / (2 * s) * (a * dm2 + a**2 * d**2 / ((a - 1) * x))


def _gauss_renyi_mp(m1, v1, m2, v2, alpha):
    """D_alpha(N(m1, v1) || N(m2, v2)), +inf off the domain v_a = a v2 + (1 - a) v1 > 0."""
    a = mp.mpf(alpha)
    va = a * v2 + (1 - a) * v1
    if not va > 0:
        return mp.inf
    return a * (m1 - m2) ** 2 / (2 * va) - mp.log(va / (v1 ** (1 - a) * v2**a)) / (2 * (a - 1))


def _mixture(rng, k):
    w = rng.uniform(0.2, 1.0, k)
    return GaussianMixture(weights=w / w.sum(), means=rng.normal(0, 2, k), vars=10 ** rng.uniform(-1.5, 1, k))


@pytest.mark.parametrize("seed", range(8))
def test_psi_is_the_printed_formula_and_bounds_the_component_divergence(seed):
    rng = np.random.default_rng(3500 + seed)
    p, q = _mixture(rng, 3), _mixture(rng, 2)
    alpha = float(rng.choice([1.3, 2.0, 3.0, 7.0]))
    ci, cj = p.components(), q.components()
    checked_inside = 0
    with mp.workdps(50):
        for z in (0.0, 0.05, 0.7, 4.0, 30.0):
            got = _log_psi_terms(ci, cj, alpha, z)
            for k in range(len(ci.means)):
                for l in range(len(cj.means)):
                    args = (ci.means[k], ci.vars[k], cj.means[l], cj.vars[l])
                    want = _psi_mp(*args, alpha, z)
                    if want == mp.inf:
                        assert got[k, l] == np.inf, (k, l, z)
                        continue
                    checked_inside += 1
                    assert got[k, l] == pytest.approx(float(want), rel=1e-12, abs=1e-300)
                    mk, vk, ml, vl = (mp.mpf(float(t)) for t in args)
                    exact = (alpha - 1) * _gauss_renyi_mp(mk, vk + z, ml, vl + z, alpha)
                    assert want >= exact * (1 - mp.mpf(10) ** -40)  # the bound the rule rests on
    assert checked_inside > 0


def test_psi_domain_edge_and_zero_variance_pairs():
    """Outside the domain (s <= 0: v_l much below v_k) ψ is +inf; a point-mass pair at one place with
    no noise has ψ = 0 (0 * inf), and at another place +inf."""
    half = np.array([0.5, 0.5])
    cp = Components(weights=half, means=np.array([0.0, 1.0]), vars=np.array([4.0, 0.0]))
    cq = Components(weights=half, means=np.array([0.0, 1.0]), vars=np.array([0.1, 0.0]))
    psi = _log_psi_terms(cp, cq, 3.0, 0.0)
    # (k, l) = (0, 0): x = 4, d = -3.9, s = 4 - 11.7 < 0 -> +inf
    assert psi[0, 0] == np.inf and _psi_mp(0.0, 4.0, 0.0, 0.1, 3.0, 0.0) == mp.inf
    assert psi[1, 1] == 0.0  # the same atom under both secrets, no noise: no divergence
    assert psi[1, 0] == np.inf  # x = 0 (an atom, no noise) against a Gaussian: off the domain
    with mp.workdps(50):  # with a little noise the same pairs are finite and match the printed form
        psi_z = _log_psi_terms(cp, cq, 3.0, 20.0)
        for k, l in ((0, 0), (1, 0), (1, 1)):
            want = _psi_mp(cp.means[k], cp.vars[k], cq.means[l], cq.vars[l], 3.0, 20.0)
            assert psi_z[k, l] == pytest.approx(float(want), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.5), (3.0, 0.1), (1.5, 1.0), (8.0, 2.0)])
def test_gmm_ot_is_the_smallest_scale_meeting_the_condition(alpha, eps):
    p = Gaussian(mean=0.0, var=0.5)
    w, means, var = [0.3, 0.7], [1.0, -2.0], [2.0, 0.2]
    q = GaussianMixture(weights=w, means=means, vars=var)
    theta = gmm_ot(p, q, alpha=alpha, epsilon=eps)

    def lhs(z):
        with mp.workdps(50):
            terms = [
                mp.mpf(wl) * mp.exp(_psi_mp(0.0, 0.5, ml, vl, alpha, z))
                for wl, ml, vl in zip(w, means, var, strict=True)
            ]
            return mp.log(mp.fsum(terms)) - (mp.mpf(alpha) - 1) * mp.mpf(eps)

    z = mp.mpf(theta) ** 2
    assert lhs(z) <= 0
    assert lhs(z * (1 - mp.mpf(10) ** -7)) > 0


@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.5), (3.0, 4.0), (1.5, 1.5), (5.0, 0.01)])
def test_gmm_ot_on_two_point_masses_meets_the_budget_exactly(alpha, eps):
    """Two point masses: ψ is (α - 1) D_α exactly, so the rule's variance is the exact one,
    α Δ² / (2 ε), and rounding must not leave D above ε: checked in mpmath, and minimal to 1e-7."""
    theta = gmm_ot(Empirical([0.0]), Empirical([1.0]), alpha=alpha, epsilon=eps)
    with mp.workdps(50):
        d = mp.mpf(alpha) / (2 * mp.mpf(theta) ** 2)  # D_alpha(N(0, t^2) || N(1, t^2))
        assert d <= eps
        assert mp.mpf(alpha) / (2 * (mp.mpf(theta) * (1 - mp.mpf(10) ** -7)) ** 2) > eps


def _log_condition_mp(ci, cj, plan, alpha, eps, z):
    """log Σ_kl π_kl e^{ψ_kl(z)} - (α - 1) ε at 50 digits, over the pairs with π_kl > 0."""
    with mp.workdps(50):
        terms = []
        for k, l in zip(*np.nonzero(plan), strict=True):
            psi = _psi_mp(ci[0][k], ci[1][k], cj[0][l], cj[1][l], alpha, z)
            terms.append(mp.mpf(float(plan[k, l])) * mp.exp(psi))
        return mp.log(mp.fsum(terms)) - (mp.mpf(alpha) - 1) * mp.mpf(eps)


@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.5), (3.0, 0.2)])
def test_gmm_ot_of_a_sample_against_a_gaussian(alpha, eps):
    """One prior empirical, the other a Gaussian: the mixture path (the sort of two samples needs
    both empirical).  One Gaussian component forces π = the sample's weights; ψ of an atom (v = 0)
    against N(μ, v_l) is the printed formula.  Minimal to 1e-7 and feasible, in mpmath."""
    xs, w = [0.0, 1.0, 2.5], [0.5, 0.3, 0.2]
    p, q = Empirical(xs, weights=w), Gaussian(mean=0.5, var=0.3)
    theta = gmm_ot(p, q, alpha=alpha, epsilon=eps)
    plan = np.array(w)[:, None]
    ci, cj = (xs, [0.0] * 3), ([0.5], [0.3])
    z = mp.mpf(theta) ** 2
    assert _log_condition_mp(ci, cj, plan, alpha, eps, z) <= 0
    assert _log_condition_mp(ci, cj, plan, alpha, eps, z * (1 - mp.mpf(10) ** -7)) > 0


@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.5), (4.0, 1.0)])
def test_gmm_ot_with_a_coupling_that_has_zeros(alpha, eps):
    """Two equal-weight two-component mixtures: the W2 coupling of the components is the cheaper of
    the two permutations (cost (μ - μ')² + (σ - σ')², Birkhoff), so half the plan is 0 and only
    the coupled pairs enter the condition.  Judged in mpmath: feasible, and not 1e-7 below."""
    mi, vi, mj, vj = [0.0, 3.0], [0.5, 1.0], [0.4, 2.0], [0.8, 0.3]
    p = GaussianMixture(weights=[0.5, 0.5], means=mi, vars=vi)
    q = GaussianMixture(weights=[0.5, 0.5], means=mj, vars=vj)
    theta = gmm_ot(p, q, alpha=alpha, epsilon=eps)

    def w2(k, l):
        return (mi[k] - mj[l]) ** 2 + (vi[k] ** 0.5 - vj[l] ** 0.5) ** 2

    ident = w2(0, 0) + w2(1, 1) < w2(0, 1) + w2(1, 0)
    plan = 0.5 * (np.eye(2) if ident else np.eye(2)[::-1])
    z = mp.mpf(theta) ** 2
    cond = _log_condition_mp((mi, vi), (mj, vj), plan, alpha, eps, z)
    assert cond <= 0
    assert _log_condition_mp((mi, vi), (mj, vj), plan, alpha, eps, z * (1 - mp.mpf(10) ** -7)) > 0


@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.7), (3.0, 2.0)])
def test_gmm_ot_root_below_the_variance_scale(alpha, eps):
    """Two Gaussians of large, close variances: the domain edge (α - 1) v_i - α v_j is negative,
    and the root lies well below v_i (a search started at a higher edge would miss it).  One pair:
    the condition is ψ(z) <= (α - 1) ε, in mpmath; feasible, and not 1e-7 below."""
    p, q = Gaussian(mean=0.0, var=4.0), Gaussian(mean=2.0, var=3.5)
    theta = gmm_ot(p, q, alpha=alpha, epsilon=eps)
    plan = np.array([[1.0]])
    ci, cj = ([0.0], [4.0]), ([2.0], [3.5])
    z = mp.mpf(theta) ** 2
    assert 0 < z < 4
    assert _log_condition_mp(ci, cj, plan, alpha, eps, z) <= 0
    assert _log_condition_mp(ci, cj, plan, alpha, eps, z * (1 - mp.mpf(10) ** -7)) > 0
    # "gmm-ot-tight" on one pair: (α - 1) D_α exactly; its domain edge is negative too
    zt = mp.mpf(gmm_ot_tight(p, q, alpha=alpha, epsilon=eps)) ** 2
    assert 0 < zt < 4
    assert _tight_log_condition_mp(ci, cj, plan, alpha, eps, zt) <= 0
    assert _tight_log_condition_mp(ci, cj, plan, alpha, eps, zt * (1 - mp.mpf(10) ** -7)) > 0


def _tight_log_condition_mp(ci, cj, plan, alpha, eps, z):
    """log Σ_kl π_kl e^{(α - 1) D_α(N(μ_k, v_k + z) || N(μ_l, v_l + z))} - (α - 1) ε at 50 digits
    (the Gaussian closed form; a point mass is v = 0, and D = +inf when a variance is 0)."""
    with mp.workdps(50):
        a, terms = mp.mpf(alpha), []
        for k, l in zip(*np.nonzero(plan), strict=True):
            vk, vl = mp.mpf(float(ci[1][k])) + z, mp.mpf(float(cj[1][l])) + z
            if vk == 0 or vl == 0:
                d = mp.mpf(0) if (vk == vl and ci[0][k] == cj[0][l]) else mp.inf
            else:
                d = _gauss_renyi_mp(mp.mpf(float(ci[0][k])), vk, mp.mpf(float(cj[0][l])), vl, a)
            terms.append(mp.mpf(float(plan[k, l])) * mp.exp((a - 1) * d))
        return mp.log(mp.fsum(terms)) - (a - 1) * mp.mpf(eps)


@pytest.mark.parametrize("atoms", [[0.0], [0.0, 1.0]])
@pytest.mark.parametrize("sample_first", [True, False])
@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.5), (3.0, 2.0)])
def test_gmm_ot_tight_between_a_sample_and_a_gaussian(atoms, sample_first, alpha, eps):
    """ "gmm-ot-tight" with one empirical prior: at θ = 0 an atom against a Gaussian has D = +inf
    (also an atom at the Gaussian's mean), so θ > 0.  One Gaussian component forces the coupling
    (π = the atoms' weights), and the condition is exact in mpmath: feasible, not 1e-7 below."""
    sample, gauss = Empirical(atoms), Gaussian(mean=0.0, var=1.0)
    pi, pj = (sample, gauss) if sample_first else (gauss, sample)
    theta = gmm_ot_tight(pi, pj, alpha=alpha, epsilon=eps)
    cs, cg = (atoms, [0.0] * len(atoms)), ([0.0], [1.0])
    ci, cj = (cs, cg) if sample_first else (cg, cs)
    w = np.full(len(atoms), 1.0 / len(atoms))
    plan = w[:, None] if sample_first else w[None, :]
    assert theta > 0
    z = mp.mpf(theta) ** 2
    assert _tight_log_condition_mp(ci, cj, plan, alpha, eps, mp.mpf(0)) == mp.inf
    assert _tight_log_condition_mp(ci, cj, plan, alpha, eps, z) <= 0
    assert _tight_log_condition_mp(ci, cj, plan, alpha, eps, z * (1 - mp.mpf(10) ** -7)) > 0


@pytest.mark.parametrize(("alpha", "eps"), [(2.0, 0.05), (2.0, 0.5)])
def test_gmm_ot_tight_ignores_infinite_costs_off_the_coupling(alpha, eps):
    """Two equal-weight mixtures whose cross pairs (0, 1) are off the domain below
    z = (α - 1) v_i0 - α v_j1 = 3.8 (+inf cost).  Over the couplings of two uniform pairs the
    value is linear in π_00, so the best coupling is a permutation; the cross one costs +inf and the
    diagonal one is the minimum.  Judged in mpmath: feasible, and not 1e-7 below (or θ = 0)."""
    mi, vi, mj, vj = [0.0, 3.0], [4.0, 0.1], [0.2, 3.1], [3.9, 0.1]
    p = GaussianMixture(weights=[0.5, 0.5], means=mi, vars=vi)
    q = GaussianMixture(weights=[0.5, 0.5], means=mj, vars=vj)
    theta = gmm_ot_tight(p, q, alpha=alpha, epsilon=eps)
    plan = 0.5 * np.eye(2)
    z = mp.mpf(theta) ** 2
    assert z < 3.8  # the root lies where the cross pairs are off the domain
    assert _tight_log_condition_mp((mi, vi), (mj, vj), plan, alpha, eps, z) <= 0
    if z > 0:
        below = z * (1 - mp.mpf(10) ** -7)
        assert _tight_log_condition_mp((mi, vi), (mj, vj), plan, alpha, eps, below) > 0


@pytest.mark.parametrize("rule", [gmm_ot, gmm_ot_tight])
def test_equal_samples_need_no_noise(rule):
    """Two equal samples (any order): every coupled pair is the same atom, D = 0 at θ = 0, and the
    smallest scale is exactly 0."""
    p, q = Empirical([0.0, 1.0, 2.0]), Empirical([2.0, 0.0, 1.0])
    assert rule(p, q, alpha=2.0, epsilon=0.1) == 0.0


@pytest.mark.parametrize("rule", [gmm_ot, gmm_ot_tight])
def test_two_samples_margin_with_a_tiny_weight(rule):
    """The sort path's condition log Σ π e^{ψ} <= (α - 1) ε keeps a margin of 16 ulps of its terms'
    magnitude; with a coupled mass of 1e-150 (|log π| = 345) and ε = 1e-6 that margin (~1e-12) is
    ~1e5 times the search's step (1e-11 relative in z: ~1e-17 in the condition), so it decides: a
    margin of the wrong sign (or one that |log π| turns negative) leaves the condition above the
    budget.  The quantile coupling of P = (δ_-1 with 1e-150, δ_0 with 1) against Q = (δ_0, δ_1,
    1/2 each) is written out: masses 1e-150 on (-1, 0), 1/2 - 1e-150 on (0, 0), 1/2 on (0, 1).
    Judged in mpmath: the condition holds at the returned scale and fails 1e-4 (relative) below
    (the margin moves the scale by ~1e-6)."""
    alpha, eps = 2.0, 1e-6
    p = Empirical([-1.0, 0.0], weights=[1e-150, 1.0])
    theta = rule(p, Empirical([0.0, 1.0]), alpha=alpha, epsilon=eps)
    with mp.workdps(60):
        w0 = mp.mpf(float(p.weights[0]))  # the tiny weight as P stores it (normalised)
        pairs = [(w0, 1), (mp.mpf(0.5) - w0, 0), (mp.mpf(0.5), 1)]  # (mass, (x - y)^2)
        a = mp.mpf(alpha)

        def cond(z):
            terms = [m * mp.exp(a * (a - 1) * d2 / (2 * z)) for m, d2 in pairs]
            return mp.log(mp.fsum(terms)) - (a - 1) * mp.mpf(eps)

        z = mp.mpf(theta) ** 2
        assert cond(z) <= 0
        assert cond(z * (1 - mp.mpf(10) ** -4)) > 0
