"""The package's structure: public surface, light import, POT optional (the layers: tests/test_layers.py)."""

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rpp

PKG = Path(rpp.__file__).parent


def test_public_surface_documented():
    for name in rpp.__all__:
        obj = getattr(rpp, name)
        assert obj.__doc__ and obj.__doc__.strip(), name
    for sub in (
        "noise",
        "rules",
        "pufferfish",
        "transport",
        "divergence",
        "priors",
        "calibration",
        "accounting",
        "gmm",
    ):
        mod = importlib.import_module(f"rpp.{sub}")
        assert isinstance(mod.__all__, list) and mod.__all__, sub
        for name in mod.__all__:
            assert hasattr(mod, name), (sub, name)


#: The names the chapters import, per module: each must stay importable from there and callable.
CHAPTER_NAMES = {
    "rpp": "Empirical Gaussian GaussianMixture PrivacyWarning bic_curve calibrate component_coupling "
    "discrete_renyi_divergence fit_gmm gaussian_renyi quantile_coupling renyi_divergence w_infinity wasserstein",
    "rpp.divergence": "laplace_noisy_logpdf laplace_rdp_scale laplace_shift_divergence log_laplace_shift_integral "
    "renyi_divergence_bound laplace_renyi_divergence_bound",
    "rpp.rules": "alpha_wasserstein two_sided_geometric_renyi w_alpha_log_moment closed_form_variance "
    "published_bisection_variance",
    "rpp.transport": "gaussian_w2_squared",
    "rpp.pufferfish": "two_state_ab_exact",
    "rpp_book.composition_examples": "example1_mechanism",
    "rpp_book.experiments": "sweep",
    "rpp_book.queries": "raw_priors",
}


@pytest.mark.parametrize("module", sorted(CHAPTER_NAMES))
def test_names_the_chapters_use_stay_importable(module):
    mod = importlib.import_module(module)
    missing = [n for n in CHAPTER_NAMES[module].split() if not callable(getattr(mod, n, None))]
    assert not missing, f"{module}: {missing}"


def test_the_book_examples_keep_their_data():
    from rpp_book import composition_examples as examples
    from rpp_book import experiments

    assert examples.ASIA["asia"][1][()] == 0.01 and len(examples.CAPTURE24_STATES) == 11
    assert experiments.PAPER_SETTINGS["adult"]["x"] == "education-num"


def test_import_is_light():
    # the top level imports its names eagerly (numpy and scipy are the runtime); never the book support
    code = (
        "import sys, rpp; heavy = [m for m in ('sklearn', 'pandas', 'ot', 'sympy', 'matplotlib', 'rpp_book') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
    code = (
        "import sys; from rpp import calibrate, fit_gmm, Gaussian; heavy = [m for m in "
        "('sklearn', 'pandas', 'ot', 'sympy', 'matplotlib') if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def _without_pot(monkeypatch):
    monkeypatch.setitem(sys.modules, "ot", None)  # `import ot` now raises ImportError
    with pytest.raises(ImportError):
        import ot  # noqa: F401


@pytest.mark.parametrize("seed", range(24))
def test_optimal_plan_matches_pot(seed, monkeypatch):
    """scipy's linprog (small plans, and large ones without POT) against POT's ot.emd, the oracle."""
    import ot

    import rpp.transport as T

    rng = np.random.default_rng(seed)
    k, m = rng.integers(1, 11, size=2) if seed < 20 else rng.integers(51, 70, size=2)  # > 2500 cells
    a, b = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(m))
    C = rng.exponential(size=(k, m))  # continuous costs: the optimal plan is unique (a.s.)
    oracle = ot.emd(a, b, C)
    _without_pot(monkeypatch)  # large plans too: linprog's sparse program
    plan = T.optimal_plan(a, b, C)
    assert (C.size <= T.LINPROG_MAX_CELLS) == (seed < 20)
    assert np.allclose(plan.sum(axis=1), a, atol=1e-9) and np.allclose(plan.sum(axis=0), b, atol=1e-9)
    assert np.sum(plan * C) == pytest.approx(np.sum(oracle * C), rel=1e-9, abs=1e-12)
    assert np.allclose(plan, oracle, atol=1e-8)


def test_small_plans_do_not_import_pot():
    import subprocess

    code = (
        "import sys; from rpp.transport import optimal_plan; "
        "optimal_plan([0.5, 0.5], [0.2, 0.8], [[0.0, 1.0], [1.0, 0.0]]); print('ot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_calibration_without_pot(monkeypatch):
    P = rpp.GaussianMixture(weights=[0.2, 0.5, 0.3], means=[-2.0, 0.0, 3.0], vars=[0.5, 1.0, 0.7])
    Q = rpp.GaussianMixture(weights=[0.6, 0.4], means=[-1.0, 2.0], vars=[0.8, 0.4])
    ref = {m: rpp.calibrate(P, Q, alpha=3.0, epsilon=0.5, method=m) for m in ("gmm-ot", "gmm-ot-tight")}
    plan = rpp.component_coupling(P, Q)
    _without_pot(monkeypatch)
    assert np.allclose(rpp.component_coupling(P, Q), plan, atol=1e-9)
    for m, r in ref.items():
        cal = rpp.calibrate(P, Q, alpha=3.0, epsilon=0.5, method=m)
        assert cal.within_budget
        assert cal.scale == pytest.approx(r.scale, rel=1e-6)


def test_reducible_chain_raises():
    from rpp.pufferfish import stationary_distribution

    with pytest.raises(ValueError, match="reducible"):
        stationary_distribution(np.eye(2))
    with pytest.raises(ValueError, match="reducible"):
        stationary_distribution([[1.0, 0.0], [0.5, 0.5]])
    assert np.allclose(stationary_distribution([[0.5, 0.5], [1.0, 0.0]]), [2 / 3, 1 / 3])


def test_noise_objects():
    from rpp.noise import GaussianNoise, LaplaceNoise

    P, Q = rpp.Empirical([0.0, 1.0]), rpp.Empirical([0.5, 2.0])
    for cls, name in ((GaussianNoise, "gaussian"), (LaplaceNoise, "laplace")):
        cal = rpp.calibrate(P, Q, alpha=2.0, epsilon=0.5, noise=name)
        noise = cls(cal.scale)
        assert noise.variance == pytest.approx(cal.variance)
        val, err = (_c := noise.divergence(P, Q, alpha=2.0)).value, _c.error
        assert val + err <= 0.5 * (1 + 1e-9)
        pair = rpp.calibration.pair_divergence(P, Q, alpha=2.0, scale=cal.scale, noise=name, require="proved")
        assert (pair.value, pair.error) == (cal.divergence, cal.divergence_error)
        with pytest.raises(TypeError, match="rng"):
            noise.release(0.0, rng="seed")


def test_noise_objects_are_values():
    import rpp

    assert rpp.GaussianNoise(2.0) == rpp.GaussianNoise(2.0)
    assert rpp.GaussianNoise(2.0) != rpp.LaplaceNoise(2.0)
    assert rpp.GaussianNoise(2.0) != rpp.GaussianNoise(2.5)
    assert len({rpp.GaussianNoise(2.0), rpp.GaussianNoise(2.0), rpp.LaplaceNoise(2.0)}) == 2
    noise = rpp.GaussianNoise(2.0)
    import pytest

    with pytest.raises(AttributeError, match="immutable"):
        noise.scale = 3.0
