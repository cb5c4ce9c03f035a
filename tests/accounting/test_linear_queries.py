"""rpp.accounting._linear_queries against independent oracles: Gil, Alajaji & Linder's closed form evaluated
with mpmath matrices at 50 digits, 2-D numerical quadrature of the Rényi integral, the univariate closed
form written out here, and the identity "k releases at theta equal one at theta / sqrt(k)" (issue #23)."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate

from rpp.accounting import (
    calibrate_linear_queries,
    linear_queries_divergence,
    linear_release_law,
    multivariate_gaussian_renyi,
)


@pytest.fixture(autouse=True)
def _mp_precision():
    with mp.workdps(50):
        yield


def _gil_mp(m1, s1, m2, s2, alpha):
    """Gil et al. (2013) on float arrays, converted exactly to mpmath (:func:`_gil_mp_exact`, no rpp)."""
    mat = lambda x: mp.matrix(np.asarray(x, float).tolist())
    return _gil_mp_exact(mat(m1), mat(s1), mat(m2), mat(s2), alpha)


def _joint_mp(mean_i, cov_i, mean_j, cov_j, queries, scales, alpha):
    """max of both orders of _gil_mp on the release laws A mu, A S A^T + diag(theta^2), formed in mpmath
    from the exact floats (no rounding before the judge)."""
    a_mp = mp.matrix(np.asarray(queries, float).tolist())
    noise = mp.diag([mp.mpf(float(t)) ** 2 for t in scales])
    laws = []
    for m, c in ((mean_i, cov_i), (mean_j, cov_j)):
        mm = a_mp * mp.matrix(np.asarray(m, float).tolist())
        cc = a_mp * mp.matrix(np.asarray(c, float).tolist()) * a_mp.T + noise
        laws.append((mm, cc))
    return max(_gil_mp_exact(*laws[0], *laws[1], alpha), _gil_mp_exact(*laws[1], *laws[0], alpha))


def _gil_mp_exact(m1, s1, m2, s2, alpha):
    """Gil et al. (2013): alpha/2 d^T S_a^-1 d - log(|S_a| / (|S1|^(1-a) |S2|^a)) / (2 (a - 1)),
    S_a = a S2 + (1 - a) S1, +inf unless S_a is positive definite (mpmath matrices, no rpp)."""
    a = mp.mpf(alpha)
    sa = a * s2 + (1 - a) * s1
    if min(mp.eigsy(sa)[0]) <= 0:
        return mp.inf
    d = m1 - m2
    quad = (d.T * mp.lu_solve(sa, d))[0]
    return a / 2 * quad - (mp.log(mp.det(sa)) - (1 - a) * mp.log(mp.det(s1)) - a * mp.log(mp.det(s2))) / (2 * (a - 1))


def _random_spd(rng, k, scale=1.0):
    g = rng.normal(size=(k, k))
    s = scale * (g @ g.T / k + 0.3 * np.eye(k))
    return 0.5 * (s + s.T)  # exactly symmetric (the matrix rpp reads)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("alpha", [0.5, 1.5, 2.0, 5.0, 30.0])
def test_closed_form_against_mpmath(k, alpha):
    rng = np.random.default_rng(100 * k + int(10 * alpha))
    checked = 0
    for n in range(12):
        s1, s2 = _random_spd(rng, k), _random_spd(rng, k, scale=rng.uniform(0.5, 3))
        if n % 2:  # close covariances: finite at large alpha too
            s1 = 0.9 * s2 + 0.05 * s1
        m1, m2 = rng.normal(size=k), rng.normal(size=k) * 2
        want = _gil_mp(m1, s1, m2, s2, alpha)
        got = multivariate_gaussian_renyi(mean_i=m1, cov_i=s1, mean_j=m2, cov_j=s2, alpha=alpha)
        assert got.rigorous
        if want == mp.inf:
            assert got.value == math.inf
            continue
        checked += 1
        assert mp.mpf(float(got.lower)) <= want <= mp.mpf(float(got.upper))  # the proved enclosure holds the truth
        assert got.value == pytest.approx(float(want), rel=1e-14, abs=1e-15)
    assert checked >= 3


def test_kl_limit_against_mpmath():
    rng = np.random.default_rng(5)
    s1, s2 = _random_spd(rng, 3), _random_spd(rng, 3, 2.0)
    m1, m2 = rng.normal(size=3), rng.normal(size=3)
    S1, S2 = mp.matrix(s1.tolist()), mp.matrix(s2.tolist())
    d = mp.matrix((m1 - m2).tolist())
    kl = (mp.fsum((mp.inverse(S2) * S1)[i, i] for i in range(3)) - 3 - mp.log(mp.det(S1) / mp.det(S2))
          + (d.T * mp.lu_solve(S2, d))[0]) / 2  # fmt: skip
    got = multivariate_gaussian_renyi(mean_i=m1, cov_i=s1, mean_j=m2, cov_j=s2, alpha=1.0)
    assert mp.mpf(float(got.lower)) <= kl <= mp.mpf(float(got.upper)) and got.value == pytest.approx(
        float(kl), rel=1e-14
    )


def test_domain_edge_is_exact_and_safe():
    # 1-D: finite iff alpha v_j + (1 - alpha) v_i > 0, i.e. v_i < alpha v_j / (alpha - 1) = 1.5 v_j for alpha = 3
    kw = {"mean_i": [0.0], "mean_j": [1.0], "cov_j": [[1.0]], "alpha": 3.0}
    assert math.isfinite(multivariate_gaussian_renyi(cov_i=[[1.5 * (1 - 1e-6)]], **kw).value)
    assert multivariate_gaussian_renyi(cov_i=[[1.5]], **kw).value == math.inf
    assert multivariate_gaussian_renyi(cov_i=[[1.5 * (1 + 1e-15)]], **kw).value == math.inf
    # 2-D: one direction past the edge is enough, even if the other is harmless
    s2 = np.eye(2)
    rot = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    s1 = rot @ np.diag([1.6, 0.2]) @ rot.T
    assert multivariate_gaussian_renyi(mean_i=[0, 0], cov_i=s1, mean_j=[0, 0], cov_j=s2, alpha=3.0).value == math.inf
    assert _gil_mp(np.zeros(2), s1, np.zeros(2), s2, 3.0) == mp.inf


def test_univariate_case_is_the_scalar_closed_form():
    def scalar(m1, v1, m2, v2, a):  # written out: a (m1 - m2)^2 / (2 v_a) + log(v_1^(1-a) v_2^a / v_a) / (2 (a - 1))
        va = a * v2 + (1 - a) * v1
        return a * (m1 - m2) ** 2 / (2 * va) + ((1 - a) * math.log(v1) + a * math.log(v2) - math.log(va)) / (
            2 * (a - 1)
        )

    for m1, v1, m2, v2, a in [(0, 1, 2, 1.2, 3.0), (0, 1, 3.5, 1.21, 3.0), (1, 4, 0, 3, 1.7), (0, 2, 0.1, 2, 10.0)]:
        got = multivariate_gaussian_renyi(mean_i=[m1], cov_i=[[v1]], mean_j=[m2], cov_j=[[v2]], alpha=a).value
        assert got == pytest.approx(scalar(m1, v1, m2, v2, a), rel=1e-12)


@pytest.mark.parametrize("alpha", [1.5, 3.0])
def test_two_queries_against_2d_quadrature(alpha):
    """k = 2 different queries of 2-D data: D = log(int p_i^alpha p_j^(1 - alpha)) / (alpha - 1), the integral
    over the plane by scipy's dblquad on the law's centre +- 12 standard deviations."""
    cov_i = np.array([[1.0, 0.4], [0.4, 2.0]])
    cov_j = np.array([[1.3, -0.2], [-0.2, 1.5]])
    mean_i, mean_j = np.array([0.0, 1.0]), np.array([0.8, 0.3])
    queries = np.array([[1.0, 1.0], [1.0, -0.5]])
    scales = np.array([1.5, 2.0])
    m1, s1 = linear_release_law(mean=mean_i, cov=cov_i, queries=queries, scales=scales)
    m2, s2 = linear_release_law(mean=mean_j, cov=cov_j, queries=queries, scales=scales)

    def logpdf(y, m, s):
        d = y - m
        return -0.5 * d @ np.linalg.solve(s, d) - 0.5 * np.log(np.linalg.det(s)) - np.log(2 * np.pi)

    def integrand(y2, y1):
        y = np.array([y1, y2])
        return math.exp(alpha * logpdf(y, m1, s1) + (1 - alpha) * logpdf(y, m2, s2))

    centre = (m1 + m2) / 2
    half = 12 * np.sqrt(np.maximum(np.diag(s1), np.diag(s2)))
    value, _err = integrate.dblquad(
        integrand, centre[0] - half[0], centre[0] + half[0], centre[1] - half[1], centre[1] + half[1],
        epsabs=1e-13, epsrel=1e-11,
    )  # fmt: skip
    quad = math.log(value) / (alpha - 1)
    got = linear_queries_divergence(
        mean_i=mean_i, cov_i=cov_i, mean_j=mean_j, cov_j=cov_j, queries=queries, scales=scales, alpha=alpha,
        both_orders=False,
    )  # fmt: skip
    assert got.rigorous
    assert got.value == pytest.approx(quad, rel=1e-8)


@pytest.mark.parametrize(("var_j", "alpha"), [(1.0, 3.0), (1.2, 3.0), (0.5, 2.0), (1.4, 1.5)])
@pytest.mark.parametrize("k", [2, 5, 20])
def test_k_releases_of_one_query_equal_one_release_at_theta_over_sqrt_k(var_j, alpha, k):
    """Issue #23: for any Gaussian prior, k releases at theta equal one at theta / sqrt(k) (the mean of the
    k outputs is sufficient). The right side is the univariate closed form at variance sigma^2 + theta^2/k."""
    theta = 2.325
    kw = {"mean_i": [0.0], "cov_i": [[1.0]], "mean_j": [2.0], "cov_j": [[var_j]], "alpha": alpha}
    many = linear_queries_divergence(**kw, queries=np.ones((k, 1)), scales=np.full(k, theta))
    one = linear_queries_divergence(**kw, queries=[[1.0]], scales=[theta / math.sqrt(k)])
    assert many.value == pytest.approx(one.value, rel=1e-11)
    assert many.lower <= one.upper and one.lower <= many.upper  # two proved enclosures of one number


def test_issue23_counterexample_values():
    """N(0, 1) against N(2, 1.2), alpha = 3, theta = 2.325: D^(k) = 1.82, 3.58, 6.92, 9.21 at k = 2, 5, 20, 100."""
    kw = {"mean_i": [0.0], "cov_i": [[1.0]], "mean_j": [2.0], "cov_j": [[1.2]], "alpha": 3.0}
    got = [
        linear_queries_divergence(**kw, queries=np.ones((k, 1)), scales=np.full(k, 2.325)).value
        for k in (2, 5, 20, 100)
    ]
    assert np.round(got, 2).tolist() == [1.82, 3.58, 6.92, 9.21]


def test_divergence_decreases_in_the_noise_multiplier():
    rng = np.random.default_rng(3)
    cov_i, cov_j = _random_spd(rng, 3), _random_spd(rng, 3, 1.5)
    mean_i, mean_j = rng.normal(size=3), rng.normal(size=3)
    queries = rng.normal(size=(4, 3))
    theta0 = np.array([1.0, 0.5, 2.0, 1.0])
    for alpha in (1.5, 4.0):
        values = [
            linear_queries_divergence(
                mean_i=mean_i, cov_i=cov_i, mean_j=mean_j, cov_j=cov_j, queries=queries, scales=c * theta0, alpha=alpha
            ).value
            for c in np.geomspace(0.05, 50, 60)
        ]
        finite = np.array([v for v in values if math.isfinite(v)])
        assert np.all(np.diff(finite) <= 1e-12 * finite[:-1])
        assert all(math.isinf(v) for v in values[: len(values) - finite.size])  # infinite only at small noise


@pytest.mark.parametrize(("var_j", "alpha", "eps"), [(1.0, 2.0, 1.0), (1.2, 3.0, 1.0), (0.7, 5.0, 0.3)])
def test_calibration_is_feasible_and_minimal_against_mpmath(var_j, alpha, eps):
    cov_i = np.array([[1.0, 0.3], [0.3, 0.8]])
    cov_j = var_j * np.array([[1.0, -0.1], [-0.1, 1.1]])
    mean_i, mean_j = np.array([0.0, 0.0]), np.array([1.0, -0.5])
    queries = np.array([[1.0, 0.0], [0.5, 0.5]])
    theta0 = np.array([1.0, 2.0])
    cal = calibrate_linear_queries(
        mean_i=mean_i, cov_i=cov_i, mean_j=mean_j, cov_j=cov_j, queries=queries, base_scales=theta0, alpha=alpha,
        epsilon=eps,
    )  # fmt: skip

    def oracle(c):
        return _joint_mp(mean_i, cov_i, mean_j, cov_j, queries, c * theta0, alpha)

    assert oracle(cal.multiplier) <= eps  # never less privacy than requested (50-digit oracle)
    assert oracle(cal.multiplier * (1 - 1e-8)) > eps  # and no more noise than rtol = 1e-9 allows
    assert np.allclose(cal.scales, cal.multiplier * theta0, rtol=0)
    assert cal.divergence.rigorous and cal.divergence.upper <= eps  # proved, no slack
    truth = oracle(cal.multiplier)
    assert cal.divergence.lower <= truth <= cal.divergence.upper  # the enclosure holds the 50-digit value


def test_calibration_matches_the_shift_closed_form():
    # equal variances: alpha Delta^2 / (2 (sigma^2 + c^2 theta0^2)) = eps  <=>  c^2 = (alpha Delta^2 / (2 eps) - sigma^2) / theta0^2
    alpha, eps, delta, sigma2, theta0 = 4.0, 0.5, 3.0, 0.8, 1.7
    cal = calibrate_linear_queries(mean_i=[0.0], cov_i=[[sigma2]], mean_j=[delta], cov_j=[[sigma2]], queries=[[1.0]],
                                   base_scales=[theta0], alpha=alpha, epsilon=eps)  # fmt: skip
    exact = math.sqrt(alpha * delta**2 / (2 * eps) - sigma2) / theta0
    assert exact <= cal.multiplier <= exact * (1 + 2e-9)


def test_bad_input_names_the_argument_and_never_the_value():
    sentinel = 987654.321
    good = {"mean_i": [0.0], "cov_i": [[1.0]], "mean_j": [1.0], "cov_j": [[1.0]], "queries": [[1.0]]}
    cases = [
        ({**good, "cov_i": [[-sentinel]]}, "cov_i"),
        ({**good, "cov_j": [[1.0, 0.0], [0.0, 1.0]]}, "cov_j"),
        ({**good, "queries": [[1.0, sentinel]]}, "queries"),
        ({**good, "mean_j": [sentinel, 1.0]}, "mean_j"),
    ]
    for kwargs, name in cases:
        with pytest.raises(ValueError, match=name) as info:
            linear_queries_divergence(**kwargs, scales=[1.0], alpha=2.0)
        assert "987654" not in str(info.value)
    with pytest.raises(ValueError, match="scales"):
        linear_queries_divergence(**good, scales=[0.0], alpha=2.0)
    with pytest.raises(ValueError, match="alpha"):
        linear_queries_divergence(**good, scales=[1.0], alpha=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_linear_queries(**good, base_scales=[1.0], alpha=2.0, epsilon=0.0)
    with pytest.raises(ValueError, match="symmetric"):
        multivariate_gaussian_renyi(mean_i=[0, 0], cov_i=[[1, 0.5], [0, 1]], mean_j=[0, 0], cov_j=np.eye(2), alpha=2.0)


@pytest.mark.parametrize("seed", range(6))
def test_joint_divergence_is_a_proved_enclosure_of_the_mpmath_value(seed):
    """Both orders, random 3-D priors, 4 queries: the enclosure holds the 50-digit value of the laws formed
    in mpmath from the same floats, and is no wider than 1e-14 of it."""
    rng = np.random.default_rng(700 + seed)
    cov_i, cov_j = _random_spd(rng, 3), _random_spd(rng, 3, 1.5)
    mean_i, mean_j = rng.normal(size=3), rng.normal(size=3)
    queries, scales = rng.normal(size=(4, 3)), rng.uniform(0.3, 2.0, size=4)
    alpha = float(rng.choice([0.5, 1.5, 3.0, 8.0]))
    got = linear_queries_divergence(
        mean_i=mean_i, cov_i=cov_i, mean_j=mean_j, cov_j=cov_j, queries=queries, scales=scales, alpha=alpha
    )
    truth = _joint_mp(mean_i, cov_i, mean_j, cov_j, queries, scales, alpha)
    assert got.rigorous
    if truth == mp.inf:
        assert math.isinf(got.value)
    else:
        assert got.lower <= truth <= got.upper
        assert got.error <= 1e-14 * float(truth)


def test_calibration_is_proved_even_where_the_float_search_under_reports(monkeypatch):
    """The float search is not the guarantee: with its divergence made 3 % too small (a planted bug in the
    eigenvalue path), the proof step still returns a multiplier whose 50-digit divergence is <= epsilon."""
    from rpp.accounting import _linear_queries as lq

    real = lq._divergence
    monkeypatch.setattr(lq, "_divergence", lambda *a: 0.97 * real(*a))
    kw = {"mean_i": [0.0, 0.0], "cov_i": [[1.0, 0.3], [0.3, 0.8]], "mean_j": [1.0, -0.5],
          "cov_j": [[1.2, -0.1], [-0.1, 1.3]], "queries": [[1.0, 0.0], [0.5, 0.5]]}  # fmt: skip
    theta0, alpha, eps = np.array([1.0, 2.0]), 3.0, 0.5
    cal = calibrate_linear_queries(**kw, base_scales=theta0, alpha=alpha, epsilon=eps, rtol=1e-6)
    truth = _joint_mp(kw["mean_i"], kw["cov_i"], kw["mean_j"], kw["cov_j"], kw["queries"], cal.scales, alpha)
    assert truth <= eps
    assert cal.divergence.upper <= eps


@pytest.mark.parametrize("log_cond", [0, 4, 8, 12, 15, 17])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_definiteness_proof_agrees_with_mpmath_eigenvalues(log_cond, sign):
    """_certainly_definite (Gershgorin after a float congruence, else Sylvester's minors) never says "proved"
    of a matrix that is not positive definite, judged by mpmath's eigenvalues of the exact floats; it proves
    every well-conditioned positive definite one."""
    import flint

    from rpp.accounting._linear_queries import _certainly_definite

    rng = np.random.default_rng(log_cond)
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    m = q @ np.diag([1.0, 0.5, 2.0, sign * 10.0**-log_cond]) @ q.T
    m = 0.5 * (m + m.T)
    with mp.workdps(60):
        smallest = min(mp.eigsy(mp.matrix(m.tolist()))[0])
    with flint.ctx.workprec(128):
        proved = _certainly_definite(flint, flint.arb_mat(m.tolist()))
    if proved:
        assert smallest > 0
    if smallest > 1e-8:
        assert proved
