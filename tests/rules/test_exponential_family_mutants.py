"""Issue #35, item 4: tests that kill mutants of ``rpp/rules/_exponential_family.py``.

What is checked, each against a judge independent of ``rpp`` (mpmath at 50 digits, or a closed
form), with the monotone coupling of two equal-size samples written out in the test (sorted atoms
paired, mass 1/n each):

* :func:`exponential_family`: the scale 1/eta solves log sum m e^{kappa eta c} = (alpha - 1) eps,
  kappa = alpha ("paper") or alpha - 1 ("sharp"), for |z| and for the metric sqrt|z|; point masses
  give kappa |d| / ((alpha - 1) eps) exactly; identical priors 0; the cost checks refuse non-metrics;
* :func:`two_sided_geometric_renyi`: the divergence is the brute-force mpmath sum of
  P_i(y)^alpha P_j(y)^(1 - alpha) over the integers (tails to 60 scales), alpha below and above 1;
* :func:`alpha_below_one`: the Laplace scale solves sum m e^{-k d / b} = e^{(alpha - 1) eps},
  k = alpha ("paper") or min(alpha, 1 - alpha) ("sharp"), and is 0 when the coupling's zero-distance
  mass already meets it.

Mutation score (mutmut 2.5.1's operators, /tmp/mut35/harness.py, fork per mutant). Tests run on
each mutant: the doctests of rpp/rules/_exponential_family.py, tests/test_parametrisation.py and
tests/rules/test_wasserstein.py -k "geometric or exponential or below_one or clear_value"
(-m "not slow"; 5 s clean), and this file for the "after" run.

* before: 139 / 206 killed (67.5 %), 0 timeouts;
* after: 180 / 206 killed (87.4 %), 0 timeouts (41 of the 67 survivors killed: the metric checks,
  the span and scale limits of the geometric divergence, argument names, ``k`` of the "sharp"
  alpha < 1 rule, the start rates that under/overflow at the ends of the double range, the refusal
  of a scale below 1e-300).
* left alive (26): message text, not a documented contract (3, 7, 21, 36, 138, 148); the symmetry
  tolerance ``rtol=2e-12`` of the metric check (33, an implementation constant); ``alpha <= 1``
  (142: alpha = 1 is refused earlier by the validator); ``eta >= 0`` / ``t >= 0`` (62, 192: the
  start rate is feasible, so the root is >= start > 0); the overflow guards ``1/eta < inf``
  (65-68, 195-198: without them step_up(inf) returns inf, the same answer; ``2/eta`` moves the
  boundary by one binade at the bottom of the subnormals); the step-up predicates ``< 0`` and
  ``<= 1`` (73, 74, 203, 204: the root finder's point is already feasible, the guard moves by
  ulps); ``y`` up to ``hi + 1`` (102: the geometric tail from hi + 1 is the same sum);
  ``start <= 1e300`` / ``< 2e300`` (184, 185: largest_feasible itself returns inf past 1e300);
  ``m[d == 0].sum() > exp(target)`` (168: an exact float tie -- see the note below).

Found and fixed: at that tie the rule returned b = 0 although, in exact arithmetic, the bound is
exceeded by one rounding: alpha_below_one(Empirical([0., 1.]), Empirical([0., 5.]), alpha=0.5,
epsilon=2 * math.log(2.0)) was 0.0, and D_alpha of the two priors without noise is
2 ln 2 = epsilon + 4.6e-17 (mpmath): np.exp(target) rounds to exactly the zero-distance mass 1/2.
The zero-noise test now keeps a margin of 4 ulps; at the tie the rule refuses
(test_zero_noise_is_not_returned_at_a_float_tie).
"""

import math

import mpmath as mp
import numpy as np
import pytest

from rpp import Empirical
from rpp.rules import alpha_below_one, exponential_family, two_sided_geometric_renyi

DPS = 50
REL = 1e-10


def _pairs(xs, ys):
    """The monotone coupling of two equal-size equal-weight samples: sorted atoms paired, mass 1/n."""
    xs, ys = sorted(xs), sorted(ys)
    return [(x - y, mp.mpf(1) / len(xs)) for x, y in zip(xs, ys, strict=True)]


def _ef_scale_mp(xs, ys, a, e, kappa, cost=abs):
    """1/eta with log sum m exp(kappa eta c(d)) = (a - 1) e (increasing in eta), at 50 digits."""
    with mp.workdps(DPS):
        pairs = [(mp.mpf(cost(mp.mpf(d))), m) for d, m in _pairs(xs, ys)]
        target = (mp.mpf(a) - 1) * mp.mpf(e)

        def h(eta):
            return mp.log(mp.fsum(m * mp.exp(mp.mpf(kappa) * eta * c) for c, m in pairs)) - target

        lo, hi = mp.mpf(0), target / (mp.mpf(kappa) * max(c for c, _ in pairs))  # h(hi) >= 0
        while h(hi) < 0:
            hi *= 2
        return 1 / mp.findroot(h, (lo, hi), solver="anderson")


EF_CASES = [
    ([0.0, 1.0, 3.0], [0.5, 2.5, 2.5], 2.0, 1.0),
    ([0.0, 1.0, 3.0, 4.0], [-1.0, 1.0, 1.5, 7.0], 3.5, 0.3),
    ([0.0, 2.0], [0.0, 5.0], 1.2, 2.0),
]


@pytest.mark.parametrize("rule", ["paper", "sharp"])
@pytest.mark.parametrize(("xs", "ys", "a", "e"), EF_CASES)
def test_exponential_family_scale_solves_eq13(xs, ys, a, e, rule):
    """Kills the sign/operator mutants of the condition (``lm + kappa eta c``, ``- target``, ``kappa =
    alpha - 1`` for "sharp", ``target = (alpha - 1) eps``, ``d = x - y``, the step-up of the scale): the
    scale is the mpmath root of eq. (13) within 1e-10 (relative), for both orders of the priors."""
    kappa = a if rule == "paper" else a - 1
    ref = float(_ef_scale_mp(xs, ys, a, e, kappa))
    got = exponential_family(Empirical(xs), Empirical(ys), alpha=a, epsilon=e, rule=rule)
    assert got == pytest.approx(ref, rel=REL)
    assert exponential_family(Empirical(ys), Empirical(xs), alpha=a, epsilon=e, rule=rule) == pytest.approx(
        ref, rel=REL
    )


def test_exponential_family_default_rule_and_custom_metric():
    """Kills the default ``rule="paper"`` and ``cost = np.abs if cost is None`` -> ``is not None``: the
    default is the paper's kappa = alpha; a metric cost sqrt|z| is used as given (mpmath root)."""
    xs, ys, a, e = EF_CASES[1]
    assert exponential_family(Empirical(xs), Empirical(ys), alpha=a, epsilon=e) == pytest.approx(
        float(_ef_scale_mp(xs, ys, a, e, a)), rel=REL
    )
    got = exponential_family(Empirical(xs), Empirical(ys), alpha=a, epsilon=e, cost=lambda z: np.sqrt(np.abs(z)))
    assert got == pytest.approx(float(_ef_scale_mp(xs, ys, a, e, a, cost=lambda z: mp.sqrt(abs(z)))), rel=REL)


@pytest.mark.parametrize(("d", "a", "e"), [(1.0, 2.0, 1.0), (3.0, 1.5, 0.2), (0.25, 10.0, 4.0)])
def test_exponential_family_point_masses_closed_form(d, a, e):
    """Point masses: one pair, kappa eta |d| = (alpha - 1) eps, scale kappa |d| / ((alpha - 1) eps)."""
    for rule, kappa in (("paper", a), ("sharp", a - 1)):
        got = exponential_family(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e, rule=rule)
        assert got == pytest.approx(kappa * d / ((a - 1) * e), rel=1e-12)


def test_exponential_family_identical_priors_and_cost_checks():
    """Kills ``np.all(c == 0)`` -> ``!= 0`` / ``== 1``, ``return 0.0`` -> ``1.0`` and the metric checks
    (``c < 0`` -> ``<= 0`` / ``< 1``, ``cost(0) != 0``, ``cost(-d)``, the shape checks): identical
    priors need no noise (D = 0); a cost with c(0) = 1, an asymmetric one, a negative one, one of the
    wrong shape are refused; a metric with values in (0, 1) (0.5 |z|) is accepted (mpmath root)."""
    assert exponential_family(Empirical([0.0, 1.0]), Empirical([1.0, 0.0]), alpha=2.0, epsilon=1.0) == 0.0
    E0, E1 = Empirical([0.0, 1.0]), Empirical([0.5, 3.0])
    for bad, msg in [
        (lambda z: np.abs(z) + 1.0, "metric"),
        (lambda z: np.where(z > 0, z, -2 * z), "metric"),
        (lambda z: np.where(z > 0, z, -1.1 * z), "metric"),  # asymmetric by less than 1 (``atol``)
        (lambda z: z, "non-negative"),
        (lambda z: np.abs(z)[:1], "same shape"),
        (lambda z: np.abs(z) * np.inf, "finite"),
    ]:
        with pytest.raises(ValueError, match=msg):
            exponential_family(E0, E1, alpha=2.0, epsilon=1.0, cost=bad)
    got = exponential_family(E0, E1, alpha=2.0, epsilon=1.0, cost=lambda z: 0.5 * np.abs(z))
    ref = float(_ef_scale_mp([0.0, 1.0], [0.5, 3.0], 2.0, 1.0, 2.0, cost=lambda z: abs(z) / 2))
    assert got == pytest.approx(ref, rel=REL)


def test_exponential_family_refusals_name_the_problem():
    """Kills ``not (isinstance and isinstance)`` -> ``(... or ...)`` / ``rule in`` / the rule names: a
    non-Empirical prior and an unknown rule are refused; "sharp" is accepted."""
    from rpp import Gaussian

    with pytest.raises(ValueError, match=r"two rpp\.Empirical"):
        exponential_family(Empirical([0.0]), Gaussian(mean=0, var=1), alpha=2.0, epsilon=1.0)
    with pytest.raises(ValueError, match=r"two rpp\.Empirical"):
        exponential_family(Gaussian(mean=0, var=1), Empirical([0.0]), alpha=2.0, epsilon=1.0)
    with pytest.raises(ValueError, match="rule must be"):
        exponential_family(Empirical([0.0]), Empirical([1.0]), alpha=2.0, epsilon=1.0, rule="tight")


def _geo_mp(xs, ys, a, b, pad=60):
    """D_a after two-sided geometric noise of scale b: brute-force sum over lo - pad b .. hi + pad b."""
    with mp.workdps(DPS):
        a, eta = mp.mpf(a), 1 / mp.mpf(b)
        r = mp.exp(-eta)
        norm = (1 - r) / (1 + r)
        lo, hi = min(xs + ys), max(xs + ys)
        k = int(pad * b) + 1

        def pmf(atoms, y):
            return mp.fsum(norm * r ** abs(y - x) for x in atoms) / len(atoms)

        s = mp.fsum(pmf(xs, y) ** a * pmf(ys, y) ** (1 - a) for y in range(int(lo) - k, int(hi) + k + 1))
        return mp.log(s) / (a - 1)


@pytest.mark.parametrize(("a", "b"), [(2.0, 1.0), (0.5, 2.0), (3.5, 0.5), (1.5, 3.0)])
def test_two_sided_geometric_is_the_brute_force_sum(a, b):
    """Kills the mutants of the pmf, its normalisation, the geometric tails and the final ``/ (alpha -
    1)``: the divergence matches the mpmath sum over the integers (tails to 60 scales: the rest is
    below e^-60) within 1e-12 (relative)."""
    xs, ys = [0.0, 2.0, 5.0], [1.0, 1.0, 3.0]
    got = two_sided_geometric_renyi(Empirical(xs), Empirical(ys), alpha=a, scale=b)
    assert got == pytest.approx(float(_geo_mp(xs, ys, a, b)), rel=1e-12)


def test_two_sided_geometric_refusals_and_limits():
    """Kills the argument names and the documented limits: a non-Empirical or non-integer prior (named),
    ``scale`` <= 0 (named), ``scale < 1e-300`` (``<=`` and ``2e-300`` mutants: 1e-300 and 1.5e-300 are
    accepted; there point masses 0 and 1 are at D_2 = eta + O(e^-eta) = 1 / scale, closed form), the
    span ``hi - lo > 10**6`` (a span of exactly 10**6 is accepted, 1.5e6 refused; 6e5 .. 1.2e6, a span
    of 6e5, is accepted although hi + lo > 10**6)."""
    from rpp import Gaussian

    E0, E1 = Empirical([0.0]), Empirical([1.0])
    with pytest.raises(ValueError, match=r"^prior_i must be an rpp\.Empirical"):
        two_sided_geometric_renyi(Gaussian(mean=0, var=1), E0, alpha=2.0, scale=1.0)
    with pytest.raises(ValueError, match=r"^prior_j must be integer-valued"):
        two_sided_geometric_renyi(E0, Empirical([0.5]), alpha=2.0, scale=1.0)
    with pytest.raises(ValueError, match=r"^scale must be > 0"):
        two_sided_geometric_renyi(E0, E1, alpha=2.0, scale=0.0)
    with pytest.raises(ValueError, match=r"^scale must be >= 1e-300"):
        two_sided_geometric_renyi(E0, E1, alpha=2.0, scale=1e-301)
    for b in (1e-300, 1.5e-300):
        assert two_sided_geometric_renyi(E0, E1, alpha=2.0, scale=b) == pytest.approx(1 / b, rel=1e-12)
    with pytest.raises(ValueError, match=r"^the integer support spans more than 10\*\*6"):
        two_sided_geometric_renyi(E0, Empirical([1.5e6]), alpha=2.0, scale=1.0)
    assert two_sided_geometric_renyi(E0, Empirical([1e6]), alpha=2.0, scale=1e5) > 0
    assert two_sided_geometric_renyi(Empirical([6e5]), Empirical([1.2e6]), alpha=2.0, scale=1e5) > 0


def _below_one_scale_mp(xs, ys, a, e, k):
    """b with sum m exp(-k |d| / b) = exp((a - 1) e), at 50 digits (decreasing in t = 1/b)."""
    with mp.workdps(DPS):
        pairs = [(abs(mp.mpf(d)), m) for d, m in _pairs(xs, ys)]
        target = (mp.mpf(a) - 1) * mp.mpf(e)

        def h(t):
            return target - mp.log(mp.fsum(m * mp.exp(-mp.mpf(k) * d * t) for d, m in pairs))

        hi = mp.mpf(1)
        while h(hi) < 0:
            hi *= 2
        return 1 / mp.findroot(h, (mp.mpf(0), hi), solver="anderson")


@pytest.mark.parametrize("rule", ["paper", "sharp"])
@pytest.mark.parametrize(("a", "e"), [(0.5, 0.1), (0.2, 0.5), (0.9, 0.05)])
def test_alpha_below_one_scale_solves_the_condition(a, e, rule):
    """Kills the mutants of the alpha < 1 condition (``k = min(alpha, 1 - alpha)``, ``target``,
    ``g``'s signs, the start, the step-up): b is the mpmath root within 1e-10 (relative)."""
    xs, ys = [0.0, 1.0, 3.0, 4.0], [-1.0, 1.0, 1.5, 7.0]  # one pair at distance 0
    k = a if rule == "paper" else min(a, 1 - a)
    got = alpha_below_one(Empirical(xs), Empirical(ys), alpha=a, epsilon=e, rule=rule)
    assert got == pytest.approx(float(_below_one_scale_mp(xs, ys, a, e, k)), rel=REL)


def test_alpha_below_one_edges():
    """Point masses: b = k d / ((1 - alpha) eps) (the doc example: 10); identical priors: 0. Kills
    ``m[d == 0].sum() >= exp(target)`` -> ``>`` / ``<`` etc.: a coupling with zero-distance mass 3/4 needs
    noise when e^{(alpha - 1) eps} = e^-0.25 > 3/4 and none when e^-0.5 <= 3/4 (the b -> 0 limit meets
    the condition). alpha >= 1, unknown rules and non-Empirical priors are refused."""
    assert alpha_below_one(Empirical([0.0]), Empirical([1.0]), alpha=0.5, epsilon=0.1) == pytest.approx(10.0, rel=1e-12)
    assert alpha_below_one(Empirical([0.0]), Empirical([2.0]), alpha=0.25, epsilon=0.1, rule="sharp") == pytest.approx(
        0.25 * 2 / (0.75 * 0.1), rel=1e-12
    )
    assert alpha_below_one(Empirical([0.0, 1.0]), Empirical([1.0, 0.0]), alpha=0.5, epsilon=0.1) == 0.0
    xs, ys = [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 9.0]
    assert alpha_below_one(Empirical(xs), Empirical(ys), alpha=0.5, epsilon=0.5) > 0
    assert alpha_below_one(Empirical(xs), Empirical(ys), alpha=0.5, epsilon=1.0) == 0.0
    assert math.exp(-0.25) > 0.75 >= math.exp(-0.5)
    for a in (1.5, 2.0):  # alpha in (1, 2) too (the ``alpha < 2`` mutant)
        with pytest.raises(ValueError, match=r"^alpha must be in \(0, 1\)"):
            alpha_below_one(Empirical([0.0]), Empirical([1.0]), alpha=a, epsilon=1.0)
    with pytest.raises(ValueError, match="rule must be"):
        alpha_below_one(Empirical([0.0]), Empirical([1.0]), alpha=0.5, epsilon=1.0, rule="tight")
    with pytest.raises(ValueError, match=r"two rpp\.Empirical"):
        alpha_below_one(Empirical([0.0]), [1.0], alpha=0.5, epsilon=1.0)


def test_exponential_family_rate_below_the_double_range():
    """Kills ``not start > 0`` -> ``not start >= 0``: point masses 1e20 apart with (alpha - 1) eps =
    2^-40 * 1e-300 need the scale kappa |d| / ((alpha - 1) eps) ~ 1e332 (closed form), beyond the double
    range, so the rule returns +inf (its start rate underflows to 0)."""
    a, e, d = 1 + 2.0**-40, 1e-300, 1e20
    assert a * d / (2.0**-40) / e == math.inf  # the closed form (computed in steps) overflows
    assert exponential_family(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e) == math.inf
    assert exponential_family(Empirical([0.0]), Empirical([d]), alpha=a, epsilon=e, rule="sharp") == math.inf


def test_tiny_budgets_stay_in_the_double_range():
    """Kills the mutants of the start rate that only seed the root search in the middle of the range
    but underflow or overflow at its ends (``target * (kappa c)``, ``target / (kappa / c)``,
    ``(1 - alpha) / eps``, ``(1 - alpha) eps (k d)``, ``(1 - alpha) eps / (k / d)``) and ``start >= 0``:
    point masses d apart have the closed forms kappa d / ((alpha - 1) eps) (eq. (13)) and
    k d / ((1 - alpha) eps) (alpha < 1), here 2e270, 1e270, 1e300 (finite) and 1e330 (+inf)."""
    E0 = Empirical([0.0])
    for rule in ("paper", "sharp"):
        kappa = 2.0 if rule == "paper" else 1.0
        got = exponential_family(E0, Empirical([1e-30]), alpha=2.0, epsilon=1e-300, rule=rule)
        assert got == pytest.approx(kappa * 1e-30 / 1e-300, rel=1e-12)
    assert alpha_below_one(E0, Empirical([1e-30]), alpha=0.5, epsilon=1e-300) == pytest.approx(1e270, rel=1e-12)
    assert alpha_below_one(E0, Empirical([1.0]), alpha=0.5, epsilon=1e-300) == pytest.approx(1e300, rel=1e-12)
    assert alpha_below_one(E0, Empirical([1e30]), alpha=0.5, epsilon=1e-300) == math.inf
    # b = 2e-300 >= 1e-300 is returned (start 5e299); ``(2 - alpha)``, ``(1 + alpha)`` would refuse it
    assert alpha_below_one(E0, Empirical([2e-300]), alpha=0.5, epsilon=1.0) == pytest.approx(2e-300, rel=1e-12)


def test_alpha_below_one_refuses_a_scale_below_1e_300():
    """Kills ``not t < inf`` -> ``not t <= inf`` and the message mutants: alpha = 1e-305 (paper, k =
    alpha) needs b = alpha d / ((1 - alpha) eps) = 1e-305 < 1e-300 (closed form), which the rule refuses
    with a ValueError naming alpha and epsilon (documented), never a ZeroDivisionError."""
    with pytest.raises(ValueError, match=r"^alpha=1e-305 and epsilon=1\.0 need a Laplace scale below 1e-300"):
        alpha_below_one(Empirical([0.0]), Empirical([1.0]), alpha=1e-305, epsilon=1.0)
    with pytest.raises(ValueError, match=r"use a larger alpha or a smaller epsilon$"):
        alpha_below_one(Empirical([0.0]), Empirical([1.0]), alpha=1e-305, epsilon=1.0)
    with pytest.raises(ValueError, match="need a Laplace scale below 1e-300"):  # b = 7e-301; start 1.4e300
        alpha_below_one(Empirical([0.0]), Empirical([7e-301]), alpha=0.5, epsilon=1.0)


def test_zero_noise_is_not_returned_at_a_float_tie():
    """The tie of the note above: the priors without noise exceed epsilon (mpmath, 50 digits), so the
    scale must not be 0 (it was 0.0). The rule's condition is then met in binary64 at every rate up to
    1e300 (the same tie), so it refuses, naming alpha and epsilon: no scale is better than a wrong one."""
    p, q, eps = Empirical([0.0, 1.0]), Empirical([0.0, 5.0]), 2 * math.log(2.0)
    with mp.workdps(50):
        # D_1/2 of (1/2, 1/2 at 0 and 1) against (1/2, 1/2 at 0 and 5): only the atom at 0 is shared,
        # sum sqrt(p q) = 1/2, so D = log(1/2) / (1/2 - 1) = 2 log 2
        d = mp.log(mp.mpf(1) / 2) / (mp.mpf(1) / 2 - 1)
        assert d > mp.mpf(eps)
    with pytest.raises(ValueError, match=r"alpha=0\.5 and epsilon="):
        alpha_below_one(p, q, alpha=0.5, epsilon=eps)
