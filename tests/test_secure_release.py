"""The release path is secure by default (issue #23, item 1; item 2 for the release path).

``GaussianNoise.release``, ``LaplaceNoise.release`` and ``ReleaseBudget`` draw through
:mod:`rpp.sampling` (exact samples of the rounded mechanism from the operating system's
entropy); an integer seed or a numpy Generator is refused unless passed as ``insecure_seed=``,
which warns and which the budget's report flags; no confidential value appears in a message.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import rpp
from rpp.sampling import InsecureNoiseWarning, default_grid, secure_gaussian, secure_laplace

PRIORS = {"a": rpp.Gaussian(mean=0.0, var=1.0), "b": rpp.Gaussian(mean=2.0, var=1.0)}
SENTINEL = 7391.0412573
NOISES = [(rpp.GaussianNoise, secure_gaussian), (rpp.LaplaceNoise, secure_laplace)]


def _forms(v: float) -> list[str]:
    return [repr(v), str(v), f"{v:g}", f"{v:.3f}", f"{v:.2f}", f"{v:.1f}", f"{v:.4g}", "7391", "7392"]


@pytest.fixture
def urandom_calls(monkeypatch):
    calls: list[int] = []
    real = os.urandom

    def counting(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(os, "urandom", counting)
    return calls


def on_grid(y, g) -> bool:
    y = np.asarray(y)
    return bool(np.array_equal(np.round(y / g) * g, y))


@pytest.mark.parametrize("cls, _", NOISES)
def test_noise_release_default_reads_os_entropy_and_rounds(urandom_calls, cls, _):
    noise = cls(scale=2.0)
    y = noise.release(np.full(50, 0.1))
    assert urandom_calls and y.shape == (50,)
    assert on_grid(y, default_grid(2.0)) and len(set(y)) > 40
    assert isinstance(noise.release(0.1), float)


@pytest.mark.parametrize("cls, sampler", NOISES)
def test_noise_release_refuses_seeds_and_generators(cls, sampler):
    noise = cls(scale=1.0)
    for bad in (0, 20261204, np.int64(3), np.random.default_rng(0)):
        with pytest.raises(ValueError, match="insecure_seed"):
            noise.release(1.0, rng=bad)
    with pytest.raises(TypeError, match="rng"):
        noise.release(1.0, rng="seed")
    with pytest.warns(InsecureNoiseWarning, match="UNSAFE"):
        y = noise.release(np.zeros(5), insecure_seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        assert np.array_equal(y, sampler(np.zeros(5), scale=1.0, insecure_seed=4))  # the sampler, exactly
        assert np.array_equal(y, noise.release(np.zeros(5), insecure_seed=4))


@pytest.mark.parametrize("cls, _", NOISES)
def test_noise_release_messages_hold_no_value(cls, _):
    noise = cls(scale=1.0)
    for call in (
        lambda: noise.release([SENTINEL, np.nan]),
        lambda: noise.release([SENTINEL, np.inf], insecure_seed=1),
        lambda: noise.release(SENTINEL, rng=1),
        lambda: noise.release(SENTINEL, rng=np.random.default_rng(1)),
        lambda: noise.release(SENTINEL, insecure_seed=-1),
    ):
        with pytest.raises((ValueError, TypeError)) as exc:
            call()
        assert not any(f in str(exc.value) for f in _forms(SENTINEL))


def test_zero_scale_releases_the_value_and_still_refuses_seeds():
    assert rpp.LaplaceNoise(scale=0.0).release(1.5) == 1.5
    with pytest.raises(ValueError, match="insecure_seed"):
        rpp.GaussianNoise(scale=0.0).release(1.5, rng=0)


def test_budget_default_is_secure_and_reported(urandom_calls):
    budget = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    y = budget.release(1.25, scale=2 * budget.scale_one)
    assert urandom_calls and on_grid(y, default_grid(2 * budget.scale_one))
    report = budget.report()
    assert budget.reproducible_noise is False
    assert report["noise source"].startswith("operating system entropy")


def test_budget_refuses_int_seeds_and_generators():
    for bad in (20261204, np.random.default_rng(3)):
        with pytest.raises(ValueError, match="insecure_seed"):
            rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, rng=bad)
    with pytest.raises(TypeError, match="rng"):
        rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, rng="seed")
    with pytest.raises(ValueError, match="insecure_seed"):
        rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, insecure_seed=-3)


def test_budget_insecure_seed_is_reproducible_flagged_and_fresh():
    with pytest.warns(InsecureNoiseWarning):
        a = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=5.0, insecure_seed=7)
        b = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=5.0, insecure_seed=7)
        ya = [a.release(0.0, scale=50.0) for _ in range(30)]
        yb = [b.release(0.0, scale=50.0) for _ in range(30)]
    assert ya == yb and len(set(ya)) == 30  # reproducible, fresh noise at each release
    assert a.reproducible_noise is True
    assert a.report()["noise source"].startswith("UNSAFE: reproducible noise")
    assert "UNSAFE" in repr(a)


def test_budget_value_mismatch_message_holds_no_value():
    """Issue #23 item 2: 'value=3.2555555555555555 differs from the first release's' leaked x_true + 1.

    Since issue #36 the budget keeps no copy of the value and compares none (a comparison would be an
    equality oracle): another value is charged like the first; a value that is not one finite number
    is refused, and the refusal holds no value either.
    """
    budget = rpp.ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    big = 10 * budget.scale_one
    budget.release(SENTINEL, scale=big)
    budget.release(SENTINEL + 1.0, scale=big)  # not compared: charged as any release
    assert len(budget.scales) == 2
    for other in ([SENTINEL, SENTINEL], np.nan, [SENTINEL, np.nan]):
        with pytest.raises(ValueError, match="value") as exc:
            budget.release(other, scale=big)
        text = str(exc.value)
        assert not any(f in text for f in _forms(SENTINEL) + _forms(SENTINEL + 1.0)), text
    with pytest.raises(ValueError, match="scale") as exc:
        budget.release(SENTINEL, scale=-1.0)
    assert not any(f in str(exc.value) for f in _forms(SENTINEL))
