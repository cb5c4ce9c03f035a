"""A noise family by name or as its class, everywhere a family is asked for (issue #37, item 1).

The class stands for its family: the results are the same numbers as with the name, and a noise
*object* (which carries a scale) is refused by name where a family is asked for.
"""

import pytest

import rpp
from rpp import rules
from rpp.accounting import calibrate_releases, releases_divergence
from rpp.calibration import methods, pair_divergence

P, Q = rpp.Empirical([0.0, 1.0, 1.5]), rpp.Empirical([0.5, 2.0])
G1, G2 = rpp.Gaussian(mean=0.0, var=1.0), rpp.Gaussian(mean=2.0, var=1.5)


@pytest.mark.parametrize(("name", "cls"), [("gaussian", rpp.GaussianNoise), ("laplace", rpp.LaplaceNoise)])
def test_the_class_gives_what_the_name_gives(name, cls):
    kw = {"alpha": 2.0, "epsilon": 1.0}
    assert methods(cls) == methods(name)
    assert (
        rpp.calibrate(P, Q, **kw, noise=cls, require="estimate").scale
        == rpp.calibrate(P, Q, **kw, noise=name, require="estimate").scale
    )
    assert rules.exact(P, Q, **kw, noise=cls) == rules.exact(P, Q, **kw, noise=name)
    assert rules.pierquin(P, Q, **kw, noise=cls) == rules.pierquin(P, Q, **kw, noise=name)
    assert rules.w_alpha(P, Q, **kw, noise=cls) == rules.w_alpha(P, Q, **kw, noise=name)
    a = pair_divergence(P, Q, alpha=2.0, scale=0.7, noise=cls)
    b = pair_divergence(P, Q, alpha=2.0, scale=0.7, noise=name)
    assert (a.value, a.error) == (b.value, b.error)


def test_repeated_releases_take_the_gaussian_class():
    a = releases_divergence(G1, G2, alpha=3.0, scale=2.0, k=[1, 4], noise=rpp.GaussianNoise)
    b = releases_divergence(G1, G2, alpha=3.0, scale=2.0, k=[1, 4])
    assert list(a.value) == list(b.value)
    assert calibrate_releases(G1, G2, alpha=3.0, epsilon=1.0, k=3, noise=rpp.GaussianNoise).scale == (
        calibrate_releases(G1, G2, alpha=3.0, epsilon=1.0, k=3).scale
    )
    with pytest.raises(ValueError, match="noise must be 'gaussian'"):
        releases_divergence(G1, G2, alpha=3.0, scale=2.0, k=[1], noise=rpp.LaplaceNoise)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (rpp.GaussianNoise(1.0), "got a GaussianNoise object: its scale is not used here"),
        ("normal", "an unknown name"),
        (int, r"noise must be one of \['gaussian', 'laplace'\] or a noise class"),
        (3, "noise must be one of"),
    ],
)
def test_anything_else_is_refused_by_name(bad, says):
    with pytest.raises(ValueError, match=says):
        rpp.calibrate(P, Q, alpha=2.0, epsilon=1.0, noise=bad)
    with pytest.raises(ValueError, match=says):
        rules.exact(P, Q, alpha=2.0, epsilon=1.0, noise=bad)
