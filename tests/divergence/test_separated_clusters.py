"""A tight cluster far from 0 plus a component near 0 (issue #34, items 1 and 3), judged by mpmath.

No float shift centres such priors (``rpp.divergence._centre`` finds no exact common offset), and
the quadrature used to run in the raw coordinates: its nodes near 1e9 were rounded to 6e-8 while
the components there are 1e-4 wide, and ``calibrate`` returned D_3 = 0.4999999948 +- 5.7e-9 at a
scale where the true D_3 is 0.500000206542077 (under-noise).  The quadrature's nodes are now
double-doubles (``rpp._lib.numerics.integrate_log(..., split=True)``) and every distance to a
mean is taken as ``(x_hi - m) + x_lo``.

The judge below is independent of rpp: the noisy priors are sums of Gaussians, converted to
mpmath exactly (floats are binary rationals), translated exactly by one of their means, and
``mpmath.quad`` (tanh-sinh) integrates ``p^alpha q^(1-alpha)`` at 50 digits (30 in the class's
grid) between breakpoints at 0, 1, 3, 8, 20 and 40 spreads on each side of every component, its
own error estimate asserted below 1e-30 of the integral (1e-22 at 30 digits: the divergences judged
here are decided to about 1e-13 of themselves, and the logarithm divides the integral's relative
error by alpha - 1 >= 0.5).
"""

import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import rpp
from rpp.divergence import renyi_divergence_bound


def _tup(prior):
    c = prior.components()
    return [float(x) for x in c.weights], [float(x) for x in c.means], [float(x) for x in c.vars]


def judge(p, q, alpha, theta, dps=50):
    """``(D_alpha(p*N || q*N), D_alpha(q*N || p*N))`` at ``dps`` digits, for rpp priors ``p``, ``q``."""
    p, q = _tup(p), _tup(q)
    with mp.workdps(dps):
        ref = mp.mpf(p[1][0])
        t = mp.mpf(theta) ** 2

        def comps(c):
            total = mp.fsum(mp.mpf(x) for x in c[0])
            return [(mp.mpf(w) / total, mp.mpf(m) - ref, mp.mpf(v) + t) for w, m, v in zip(*c, strict=True)]

        P, Q = comps(p), comps(q)
        memo = {}

        def dens(y):  # both noisy densities at y (the two orders share the nodes)
            if y not in memo:
                memo[y] = tuple(
                    mp.fsum(w * mp.exp(-((y - m) ** 2) / (2 * s2)) / mp.sqrt(2 * mp.pi * s2) for w, m, s2 in C)
                    for C in (P, Q)
                )
            return memo[y]

        a = mp.mpf(alpha)
        pts = set()
        for _, m, s2 in P + Q:
            s = mp.sqrt(s2)
            for k in (0, 1, 3, 8, 20, 40):
                pts.update((m + k * s, m - k * s))
        pts = [mp.ninf, *sorted(pts), mp.inf]
        out = []
        for i, j in ((0, 1), (1, 0)):
            total, err = mp.quad(lambda y, i=i, j=j: dens(y)[i] ** a * dens(y)[j] ** (1 - a), pts, error=True)
            assert err < total * mp.mpf(10) ** -min(30, dps - 8), (total, err)
            out.append(float(mp.log(total) / (a - 1)))
        return tuple(out)


def issue_pair(offset, kind="mixture"):
    """The issue's pair at ``offset`` (a mixture, or its means as an empirical prior)."""
    o = float(offset)
    if kind == "mixture":
        p = rpp.GaussianMixture(weights=[0.5, 0.49, 0.01], means=[o, o + 2e-4, 0.1], vars=[1e-8, 1e-8, 1])
        q = rpp.GaussianMixture(weights=[0.3, 0.69, 0.01], means=[o + 1e-4, o + 3e-4, 0.1], vars=[1e-8, 1e-8, 1])
    elif kind == "empirical":
        p = rpp.Empirical([o, o + 2e-4, 0.1], weights=[0.5, 0.49, 0.01])
        q = rpp.Empirical([o + 1e-4, o + 3e-4, 0.1], weights=[0.3, 0.69, 0.01])
    else:  # atoms spaced 2e-6 and one atom at 0
        p = rpp.Empirical([o, o + 2e-6, o + 4e-6, 0.0], weights=[0.4, 0.3, 0.29, 0.01])
        q = rpp.Empirical([o + 2e-6, o + 4e-6, o + 6e-6, 0.0], weights=[0.2, 0.5, 0.29, 0.01])
    return p, q


def _calibrate_and_judge(p, q, alpha, epsilon, dps=50):
    with warnings.catch_warnings():
        warnings.simplefilter("error", rpp.PrivacyWarning)
        cal = rpp.calibrate(p, q, alpha=alpha, epsilon=epsilon)
    true = max(judge(p, q, alpha, cal.scale, dps=dps))
    assert true <= epsilon, (cal.scale, true, epsilon)  # no under-noise
    assert abs(true - cal.divergence) <= cal.divergence_error, (true, cal.divergence, cal.divergence_error)
    return cal, true


@pytest.mark.parametrize("swap", [False, True], ids=["PQ", "QP"])
def test_issue_reproducer_is_not_under_noised(swap):
    """Before: scale 1.99386129717e-4 with D_3 = 0.4999999948 +- 5.7e-9 reported, true 0.500000206542077."""
    p, q = issue_pair(1e9)
    if swap:
        p, q = q, p
    cal, _ = _calibrate_and_judge(p, q, 3.0, 0.5)
    assert cal.scale >= 1.99386192725e-4  # the smallest safe scale (the issue's 50- and 70-digit value)


def test_divergence_at_the_issue_scale_within_its_error():
    """Item 3: at the issue's scale the value and error contain the 50-digit truth, both orders.

    Before: 0.4999999947537833 +- 5.65e-9 for a true 0.500000206542077; after centring the pair
    by hand, 0.5000002065417157 +- 1.34e-13 for a true ...420771.
    """
    p, q = issue_pair(1e9)
    theta = 0.00019938612971673108  # the scale the issue's calibration returned
    truth = judge(p, q, 3.0, theta)
    assert abs(truth[0] - 0.500000206542077) < 1e-14  # the issue's value
    for (a, b), ref in zip(((p, q), (q, p)), truth, strict=True):
        val, err = renyi_divergence_bound(a, b, 3.0, theta * theta)
        assert abs(val - ref) <= err, (val, ref, err)
        assert err < 1e-12


@pytest.mark.parametrize("kind", ["empirical", "atoms"])
def test_empirical_versions_are_not_under_noised(kind):
    """The pair as empirical priors (before: excess 1.76e-7) and atoms spaced 2e-6 (before: 1.64e-7)."""
    p, q = issue_pair(1e9, kind)
    alpha, eps = (3.0, 0.5) if kind == "empirical" else (1.5, 1e-3)
    _calibrate_and_judge(p, q, alpha, eps)


def _grid():
    """27 of the 81 (kind, offset, alpha, epsilon) cases: every (offset, alpha, epsilon) triple once,
    and for each kind a Latin square (every pair of two factors' levels once).

    Kind ``s`` (0, 1, 2) takes epsilon level ``(i + j + s) mod 3`` at offset level ``i`` and alpha
    level ``j``: the three squares are disjoint and together hold all 27 triples, so every offset,
    alpha and epsilon meets every other factor's every level within each kind, and each triple of
    levels is judged under one kind. The full 81 cost about 10 s each, mostly the judge's quadrature
    (the CI budget); the pairwise design keeps what a factor's interaction with another would reveal.
    """
    offsets, alphas, epsilons = (1e6, 1e8, 1e10), (1.5, 2.0, 3.0), (1e-3, 1e-2, 0.5)
    out = []
    for s, kind in enumerate(("mixture", "empirical", "atoms")):
        for i, offset in enumerate(offsets):
            for j, alpha in enumerate(alphas):
                eps = epsilons[(i + j + s) % 3]
                out.append(pytest.param(kind, offset, alpha, eps, id=f"{kind}-{offset:g}-{alpha}-{eps}"))
    return out


def test_the_grid_is_every_triple_once_and_a_latin_square_per_kind():
    cases = [p.values for p in _grid()]
    assert len(cases) == 27 and len({c[1:] for c in cases}) == 27
    for kind in ("mixture", "empirical", "atoms"):
        rows = [c[1:] for c in cases if c[0] == kind]
        for a, b in ((0, 1), (0, 2), (1, 2)):
            assert len({(r[a], r[b]) for r in rows}) == 9, (kind, a, b)


@pytest.mark.slow
@pytest.mark.parametrize("kind, offset, alpha, eps", _grid())
def test_class_is_not_under_noised(kind, offset, alpha, eps):
    """The issue's class: offsets 1e6 to 1e10, alpha 1.5 to 3, epsilon 1e-3 to 0.5 (3-6 s each),
    judged at 30 digits."""
    _calibrate_and_judge(*issue_pair(offset, kind), alpha, eps, dps=30)


# --- require="proved": a refusal says which hypothesis fails ---------------------------------


def _proved_refusal(p, q, alpha, theta):
    with pytest.raises(ValueError, match="require='proved': no proved path") as info:
        rpp.renyi_divergence(p, q, alpha=alpha, noise=rpp.noise.GaussianNoise(theta), require="proved")
    return str(info.value)


@pytest.mark.parametrize("swap", [False, True], ids=["PQ", "QP"])
@pytest.mark.deep
def test_the_issue_pair_is_proved(swap):
    """Item 1: the arb path used to refuse this pair ("the Gaussian tail bound's exponent was not yet
    decreasing", one widest component of q as the lower bound of its density far from the cluster).
    Its outside-the-windows bound is now per component (Jensen, the best component of q for each one
    of p): at the issue's scale the proved enclosure holds the 50-digit truth in both orders, and
    ``calibrate(require="proved")`` returns a scale at least the smallest safe one, its D proved."""
    p, q = issue_pair(1e9)
    if swap:
        p, q = q, p
    theta = 0.00019938612971673108  # the scale the issue's calibration returned (true D_3 0.500000206542077)
    truth = judge(p, q, 3.0, theta)
    got = rpp.renyi_divergence(p, q, alpha=3.0, noise=rpp.noise.GaussianNoise(theta), require="proved")
    assert got.rigorous and got.lower <= truth[0] <= got.upper and got.error < 1e-12
    cal = rpp.calibrate(p, q, alpha=3.0, epsilon=0.5, require="proved")
    assert cal.rigorous and cal.guaranteed
    assert cal.scale >= 1.99386192725e-4  # the smallest safe scale (the issue's 50- and 70-digit value)
    assert max(judge(p, q, 3.0, cal.scale)) <= 0.5


_REASONS = ("turns too fast for ball arithmetic", "stayed above 2**-80", "needs, for every component k")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 2])
def test_proved_enclosure_holds_the_truth_on_random_far_pairs(seed):
    """The item 3 pairs (clusters at 1e6..1e10, a wide component near 0 for even seeds) through the
    proved path, both orders: +inf where the exact rational test says the integral diverges; else a
    proved enclosure containing the 50-digit value, or a refusal that names its reason. Seeds 0 and 2
    have one order of each kind: D ~ 1.4e16 (seed 0: the integrand rises between a tight cluster and
    the wide component) and a mass beyond the cluster (seed 2) are refused within seconds."""
    p, q, alpha, theta = _random_pair(seed)
    truth = judge(p, q, alpha, theta)
    proved = 0
    for (a, b), ref in zip(((p, q), (q, p)), truth, strict=True):
        if _diverges(a, b, alpha, theta):
            assert rpp.renyi_divergence(a, b, alpha=alpha, noise=rpp.noise.GaussianNoise(theta)).value == np.inf
            continue
        try:
            got = rpp.renyi_divergence(a, b, alpha=alpha, noise=rpp.noise.GaussianNoise(theta), require="proved")
        except ValueError as exc:
            assert any(r in str(exc) for r in _REASONS), str(exc)
            continue
        assert got.rigorous and got.lower <= ref <= got.upper, (got, ref)
        proved += 1
    assert proved == 1


def test_refusal_beyond_the_component_limit_names_it():
    """Laplace noise on more Gaussian components than the arb path takes (Gaussian noise has the convexity bounds)."""
    from rpp.divergence._proved import MAX_COMPONENTS

    n = MAX_COMPONENTS + 1
    big = rpp.GaussianMixture(weights=np.full(n, 1 / n), means=np.arange(n, dtype=float), vars=np.full(n, 0.5))
    with pytest.raises(ValueError) as err:
        rpp.renyi_divergence(
            big, rpp.Gaussian(mean=0.5, var=1.0), alpha=2.0, noise=rpp.LaplaceNoise(1.0), require="proved"
        )
    msg = str(err.value)
    assert f"limited to {MAX_COMPONENTS} per prior" in msg and "edge" not in msg
    got = rpp.renyi_divergence(
        rpp.Empirical(np.arange(n, dtype=float)),
        rpp.Empirical([0.5, 1.5]),
        alpha=2.0,
        noise=rpp.GaussianNoise(4.0),
        require="proved",
    )
    assert got.rigorous


def test_refusal_at_the_edge_names_it():
    """alpha / V_P = (alpha - 1) / V_Q exactly: 3 / (11 + 16) = 2 / (2 + 16) (theta = 4, exact squares)."""
    p = rpp.GaussianMixture(weights=[1.0], means=[0.0], vars=[11.0])
    q = rpp.GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[2.0, 2.0])
    msg = _proved_refusal(p, q, 3.0, 4.0)
    assert "edge of the tail condition" in msg and "64" not in msg


# --- item 3: the reported error contains the 50-digit truth on random far-off pairs ----------


def _random_pair(seed):
    """Two 2-3 component mixtures clustered at a random offset 1e6..1e10 (spreads ~1e-4), maybe with a wide component near 0."""
    rng = np.random.default_rng(seed)
    o = float(10 ** rng.uniform(6, 10))
    out = []
    for _ in range(2):
        k = int(rng.integers(2, 4))
        means = list(o + rng.uniform(0, 3e-4, k))
        var = list(10 ** rng.uniform(-9, -7, k))
        w = list(rng.uniform(0.2, 1, k))
        if seed % 2 == 0:  # the issue's shape: one wide component near 0, shared by both priors
            means, var, w = [*means, 0.1], [*var, 1.0], [*w, 0.02]
        out.append(rpp.GaussianMixture(weights=np.array(w) / sum(w), means=means, vars=var))
    return out[0], out[1], float(rng.uniform(1.5, 4.0)), float(10 ** rng.uniform(-4.3, -3.3))


def _diverges(a, b, alpha, theta):
    """alpha / V_a < (alpha - 1) / V_b in exact rationals (V: largest noisy variance): the integral is infinite."""
    t = Fraction(theta) ** 2
    va, vb = (max(Fraction(float(x)) for x in c.components().vars) + t for c in (a, b))
    return Fraction(alpha) / va < (Fraction(alpha) - 1) / vb


def _check_random(seed):
    p, q, alpha, theta = _random_pair(seed)
    orders = ((p, q), (q, p))
    finite = [not _diverges(a, b, alpha, theta) for a, b in orders]
    truth = judge(p, q, alpha, theta) if any(finite) else (None, None)
    for (a, b), ref, fin in zip(orders, truth, finite, strict=True):
        val, err = renyi_divergence_bound(a, b, alpha, theta * theta)
        if not fin:  # the Gaussian tails grow: D = inf (mpmath's quad returns a finite number there)
            assert val == np.inf
            continue
        assert abs(val - ref) <= err, (seed, val, ref, err)


def test_tails_of_a_cluster_far_from_a_wide_component_are_resolved():
    """Seed 0: at the scale calibrate used to return (2.893154e-4) rpp said 0.49999999897 +- 1e-13, true 0.50000047535.

    The cluster's own tails lay in one panel ~1e5 wide (breakpoints from the middle of all the
    means only); at theta ~ 1e-4 a rise before a crossing of q's components made the true D ~ 1e16
    (rpp: 50).
    """
    p, q, alpha, _ = _random_pair(0)
    theta = 0.0002893154013122252
    truth = judge(p, q, alpha, theta)
    for (a, b), ref in zip(((p, q), (q, p)), truth, strict=True):
        val, err = renyi_divergence_bound(a, b, alpha, theta * theta)
        assert abs(val - ref) <= err, (val, ref, err)


@pytest.mark.parametrize("seed", [0, 2])
@pytest.mark.deep
def test_error_contains_the_truth_on_random_far_pairs(seed):
    _check_random(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, *range(3, 22)])
def test_error_contains_the_truth_on_random_far_pairs_slow(seed):
    _check_random(seed)


@pytest.mark.deep
def test_the_estimate_of_many_atoms_far_apart_is_finite_and_holds_the_truth():
    """More than 30 atoms (the binned sums of the estimate path): a cluster at 1e9 and one atom at 0.1.

    Nodes between the cluster and the atom are ~5e8 from every atom: the window of atoms they sum was
    empty after rounding (density -inf, the estimate's error inf, 5832 RuntimeWarnings) and its
    truncation bound a difference of two numbers near 1e24 (error 1e304); ``calibrate`` then took 68 s
    to return 5e5 times the noise needed. Judged by mpmath (the grid judge of test_convex_proved).
    """
    from test_convex_proved import judge as grid_judge

    rng = np.random.default_rng(5)
    base, n = 1e9, 34
    xs = np.concatenate([base + rng.uniform(0, 3e-4, size=n), [0.1]])
    ys = np.concatenate([base + 1e-4 + rng.uniform(0, 3e-4, size=n), [0.1]])
    w = np.concatenate([np.full(n, 0.99 / n), [0.01]])
    p, q = rpp.Empirical(xs, weights=w), rpp.Empirical(ys, weights=w)
    grid = np.concatenate([np.linspace(base - 8e-3, base + 9e-3, 40), np.linspace(0.1 - 8e-3, 0.1 + 8e-3, 9)])
    theta = 3e-4
    for a, b, ca, cb in ((p, q, xs, ys), (q, p, ys, xs)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no RuntimeWarning either
            got = rpp.renyi_divergence(a, b, alpha=3, noise=rpp.GaussianNoise(theta), require="estimate")
        assert got.error < 1e-9
        truth = grid_judge((w, ca, np.zeros(n + 1)), (w, cb, np.zeros(n + 1)), 3.0, theta, rtol=1e-10, grid=grid)
        assert abs(got.value - truth) <= got.error + 1e-9 * truth, (got, truth)
    cal = rpp.calibrate(p, q, alpha=3, epsilon=0.5, require="estimate")
    assert 1e-4 < cal.scale < 3e-4  # the noise needed, not 5e5 times it
