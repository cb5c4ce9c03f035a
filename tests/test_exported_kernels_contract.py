"""The kernels exported by issue #37 (one path per name) under the error contract of issue #34, item 5.

Exporting them from their package brought them under ``tests/test_api_fuzz.py`` for the first time;
these are the breaches it found, each pinned by its own case, with the value judged by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rpp
from rpp.divergence import laplace_renyi_divergence, laplace_renyi_divergence_bound, proved_discrete
from rpp.pufferfish import hockey_stick_divergence
from rpp.rules import closed_form_variance, published_bisection_variance


@pytest.fixture(autouse=True)
def _runtime_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


@pytest.mark.parametrize(
    ("args", "bisection"),
    [
        ((1e300, 1.0, -1e300, 1.0, 2.0, 1.0), np.inf),  # (mu_i - mu_j)^2 overflows: R starts at +inf
        ((0.0, 1.0, 0.0, 1e300, 2.0, 1e10), 0.0),  # 2 eps delta overflows; equal means: R starts at 0
    ],
)
def test_the_closed_form_beyond_the_double_range_is_inf_never_zero(args, bisection):
    mi, vi, mj, vj, a, e = args
    assert closed_form_variance(mi, vi, mj, vj, alpha=a, epsilon=e) == np.inf
    # Algorithm 1 as published starts its bracket at R = alpha (mu_i - mu_j)^2 / (2 eps) (it can
    # under-noise: documented); at equal means that is 0, returned as it is
    assert published_bisection_variance(mi, vi, mj, vj, alpha=a, epsilon=e) == bisection


def test_the_hockey_stick_at_an_overflowing_epsilon_keeps_the_mass_where_q_is_zero():
    # delta(eps) = sum max(0, p - e^eps q): with e^eps = inf, the points with q = 0 keep p
    assert hockey_stick_divergence([0.2, 0.3, 0.5], [0.0, 0.5, 0.5], 1e300) == pytest.approx(0.2, abs=0)
    assert hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], 1e300) == 0.0
    assert list(hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], np.array([0.0, 1e300]))) == [0.25, 0.0]


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e-151])
def test_a_laplace_scale_too_small_to_compute_is_refused_by_name(scale):
    p, q = rpp.Gaussian(mean=0.0, var=1.0), rpp.Gaussian(mean=1.0, var=1.0)
    for call in (
        lambda: laplace_renyi_divergence_bound(p, q, 2.0, scale),
        lambda: laplace_renyi_divergence(p, q, 2.0, scale),
        lambda: rpp.renyi_divergence(p, q, alpha=2.0, noise=rpp.LaplaceNoise(scale)),
    ):
        with pytest.raises(ValueError, match=r"^scale must be >= "):
            call()
    # two atoms: the divergence, about |x - y| / b, leaves the double range only at 5e-324
    e1, e2 = rpp.Empirical([0.0]), rpp.Empirical([1.0])
    if scale == 5e-324:
        with pytest.raises(ValueError, match=r"^scale is too small for these atoms"):
            laplace_renyi_divergence_bound(e1, e2, 2.0, scale)
    else:  # Mironov 2017, Prop. 6: D_alpha = t + log(...)/(alpha - 1) ~ t = 1/b for large t
        val, err = laplace_renyi_divergence_bound(e1, e2, 2.0, scale)
        assert abs(val - 1 / scale) <= 1e-12 / scale and err < 1e-12 / scale


def test_the_proved_discrete_divergence_refuses_what_it_cannot_enclose():
    e1, e2 = rpp.Empirical([0.0, 1.0]), rpp.Empirical([0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match=r"^prior_i must be an rpp\.Empirical prior"):
        proved_discrete(0.5, e2, 2.0)
    with pytest.raises(TypeError, match=r"^prior_j must be an rpp\.Empirical prior"):
        proved_discrete(e1, rpp.Gaussian(mean=0.0, var=1.0), 2.0)
    with pytest.raises(ValueError, match=r"^alpha"):
        proved_discrete(e1, e2, float("nan"))
    with pytest.raises(ValueError, match=r"^alpha is too large for a proved enclosure"):
        proved_discrete(e1, e2, 1e300)
    c = proved_discrete(e1, e2, 2.0)  # log(3/8 + 3/4), by hand
    assert c.rigorous and c.lower <= np.log(9 / 8) <= c.upper
