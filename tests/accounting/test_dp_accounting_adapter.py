"""rpp.accounting._dp_accounting_adapter: the dp-accounting ledger never under-accounts an RPP release.

The exact joint Rényi curve of the recorded releases is computed here independently (Gil, Alajaji & Linder's
closed form with mpmath at 50 digits, or the scalar closed form written out), the (epsilon', delta) of the
exact curve with dp-accounting's own compute_epsilon; the ledger's numbers must never be below them."""

import math
import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest
from dp_accounting import GaussianDpEvent
from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS, compute_epsilon

from rpp.accounting import (
    RppLedger,
    dominating_noise_multiplier,
    gaussian_event_for_curve,
)


def _gil_mp(m1, s1, m2, s2, alpha):
    with mp.workdps(50):
        a = mp.mpf(alpha)
        S1, S2 = mp.matrix(np.atleast_2d(s1).tolist()), mp.matrix(np.atleast_2d(s2).tolist())
        Sa = a * S2 + (1 - a) * S1
        if min(mp.eigsy(Sa)[0]) <= 0:
            return mp.inf
        d = mp.matrix(np.atleast_1d(np.asarray(m1) - np.asarray(m2)).tolist())
        quad = (d.T * mp.lu_solve(Sa, d))[0]
        logs = mp.log(mp.det(Sa)) - (1 - a) * mp.log(mp.det(S1)) - a * mp.log(mp.det(S2))
        return a / 2 * quad - logs / (2 * (a - 1))


def _exact_curve(model, queries, scales, orders):
    """max over both orders of D_alpha of the joint release, at 50 digits (no rpp)."""
    q, th = np.asarray(queries, float), np.asarray(scales, float)
    laws = []
    for m, c in ((model["mean_i"], model["cov_i"]), (model["mean_j"], model["cov_j"])):
        laws.append((q @ np.asarray(m, float), q @ np.asarray(c, float) @ q.T + np.diag(th**2)))
    (m1, s1), (m2, s2) = laws
    return np.array([float(max(_gil_mp(m1, s1, m2, s2, a), _gil_mp(m2, s2, m1, s1, a))) for a in orders])


MODEL_2D = {
    "mean_i": [0.0, 0.0],
    "cov_i": [[1.0, 0.3], [0.3, 0.8]],
    "mean_j": [1.0, -0.4],
    "cov_j": [[1.1, 0.2], [0.2, 0.9]],
}


def test_ledger_dominates_the_exact_joint_curve_of_different_queries():
    orders = [1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0]
    ledger = RppLedger(**MODEL_2D, orders=orders)
    releases = [([[1.0, 0.0]], [2.0]), ([[0.5, 0.5], [1.0, -1.0]], [1.5, 3.0]), ([[1.0, 0.0]], [2.5])]
    queries, scales = np.zeros((0, 2)), np.zeros(0)
    for q, s in releases:
        ledger.record(queries=q, scales=s)
        queries, scales = np.vstack([queries, q]), np.concatenate([scales, s])
        exact = _exact_curve(MODEL_2D, queries, scales, orders)
        assert np.all(ledger.accountant.rdp >= exact)
        assert np.allclose(ledger.curve(), exact, rtol=1e-10)
        for delta in (1e-3, 1e-6, 1e-10):
            assert ledger.accountant.get_epsilon(delta) >= compute_epsilon(orders, exact, delta)[0]


def test_ledger_tops_up_where_per_release_accounting_under_accounts():
    """Unequal prior variances near the domain edge: the joint divergence of two releases exceeds the sum of
    the single-release divergences (super-linear), so recording one event per release would under-account.
    N(0, 1) against N(0, 2.9), theta^2 = 6: the second release brings the edge theta^2/k = 2.8 close."""
    model = {"mean_i": [0.0], "cov_i": [[1.0]], "mean_j": [0.0], "cov_j": [[2.9]]}
    orders = [1.5, 2.0, 2.5, 3.0]
    ledger = RppLedger(**model, orders=orders)
    first = ledger.record(queries=[[1.0]], scales=[math.sqrt(6.0)])
    single = _exact_curve(model, [[1.0]], [math.sqrt(6.0)], orders)
    ledger.record(queries=[[1.0]], scales=[math.sqrt(6.0)])
    joint = _exact_curve(model, [[1.0], [1.0]], [math.sqrt(6.0)] * 2, orders)
    assert joint[-1] > 2 * single[-1]  # super-linear: a per-release ledger would be short
    naive = 2 * np.array([a / (2 * first.noise_multiplier**2) for a in orders])
    assert np.any(naive < joint)  # ... by this much at the largest order
    assert np.all(ledger.accountant.rdp >= joint)


def test_equal_variance_release_is_the_gaussian_mechanism_exactly():
    """A shift Delta with prior variance sigma^2 and noise theta: D = alpha Delta^2 / (2 (sigma^2 + theta^2)),
    the Gaussian mechanism with multiplier sqrt(sigma^2 + theta^2) / Delta (equality, on every order)."""
    ledger = RppLedger(mean_i=[0.0], cov_i=[[2.0]], mean_j=[1.5], cov_j=[[2.0]])
    event = ledger.record(queries=[[1.0]], scales=[3.0])
    want = math.sqrt(2.0 + 9.0) / 1.5
    assert want * (1 - 1e-14) <= event.noise_multiplier <= want
    exact = np.array([a * 1.5**2 / (2 * 11.0) for a in DEFAULT_RDP_ORDERS])
    assert np.all(ledger.accountant.rdp >= exact) and np.allclose(ledger.accountant.rdp, exact, rtol=1e-13)


def test_k_records_of_one_query_are_one_release_at_theta_over_sqrt_k():
    ledger = RppLedger(mean_i=[0.0], cov_i=[[1.0]], mean_j=[1.0], cov_j=[[1.0]])
    for _ in range(4):
        ledger.record(queries=[[1.0]], scales=[3.0])
    exact = np.array([a / (2 * (1 + 9.0 / 4)) for a in DEFAULT_RDP_ORDERS])
    assert np.all(ledger.accountant.rdp >= exact) and np.allclose(ledger.accountant.rdp, exact, rtol=1e-12)


def test_infinite_divergence_at_a_ledger_order_is_refused_and_records_nothing():
    ledger = RppLedger(mean_i=[0.0], cov_i=[[1.0]], mean_j=[0.0], cov_j=[[4.0]])  # default orders up to 1024
    with pytest.raises(ValueError, match="infinite"):
        ledger.record(queries=[[1.0]], scales=[1.0])
    assert np.all(ledger.accountant.rdp == 0) and np.all(ledger.curve() == 0)


def test_dominating_noise_multiplier_dominates_in_floating_point():
    rng = np.random.default_rng(8)
    orders = np.array(DEFAULT_RDP_ORDERS, dtype=float)
    for _ in range(50):
        curve = np.sort(rng.uniform(0, 5, orders.size)) * rng.uniform(1e-6, 1e3)
        sigma = dominating_noise_multiplier(orders=orders, divergences=curve)
        assert np.all(orders / (2 * sigma**2) >= curve)
        assert np.any(orders / (2 * (sigma * (1 + 1e-12)) ** 2) < curve)  # the largest such sigma
    event = gaussian_event_for_curve(orders=[2.0, 4.0], divergences=[0.25, 0.5])
    assert isinstance(event, GaussianDpEvent) and event.noise_multiplier == 2.0
    with pytest.raises(ValueError, match="divergences"):
        dominating_noise_multiplier(orders=[2.0], divergences=[np.inf])
    with pytest.raises(ValueError, match="nothing to record"):
        gaussian_event_for_curve(orders=[2.0], divergences=[0.0])


def _improved_epsilon(orders, rdp, delta):
    """The RDP-to-(epsilon, delta) conversion written out (Canonne, Kamath & Steinke 2020, Prop. 12;
    Asoodeh et al. 2021): min over the orders of r + log(1 - 1/a) - log(delta a) / (a - 1), floored at 0."""
    a, r = np.asarray(orders, float), np.asarray(rdp, float)
    return max(0.0, float(np.min(r + np.log1p(-1 / a) - np.log(delta * a) / (a - 1))))


def test_a_dp_release_composed_into_the_ledger_adds_its_curve_and_covers_nothing():
    """Issue #36 (5): a Gaussian-mechanism release under DP (noise multiplier 2, curve alpha / 8) composed
    between two RPP records. Two releases of N(0, 1) vs N(1, 1) at theta = 3 are one at 3 / sqrt 2: exact
    joint curve alpha / 11 (closed form). The ledger must end at alpha / 11 + alpha / 8, not let the DP
    event stand in for the second record's top-up (which would leave it at alpha / 8 + alpha / 20)."""
    orders = [1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 32.0]
    ledger = RppLedger(mean_i=[0.0], cov_i=[[1.0]], mean_j=[1.0], cov_j=[[1.0]], orders=orders)
    ledger.record(queries=[[1.0]], scales=[3.0])
    ledger.accountant.compose(GaussianDpEvent(noise_multiplier=2.0))
    second = ledger.record(queries=[[1.0]], scales=[3.0])
    assert second is not None  # the top-up is the RPP releases', whatever else was composed
    a = np.array(orders)
    want = a / 11 + a / 8  # closed forms: the joint RPP curve plus the Gaussian mechanism's
    assert np.all(ledger.accountant.rdp >= want) and np.allclose(ledger.accountant.rdp, want, rtol=1e-12)
    for delta in (1e-3, 1e-5):
        got = ledger.accountant.get_epsilon(delta)
        assert got == pytest.approx(_improved_epsilon(orders, want, delta), rel=1e-12)
        assert got >= compute_epsilon(orders, want, delta)[0]


def test_chapter_9_composition_against_the_exact_curve_and_the_closed_form():
    """The composition of chapter 9 on a model of its kind (two means of a record whose covariance changes
    with the secret; orders below the domain edge): the ledger's (epsilon', delta) is at least that of the
    exact joint curve (mpmath) plus the DP curve, and equals the conversion of the closed form
    alpha / (2 sigma_L^2) + alpha / (2 sigma_dp^2) of the two Gaussian events (sigma_L the ledger's)."""
    model = {"mean_i": [4.0, -10.0], "cov_i": [[77.0, -70.0], [-70.0, 780.0]],
             "mean_j": [0.0, 0.0], "cov_j": [[47.0, -55.0], [-55.0, 372.0]]}  # fmt: skip
    orders = [1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0]
    queries, scales = [[1.0, 0.0], [0.0, 1.0]], [18.0, 51.0]
    ledger = RppLedger(**model, orders=orders)
    event = ledger.record(queries=queries, scales=scales)
    sigma_dp = 5.0
    ledger.accountant.compose(GaussianDpEvent(noise_multiplier=sigma_dp))
    a = np.array(orders)
    exact = _exact_curve(model, queries, scales, orders) + a / (2 * sigma_dp**2)
    closed = a / (2 * event.noise_multiplier**2) + a / (2 * sigma_dp**2)
    assert np.all(ledger.accountant.rdp >= exact)
    assert np.allclose(ledger.accountant.rdp, closed, rtol=1e-12)
    for delta in (1e-3, 1e-5):
        got = ledger.accountant.get_epsilon(delta)
        assert got >= compute_epsilon(orders, exact, delta)[0]
        assert got == pytest.approx(_improved_epsilon(orders, closed, delta), rel=1e-12)


def _joint_with_count(mean, var, theta, cut, sigma, alpha):
    """max over both orders of D_alpha of (x + N(0, theta^2), 1[x >= cut] + N(0, sigma^2)), x ~ N(mean[s],
    var[s]): the release of the record and a count of the same record, dependent given s (both see x).
    Each density in closed form (a Gaussian times a normal cdf per value of the count), D_alpha by the
    trapezoidal rule on a grid wide enough for the tails (no rpp)."""
    from scipy import stats
    from scipy.special import logsumexp

    y1 = np.linspace(-25, 25, 2001)[:, None]
    y2 = np.linspace(-12, 13, 1001)[None, :]
    logp = []
    for m, v in zip(mean, var, strict=True):
        tau = math.sqrt(v * theta**2 / (v + theta**2))
        mid = (m * theta**2 + y1 * v) / (v + theta**2)  # the mean of x given y1
        base = stats.norm.logpdf(y1, m, math.sqrt(v + theta**2))
        below = base + stats.norm.logcdf((cut - mid) / tau)  # x < cut: the count adds 0
        above = base + stats.norm.logsf((cut - mid) / tau)  # x >= cut: the count adds 1
        logp.append(np.logaddexp(below + stats.norm.logpdf(y2, 0, sigma), above + stats.norm.logpdf(y2, 1, sigma)))
    log_h = math.log((y1[1, 0] - y1[0, 0]) * (y2[0, 1] - y2[0, 0]))
    return max(float(logsumexp(alpha * lp + (1 - alpha) * lq) + log_h) / (alpha - 1) for lp, lq in (logp, logp[::-1]))


def _gaussian_renyi(m1, v1, m2, v2, alpha):
    va = alpha * v2 + (1 - alpha) * v1
    return alpha * (m1 - m2) ** 2 / (2 * va) - math.log(va / (v1 ** (1 - alpha) * v2**alpha)) / (2 * (alpha - 1))


def test_the_ledger_with_a_dp_count_bounds_the_joint_divergence_of_both_releases():
    """The composition of chapter 9 checked on the releases themselves: a record x ~ N(0, 1) or N(1, 1.5)
    (the secret), released as x + N(0, 2^2) (recorded in the ledger), and a count 1[x >= 0.5] + N(0, 1), a
    Gaussian mechanism of sensitivity 1 (GaussianDpEvent(1)). The two outputs are dependent given the secret;
    their joint D_alpha, computed by quadrature, lies above the RPP release's (the count adds something)
    and below the ledger's curve, the sum the module docstring justifies, and so do their (epsilon', delta)."""
    mean, var, theta, cut, sigma = (0.0, 1.0), (1.0, 1.5), 2.0, 0.5, 1.0
    orders = [1.5, 2.0, 3.0]
    ledger = RppLedger(mean_i=[mean[0]], cov_i=[[var[0]]], mean_j=[mean[1]], cov_j=[[var[1]]], orders=orders)
    ledger.record(queries=[[1.0]], scales=[theta])
    ledger.accountant.compose(GaussianDpEvent(noise_multiplier=sigma))
    laws = [(m, v + theta**2) for m, v in zip(mean, var, strict=True)]  # of the RPP release alone
    rpp_part = np.array([max(_gaussian_renyi(*laws[0], *laws[1], a), _gaussian_renyi(*laws[1], *laws[0], a))
                         for a in orders])  # fmt: skip
    # the quadrature against the closed form where the count is constant (cut far below: always 1)
    constant = [_joint_with_count(mean, var, theta, -50.0, sigma, a) for a in orders]
    assert np.allclose(constant, rpp_part, rtol=1e-9, atol=0)
    joint = np.array([_joint_with_count(mean, var, theta, cut, sigma, a) for a in orders])
    a = np.array(orders)
    assert np.all(joint > rpp_part + 0.01)  # the count adds to the divergence
    assert np.all(joint <= rpp_part + a / (2 * sigma**2))  # the chain-rule bound
    assert np.all(ledger.accountant.rdp >= joint)
    for delta in (1e-3, 1e-5):
        assert ledger.accountant.get_epsilon(delta) >= compute_epsilon(orders, joint, delta)[0]


def test_dp_accounting_is_imported_lazily_and_its_absence_names_the_extra():
    code = (
        "import sys; sys.modules['dp_accounting'] = None\n"
        "import rpp.accounting._dp_accounting_adapter as m\n"
        "assert m.dominating_noise_multiplier(orders=[2.0], divergences=[1.0]) == 1.0\n"
        "try:\n"
        "    m.RppLedger(mean_i=[0.0], cov_i=[[1.0]], mean_j=[1.0], cov_j=[[1.0]])\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "rpp-book[accounting]" in out
