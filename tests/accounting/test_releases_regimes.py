"""calibrate_releases in the nasty regimes, against an independent closed form in both orders.

k releases at scale theta are one release at variance theta^2/k (rpp.accounting._releases);
the check here does not use that module: it evaluates the Gaussian closed form
D_alpha(N(mu_i, s_i^2 + t) || N(mu_j, s_j^2 + t)) directly (Yang et al. 2026, Cor. III.3).
"""

import numpy as np
import pytest

import rpp
from rpp.accounting import calibrate_releases


def closed_form(mi, vi, mj, vj, a):
    """D_alpha between two Gaussians, +inf outside the domain (1-a) vi + a vj > 0."""
    vs = (1 - a) * vi + a * vj
    if vs <= 0:
        return np.inf
    return a * (mi - mj) ** 2 / (2 * vs) + (np.log(vs) - (1 - a) * np.log(vi) - a * np.log(vj)) / (2 * (1 - a))


CASES = [  # (mu_i, var_i, mu_j, var_j, alpha, epsilon)
    (0.0, 1.0, 0.0, 4.0, 3.0, 0.5),  # equal means, unequal variances
    (0.0, 4.0, 1.0, 0.25, 30.0, 1.0),  # sigma_j < sigma_i, large alpha
    (0.0, 1.0, 2.0, 1.5, 2.0, 1e-4),  # tiny epsilon
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("k", [1, 3, 25])
def test_k_releases_meet_the_budget_in_both_orders_and_no_less_noise_suffices(case, k):
    mi, vi, mj, vj, a, e = case
    cal = calibrate_releases(rpp.Gaussian(mean=mi, var=vi), rpp.Gaussian(mean=mj, var=vj), alpha=a, epsilon=e, k=k)
    t = cal.scale**2 / k
    worst = max(closed_form(mi, vi + t, mj, vj + t, a), closed_form(mj, vj + t, mi, vi + t, a))
    assert worst <= e * (1 + 1e-9)
    t_less = (cal.scale * (1 - 1e-6)) ** 2 / k
    less = max(closed_form(mi, vi + t_less, mj, vj + t_less, a), closed_form(mj, vj + t_less, mi, vi + t_less, a))
    assert less > e  # the returned scale is (to 1e-6) the smallest that meets the budget
