"""Issue #22, item 3: one parametrisation.  codemod: skip (this file calls the old forms on purpose)

Priors are keyword-only values (equality, hash, immutability), ``Empirical`` takes weights, and
every rule of ``rpp.rules`` returns a noise *scale* with one signature.  The scales are checked
against independent computations in mpmath (60 digits) and exact rational arithmetic, never
against ``rpp`` itself.
"""

from __future__ import annotations

import ast
import inspect
import pickle
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

import rpp
from rpp import Empirical, Gaussian, GaussianMixture, GaussianNoise, LaplaceNoise, rules
from rpp.priors import Prior

mp.mp.dps = 60
ROOT = Path(rpp.__file__).parent


# ---------------------------------------------------------------------------------------------
# Priors: keyword-only constructors, from_std, value equality, immutability
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda: Gaussian(0, 1),
        lambda: Gaussian(0, var=1),
        lambda: GaussianMixture([1.0], [0.0], [1.0]),
        lambda: Empirical([0.0, 1.0], [1.0, 1.0]),
        lambda: Gaussian.from_std(0.0, 1.0),
    ],
)
def test_constructors_refuse_positional_parameters(build):
    with pytest.raises(TypeError):
        build()


def test_value_equality_and_hash():
    assert Gaussian(mean=0, var=1) == Gaussian(mean=0.0, var=1.0)
    assert Gaussian(mean=0, var=1) != Gaussian(mean=0, var=2)
    assert hash(Gaussian(mean=0, var=1)) == hash(Gaussian(mean=0.0, var=1.0))
    assert len({Gaussian(mean=0, var=1), Gaussian(mean=0, var=1), Gaussian(mean=1, var=1)}) == 2
    m1 = GaussianMixture(weights=[0.5, 0.5], means=[0, 1], vars=[1, 2])
    m2 = GaussianMixture(weights=np.array([0.5, 0.5]), means=[0.0, 1.0], vars=[1.0, 2.0])
    assert m1 == m2 and hash(m1) == hash(m2)
    assert m1 != GaussianMixture(weights=[0.5, 0.5], means=[0, 1], vars=[1, 3])
    # different families never compare equal, even for the same law
    assert Gaussian(mean=0, var=1) != GaussianMixture(weights=[1.0], means=[0.0], vars=[1.0])
    assert Gaussian(mean=0, var=1) != (0.0, 1.0)
    # the same law as weights or as repeated atoms; order of the atoms is irrelevant
    e1 = Empirical([3.0, 1.0, 1.0, 2.0])
    e2 = Empirical([1.0, 2.0, 3.0], weights=[2, 1, 1])
    assert e1 == e2 and hash(e1) == hash(e2)
    assert e1 != Empirical([1.0, 2.0, 3.0])


def test_from_std_is_the_variance_parametrisation():
    g = Gaussian.from_std(mean=1.5, std=3.0)
    assert g == Gaussian(mean=1.5, var=9.0) and g.std == 3.0
    for bad in (0.0, -1.0, np.inf, np.nan, 1e-200):
        with pytest.raises(ValueError, match="std"):
            Gaussian.from_std(mean=0.0, std=bad)


def test_priors_are_immutable_and_pickle():
    g = Gaussian(mean=0, var=1)
    with pytest.raises(AttributeError):
        g.mean = 2.0
    m = GaussianMixture(weights=[0.25, 0.75], means=[0, 1], vars=[1, 2])
    with pytest.raises(AttributeError):
        m.weights = np.array([1.0])
    with pytest.raises(ValueError):
        m.means[0] = 5.0  # read-only arrays: the hash cannot change under the prior
    e = Empirical([0.0, 1.0], weights=[1, 3])
    with pytest.raises(ValueError):
        e.probs[0] = 0.5
    for prior in (g, m, e):
        back = pickle.loads(pickle.dumps(prior))
        assert back == prior and hash(back) == hash(prior)


def test_prior_protocol_and_components():
    g = Gaussian(mean=1.0, var=4.0)
    m = GaussianMixture(weights=[0.5, 0.5], means=[0, 2], vars=[1, 3])
    e = Empirical([1.0, 1.0, 5.0])
    for prior in (g, m, e):
        assert isinstance(prior, Prior)
        c = prior.components()
        assert c.weights.sum() == pytest.approx(1.0, abs=1e-15)
        assert c.weights.shape == c.means.shape == c.vars.shape
    assert e.components().vars.tolist() == [0.0, 0.0]
    assert e.components().weights.tolist() == [2 / 3, 1 / 3]
    assert not isinstance(1.0, Prior)


def test_convolve_takes_a_noise_scale():
    assert Gaussian(mean=0, var=1).convolve(scale=3.0) == Gaussian(mean=0, var=10.0)
    m = GaussianMixture(weights=[0.5, 0.5], means=[0, 1], vars=[1, 2]).convolve(scale=2.0)
    assert m.vars.tolist() == [5.0, 6.0]
    e = Empirical([0.0, 1.0], weights=[1, 3]).convolve(scale=0.5)
    assert e.weights.tolist() == [0.25, 0.75] and e.vars.tolist() == [0.25, 0.25]
    for bad in (-1.0, np.nan):
        with pytest.raises(ValueError, match="scale"):
            Gaussian(mean=0, var=1).convolve(scale=bad)
    with pytest.raises(TypeError):
        Gaussian(mean=0, var=1).convolve(3.0)


# ---------------------------------------------------------------------------------------------
# Weighted Empirical
# ---------------------------------------------------------------------------------------------


def test_weighted_empirical_moments_and_distribution_functions_exactly():
    atoms, weights = [2.0, -1.0, 0.5, 2.0], [1, 2, 0, 3]  # a zero weight and a repeated atom
    e = Empirical(atoms, weights=weights)
    # exact rational reference
    law: dict[Fraction, Fraction] = {}
    total = Fraction(sum(weights))
    for x, w in zip(atoms, weights, strict=True):
        if w:
            law[Fraction(x)] = law.get(Fraction(x), Fraction(0)) + Fraction(w) / total
    support = sorted(law)
    assert e.support.tolist() == [float(x) for x in support]
    assert e.probs.tolist() == pytest.approx([float(law[x]) for x in support], abs=1e-16)
    mean = sum(p * x for x, p in law.items())
    var = sum(p * (x - mean) ** 2 for x, p in law.items())
    assert e.mean == pytest.approx(float(mean), rel=1e-15)
    assert e.var == pytest.approx(float(var), rel=1e-14)
    for x in (-2.0, -1.0, 0.0, 0.5, 2.0, 3.0):
        ref = sum((p for a, p in law.items() if a <= Fraction(x)), Fraction(0))
        assert float(e.cdf(x)) == pytest.approx(float(ref), abs=1e-15)
    assert float(e.ppf(1 / 3)) == -1.0 and float(e.ppf(0.34)) == 2.0
    draws = e.sample(4000, rng=1)
    assert set(np.unique(draws)) == {-1.0, 2.0}


@pytest.mark.parametrize(
    "weights, match",
    [
        ([1.0, -0.5], "weights"),
        ([1.0, np.nan], "weights"),
        ([1.0, np.inf], "weights"),
        ([0.0, 0.0], "weights"),
        ([1.0], "weights"),
        ([[1.0, 1.0]], "weights"),
        (["a", "b"], "weights"),
    ],
)
def test_weighted_empirical_validation_names_weights(weights, match):
    with pytest.raises(ValueError, match=match):
        Empirical([0.0, 1.0], weights=weights)


def test_weighted_empirical_in_the_rules_equals_the_repeated_sample():
    """A weighted law and the sample that repeats its atoms are the same prior for every rule."""
    p_w = Empirical([0.0, 1.0], weights=[3, 1])
    p_r = Empirical([0.0, 0.0, 0.0, 1.0])
    q = Empirical([0.5, 2.0])
    for rule in (rules.gmm_ot, rules.w_alpha):
        assert rule(p_w, q, alpha=2.5, epsilon=0.7) == rule(p_r, q, alpha=2.5, epsilon=0.7)


# ---------------------------------------------------------------------------------------------
# Rules: one signature, a scale, checked against independent formulas
# ---------------------------------------------------------------------------------------------

PRIOR_RULES = [
    rules.closed_form,
    rules.published_bisection,
    rules.gmm_ot,
    rules.gmm_ot_tight,
    rules.exact,
    rules.pierquin,
    rules.w_alpha,
    rules.exponential_family,
    rules.alpha_below_one,
]


@pytest.mark.parametrize("rule", PRIOR_RULES, ids=lambda f: f.__name__)
def test_one_signature(rule):
    params = list(inspect.signature(rule).parameters.values())
    assert [p.name for p in params[:2]] == ["prior_i", "prior_j"]
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[:2])
    rest = {p.name: p for p in params[2:]}
    assert {"alpha", "epsilon"} <= set(rest)
    assert all(p.kind is p.KEYWORD_ONLY for p in rest.values())
    if "noise" in rest:
        assert rest["noise"].default == "gaussian"


def _mp_gauss_renyi(m_i, v_i, m_j, v_j, alpha):
    """D_alpha(N(m_i, v_i) || N(m_j, v_j)) (Gil et al. 2013), in mpmath; +inf outside the domain."""
    m_i, v_i, m_j, v_j, a = (mp.mpf(x) for x in (m_i, v_i, m_j, v_j, alpha))
    s = (1 - a) * v_i + a * v_j
    if s <= 0:
        return mp.inf
    return a * (m_i - m_j) ** 2 / (2 * s) - mp.log(s / (v_i ** (1 - a) * v_j**a)) / (2 * (a - 1))


def _exact_square_at_least(theta, var):
    return Fraction(float(theta)) ** 2 >= Fraction(float(var))


GAUSS_CASES = [(0.0, 1.0, 2.0, 1.0, 3.0, 0.5), (0.0, 1.0, 3.5, 1.21, 2.0, 0.3), (1.0, 4.0, -2.0, 0.5, 5.0, 1.7)]


@pytest.mark.parametrize("m_i, v_i, m_j, v_j, a, e", GAUSS_CASES)
def test_closed_form_scale_is_eq6_and_never_under_noises(m_i, v_i, m_j, v_j, a, e):
    theta = rules.closed_form(Gaussian(mean=m_i, var=v_i), Gaussian(mean=m_j, var=v_j), alpha=a, epsilon=e)
    A, E = mp.mpf(a), mp.mpf(e)
    dm2 = (mp.mpf(m_i) - m_j) ** 2
    d = mp.mpf(v_j) - v_i
    b = dm2 - 2 * E * d
    ref = max(mp.mpf(0), A / (4 * E) * (b + mp.sqrt(b**2 + 8 * E * d**2 / (A - 1))) - v_i)
    assert mp.mpf(theta) ** 2 >= ref * (1 - mp.mpf(10) ** -14)
    assert float(theta) ** 2 == pytest.approx(float(ref), rel=1e-13)
    assert _mp_gauss_renyi(m_i, v_i + mp.mpf(theta) ** 2, m_j, v_j + mp.mpf(theta) ** 2, a) <= E


@pytest.mark.parametrize("m_i, v_i, m_j, v_j, a, e", GAUSS_CASES)
def test_exact_scale_is_the_minimal_theta(m_i, v_i, m_j, v_j, a, e):
    pi, pj = Gaussian(mean=m_i, var=v_i), Gaussian(mean=m_j, var=v_j)
    theta = rules.exact(pi, pj, alpha=a, epsilon=e)
    t2 = mp.mpf(theta) ** 2
    assert _mp_gauss_renyi(m_i, v_i + t2, m_j, v_j + t2, a) <= e
    t2_less = (mp.mpf(theta) * (1 - mp.mpf(10) ** -6)) ** 2
    assert _mp_gauss_renyi(m_i, v_i + t2_less, m_j, v_j + t2_less, a) > e
    # the same rule for a mixture view of the same priors (quadrature path) agrees
    mix = rules.exact(pi.as_mixture(), pj.as_mixture(), alpha=a, epsilon=e)
    assert mix == pytest.approx(theta, rel=1e-6)
    # vectorised over alpha and epsilon for two Gaussians
    grid = rules.exact(pi, pj, alpha=np.array([a, a]), epsilon=np.array([e, 2 * e]))
    assert grid.shape == (2,) and grid[0] == theta and grid[1] < theta


def test_gmm_ot_and_tight_on_one_component_are_eq5():
    # equal variances: theta^2 = alpha Delta / (2 eps) - sigma^2 (Yang et al. eq. (5))
    pi, pj = Gaussian(mean=0, var=1), Gaussian(mean=2, var=1)
    ref = mp.mpf(3) * 4 / (2 * mp.mpf("0.5")) - 1
    for rule in (rules.gmm_ot, rules.gmm_ot_tight):
        theta = rule(pi, pj, alpha=3.0, epsilon=0.5)
        assert mp.mpf(theta) ** 2 >= ref * (1 - mp.mpf(10) ** -12)
        assert theta**2 == pytest.approx(float(ref), rel=1e-9)


def test_pierquin_and_sensitivity_scale():
    a, e = 3.0, 0.5
    p, q = Empirical([0.0, 1.0]), Empirical([1.5, 2.0])  # W_inf = 1.5
    theta = rules.pierquin(p, q, alpha=a, epsilon=e)
    ref = mp.mpf(1.5) * mp.sqrt(mp.mpf(a) / (2 * mp.mpf(e)))
    assert mp.mpf(theta) >= ref * (1 - mp.mpf(10) ** -15) and theta == pytest.approx(float(ref), rel=1e-15)
    assert _exact_square_at_least(theta, a * 1.5**2 / (2 * e))
    w = np.array([0.0, 1.0, np.inf])
    s = rules.sensitivity_scale(w, alpha=a, epsilon=e)
    assert s[0] == 0.0 and s[1] == pytest.approx(float(mp.sqrt(mp.mpf(a) / (2 * e))), rel=1e-15) and np.isinf(s[2])
    b = rules.pierquin(Empirical([0.0]), Empirical([1.0]), alpha=2.0, epsilon=1.0, noise="laplace")
    assert _mp_laplace_shift(1.0, b, 2.0) <= 1.0 < _mp_laplace_shift(1.0, b * (1 - 1e-6), 2.0)


def _mp_laplace_shift(d, b, alpha):
    """D_alpha(Lap(0, b) || Lap(d, b)), Mironov 2017, Prop. 6, in mpmath."""
    a, t = mp.mpf(alpha), mp.mpf(d) / mp.mpf(b)
    return mp.log(a / (2 * a - 1) * mp.exp((a - 1) * t) + (a - 1) / (2 * a - 1) * mp.exp(-a * t)) / (a - 1)


@pytest.mark.parametrize("d, a, e", [(1.0, 2.0, 1.0), (2.5, 4.0, 0.3)])
def test_exact_laplace_on_two_atoms_is_mironov_prop6(d, a, e):
    b = rules.exact(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e, noise="laplace")
    assert _mp_laplace_shift(d, b, a) <= e * (1 + 1e-12)
    assert _mp_laplace_shift(d, b * (1 - 1e-6), a) > e


def test_w_alpha_gaussian_on_two_atoms_is_theorem2():
    # one pair at distance d: alpha (alpha - 1) d^2 / (2 sigma^2) <= (alpha - 1) eps
    d, a, e = 1.7, 3.0, 0.4
    sigma = rules.w_alpha(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e)
    ref = mp.mpf(d) * mp.sqrt(mp.mpf(a) / (2 * mp.mpf(e)))
    assert mp.mpf(sigma) >= ref * (1 - mp.mpf(10) ** -15) and sigma == pytest.approx(float(ref), rel=1e-12)
    lap = rules.w_alpha(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e, noise="laplace", rule="paper")
    assert lap == pytest.approx(a * d / ((a - 1) * e), rel=1e-12)  # Theorem 1 for one pair
    lm = rules.w_alpha_log_moment(Empirical([0.0]), Empirical([d]), alpha=a, noise=GaussianNoise(scale=sigma))
    assert lm <= (a - 1) * e * (1 + 1e-12)
    lm = rules.w_alpha_log_moment(Empirical([0.0]), Empirical([d]), alpha=a, noise=LaplaceNoise(scale=lap))
    assert lm <= (a - 1) * e * (1 + 1e-12)
    # the noise object decides the cost: alpha |d| / b (Laplace, eq. (12)), alpha (alpha - 1) d^2 / (2 sigma^2)
    one = Empirical([0.0]), Empirical([d])
    got = rules.w_alpha_log_moment(*one, alpha=a, noise=LaplaceNoise(scale=0.8))
    assert got == pytest.approx(float(mp.mpf(a) * d / mp.mpf(0.8)), rel=1e-14)
    got = rules.w_alpha_log_moment(*one, alpha=a, noise=GaussianNoise(scale=0.8))
    assert got == pytest.approx(float(mp.mpf(a) * (a - 1) * mp.mpf(d) ** 2 / (2 * mp.mpf(0.8) ** 2)), rel=1e-14)
    got = rules.alpha_wasserstein(*one, alpha=a, noise=LaplaceNoise(scale=0.8))
    assert got == pytest.approx(float(mp.exp(mp.mpf(d) / mp.mpf(0.8))), rel=1e-14)
    with pytest.raises(TypeError, match="noise"):
        rules.w_alpha_log_moment(Empirical([0.0]), Empirical([d]), alpha=a, noise="laplace")


def test_exponential_family_scale_and_the_geometric_divergence():
    d, a, e = 2.0, 3.0, 0.6
    b = rules.exponential_family(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e)
    ref = mp.mpf(a) * d / ((mp.mpf(a) - 1) * mp.mpf(e))  # kappa eta |d| <= (alpha - 1) eps, kappa = alpha
    assert mp.mpf(b) >= ref * (1 - mp.mpf(10) ** -15) and b == pytest.approx(float(ref), rel=1e-12)
    # two-sided geometric noise of scale b = 1 / eta: brute-force sum in mpmath
    p, q = Empirical([0.0, 1.0]), Empirical([2.0])
    eta = mp.mpf(1) / mp.mpf(b)
    r = mp.exp(-eta)

    def pmf(prior, y):
        return sum(
            mp.mpf(pr) * (1 - r) / (1 + r) * r ** abs(y - int(x))
            for x, pr in zip(prior.support, prior.probs, strict=True)
        )

    ref_d = mp.log(mp.fsum(pmf(p, y) ** a * pmf(q, y) ** (1 - a) for y in range(-400, 403))) / (a - 1)
    got = rules.two_sided_geometric_renyi(p, q, alpha=a, scale=b)
    assert got == pytest.approx(float(ref_d), rel=1e-10)


def test_alpha_below_one_on_two_atoms():
    # e^{-alpha d / b} >= e^{(alpha - 1) eps}  <=>  b >= alpha d / ((1 - alpha) eps)
    d, a, e = 1.0, 0.5, 0.1
    b = rules.alpha_below_one(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e)
    ref = mp.mpf(a) * d / ((1 - mp.mpf(a)) * mp.mpf(e))
    assert mp.mpf(b) >= ref * (1 - mp.mpf(10) ** -15) and b == pytest.approx(float(ref), rel=1e-12)


def test_rules_validate_their_arguments():
    pi, pj = Gaussian(mean=0, var=1), Gaussian(mean=1, var=1)
    with pytest.raises(ValueError, match="alpha"):
        rules.exact(pi, pj, alpha=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        rules.gmm_ot(pi, pj, alpha=2.0, epsilon=0.0)
    with pytest.raises(ValueError, match="noise"):
        rules.exact(pi, pj, alpha=2.0, epsilon=1.0, noise="cauchy")
    with pytest.raises(ValueError, match="closed_form"):
        rules.closed_form(Empirical([0.0]), pj, alpha=2.0, epsilon=1.0)
    with pytest.raises(ValueError, match="alpha and epsilon must be scalars"):
        rules.exact(Empirical([0.0]), Empirical([1.0]), alpha=[2.0, 3.0], epsilon=1.0)


# ---------------------------------------------------------------------------------------------
# No ``-> Any`` on the public functions of these modules
# ---------------------------------------------------------------------------------------------

MODULES = [
    "priors.py",
    "transport.py",
    "gmm.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "rules").glob("*.py")),
]


@pytest.mark.parametrize("module", MODULES)
def test_no_any_return_on_public_functions(module):
    tree = ast.parse((ROOT / module).read_text())
    scopes = [tree.body] + [c.body for c in tree.body if isinstance(c, ast.ClassDef) and not c.name.startswith("_")]
    bad = [
        f"{f.name} -> {ast.unparse(f.returns)}"
        for body in scopes
        for f in body
        if isinstance(f, ast.FunctionDef) and not f.name.startswith("_") and f.returns is not None
        if ast.unparse(f.returns) == "Any"
    ]
    assert not bad, f"{module}: {bad}"
