"""Issue 21, items 3-7: closed forms at the edges (judged by mpmath / exact rationals) and bad input.

Every value is judged by an independent oracle -- mpmath at 60 digits on the exact binary
inputs, or exact rationals (``fractions.Fraction``) -- never by ``rpp`` itself; every bad
input must raise a ``ValueError`` (or ``TypeError`` for a wrong kind) that names the
argument and never repeats a data value.
"""

import math
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import rpp
import rpp.pufferfish as pf
from rpp.noise import GaussianNoise, LaplaceNoise
from rpp_book import chain_data, topk


def _at60(f):
    """Run an oracle at 60 digits whatever precision another test left in mpmath's global context."""

    def wrapped(*args):
        with mp.workdps(60):
            return f(*args)

    return wrapped


# -- oracles ---------------------------------------------------------------------------------


@_at60
def _gauss_ref(m0, v0, m1, v1, a):
    """D_a(N(m0, v0) || N(m1, v1)) at 60 digits on the exact binary inputs (Gil et al. closed form)."""
    m0, v0, m1, v1 = (mp.mpf(float(x)) for x in (m0, v0, m1, v1))
    d = (m0 - m1) ** 2
    if a == 0:
        return mp.mpf(0)
    if a == 1:
        return (v0 / v1 - 1 - mp.log(v0 / v1) + d / v1) / 2
    if a == math.inf:
        if v0 < v1:
            return d / (2 * (v1 - v0)) + mp.log(v1 / v0) / 2
        return mp.mpf(0) if (v0 == v1 and d == 0) else mp.inf
    a = mp.mpf(float(a))
    s = (1 - a) * v0 + a * v1
    if s <= 0:
        return mp.inf
    return a * d / (2 * s) + mp.log(s / (v0 ** (1 - a) * v1**a)) / (2 * (1 - a))


@_at60
def _discrete_ref(p, q, a):
    """D_a(P || Q) at 60 digits, P and Q the exact normalisations of the binary inputs."""
    p = [mp.mpf(float(x)) for x in p]
    q = [mp.mpf(float(x)) for x in q]
    P = [x / mp.fsum(p) for x in p]
    Q = [x / mp.fsum(q) for x in q]
    pairs = list(zip(P, Q, strict=True))
    if a == 0:
        return -mp.log(mp.fsum(y for x, y in pairs if x > 0))
    if a >= 1 and any(x > 0 and y == 0 for x, y in pairs):
        return mp.inf
    if a == 1:
        return mp.fsum(x * mp.log(x / y) for x, y in pairs if x > 0)
    if a == math.inf:
        return mp.log(max(x / y for x, y in pairs if x > 0))
    a = mp.mpf(float(a))
    S = mp.fsum(x**a * y ** (1 - a) for x, y in pairs if x > 0 and y > 0)
    return mp.inf if S == 0 else mp.log(S) / (a - 1)


@_at60
def _rel(value, ref):
    if ref == mp.inf:
        return 0.0 if value == math.inf else math.inf
    if abs(ref) < mp.mpf(10) ** -45:  # the oracle's own round-off of an exact 0 (identical laws)
        return 0.0 if abs(value) < 1e-300 else math.inf
    return float(abs(mp.mpf(float(value)) - ref) / ref)


# -- item 4: gaussian_renyi over the whole range ------------------------------------------------

_RATIOS = [1e-15, 1e-14, 1e-10, 1e-3, 0.5, 1 - 1e-9, 1.0, 1 + 1e-9, 2.0, 1e3, 1e10, 1e15]
_ORDERS = [0.0, 1e-6, 0.3, 0.5, 0.999, 1 - 1e-12, 1.0, 1 + 1e-12, 1 + 1e-6, 1.001, 2.0, 10.0, 1e3, 1e6, math.inf]


@pytest.mark.parametrize("ratio", _RATIOS)
def test_gaussian_renyi_against_mpmath_whole_range(ratio):
    """Relative error <= 4e-15 at variance ratios 1e-15..1e15 and orders 0..1e6, inf (before: 2.6e-5 at 1e-14)."""
    worst = 0.0
    for a in _ORDERS:
        for dm in (0.0, 1e-4, 1.0, 30.0):
            case = (0.0, 3.7 * ratio, dm * math.sqrt(3.7), 3.7, a)
            worst = max(worst, _rel(rpp.gaussian_renyi(*case).value, _gauss_ref(*case)))
    assert worst <= 4e-15


def test_gaussian_renyi_issue_cases():
    """The two cases of the issue: var0/var1 = 1e-10 (was 3.8e-9 off) and 1e-14 (was 2.6e-5 off)."""
    for ratio in (1e-10, 1e-14):
        for a in (2.0, 5.0, 100.0):
            case = (0.0, ratio, 0.0, 1.0, a)
            assert _rel(rpp.gaussian_renyi(*case).value, _gauss_ref(*case)) <= 4e-15


def test_gaussian_renyi_near_the_edge():
    """alpha > 1, var0 > var1: sigma_alpha^2 = var0 - (alpha-1)(var0-var1) within 1e-14..1e-2 of 0."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        a = 10 ** rng.uniform(0.01, 3)
        r = a / (a - 1) * (1 - 10 ** rng.uniform(-14, -2))
        v1 = 10 ** rng.uniform(-4, 4)
        case = (0.0, v1 * r, rng.choice([0.0, 1.0]) * math.sqrt(v1), v1, a)
        assert _rel(rpp.gaussian_renyi(*case).value, _gauss_ref(*case)) <= 4e-15, case


def test_gaussian_renyi_random_against_mpmath():
    rng = np.random.default_rng(11)
    for _ in range(400):
        kind = rng.integers(4)
        a = [
            1 + 10 ** rng.uniform(-12, 0),
            10 ** rng.uniform(0, 6),
            rng.uniform(0, 1),
            1 - 10 ** rng.uniform(-12, -0.3),
        ][kind]
        v1 = 10 ** rng.uniform(-5, 5)
        case = (
            0.0,
            v1 * 10 ** rng.uniform(-15, 15),
            rng.choice([0.0, 10 ** rng.uniform(-8, 3)]) * math.sqrt(v1),
            v1,
            a,
        )
        assert _rel(rpp.gaussian_renyi(*case).value, _gauss_ref(*case)) <= 4e-15, case


def test_gaussian_renyi_alpha_zero_and_range():
    assert rpp.gaussian_renyi(0.0, 1.0, 5.0, 2.0, 0.0).value == 0.0  # D_0 = -log Q(supp P) = 0
    for bad in (-1e-300, -1.0, np.nan, -np.inf):
        with pytest.raises(ValueError, match="alpha"):
            _ = rpp.gaussian_renyi(0.0, 1.0, 0.0, 1.0, bad).value


# -- item 5: discrete_renyi_divergence ---------------------------------------------------------


def test_discrete_renyi_near_identical_alpha_near_one():
    """Near-identical pmfs at alpha = 1.001 (the issue: 22x too large) and 1 +- 1e-12: relative error <= 4e-15."""
    p = np.array([0.2, 0.3, 0.5])
    for eps in (1e-4, 1e-7, 1e-10):
        q = np.array([0.2 + eps, 0.3 - eps, 0.5])
        for a in (1.001, 1 + 1e-12, 1 - 1e-12, 1.0, 0.999, 2.0, np.inf, 1e6, 0.3):
            assert _rel(rpp.discrete_renyi_divergence(p, q, a).value, _discrete_ref(p, q, a)) <= 4e-15, (eps, a)


def test_discrete_renyi_random_against_mpmath():
    rng = np.random.default_rng(3)
    for _ in range(400):
        K = int(rng.integers(2, 8))
        p = rng.dirichlet(np.ones(K) * rng.choice([0.1, 1, 10]))
        kind = rng.integers(3)
        if kind == 0:
            q = np.abs(p * (1 + 10 ** rng.uniform(-10, -1) * rng.standard_normal(K)))
        else:
            q = rng.dirichlet(np.ones(K))
            if kind == 2:
                q[rng.integers(K)] = 0.0
                p[rng.integers(K)] = 0.0
        p, q = p / p.sum(), q / q.sum()
        a = rng.choice([0.0, 1.0, np.inf, rng.uniform(0, 1), 1 + 10 ** rng.uniform(-12, 0), 10 ** rng.uniform(0, 6)])
        assert _rel(rpp.discrete_renyi_divergence(p, q, a).value, _discrete_ref(p, q, a)) <= 4e-15, (p, q, a)


def test_discrete_renyi_alpha_zero():
    """D_0 = -log Q(supp P) (issue 25), exact: -log(1/2) and -log(1 - 1e-12)."""
    assert rpp.discrete_renyi_divergence([0.5, 0.5, 0.0], [0.25, 0.25, 0.5], 0.0).value == pytest.approx(
        math.log(2), rel=1e-15
    )
    q = [0.5, 0.5 - 1e-12, 1e-12]
    assert (
        _rel(rpp.discrete_renyi_divergence([0.5, 0.5, 0.0], q, 0.0).value, _discrete_ref([0.5, 0.5, 0.0], q, 0)) < 4e-15
    )


def test_discrete_renyi_list_alpha_names_alpha():
    with pytest.raises(ValueError, match="alpha"):
        _ = rpp.discrete_renyi_divergence([0.5, 0.5], [0.25, 0.75], [2.0, 3.0]).value


# -- item 3: the noise objects' range of alpha ------------------------------------------------


@pytest.mark.parametrize("noise", [GaussianNoise(1.0), LaplaceNoise(1.0)], ids=["gaussian", "laplace"])
@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0, -1.0, np.inf, np.nan, [2.0, 3.0]])
def test_noise_objects_reject_the_same_orders(noise, alpha):
    """Both noise objects take 1 < alpha < inf; alpha = 1 was (nan, 0.0) for Gaussian noise, 0.5 was accepted."""
    with pytest.raises(ValueError, match=r"alpha must (satisfy 1 < alpha < inf|be a single number)"):
        noise.divergence(rpp.Gaussian(mean=0, var=1), rpp.Gaussian(mean=1, var=1), alpha=alpha)


def test_noise_objects_same_message():
    msgs = []
    for noise in (GaussianNoise(1.0), LaplaceNoise(1.0)):
        with pytest.raises(ValueError) as err:
            noise.divergence(
                rpp.Gaussian(mean=0, var=1), rpp.Gaussian(mean=1, var=1), alpha=1.0
            )  # Gaussian noise: (nan, 0.0)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


def test_gaussian_noise_value_near_one_against_mpmath():
    """alpha = 1 + 1e-9 (just inside the range): value + error covers the mpmath value, error tiny."""
    a = 1 + 1e-9
    val, err = (
        (_c := GaussianNoise(1.0).divergence(rpp.Gaussian(mean=0, var=1), rpp.Gaussian(mean=1, var=3), alpha=a)).value,
        _c.error,
    )
    ref = _gauss_ref(0.0, 2.0, 1.0, 4.0, a)
    assert mp.mpf(val) + mp.mpf(err) >= ref and 0 <= err < 1e-13
    assert _rel(val, ref) < 1e-14


# -- item 6: GTH stationary distribution, judged by exact rationals ----------------------------


def _exact_stationary(P):
    """pi P = pi, sum pi = 1 in exact rationals; the diagonal implied by the off-diagonal entries."""
    K = len(P)
    F = [[Fraction(float(P[i][j])) if i != j else Fraction(0) for j in range(K)] for i in range(K)]
    for i in range(K):
        F[i][i] = 1 - sum(F[i][j] for j in range(K) if j != i)
    # (P^T - I) pi = 0 with the last equation replaced by sum pi = 1
    A = [[F[j][i] - (1 if i == j else 0) for j in range(K)] for i in range(K)]
    A[-1] = [Fraction(1)] * K
    b = [Fraction(0)] * (K - 1) + [Fraction(1)]
    for c in range(K):  # Gauss-Jordan, exact
        r = next(r for r in range(c, K) if A[r][c] != 0)
        A[c], A[r], b[c], b[r] = A[r], A[c], b[r], b[c]
        for r in range(K):
            if r != c and A[r][c] != 0:
                f = A[r][c] / A[c][c]
                A[r] = [x - f * y for x, y in zip(A[r], A[c], strict=True)]
                b[r] -= f * b[c]
    return [b[i] / A[i][i] for i in range(K)]


@pytest.mark.parametrize(
    "P",
    [
        [[1 - 1e-13, 1e-13], [3e-13, 1 - 3e-13]],  # eig gave [0.749977, 0.250023]
        [[1 - 1e-16, 1e-16], [2e-16, 1 - 2e-16]],  # eig gave [1, 0]
        [[0.9, 0.1], [0.2, 0.8]],
        [[1 - 2e-12, 1e-12, 1e-12], [5e-13, 1 - 5e-13, 0.0], [0.0, 3e-14, 1 - 3e-14]],
    ],
)
def test_stationary_distribution_full_relative_precision(P):
    pi = pf.stationary_distribution(P)
    ref = _exact_stationary(P)
    assert all(abs(Fraction(float(x)) - r) <= 8 * 2.0**-53 * r for x, r in zip(pi, ref, strict=True))


def test_stationary_distribution_random_against_rationals():
    rng = np.random.default_rng(2)
    for _ in range(30):
        K = int(rng.integers(2, 7))
        P = rng.random((K, K)) * 10.0 ** rng.integers(-15, 0, size=(K, K))
        np.fill_diagonal(P, 0.0)
        P = P / max(1.0, P.sum(1).max() * 1.01)
        np.fill_diagonal(P, 1 - P.sum(1))
        ref = _exact_stationary(P)
        pi = pf.stationary_distribution(P)
        assert all(abs(Fraction(float(x)) - r) <= 16 * K * 2.0**-53 * r for x, r in zip(pi, ref, strict=True))


# -- item 7: bad input -------------------------------------------------------------------------

_SECRET = 123456.789  # a data value that must never appear in a message


@pytest.mark.parametrize(
    "call",
    [
        lambda: topk.em_topk([3.0, np.nan, 1.0], 1.0, 2, 5, 0),  # ranked NaN first
        lambda: topk.em_topk([3.0, 2.0, 1.0], 1.0, 2, 5, 0, sensitivity=0.0),
        lambda: topk.em_topk([3.0, 2.0, 1.0], 1.0, 2, 5, 0, sensitivity=-1.0),  # reversed the mechanism
        lambda: topk.em_topk([3.0, 2.0, 1.0], 1.0, 4, 5, 0),  # k > K returned K columns
        lambda: topk.em_topk([3.0, 2.0, 1.0], 1.0, 0, 5, 0),  # k = 0 returned an empty array
        lambda: topk.em_topk([3.0, -2.0, 1.0], 1.0, 2, 5, 0),
        lambda: topk.em_topk([[3.0, 2.0, 1.0]], 1.0, 2, 5, 0),
        lambda: topk.laplace_topk([3.0, np.inf, 1.0], 1.0, 2, 5, 0),
        lambda: topk.laplace_topk([3.0, 2.0, 1.0], 1.0, 4, 5, 0),
        lambda: topk.laplace_topk([3.0, 2.0, 1.0], 1.0, 0, 5, 0),
        lambda: topk.true_topk([3.0, 2.0, 1.0], 0),
        lambda: topk.true_topk([3.0, np.nan, 1.0], 2),
        lambda: topk.topk_metrics(np.array([[0, 5]]), [3.0, 2.0, 1.0], 2),
        lambda: rpp.Empirical([[0.0, 1.0], [2.0, 3.0]]),  # flattened silently
        lambda: rpp.GaussianMixture(weights=[[0.5, 0.5]], means=[0.0, 1.0], vars=[1.0, 1.0]),
        lambda: rpp.fit_gmm(np.ones((4, 2)) * np.arange(4)[:, None], max_components=2),
        lambda: pf.conditional_weights(np.ones((2, 2)), 0, [1]),  # s clamped to 1e-150
        lambda: pf.conditional_weights(np.array([[1.0, 0.5], [0.5, 1.0]]), 2, [1]),
    ],
)
def test_bad_input_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_rng_is_int_generator_or_none_everywhere():
    """rng=0 raised AttributeError in em_topk, laplace_topk and simulate_chains; it is the seed 0 now."""
    c = np.array([30.0, 1.0, 20.0, 5.0])
    for f, args in [(topk.em_topk, (c, 0.3, 2, 7)), (topk.laplace_topk, (c, 10.0, 2, 7))]:
        a = f(*args, 0)
        b = f(*args, np.random.default_rng(0))
        assert np.array_equal(a, b) and a.shape == (7, 2)
        assert f(*args, None).shape == (7, 2)
        with pytest.raises(TypeError, match="rng"):
            f(*args, "0")
    P = [[0.9, 0.1], [0.2, 0.8]]
    assert np.array_equal(
        chain_data.simulate_chains(P, 3, 4, 0), chain_data.simulate_chains(P, 3, 4, np.random.default_rng(0))
    )
    x = np.r_[np.zeros(50), np.ones(50)] + np.linspace(0, 0.3, 100)
    g1 = rpp.fit_gmm(x, max_components=2, rng=np.random.default_rng(1))
    assert g1.n_components >= 1


def test_topk_metrics_all_zero_counts():
    """ndcg was nan on all-zero counts; every ranking is then ideal: 1 (DCG = IDCG = 0)."""
    m = topk.topk_metrics(np.array([[0, 1], [2, 1]]), [0.0, 0.0, 0.0], 2)
    assert np.array_equal(m["ndcg"], [1.0, 1.0]) and not np.isnan(m["hr"]).any()


def test_topk_metrics_ndcg_exact():
    """NDCG of a non-trivial ranking against exact rationals with the log2 discounts at 60 digits."""
    counts = [5.0, 3.0, 0.0, 4.0]
    pred = np.array([[3, 0, 2]])
    with mp.workdps(60):
        disc = [1 / mp.log(j + 2, 2) for j in range(3)]
        dcg = mp.fsum(counts[i] * d for i, d in zip(pred[0], disc, strict=True))
        idcg = mp.fsum(c * d for c, d in zip(sorted(counts, reverse=True), disc, strict=False))
        assert float(abs(topk.topk_metrics(pred, counts, 3)["ndcg"][0] - dcg / idcg)) < 1e-15


def test_fit_gmm_variance_floor_warns():
    """fit_gmm(x, 5) on two points returned components at the variance floor without a word."""
    with pytest.warns(UserWarning, match="floor reg_covar"):
        fit = rpp.fit_gmm([0.0, 1.0], max_components=5)
    assert fit.at_floor_.any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rng = np.random.default_rng(0)
        rpp.fit_gmm(rng.normal(0, 1, 200), max_components=2)  # an ordinary sample: no warning


def test_conditional_sd_not_clamped():
    """A near-singular covariance raised nothing and returned s = 1e-150; now a ValueError naming Sigma."""
    S = np.array([[1.0, 1 - 1e-17, 0.5], [1 - 1e-17, 1.0, 0.5], [0.5, 0.5, 1.0]])
    with pytest.raises(ValueError, match="Sigma"):
        pf.conditional_weights(S, 0, [1])
    _w, s = pf.conditional_weights(pf.gp_covariance(3, 1.0), 1, [0, 2])
    assert s > 0.5


@pytest.mark.parametrize(
    "call",
    [
        lambda: rpp.Empirical([0.0, _SECRET, np.nan]),
        lambda: rpp.Empirical([[0.0, _SECRET]]),
        lambda: rpp.GaussianMixture(weights=[0.5, 0.6], means=[0.0, _SECRET], vars=[1.0, 1.0]),
        lambda: rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, _SECRET], vars=[1.0, -_SECRET]),
        lambda: rpp.Gaussian(mean=_SECRET, var=-1.0),
        lambda: rpp.Gaussian(mean=np.inf, var=_SECRET),
        lambda: rpp.gaussian_renyi(_SECRET, -_SECRET, 0.0, 1.0, 2.0).value,
        lambda: rpp.discrete_renyi_divergence([0.5, 0.5], [_SECRET, 0.5], 2.0).value,
        lambda: topk.em_topk([3.0, -_SECRET, 1.0], 1.0, 2, 5, 0),
        lambda: pf.stationary_distribution([[0.5, 0.5], [_SECRET, 0.5]]),
        lambda: rpp.fit_gmm([_SECRET, np.inf], max_components=2),
        lambda: GaussianNoise(1.0).release([_SECRET, np.nan]),
    ],
)
def test_messages_never_contain_data(call):
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    assert "123456" not in str(err.value) and "1.23" not in str(err.value)


# -- the sweep: the same rules in every public function of rpp.pufferfish --------------------

_J = np.array([[0.4, 0.1], [0.1, 0.4]])
_SI = np.array([[True, True], [False, False]])


@pytest.mark.parametrize(
    "call",
    [
        lambda: pf.epsilon_puffer_from_curve(0.5, [0, 1, 2], [np.inf, np.nan, 0.0]),
        lambda: pf.epsilon_puffer_from_curve(0.5, [0, 1, 2], [np.inf, 0.3]),
        lambda: pf.best_b(0.5, [0, -1, 2], [np.inf, 0.3, 0.0]),
        lambda: pf.epsilon_dp_from_curve(1.0, [1, 2], [0.3, np.nan]),
        lambda: pf.theorem4_epsilon([1.0, np.nan], [0.2, 0.3]),
        lambda: pf.misspecified_epsilon(np.nan, 1, 0.2, [1, 2], [0.3, 0.1]),
        lambda: pf.per_entry_dp_curve([0, np.nan]),
        lambda: pf.conditional_marginal(_J, _SI[0], (1,)),  # a mask of the wrong shape
        lambda: pf.conditional_marginal(_J, _SI, (5,)),
        lambda: pf.a_dagger_uncertain(_J, _SI, ~_SI, (1,), lower=1.5, upper=2.0),
        lambda: pf.uncertain_ratio_bound([0.4, np.nan], [0.1, 0.4]),
        lambda: pf.uncertain_ratio_bound([0.4, -0.1], [0.1, 0.4]),
        lambda: pf.a_star_bruteforce(_J, _SI, ~_SI, 1, uncertainty=(0.0, 1.2)),
        lambda: pf.nfc_primal([[0.1, np.nan]]),
        lambda: pf.nfc_dual(np.zeros(3)),
        lambda: pf.nfc_violation([0.5, np.nan], [[0.25, 0.75]], [1.0], 0.0),
        lambda: pf.nfc_min_epsilon([[0.5, 0.5], [0.2, 0.8]], [True]),
        lambda: pf.two_state_side_logratios(0.9, 0.8, [1, np.nan]),
        lambda: pf.two_state_ab_paper(0.9, 0.8, [1, np.nan]),
        lambda: pf.log_interval_prob(1.0, -1.0, 0.0, 1.0),
        lambda: pf.log_interval_prob(-1.0, 1.0, 0.0, 0.0),
        lambda: pf.region_grid(1.0, 3.0),
        lambda: pf.region_grid(1.0, 0.5, step=0.0),
        lambda: pf.region_influence_sweep([0.5, np.nan], 1.0, 1.0, 0.5),
        lambda: pf.region_influence_sweep([0.5], -1.0, 1.0, 0.5),
        lambda: pf.farthest_low_sets(5, 7, 2),
        lambda: pf.farthest_low_sets(5, 2, 0),
        lambda: pf.gaussian_region_ab_curve(3, 1.0, 1.0, 0.5, [1], center=3),
        lambda: pf.region_influence_direct(3, 1.0, 1.0, 0.5, 5, [5]),
        lambda: chain_data.smooth_transition_matrix([[0.5, np.nan], [0.5, 0.5]]),
        lambda: chain_data.fit_transition_matrix([[0, 1, 2]], 2),
        lambda: chain_data.fit_transition_matrix([[0.5, 1.0]], 2),
        lambda: pf.chain_quilt_table([[0.9, 0.1], [0.2, 0.8]], 3, uncertainty=(1.2, 0.8)),
    ],
)
def test_composition_sweep_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_accounting_messages_never_show_priors():
    """calibrate_all_pairs repeated a prior's repr (its mean and variance) in a message."""
    with pytest.raises(ValueError) as err:
        rpp.calibrate_all_pairs([{"a": rpp.Gaussian(mean=_SECRET, var=1.0)}], alpha=2.0, epsilon=1.0)
    assert "123456" not in str(err.value)


def test_distribution_samples_take_int_seeds():
    for prior in (
        rpp.Gaussian(mean=0, var=1),
        rpp.GaussianMixture(weights=[0.5, 0.5], means=[0, 3], vars=[1, 1]),
        rpp.Empirical([0.0, 1.0, 2.0]),
    ):
        assert np.array_equal(prior.sample(5, rng=0), prior.sample(5, rng=np.random.default_rng(0)))
        with pytest.raises(ValueError, match="n"):
            prior.sample(-1, rng=0)


# -- the certified Gaussian bound over the whole range ------------------------------------------


def test_certified_gaussian_divergence_never_below_mpmath():
    """value + error >= D (mpmath, exact noisy variances) at variance ratios down to 1e-19, noise 0 or small.

    Before: var_i / var_j ~ 1e-14 with z = 0 gave an 'upper bound' 2.7 nats below D (log1p(t) at t ~ -1,
    a negative margin), e.g. 13.88 for D = 16.56 -- an under-estimate a calibration could accept.
    """
    from rpp.divergence import certified_gaussian_divergence

    rng = np.random.default_rng(9)
    with mp.workdps(60):
        for _ in range(600):
            a = [1 + 10 ** rng.uniform(-12, 0), 10 ** rng.uniform(0, 6)][rng.integers(2)]
            vj = 10 ** rng.uniform(-5, 5)
            vi = vj * 10 ** rng.uniform(-19, 15)
            z = rng.choice([0.0, vj * 10 ** rng.uniform(-16, 6)])
            dm = rng.choice([0.0, 10 ** rng.uniform(-8, 3)]) * math.sqrt(vj)
            val, err = certified_gaussian_divergence(0.0, vi, dm, vj, a, z)
            A, v0, v1 = mp.mpf(a), mp.mpf(vi) + mp.mpf(z), mp.mpf(vj) + mp.mpf(z)
            s = (1 - A) * v0 + A * v1
            if s <= 0:
                assert val + err == math.inf
                continue
            ref = A * mp.mpf(dm) ** 2 / (2 * s) + mp.log(s / (v0 ** (1 - A) * v1**A)) / (2 * (1 - A))
            assert mp.mpf(val) + mp.mpf(err) >= ref, (vi, vj, a, z, dm)
            assert err >= 0 and mp.mpf(val) + mp.mpf(err) <= ref * (1 + mp.mpf(1e-7)) + mp.mpf(1e-300)
