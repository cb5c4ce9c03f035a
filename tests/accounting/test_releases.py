"""Exact composition of repeated Gaussian releases of one query (rpp.accounting._releases).

Every value of ``releases_divergence`` is checked against an independent computation of the
joint divergence of the k releases themselves: 2-D quadrature of the joint densities for
k = 2, and the closed-form Rényi divergence between k-dimensional Gaussians for Gaussian
priors and any k.
"""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import rpp
from rpp.accounting import (
    calibrate_releases,
    combined_scale,
    releases_divergence,
)

G_I, G_J = rpp.Gaussian(mean=0.3, var=0.05), rpp.Gaussian(mean=1.4, var=0.6)  # unequal variances: both orders differ
M_I = rpp.GaussianMixture(weights=[0.3, 0.7], means=[-1.0, 0.5], vars=[0.2, 0.4])
M_J = rpp.GaussianMixture(weights=[0.6, 0.4], means=[0.0, 2.0], vars=[0.3, 0.25])


def _components(prior):
    if isinstance(prior, rpp.Gaussian):
        return np.array([1.0]), np.array([prior.mean]), np.array([prior.var])
    return np.asarray(prior.weights), np.asarray(prior.means), np.asarray(prior.vars)


def _joint_logpdf(prior, scales, Y):
    """log density of (Y_1, ..., Y_k), Y_t = X + N(0, scales_t^2), X ~ prior: a mixture of
    k-variate normals with covariance v 1 1^T + diag(scales^2) per component."""
    w, m, var = _components(prior)
    k = len(scales)
    parts = [
        np.log(wc)
        + stats.multivariate_normal(np.full(k, mc), vc * np.ones((k, k)) + np.diag(np.square(scales))).logpdf(Y)
        for wc, mc, vc in zip(w, m, var, strict=True)
    ]
    return logsumexp(np.array(parts), axis=0)


def _trapezoid_log(log_f, y1, y2):
    """log of the 2-D trapezoidal rule of exp(log_f) on the tensor grid y1 x y2."""
    w1 = np.full(y1.size, y1[1] - y1[0])
    w2 = np.full(y2.size, y2[1] - y2[0])
    w1[[0, -1]] /= 2
    w2[[0, -1]] /= 2
    return float(logsumexp(log_f + np.log(np.outer(w1, w2)).ravel()))


def _joint_divergence_2d(p, q, alpha, scales, n=601):
    """D_alpha between the joint laws of 2 releases by 2-D trapezoidal quadrature.

    A coarse grid on [-80, 80]^2 (around the priors' means) locates where the integrand
    p^alpha q^(1-alpha) exceeds exp(-60) times its maximum; the fine n x n grid covers that
    box (which must stay inside the coarse grid).  The integrand is smooth and decays like a
    Gaussian, so the trapezoidal rule converges geometrically.
    """

    def log_f(y1, y2):
        Y1, Y2 = np.meshgrid(y1, y2, indexing="ij")
        Y = np.stack([Y1.ravel(), Y2.ravel()], axis=1)
        return alpha * _joint_logpdf(p, scales, Y) + (1 - alpha) * _joint_logpdf(q, scales, Y)

    centre = 0.5 * (_components(p)[1].mean() + _components(q)[1].mean())
    yc = np.linspace(centre - 80, centre + 80, 321)
    lc = log_f(yc, yc).reshape(yc.size, yc.size)
    i1, i2 = np.nonzero(lc > lc.max() - 60)
    assert min(i1.min(), i2.min()) > 2 and max(i1.max(), i2.max()) < yc.size - 3, "integrand not localised"
    y1 = np.linspace(yc[i1.min() - 2], yc[i1.max() + 2], n)
    y2 = np.linspace(yc[i2.min() - 2], yc[i2.max() + 2], n)
    return _trapezoid_log(log_f(y1, y2), y1, y2) / (alpha - 1)


def _gaussian_joint_closed_form(p, q, alpha, scale, k):
    """D_alpha(N(mu_p 1, S_p) || N(mu_q 1, S_q)) in k dimensions (van Erven & Harremoes 2014, or
    Gil et al. 2013): S_a = (1 - a) S_p + a S_q must be positive definite, else +inf."""
    one = np.ones(k)
    S_p = p.var * np.outer(one, one) + scale**2 * np.eye(k)
    S_q = q.var * np.outer(one, one) + scale**2 * np.eye(k)
    S_a = (1 - alpha) * S_p + alpha * S_q
    if np.linalg.eigvalsh(S_a).min() <= 0:
        return np.inf
    d = (p.mean - q.mean) * one
    quad = alpha / 2 * d @ np.linalg.solve(S_a, d)
    _, ld_a = np.linalg.slogdet(S_a)
    _, ld_p = np.linalg.slogdet(S_p)
    _, ld_q = np.linalg.slogdet(S_q)
    return float(quad - (ld_a - (1 - alpha) * ld_p - alpha * ld_q) / (2 * (alpha - 1)))


@pytest.mark.parametrize("alpha", [2.0, 3.0])
@pytest.mark.parametrize("pair", ["gaussian", "mixture"])
def test_two_releases_match_2d_quadrature(pair, alpha):
    p, q = (G_I, G_J) if pair == "gaussian" else (M_I, M_J)
    theta = 2.0
    for a, b in ((p, q), (q, p)):
        brute = _joint_divergence_2d(a, b, alpha, [theta, theta])
        ours = releases_divergence(a, b, alpha=alpha, scale=theta, k=2, directed=True).value
        assert ours == pytest.approx(brute, rel=1e-7, abs=1e-10)
    both = releases_divergence(p, q, alpha=alpha, scale=theta, k=2).value
    assert both == max(
        releases_divergence(a, b, alpha=alpha, scale=theta, k=2, directed=True).value for a, b in ((p, q), (q, p))
    )


@pytest.mark.parametrize("pair", ["gaussian", "mixture"])
def test_two_releases_at_different_scales_use_the_combined_scale(pair):
    p, q = (G_I, G_J) if pair == "gaussian" else (M_I, M_J)
    scales = [1.5, 2.5]
    s = combined_scale(scales)
    assert s == pytest.approx((1 / 1.5**2 + 1 / 2.5**2) ** -0.5, rel=1e-15)
    for a, b in ((p, q), (q, p)):
        brute = _joint_divergence_2d(a, b, 3.0, scales)
        assert releases_divergence(a, b, alpha=3.0, scale=s, k=1, directed=True).value == pytest.approx(brute, rel=1e-7)


@pytest.mark.parametrize("k", [1, 2, 4, 10, 25])
@pytest.mark.parametrize("alpha", [1.5, 3.0, 8.0])
def test_gaussian_priors_match_the_k_dimensional_closed_form(k, alpha):
    theta = 2.0
    for a, b in ((G_I, G_J), (G_J, G_I)):
        ref = _gaussian_joint_closed_form(a, b, alpha, theta, k)
        ours = releases_divergence(a, b, alpha=alpha, scale=theta, k=k, directed=True).value
        if np.isinf(ref):
            assert np.isinf(ours)
        else:
            assert ours == pytest.approx(ref, rel=1e-9)


def test_domain_condition_of_the_reverse_order():
    """Order (wide || narrow) diverges once theta^2/k <= (alpha-1) var_wide - alpha var_narrow."""
    alpha, theta = 3.0, 2.0
    edge = theta**2 / ((alpha - 1) * G_J.var - alpha * G_I.var)  # k at the domain edge
    k_in, k_out = int(np.floor(edge)), int(np.floor(edge)) + 1
    assert k_in < edge < k_out
    assert np.isfinite(releases_divergence(G_J, G_I, alpha=alpha, scale=theta, k=k_in, directed=True).value)
    assert np.isinf(releases_divergence(G_J, G_I, alpha=alpha, scale=theta, k=k_out, directed=True).value)
    assert np.isinf(_gaussian_joint_closed_form(G_J, G_I, alpha, theta, k_out))
    # the other order stays finite for every k, tending to D_alpha of the priors themselves
    d = releases_divergence(G_I, G_J, alpha=alpha, scale=theta, k=np.array([10, 10**3, 10**6]), directed=True).value
    assert np.all(np.isfinite(d)) and np.all(np.diff(d) > 0)
    assert d[-1] == pytest.approx(rpp.gaussian_renyi(G_I.mean, G_I.var, G_J.mean, G_J.var, alpha).value, rel=1e-4)


def test_heart_disease_mean_numbers_of_issue_15():
    """Heart MEAN (Cleveland, oldpeak by slope 1 vs 3) at theta = 2.868, alpha = 3."""
    from rpp_book.experiments import PAPER_SETTINGS, load_setting

    pr = load_setting(PAPER_SETTINGS["heart"], queries=["mean"])["mean"]
    p, q = pr.prior_i, pr.prior_j
    cal = rpp.calibrate(p, q, alpha=3.0, epsilon=1.0)
    assert round(cal.scale, 3) == 2.868
    ks = np.array([1, 2, 4, 10, 100])
    d = releases_divergence(p, q, alpha=3.0, scale=2.868, k=ks).value
    assert [round(float(x), 3) for x in d[:3]] == [1.000, 2.063, 4.409]
    assert round(float(d[3]), 2) == 13.86 and np.isinf(d[4])
    # super-linear: more than k times the divergence of one release
    assert np.all(d[1:] > ks[1:] * d[0])
    # infinite through the reverse order's domain: theta^2 / k <= 2 var_j - 3 var_i
    assert 2.868**2 / 100 <= 2 * q.var - 3 * p.var
    assert np.isfinite(releases_divergence(p, q, alpha=3.0, scale=2.868, k=100, directed=True).value)


def test_equal_variances_compose_at_most_linearly():
    """alpha D^2 / (2 (s^2 + t/k)) <= k alpha D^2 / (2 (s^2 + t)): the RDP-style bound holds here."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        m, s2, theta, alpha = rng.normal(), rng.uniform(0.01, 2), rng.uniform(0.2, 5), rng.uniform(1.1, 10)
        p, q = rpp.Gaussian(mean=0.0, var=s2), rpp.Gaussian(mean=m, var=s2)
        ks = np.arange(1, 30)
        d = releases_divergence(p, q, alpha=alpha, scale=theta, k=ks).value
        assert np.all(d <= ks * d[0] * (1 + 1e-12))


def test_non_decreasing_in_k_for_empirical_priors():
    p, q = rpp.Empirical([0.0, 0.5, 1.0, 1.0]), rpp.Empirical([0.4, 1.2, 2.0])
    d = releases_divergence(p, q, alpha=2.5, scale=1.5, k=np.array([1, 2, 3, 5, 8])).value
    assert np.all(np.diff(d) >= -1e-12)
    assert d[2] == pytest.approx(
        rpp.renyi_divergence(q, p, alpha=2.5, noise=rpp.GaussianNoise(scale=np.sqrt(1.5**2 / 3))).value, rel=1e-12
    ) or d[2] == (
        pytest.approx(
            rpp.renyi_divergence(p, q, alpha=2.5, noise=rpp.GaussianNoise(scale=np.sqrt(1.5**2 / 3))).value, rel=1e-12
        )
    )


@pytest.mark.parametrize("pair", ["gaussian", "mixture"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_calibrate_releases_is_sqrt_k_times_one_release_and_minimal(pair, k):
    p, q = (G_I, G_J) if pair == "gaussian" else (M_I, M_J)
    alpha, eps = 3.0, 0.8
    one = rpp.calibrate(p, q, alpha=alpha, epsilon=eps)
    cal = calibrate_releases(p, q, alpha=alpha, epsilon=eps, k=k)
    assert cal.within_budget and cal.details["k"] == k and cal.details["scale_one"] == one.scale
    assert cal.scale == pytest.approx(np.sqrt(k) * one.scale, rel=1e-9)
    joint = releases_divergence(p, q, alpha=alpha, scale=cal.scale, k=k).value
    assert joint <= eps * (1 + 1e-9) and cal.divergence == pytest.approx(joint, rel=1e-9)
    # minimal: 0.1 % less noise per release breaks the budget of the k releases
    assert releases_divergence(p, q, alpha=alpha, scale=0.999 * cal.scale, k=k).value > eps


def test_calibrate_releases_vectorised_and_other_methods():
    eps = np.array([0.5, 1.0, 2.0])
    cal = calibrate_releases(G_I, G_J, alpha=3.0, epsilon=eps, k=4)
    one = rpp.calibrate(G_I, G_J, alpha=3.0, epsilon=eps)
    assert cal.scale.shape == (3,) and np.allclose(cal.scale, 2 * one.scale, rtol=1e-9) and cal.within_budget.all()
    cf = calibrate_releases(G_I, G_J, alpha=3.0, epsilon=1.0, k=5, method="closed-form")
    assert cf.within_budget and cf.scale >= calibrate_releases(G_I, G_J, alpha=3.0, epsilon=1.0, k=5).scale


def test_linear_rdp_calibration_under_noises_heart_like_priors():
    """Calibrating each of k releases to epsilon / k (linear composition) is not enough here."""
    k, eps = 10, 1.0
    linear = rpp.calibrate(G_I, G_J, alpha=3.0, epsilon=eps / k).scale
    assert releases_divergence(G_I, G_J, alpha=3.0, scale=linear, k=k).value > eps
    assert calibrate_releases(G_I, G_J, alpha=3.0, epsilon=eps, k=k).scale > linear


def test_combined_scale_edge_cases():
    with pytest.raises(ValueError, match="scales must be a 1-D sequence of at least one"):
        combined_scale([])  # refused (issue #34): inf would read as perfect privacy
    assert combined_scale([np.inf, 2.0]) == 2.0
    assert combined_scale([0.0, 1.0]) == 0.0
    assert combined_scale([3.0] * 9) == pytest.approx(1.0, rel=1e-15)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="noise"):
        _ = releases_divergence(G_I, G_J, alpha=3, scale=1.0, k=2, noise="laplace").value
    with pytest.raises(ValueError, match="noise"):
        calibrate_releases(G_I, G_J, alpha=3, epsilon=1.0, k=2, noise="laplace")
    with pytest.raises(ValueError, match="noise"):
        _ = releases_divergence(G_I, G_J, alpha=3, scale=1.0, noise="uniform").value
    for bad in (0, 1.5, -2, [1, 0], np.nan):
        with pytest.raises(ValueError, match="k must"):
            _ = releases_divergence(G_I, G_J, alpha=3, scale=1.0, k=bad).value
    with pytest.raises(TypeError, match="k must"):
        _ = releases_divergence(G_I, G_J, alpha=3, scale=1.0, k=True).value
    with pytest.raises(ValueError, match="k must"):
        calibrate_releases(G_I, G_J, alpha=3, epsilon=1.0, k=0)
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="scale"):
            _ = releases_divergence(G_I, G_J, alpha=3, scale=bad).value
    with pytest.raises(ValueError, match="alpha"):
        _ = releases_divergence(G_I, G_J, alpha=1.0, scale=1.0).value
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_releases(G_I, G_J, alpha=3, epsilon=0.0, k=2)
    with pytest.raises(TypeError, match="directed"):
        _ = releases_divergence(G_I, G_J, alpha=3, scale=1.0, directed="yes").value
    with pytest.raises(TypeError, match="prior_i"):
        _ = releases_divergence([0.0], G_J, alpha=3, scale=1.0).value
    for bad in ([-1.0], [[1.0, 2.0]], [np.nan]):
        with pytest.raises(ValueError, match="scales"):
            combined_scale(bad)
