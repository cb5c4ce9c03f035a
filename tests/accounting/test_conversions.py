"""rpp.accounting._conversions against independent oracles: dp-accounting's RDP conversions (the numbers a
practitioner's ledger prints) and mpmath at 50 digits for the exact Gaussian delta* and loss tails."""

import math

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import GaussianDpEvent
from dp_accounting.rdp import RdpAccountant
from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS, compute_delta, compute_epsilon

from rpp.accounting import (
    best_dp_delta,
    best_dp_epsilon,
    dp_delta,
    dp_epsilon,
    gaussian_hockey_stick,
    gaussian_loss_tail,
    gaussian_shift_delta,
)

DPS = 50


@pytest.fixture(autouse=True)
def _mp_precision():
    with mp.workdps(DPS):
        yield


# --------------------------------------------------------------------------- dp-accounting


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.5, 10.0, 60.0])
@pytest.mark.parametrize("count", [1, 7])
def test_best_conversions_equal_dp_accountings_gaussian_ledger(sigma, count):
    acc = RdpAccountant()
    acc.compose(GaussianDpEvent(noise_multiplier=sigma), count=count)
    orders, curve = acc.orders, acc.rdp
    for delta in (1e-2, 1e-6, 1e-12):
        ours = best_dp_epsilon(alpha=orders, epsilon=curve, delta=delta)
        theirs, order = acc.get_epsilon_and_optimal_order(delta)
        assert ours.value == pytest.approx(theirs, rel=1e-13, abs=1e-15)
        assert ours.alpha == order or ours.value == 0.0
    for eps_prime in (0.0, 0.3, 1.0, 4.0, 20.0):
        ours = best_dp_delta(alpha=orders, epsilon=curve, epsilon_prime=eps_prime)
        theirs, order = acc.get_delta_and_optimal_order(eps_prime)
        assert ours.value == pytest.approx(theirs, rel=1e-13, abs=1e-300)


def test_best_conversions_equal_dp_accounting_on_random_curves():
    rng = np.random.default_rng(11)
    orders = np.array(DEFAULT_RDP_ORDERS, dtype=float)
    for _ in range(200):
        # a non-decreasing curve with zeros, tiny and large values (what a Pufferfish curve can look like)
        curve = np.sort(rng.choice([0.0, 1e-9, 1e-3, 0.2, 3.0, 40.0], size=orders.size) * rng.uniform(0, 2))
        delta = 10.0 ** rng.uniform(-15, -0.5)
        eps_prime = float(rng.uniform(0, 30))
        assert best_dp_epsilon(alpha=orders, epsilon=curve, delta=delta).value == pytest.approx(
            compute_epsilon(orders, curve, delta)[0], rel=1e-13, abs=1e-15
        )
        assert best_dp_delta(alpha=orders, epsilon=curve, epsilon_prime=eps_prime).value == pytest.approx(
            compute_delta(orders, curve, eps_prime)[0], rel=1e-13, abs=1e-300
        )


def test_mironov_method_is_the_basic_bound_dp_accounting_comments():
    # dp-accounting's comment: delta = min exp((rdp - eps) (orders - 1)); epsilon = min rdp - log(delta)/(orders - 1)
    orders = np.array([1.5, 2.0, 3.0, 8.0, 32.0])
    curve = orders / 8.0
    with mp.workdps(DPS):
        want_d = min(mp.e ** ((mp.mpf(r) - 2) * (mp.mpf(a) - 1)) for a, r in zip(orders, curve, strict=True))
        want_e = min(mp.mpf(r) - mp.log(mp.mpf("1e-6")) / (mp.mpf(a) - 1) for a, r in zip(orders, curve, strict=True))
    got_d = best_dp_delta(alpha=orders, epsilon=curve, epsilon_prime=2.0, method="mironov", kl_bound=False)
    got_e = best_dp_epsilon(alpha=orders, epsilon=curve, delta=1e-6, method="mironov", kl_bound=False)
    assert got_d.value == pytest.approx(float(want_d), rel=1e-13)
    assert got_e.value == pytest.approx(float(want_e), rel=1e-13)


# --------------------------------------------------------------------------- per-order formulas, mpmath


def _improved_delta_mp(alpha, eps, t):
    a = mp.mpf(alpha)
    return min(mp.mpf(1), mp.e ** ((a - 1) * (mp.mpf(eps) - mp.mpf(t))) / a * (1 - 1 / a) ** (a - 1))


@pytest.mark.parametrize("alpha", [1.0001, 1.5, 2.0, 3.0, 17.5, 1024.0])
@pytest.mark.parametrize("eps", [0.0, 0.01, 1.0, 30.0])
def test_per_order_formulas_against_mpmath(alpha, eps):
    for t in (0.0, 0.5, 5.0, 60.0):
        want = _improved_delta_mp(alpha, eps, t)
        assert dp_delta(alpha=alpha, epsilon=eps, epsilon_prime=t) == pytest.approx(float(want), rel=1e-11, abs=1e-300)
        want_m = min(mp.mpf(1), mp.e ** ((mp.mpf(alpha) - 1) * (mp.mpf(eps) - mp.mpf(t))))
        got_m = dp_delta(alpha=alpha, epsilon=eps, epsilon_prime=t, method="mironov")
        assert got_m == pytest.approx(float(want_m), rel=1e-11, abs=1e-300)
    for delta in (1e-3, 1e-9):
        a = mp.mpf(alpha)
        want = mp.mpf(eps) + mp.log(1 - 1 / a) - (mp.log(mp.mpf(delta)) + mp.log(a)) / (a - 1)
        assert dp_epsilon(alpha=alpha, epsilon=eps, delta=delta) == pytest.approx(
            max(0.0, float(want)), rel=1e-11, abs=1e-12
        )


def test_chapter2_values_the_improved_factor_and_erratum():
    # chapter 2: at eps' = eps and alpha = 3 the improved bound is (2/3)^2/3 = 4/27, Chernoff is vacuous (1)
    assert dp_delta(alpha=3.0, epsilon=1.0, epsilon_prime=1.0) == pytest.approx(4 / 27, rel=1e-14)
    assert dp_delta(alpha=3.0, epsilon=1.0, epsilon_prime=1.0, method="mironov") == 1.0
    # the inverse formulas round-trip
    d = dp_delta(alpha=3.0, epsilon=1.0, epsilon_prime=np.linspace(1, 7, 13))
    assert np.allclose(dp_epsilon(alpha=3.0, epsilon=1.0, delta=d), np.linspace(1, 7, 13), rtol=1e-12)


# --------------------------------------------------------------------------- exact Gaussian delta*, mpmath


def _shift_delta_mp(mu, t):
    mu, t = mp.mpf(mu), mp.mpf(t)
    return mp.ncdf(mu / 2 - t / mu) - mp.e**t * mp.ncdf(-mu / 2 - t / mu)


SHIFT_CASES = [(mu, t) for mu in (1e-4, 0.05, 0.5, 1.0, 3.0, 10.0, 45.0) for t in (-3.0, 0.0, 0.2, 1.0, 5.0, 40.0)]


@pytest.mark.parametrize(("mu", "t"), SHIFT_CASES)
def test_gaussian_shift_delta_against_mpmath(mu, t):
    want = _shift_delta_mp(mu, t)
    got_log = gaussian_shift_delta(mu=mu, epsilon_prime=t, log=True)
    if want < mp.mpf("1e-300"):  # below double range: compare logarithms
        assert got_log == pytest.approx(float(mp.log(want)), rel=1e-9)
        return
    assert gaussian_shift_delta(mu=mu, epsilon_prime=t) == pytest.approx(float(want), rel=1e-9)
    assert got_log == pytest.approx(float(mp.log(want)), rel=1e-9, abs=1e-14)


def test_gaussian_shift_delta_edges():
    assert gaussian_shift_delta(mu=0.0, epsilon_prime=1.0) == 0.0
    assert gaussian_shift_delta(mu=0.0, epsilon_prime=-1.0) == pytest.approx(1 - math.exp(-1.0), rel=1e-15)
    assert gaussian_shift_delta(mu=np.inf, epsilon_prime=3.0) == 1.0
    # far in the tail, where Phi(a) - e^t Phi(b) in double precision would return 0
    got = gaussian_shift_delta(mu=1.0, epsilon_prime=700.0, log=True)
    assert got == pytest.approx(float(mp.log(_shift_delta_mp(1.0, 700.0))), rel=1e-10)


def _pieces_mp(mi, vi, mj, vj, t):
    """{L > t} for L = log N(mi, vi) - log N(mj, vj), solved at 50 digits (independent of rpp)."""
    mi, vi, mj, vj, t = map(mp.mpf, (mi, vi, mj, vj, t))
    qa = 1 / (2 * vj) - 1 / (2 * vi)
    qb = mi / vi - mj / vj
    qc = mj**2 / (2 * vj) - mi**2 / (2 * vi) + mp.log(vj / vi) / 2 - t
    if qa == 0:
        root = -qc / qb
        return [(root, mp.inf)] if qb > 0 else [(-mp.inf, root)]
    disc = qb**2 - 4 * qa * qc
    if disc <= 0:
        return [(-mp.inf, mp.inf)] if qa > 0 else []
    r1, r2 = sorted([(-qb - mp.sqrt(disc)) / (2 * qa), (-qb + mp.sqrt(disc)) / (2 * qa)])
    return [(-mp.inf, r1), (r2, mp.inf)] if qa > 0 else [(r1, r2)]


def _prob_mp(piece, m, v):
    s = mp.sqrt(mp.mpf(v))
    return mp.ncdf((piece[1] - m) / s) - mp.ncdf((piece[0] - m) / s)


PAIRS = [
    (0.0, 1.0, 3.5, 1.21),  # chapter 2's pair before noise
    (0.0, 1.0 + 2.0, 3.5, 1.21 + 2.0),
    (1.0, 4.0, 0.0, 0.25),  # P_i much wider
    (0.0, 0.25, 1.0, 16.0),  # P_i much narrower (chapter 2, fig. 2a pair)
    (0.0, 1.0, 2.0, 1.0),  # equal variances
    (0.0, 1.0, 1e-3, 1.0 + 1e-9),  # nearly equal
]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("t", [-0.5, 0.0, 0.7, 2.0, 6.0])
def test_gaussian_hockey_stick_and_tail_against_mpmath(pair, t):
    mi, vi, mj, vj = pair
    pieces = _pieces_mp(mi, vi, mj, vj, t)
    tail_i = mp.fsum(_prob_mp(p, mi, vi) for p in pieces)
    tail_j = mp.fsum(_prob_mp(p, mj, vj) for p in pieces)
    want = tail_i - mp.e ** mp.mpf(t) * tail_j
    kw = {"mean_i": mi, "var_i": vi, "mean_j": mj, "var_j": vj}
    got = gaussian_hockey_stick(**kw, epsilon_prime=t)
    # the pieces' difference cancels where e^t P_j(I) ~ P_i(I): 1e-9 relative, or 1e-15 absolute below 1e-6
    assert got == pytest.approx(float(want), rel=1e-9, abs=1e-15)
    assert gaussian_loss_tail(**kw, threshold=t, under="i") == pytest.approx(float(tail_i), rel=1e-12, abs=1e-300)
    assert gaussian_loss_tail(**kw, threshold=t, under="j") == pytest.approx(float(tail_j), rel=1e-12, abs=1e-300)
    assert got <= float(tail_i) * (1 + 1e-12)  # delta* <= P_i(L > t): event-wise is weaker than probabilistic


def test_oracle_pieces_agree_with_quadrature():
    """The mpmath oracle of the previous test is itself checked by integrating (p_i - e^t p_j)_+ directly."""
    mi, vi, mj, vj, t = 0.0, 3.0, 3.5, 3.21, 0.7
    pieces = _pieces_mp(mi, vi, mj, vj, t)
    closed = mp.fsum(_prob_mp(p, mi, vi) - mp.e ** mp.mpf(t) * _prob_mp(p, mj, vj) for p in pieces)

    def integrand(y):
        return max(mp.npdf(y, mi, mp.sqrt(vi)) - mp.e ** mp.mpf(t) * mp.npdf(y, mj, mp.sqrt(vj)), 0)

    with mp.workdps(20):
        cuts = [-mp.inf] + [e for p in pieces for e in p if mp.isfinite(e)] + [mp.inf]
        quad = mp.quad(integrand, cuts)
    assert abs(quad - closed) < 1e-12


def test_the_exact_delta_lies_below_every_conversion_of_the_exact_curve():
    """Soundness: the converted delta bounds the true delta* (exact Rényi curve written out independently)."""
    mi, vi, mj, vj = 0.0, 1.0 + 2.3, 3.5, 1.21 + 2.3
    orders = np.array(DEFAULT_RDP_ORDERS, dtype=float)

    def renyi(a, m1, v1, m2, v2):  # 1-D closed form, both orders: (1 - a) v1 + a v2 > 0 required
        va = a * v2 + (1 - a) * v1
        if va <= 0:
            return math.inf
        return a * (m1 - m2) ** 2 / (2 * va) - (math.log(va) - (1 - a) * math.log(v1) - a * math.log(v2)) / (
            2 * (a - 1)
        )

    curve_ij = np.array([renyi(a, mi, vi, mj, vj) for a in orders])
    finite = np.isfinite(curve_ij)
    for t in (0.0, 0.5, 1.0, 3.0, 8.0):
        exact = gaussian_hockey_stick(mean_i=mi, var_i=vi, mean_j=mj, var_j=vj, epsilon_prime=t)
        bound = best_dp_delta(alpha=orders[finite], epsilon=curve_ij[finite], epsilon_prime=t).value
        assert exact <= bound


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: dp_delta(alpha=1.0, epsilon=1.0, epsilon_prime=1.0), "alpha"),
        (lambda: dp_delta(alpha=2.0, epsilon=-1.0, epsilon_prime=1.0), "epsilon"),
        (lambda: dp_delta(alpha=2.0, epsilon=1.0, epsilon_prime=np.nan), "epsilon_prime"),
        (lambda: dp_epsilon(alpha=2.0, epsilon=1.0, delta=1.0), "delta"),
        (lambda: dp_epsilon(alpha=2.0, epsilon=1.0, delta=0.1, method="rdp"), "method"),
        (lambda: best_dp_epsilon(alpha=[2.0, 3.0], epsilon=[1.0], delta=0.1), "same length"),
        (lambda: best_dp_delta(alpha=[0.5], epsilon=[1.0], epsilon_prime=0.1), "alpha"),
        (lambda: gaussian_shift_delta(mu=-1.0, epsilon_prime=1.0), "mu"),
        (lambda: gaussian_hockey_stick(mean_i=0, var_i=0, mean_j=1, var_j=1, epsilon_prime=1), "var_i"),
        (lambda: gaussian_loss_tail(mean_i=0, var_i=1, mean_j=1, var_j=1, threshold=1, under="k"), "under"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_messages_never_carry_the_value():
    sentinel = 123456.789
    for call in (
        lambda: dp_delta(alpha=2.0, epsilon=-sentinel, epsilon_prime=1.0),
        lambda: gaussian_hockey_stick(mean_i=sentinel, var_i=-sentinel, mean_j=0, var_j=1, epsilon_prime=1),
        lambda: best_dp_epsilon(alpha=[2.0], epsilon=[sentinel], delta=sentinel),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert "123456" not in str(info.value)
