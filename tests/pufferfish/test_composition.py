"""Tests for rpp.pufferfish (chapter 7: composition for Pufferfish privacy)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rpp.pufferfish as pf
from rpp import discrete_renyi_divergence
from rpp_book import chain_data, topk
from rpp_book import composition_examples as examples


# ----------------------------------------------------------------------------- discrete_renyi_divergence
def _bern_renyi(a, b, alpha):
    return np.log(a**alpha * b ** (1 - alpha) + (1 - a) ** alpha * (1 - b) ** (1 - alpha)) / (alpha - 1)


@given(st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.sampled_from([0.3, 0.5, 2.0, 7.0]))
@settings(max_examples=40, deadline=None)
def test_discrete_renyi_bernoulli(a, b, alpha):
    v = discrete_renyi_divergence([a, 1 - a], [b, 1 - b], alpha).value
    assert np.isclose(v, max(_bern_renyi(a, b, alpha), 0.0), atol=1e-12)


def test_discrete_renyi_limits_and_infinities():
    p, q = np.array([0.2, 0.5, 0.3]), np.array([0.4, 0.4, 0.2])
    kl = np.sum(p * np.log(p / q))
    assert np.isclose(discrete_renyi_divergence(p, q, 1).value, kl)
    assert np.isclose(discrete_renyi_divergence(p, q, 1 + 1e-6).value, kl, atol=1e-5)
    assert np.isclose(discrete_renyi_divergence(p, q, np.inf).value, np.log(np.max(p / q)))
    assert np.isclose(discrete_renyi_divergence(p, q, 1e4).value, np.log(np.max(p / q)), atol=1e-3)
    # support mismatch
    assert discrete_renyi_divergence([0.5, 0.5], [1.0, 0.0], 2.0).value == np.inf
    assert discrete_renyi_divergence([0.5, 0.5], [1.0, 0.0], 1).value == np.inf
    assert np.isfinite(discrete_renyi_divergence([0.5, 0.5], [1.0, 0.0], 0.5).value)
    assert discrete_renyi_divergence([1.0, 0.0], [0.0, 1.0], 0.5).value == np.inf
    # D(p || p) = 0 up to rounding: lse of 3 terms, each within a few ulp of log p, is within
    # ~3 eps of log 1 = 0, halved by alpha - 1 = 2 (numpy 1.26 gives 5.6e-17, numpy 2.4 exactly 0)
    assert 0.0 <= discrete_renyi_divergence(p, p, 3.0).value <= 3 * np.finfo(float).eps
    # vectorised rows
    P = np.array([p, q])
    Q = np.array([q, p])
    v = discrete_renyi_divergence(P, Q, 2.0).value
    assert v.shape == (2,) and np.isclose(v[0], discrete_renyi_divergence(p, q, 2.0).value)


@pytest.mark.parametrize("alpha", [-0.5, -1.0, np.nan, [2.0, 3.0]])
def test_discrete_renyi_bad_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        _ = discrete_renyi_divergence([0.5, 0.5], [0.5, 0.5], alpha).value


def test_discrete_renyi_bad_input():
    with pytest.raises(ValueError, match="p must sum to 1"):
        _ = discrete_renyi_divergence([0.5, 0.6], [0.5, 0.5], 2).value


# ----------------------------------------------------------------------------- collapse examples
def _prior8(seed=1):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(8))
    return p, np.arange(8) < 3


def test_example1_zero_leakage_every_alpha():
    prior, s1 = _prior8()
    M = examples.example1_mechanism(prior, s1)
    post = pf.posterior_of_secret(prior, M, s1)
    assert np.allclose(post, prior[s1].sum())
    p1, p2 = pf.secret_conditionals(prior, M, s1, ~s1)
    for a in (0.5, 1, 2, 10, np.inf):
        assert discrete_renyi_divergence(p1, p2, a).value < 1e-12
    # two runs: supports differ -> infinite for alpha >= 1
    M2 = pf.composed_output_distribution(M, 2)
    q1, q2 = pf.secret_conditionals(prior, M2, s1, ~s1)
    assert (
        discrete_renyi_divergence(q1, q2, 1).value == np.inf
        and discrete_renyi_divergence(q1, q2, np.inf).value == np.inf
    )


def test_example1_simulation_matches_exact_expectation():
    prior, s1 = _prior8(2)
    rng = np.random.default_rng(0)
    runs, ok = examples.simulate_example1(prior, s1, 20000, rng)
    assert ok.all()
    exact = examples.example1_expected_runs(prior, s1)
    se = runs.std(ddof=1) / np.sqrt(runs.size)
    assert abs(runs.mean() - exact) < 4 * se
    assert exact <= examples.example1_runs_bound(prior, s1)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_example3_zero_leakage_uniform(n):
    prior, M, bits = examples.example3_mechanism(n)
    for i in range(n):
        post = pf.posterior_of_secret(prior, M, bits[:, i] == 1)
        assert np.allclose(post, 0.5)


def test_example3_leaks_for_nonuniform_prior():
    prior, M, bits = examples.example3_mechanism(4, p_one=0.7)
    post = pf.posterior_of_secret(prior, M, bits[:, 0] == 1)
    assert np.max(np.abs(post - 0.7)) > 0.01


def test_example3_simulation():
    runs, ok = examples.simulate_example3(7, 20000, np.random.default_rng(3))
    assert ok.all()
    se = runs.std(ddof=1) / np.sqrt(runs.size)
    assert abs(runs.mean() - 3.0) < 4 * se


def test_example5_formula_matches_bruteforce_and_simulation():
    for bounds in [(0.3, 0.5, 0.4, 0.6), (0.35, 0.65, 0.4, 0.6), (0.1, 0.2, 0.7, 0.9)]:
        assert np.isclose(examples.example5_epsilon(*bounds), examples.example5_epsilon_bruteforce(*bounds), atol=1e-12)
    runs, ok = examples.simulate_example5(0.35, 0.65, 0.4, 0.6, 20000, np.random.default_rng(4))
    assert ok.all()
    assert abs(runs.mean() - 3.0) < 4 * runs.std(ddof=1) / np.sqrt(runs.size)
    with pytest.raises(ValueError, match="L_T must be <= U_T"):
        examples.example5_epsilon(0.6, 0.5, 0.4, 0.6)


# ----------------------------------------------------------------------------- NfC linear programs
def test_nfc_strong_duality_and_composition_limit():
    M = np.array([[0.5, 0.5], [0.8, 0.2], [0.2, 0.8]])
    prior, s1 = np.ones(3) / 3, np.array([True, False, False])
    A = pf.nfc_matrix(M[0], M[1:])
    vp, _w = pf.nfc_primal(A)
    vd, beta = pf.nfc_dual(A)
    assert np.isclose(vp, vd) and np.isclose(vd, np.log(1.25))
    assert np.allclose(beta, [0.5, 0.5])
    eps, _ = pf.nfc_min_epsilon(M, s1)
    assert np.isclose(eps, np.log(1.6))
    assert pf.composed_leakage_exact(M, prior, s1, 1) < 1e-12
    r = 300
    lr = pf.composed_leakage_exact(M, prior, s1, r) / r
    assert eps - 0.01 < lr <= eps + 1e-12


def test_nfc_fixed_beta_survives_postprocessing():
    """Hölder: a mechanism meeting an NfC constraint with fixed beta still meets it after
    any stochastic post-processing (so non-DP-style constraints are post-processing invariant)."""
    rng = np.random.default_rng(5)
    beta = np.array([0.3, 0.7])
    for _ in range(300):
        others = rng.dirichlet(np.ones(4), size=2)  # outputs of D_1, D_2
        geo = np.exp(beta @ np.log(others))  # weighted geometric mean per output (sums <= 1)
        pd = geo  # D puts exactly the geometric mean on every output: the constraint is tight
        assert pf.nfc_violation(pd, others, beta, 0.0) <= 1e-12
        K = rng.dirichlet(np.ones(3), size=4)  # random post-processing kernel omega -> z
        post_d, post_o = pd @ K, others @ K
        assert np.all(np.log(post_d) <= beta @ np.log(post_o) + 1e-12)


# ----------------------------------------------------------------------------- a(b) and theorems
def _two_state(p, q):
    return np.array([[p, 1 - p], [1 - q, q]])


@pytest.mark.parametrize("p,q", [(0.3, 0.8), (0.8, 0.3), (0.6, 0.6), (0.9, 0.95), (0.2, 0.3), (0.3, 0.1), (0.05, 0.6)])
def test_markov_closed_forms_vs_bruteforce(p, q):
    n = 11
    P = _two_state(p, q)
    bs = np.arange(1, 6)  # 2b+1 <= n: worst node is a genuinely interior node
    bf = pf.ab_curve_bruteforce(pf.chain_joint(P, n), bs)
    ex = pf.two_state_ab_exact(p, q, bs)
    assert np.allclose(bf, ex, atol=1e-10)
    paper = pf.two_state_ab_paper(p, q, bs)
    assert np.all(paper >= ex - 1e-12)  # never below the truth
    if p + q >= 1:
        assert np.allclose(paper, ex, atol=1e-10)


def test_negative_correlation_same_value_step_fails():
    p, q = 0.2, 0.3  # lambda = -0.5
    ex = pf.two_state_ab_exact(p, q, np.array([2, 4]))
    paper = pf.two_state_ab_paper(p, q, np.array([2, 4]))
    assert np.all(paper > ex + 0.01)


def test_quilt_reduction_nonstationary_start():
    P = _two_state(0.7, 0.85)
    n, start = 8, np.array([1.0, 0.0]) * 0.9 + 0.05
    bs = np.arange(1, 8)
    bf = pf.ab_curve_bruteforce(pf.chain_joint(P, n, start), bs)
    assert np.allclose(pf.chain_ab_curve(P, n, bs, start), bf, atol=1e-10)
    bf_unc = pf.ab_curve_bruteforce(pf.chain_joint(P, 6, start), [2, 3], uncertainty=(0.8, 1.2))
    assert np.all(np.isfinite(bf_unc))


def test_theorems_3_and_4_exact_randomized_response():
    P = _two_state(0.75, 0.9)
    n = 6
    J = pf.chain_joint(P, n)
    bs = np.arange(1, n + 1)
    a = pf.ab_curve_bruteforce(J, bs)
    pairs = pf.entry_secret_pairs(J.shape)
    for eps_dp in (0.1, 0.5, 1.0):
        M = pf.randomized_response_mechanism(n, eps_dp)
        exact = pf.pufferfish_epsilon_exact(J, M, pairs)
        assert exact <= pf.epsilon_puffer_from_curve(eps_dp, bs, a) + 1e-10
    # Theorem 4: two runs (eps 0.3 and 0.6) at the points b=2 and b=3
    M1, M2 = pf.randomized_response_mechanism(n, 0.3), pf.randomized_response_mechanism(n, 0.6)
    joint_M = (M1[:, :, None] * M2[:, None, :]).reshape(M1.shape[0], -1)
    exact = pf.pufferfish_epsilon_exact(J, joint_M, pairs)
    e1, e2 = 2 * 0.3 + a[1], 3 * 0.6 + a[2]
    assert exact <= pf.theorem4_epsilon([e1, e2], [a[1], a[2]]) + 1e-10


def test_product_prior_is_per_entry_dp():
    J = np.ones((2,) * 5) / 32
    assert np.allclose(pf.ab_curve_bruteforce(J, [1, 2]), 0)
    M = pf.randomized_response_mechanism(5, 0.7)
    assert np.isclose(pf.pufferfish_epsilon_exact(J, M, pf.entry_secret_pairs(J.shape)), 0.7)


def test_epsilon_dp_from_curve_and_special_curves():
    bs = np.arange(1, 5)
    a = np.array([2.0, 1.0, 0.2, 0.0])
    e, b = pf.epsilon_dp_from_curve(1.0, bs, a)
    assert np.isclose(e, 0.8 / 3) and b == 3
    assert pf.epsilon_dp_from_curve(0.1, bs, a + 0.5) == (0.0, None)
    assert np.all(pf.per_entry_dp_curve([0, 1, 3]) == [np.inf, 0, 0])
    assert np.all(pf.group_dp_curve([1, 5, 6], 2, 3) == [np.inf, np.inf, 0])
    assert np.all(pf.dependent_dp_curve([2, 3], 3) == [np.inf, 0])
    with pytest.raises(ValueError, match="a_l must be < eps_puffer_l"):
        pf.theorem4_epsilon([1.0], [1.0])


def test_misspecified_bound():
    bs = np.arange(1, 21)
    a1 = pf.two_state_ab_exact(0.8, 0.9, bs)
    a2 = pf.two_state_ab_exact(0.85, 0.93, bs)
    for eps in (1.0, 2.0, 4.0):
        _, b_star = pf.epsilon_dp_from_curve(eps, bs, a1)
        true, bound = pf.misspecified_epsilon(eps, b_star, a1[b_star - 1], bs, a2)
        assert true <= bound + 1e-12


def test_uncertainty_bound_dominates_nominal():
    J = pf.chain_joint(_two_state(0.7, 0.8), 5)
    s_i, s_j, _ = pf.entry_secret_pairs(J.shape, [2])[0]
    low = (0, 4)
    nominal = pf.a_dagger(J, s_i, s_j, low)
    assert pf.a_dagger_uncertain(J, s_i, s_j, low, 1.0, 1.0) == pytest.approx(nominal)
    assert pf.a_dagger_uncertain(J, s_i, s_j, low, 0.8, 1.2) > nominal


# ----------------------------------------------------------------------------- MQM
def test_mqm_hand_computed():
    # P = [[.9,.1],[.4,.6]], stationary (0.8, 0.2); one-step max-influence log 6,
    # two-step P^2 = [[.85,.15],[.6,.4]] -> log(0.4/0.15) = log(8/3); two-sided (1,1): 2 log 6.
    P = np.array([[0.9, 0.1], [0.4, 0.6]])
    eps = 4.0
    smax, sig = pf.mqm_sigma_chain(P, 3, eps)
    node0 = min(1 / (eps - np.log(6)), 2 / (eps - np.log(8 / 3)), 3 / eps)
    node1 = min(1 / (eps - 2 * np.log(6)), 2 / (eps - np.log(6)), 3 / eps)
    assert np.allclose(sig, [node0, node1, node0])
    assert np.isclose(smax, 0.75)


def test_mqm_interior_matches_finite_chain_and_ours_is_better():
    P = np.array([[0.8, 0.2], [0.3, 0.7]])
    n, eps = 30, 1.0
    smax_chain, _ = pf.mqm_sigma_chain(P, n, eps)
    s_int = pf.mqm_sigma_interior(P, eps, n, smax=40)
    assert np.isclose(smax_chain, s_int)
    bs = np.arange(1, 21)
    e_ours, _ = pf.epsilon_dp_from_curve(eps, bs, pf.chain_ab_interior(P, bs))
    assert e_ours >= 1 / s_int - 1e-12
    assert np.allclose(pf.chain_ab_interior(P, bs[:8]), pf.chain_ab_curve(P, n, bs[:8]))


def test_smoothing_paper_example():
    raw = np.array(
        [
            [0.5, 0.0, 0.1666, 0.0555, 0.2777, 0.0],
            [0.1428, 0.3571, 0.1428, 0.0714, 0.2857, 0.0],
            [0.0361, 0.0120, 0.4698, 0.1325, 0.3493, 0.0],
            [0.0, 0.0, 0.0897, 0.4615, 0.4487, 0.0],
            [0.0125, 0.0251, 0.1006, 0.0911, 0.7704, 0.0],
            [0.2, 0.2, 0.2, 0.2, 0.2, 0.0],
        ]
    )
    raw = raw / raw.sum(1, keepdims=True)
    out = chain_data.smooth_transition_matrix(raw, 1e-5)
    paper = np.array(
        [
            [0.49999, 1e-05, 0.16666, 0.05555, 0.27777, 1e-05],
            [0.14286, 0.35714, 0.14286, 0.07143, 0.28571, 1e-05],
            [0.03614, 0.01205, 0.46987, 0.13253, 0.34939, 1e-05],
            [1e-05, 1e-05, 0.08974, 0.46152, 0.44870, 1e-05],
            [0.01258, 0.02516, 0.10063, 0.09119, 0.77043, 1e-05],
            [0.19999, 0.19999, 0.19999, 0.19999, 0.19999, 1e-05],
        ]
    )
    assert np.allclose(out.sum(1), 1) and np.all(out > 0)
    assert np.allclose(out, paper, atol=5e-4)
    with pytest.raises(ValueError, match="tau must be > 0"):
        chain_data.smooth_transition_matrix(raw, 0.0)


def test_fit_and_simulate_chain():
    P = topk.activity_chain(np.array([0.5, 0.3, 0.2]), 0.6)
    x = chain_data.simulate_chains(P, 200, 300, np.random.default_rng(0))
    Phat = chain_data.fit_transition_matrix(x, 3)
    assert np.allclose(Phat, P, atol=0.03)


# ----------------------------------------------------------------------------- Top-k mechanisms
def test_gumbel_topk_equals_sequential_em():
    c = np.array([3.0, 1.0, 0.0, 2.0])
    eps = 1.2
    rng = np.random.default_rng(7)
    reps = 200000
    pred = topk.em_topk(c, eps, 2, reps, rng)
    w = np.exp(eps * c / 2)
    for i, j in [(0, 3), (3, 0), (0, 1), (2, 1)]:
        exact = w[i] / w.sum() * w[j] / (w.sum() - w[i])
        freq = np.mean((pred[:, 0] == i) & (pred[:, 1] == j))
        assert abs(freq - exact) < 5 * np.sqrt(exact * (1 - exact) / reps)


def test_topk_metrics_perfect_and_swapped():
    c = np.array([10.0, 50.0, 30.0, 20.0])
    m = topk.topk_metrics(np.array([[1, 2, 3], [2, 1, 3]]), c, 3)
    assert np.allclose(m["acc"][0], 1) and np.allclose(m["acc"][1], [0, 0, 1])
    assert np.allclose(m["hr"], 1) and np.isclose(m["ndcg"][0], 1) and m["ndcg"][1] < 1
    assert np.allclose(m["l1"], [0, 40])


# ----------------------------------------------------------------------------- Gaussian / Bayes net
def test_gaussian_sweep_matches_direct_for_b1():
    regs = pf.region_grid(5, 0.1, step=0.5)
    Sigma = pf.gp_covariance(3, 1.0)
    w, s = pf.conditional_weights(Sigma, 1, [0, 2])
    sweep = pf.region_influence_sweep(w, s, 5, 0.1, regs, n_mu=2001)
    direct, exact = pf.region_influence_direct(3, 1.0, 5, 0.1, 1, [1], regs, n_grid=31, n_quad=4001)
    assert abs(sweep - direct) / sweep < 2e-3
    assert exact <= direct + 1e-9


def test_gaussian_farthest_low_set_is_optimal_small_n():
    for n, ell in [(5, 1.0), (6, 2.0)]:
        bs = np.arange(1, n)
        far = pf.gaussian_region_ab_curve(n, ell, 5, 0.1, bs, n_mu=201, regions=pf.region_grid(5, 0.1, 1.0))
        allL = pf.gaussian_region_ab_curve(
            n, ell, 5, 0.1, bs, n_mu=201, regions=pf.region_grid(5, 0.1, 1.0), all_low_sets=True
        )
        assert np.allclose(far, allL, rtol=1e-9)


def test_asia_estimate_upper_bounds_exact():
    bs = np.arange(1, 9)
    ex = pf.bn_ab_curve(examples.ASIA, bs, "exact")
    est = pf.bn_ab_curve(examples.ASIA, bs, "estimate")
    unc = pf.bn_ab_curve(examples.ASIA, bs, "exact", (0.8, 1.2))
    assert np.all(est >= ex - 1e-12) and np.all(unc >= ex - 1e-12)
    assert ex[-1] == 0 and np.all(np.diff(ex[np.isfinite(ex)]) <= 1e-12)
    J, names = pf.bn_joint(examples.ASIA)
    assert np.isclose(J.sum(), 1) and names[0] == "asia"
