"""Issue #34, item 6: accounting edges, against mpmath (>= 50 digits), never against rpp.

Each reproducer of the issue either returns a value whose claim holds against mpmath or raises a
ValueError/TypeError naming the argument; never NaN, never a delta that claims more privacy.
"""

import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rpp import LaplaceNoise, gaussian_renyi
from rpp.accounting import combined_scale, gaussian_hockey_stick, gaussian_loss_tail


def _pieces(m, v, t):
    """{L > t} for L = log N(m, v) - log N(0, 1), roots in mpmath (the quadratic written out)."""
    if v == 1:
        if m == 0:
            return [(mp.ninf, mp.inf)] if t < 0 else []
        root = t / m + m / 2
        return [(root, mp.inf)] if m > 0 else [(mp.ninf, root)]
    qa, qb, qc = (v - 1) / (2 * v), m / v, -m * m / (2 * v) - mp.log(v) / 2 - t
    disc = qb * qb - 4 * qa * qc
    if disc <= 0:
        return [(mp.ninf, mp.inf)] if qa > 0 else []
    r1, r2 = sorted(((-qb - mp.sqrt(disc)) / (2 * qa), (-qb + mp.sqrt(disc)) / (2 * qa)))
    return [(mp.ninf, r1), (r2, mp.inf)] if qa > 0 else [(r1, r2)]


def _prob(lo, hi, mean, sd):
    big = mp.mpf(10) ** 6  # beyond +-1e6 sds a normal tail is below e^-5e11: clamped (mpmath's ncdf overflows)
    a, b = (max(min((x - mean) / sd, big), -big) for x in (lo, hi))
    return mp.ncdf(-a) - mp.ncdf(-b) if a > 0 else mp.ncdf(b) - mp.ncdf(a)


def _mp_pair(m, v, t):
    """(delta*(t), P_i(L > t)) at 450 digits (a shift down to 1e-300 is not lost in Phi's differences)."""
    with mp.workdps(450):
        m, v, t = mp.mpf(m), mp.mpf(v), mp.mpf(t)
        delta, tail = mp.mpf(0), mp.mpf(0)
        for lo, hi in _pieces(m, v, t):
            pi = _prob(lo, hi, m, mp.sqrt(v))
            delta += pi - mp.exp(t) * _prob(lo, hi, 0, 1)
            tail += pi
        return delta, tail


def _close(got, ref):
    return abs(mp.mpf(got) - ref) <= 1e-9 * ref + 1e-300


@settings(max_examples=600, deadline=None)
@given(
    m=st.one_of(st.floats(-1e50, 1e50), st.floats(-1e-6, 1e-6), st.floats(-3, 3)),
    # near-equal variances (|log10 v| down to 1e-15) with tiny shifts: P_i(I) and e^t P_j(I) agree to
    # many digits there (delta was 4e-8 too small at v = 1 + 1e-13, shift 7e-8, delta 3.5e-9)
    logv=st.one_of(
        st.floats(-50, -1e-3),
        st.floats(1e-3, 50),
        st.just(0.0),
        st.floats(-15, -3).map(lambda e: 10.0**e),
        st.floats(-15, -3).map(lambda e: -(10.0**e)),
    ),
    t=st.one_of(st.floats(-1e6, 1e6), st.floats(-5, 5)),
)
def test_hockey_stick_and_loss_tail_match_mpmath_over_the_whole_allowed_range(m, logv, t):
    v = float(10.0**logv)
    d = gaussian_hockey_stick(mean_i=m, var_i=v, mean_j=0.0, var_j=1.0, epsilon_prime=t)
    tail = gaussian_loss_tail(mean_i=m, var_i=v, mean_j=0.0, var_j=1.0, threshold=t)
    ref_d, ref_tail = _mp_pair(m, v, t)
    assert _close(d, ref_d), (m, v, t, d, ref_d)
    assert _close(tail, ref_tail), (m, v, t, tail, ref_tail)


@pytest.mark.parametrize(
    "m, v, t",
    [
        (1e-8, 1.0, 1e-8),  # the small-shift expansion lacked its 1 - ch factor: 5e-9 too small
        (1e-7, 1.0, 1e-7),  # erfcx's difference: 8e-9 too small
        (2.9371870417758932e-241, 1.0, -1.12161377099438e-184),  # was 0 (Phi(a) - e^t Phi(b) with both 1)
        (7.248804180869846e-08, 1.0 + 1.049314521968284e-13, 9.194538984430165e-08),  # 4e-8 too small
        (1.5779e-10, 1.0 + 1.6e-12, 1.6594377115672159e-12),  # 6e-7 too small
    ],
)
def test_nearly_equal_laws_lose_no_digits(m, v, t):
    # P_i(I) and e^t P_j(I) agree to many digits: delta must come from terms of its own size
    d = gaussian_hockey_stick(mean_i=m, var_i=v, mean_j=0.0, var_j=1.0, epsilon_prime=t)
    assert _close(d, _mp_pair(m, v, t)[0]), (d, _mp_pair(m, v, t)[0])


def test_the_issue_reproducers_are_right_or_refused():
    # was 0.0 (delta* is about 1: a claim of more privacy than there is), now exact or a ValueError
    d = gaussian_hockey_stick(mean_i=1e40, var_i=1, mean_j=0, var_j=2, epsilon_prime=1)
    assert _close(d, _mp_pair(1e40 / np.sqrt(2), 0.5, 1)[0])
    for kw in (
        dict(mean_i=1e154, var_i=1, mean_j=0, var_j=2),
        dict(mean_i=1e155, var_i=1, mean_j=0, var_j=2),
        dict(mean_i=1, var_i=1e-200, mean_j=0, var_j=1e200),
        dict(mean_i=1, var_i=1e-160, mean_j=0, var_j=1),
    ):
        with pytest.raises(ValueError, match=r"var_i|mean_i"):
            gaussian_hockey_stick(**kw, epsilon_prime=1)
        with pytest.raises(ValueError, match=r"var_i|mean_i"):
            gaussian_loss_tail(**kw, threshold=1)
    with pytest.raises(ValueError, match="epsilon_prime"):
        gaussian_hockey_stick(mean_i=1, var_i=2, mean_j=0, var_j=1, epsilon_prime=1e300)


def test_dominating_noise_multiplier_of_a_subnormal_divergence():
    pytest.importorskip("dp_accounting")
    from rpp.accounting import dominating_noise_multiplier

    for d in (1e-320, 5e-324, 1e-300):
        sigma = dominating_noise_multiplier(orders=[2.0, 64.0], divergences=[d, d])
        assert np.isfinite(sigma) and sigma > 0
        with mp.workdps(50):  # the Gaussian curve alpha / (2 sigma^2) dominates D exactly
            assert all(mp.mpf(a) / (2 * mp.mpf(sigma) ** 2) >= mp.mpf(d) for a in (2.0, 64.0))


def test_combined_scale_of_nothing_and_strings_are_refused():
    with pytest.raises(ValueError, match="scales"):
        combined_scale([])
    for x in ("31415.92653", b"1", ["1.0", "2.0"], [1.0, "2"]):
        with pytest.raises(TypeError, match="x must be numeric"):
            LaplaceNoise(1).release(x, insecure_seed=1)


def test_gaussian_renyi_beyond_the_float_range_is_inf_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = gaussian_renyi(1e300, 1, -1e300, 1, 2)
    with mp.workdps(50):  # alpha (2e300)^2 / 2: beyond the largest float, so +inf is the only safe float
        assert 2 * (mp.mpf(2e300)) ** 2 / 2 > mp.mpf(np.finfo(float).max)
    assert d.value == np.inf and d.rigorous


def _law_mp(mean, cov, queries, scales):
    a, m, c = mp.matrix(queries), mp.matrix(mean), mp.matrix(cov)
    noise = mp.diag([mp.mpf(s) ** 2 for s in scales])
    return a * m, a * c * a.T + noise


def _gil_mp(m1, s1, m2, s2, alpha):
    a = mp.mpf(alpha)
    sa = a * s2 + (1 - a) * s1
    if min(mp.eigsy(sa)[0]) <= 0:
        return mp.inf
    d = m1 - m2
    quad = (d.T * mp.lu_solve(sa, d))[0]
    return a / 2 * quad - (mp.log(mp.det(sa)) - (1 - a) * mp.log(mp.det(s1)) - a * mp.log(mp.det(s2))) / (2 * (a - 1))


def test_ledger_dominates_the_exact_curve_at_alpha_1024():
    pytest.importorskip("dp_accounting")
    from rpp.accounting import RppLedger

    rng = np.random.default_rng(34)
    orders = [2.0, 64.0, 1024.0]
    for _ in range(6):
        g = rng.normal(size=(2, 2))
        cov = g @ g.T / 2 + 0.5 * np.eye(2)
        cov = 0.5 * (cov + cov.T)
        mi, mj = rng.normal(size=2).tolist(), rng.normal(size=2).tolist()
        q, s = rng.normal(size=(2, 2)), rng.uniform(20, 40, size=2)
        ledger = RppLedger(mean_i=mi, cov_i=cov, mean_j=mj, cov_j=cov, orders=orders)
        ledger.record(queries=q, scales=s)
        with mp.workdps(60):
            (m1, s1), (m2, s2) = _law_mp(mi, cov.tolist(), q.tolist(), s), _law_mp(mj, cov.tolist(), q.tolist(), s)
            truth = [max(_gil_mp(m1, s1, m2, s2, a), _gil_mp(m2, s2, m1, s1, a)) for a in orders]
            for have, curve, want in zip(ledger.accountant.rdp, ledger.curve(), truth, strict=True):
                assert mp.mpf(float(curve)) >= want and mp.mpf(float(have)) >= want
